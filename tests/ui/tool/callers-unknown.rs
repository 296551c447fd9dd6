use pedelec::{skills, tool};

/// Sums invoices.
#[tool(callers = [direct, programmatic])]
fn sum_invoices() {}

/// Reads an invoice.
#[tool(callers = [model])]
fn read_invoice() {}

skills![guidance = "Use them.", tools = [sum_invoices, read_invoice]];

fn main() {}
