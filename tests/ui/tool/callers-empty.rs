use pedelec::{skills, tool};

/// Sums invoices.
#[tool(callers = [])]
fn sum_invoices() {}

skills![guidance = "Use it.", tools = [sum_invoices]];

fn main() {}
