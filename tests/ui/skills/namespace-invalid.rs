use pedelec::{skills, tool};

/// Refund an invoice.
#[tool]
fn refund_invoice() -> bool {
    true
}

mod spaced {
    use super::refund_invoice;
    pedelec::skills![namespace = "bill ing", guidance = "Invoices.", tools = [refund_invoice]];
}

mod dotted {
    use super::refund_invoice;
    pedelec::skills![namespace = "billing.v2", guidance = "Invoices.", tools = [refund_invoice]];
}

skills![namespace = billing, guidance = "Invoices.", tools = [refund_invoice]];

fn main() {}
