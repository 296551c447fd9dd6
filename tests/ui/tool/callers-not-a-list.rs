use pedelec::{skills, tool};

/// Sums invoices.
#[tool(callers = program)]
fn sum_invoices() {}

/// Reads an invoice.
#[tool(callers = ["direct", "program"])]
fn read_invoice() {}

/// Voids an invoice.
#[tool(callers = "direct")]
fn void_invoice() {}

/// Lists invoices.
#[tool(callers)]
fn list_invoices() {}

skills![guidance = "Use them.", tools = [sum_invoices, read_invoice, void_invoice, list_invoices]];

fn main() {}
