use pedelec::{skills, tool};

mod billing {
    /// Refund an invoice.
    #[pedelec::tool]
    pub fn refund_invoice() -> bool {
        true
    }

    pedelec::skills![namespace = "billing", guidance = "Invoices.", tools = [refund_invoice]];
}

/// Check that the office answers.
#[tool]
fn ping() -> bool {
    true
}

skills![
    namespace = "office",
    guidance = "Back office.",
    include = [billing::ToolName],
    tools = [ping],
];

fn main() {}
