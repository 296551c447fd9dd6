use pedelec::{skills, tool};

/// Sums invoices.
#[tool(callers = [program, direct, program])]
fn sum_invoices() {}

/// Reads an invoice.
#[tool(callers = [direct], callers = [program])]
fn read_invoice() {}

skills![guidance = "Use them.", tools = [sum_invoices, read_invoice]];

fn main() {}
