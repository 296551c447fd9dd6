use pedelec::{skills, tool};

mod billing {
    /// Refund an invoice.
    #[pedelec::tool]
    pub fn refund_invoice() -> bool {
        true
    }

    pedelec::skills![namespace = "billing", guidance = "Invoices.", tools = [refund_invoice]];
}

/// Bill someone.
#[tool]
fn bill() -> bool {
    true
}

mod empty {
    pedelec::skills![guidance = "Nothing.", include = []];
}

mod twice {
    use super::billing;
    pedelec::skills![guidance = "Twice.", include = [billing::ToolName, billing::ToolName]];
}

mod unnamed {
    pedelec::skills![pub enum Office, guidance = "Unnamed.", include = [Office]];
}

skills![
    guidance = "Back office.",
    include = [billing::ToolName, String as Text],
    tools = [bill as Billing],
];

fn main() {}
