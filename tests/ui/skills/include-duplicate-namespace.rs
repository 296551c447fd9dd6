use pedelec::skills;

mod billing {
    /// Refund an invoice.
    #[pedelec::tool]
    pub fn refund_invoice() -> bool {
        true
    }

    pedelec::skills![namespace = "billing", guidance = "Invoices.", tools = [refund_invoice]];
}

mod payments {
    /// Charge a card.
    #[pedelec::tool]
    pub fn charge_card() -> bool {
        true
    }

    pedelec::skills![namespace = "billing", guidance = "Payments.", tools = [charge_card]];
}

skills![
    guidance = "Back office.",
    include = [billing::ToolName, payments::ToolName],
];

fn main() {}
