use pedelec::{skills, tool};

/// Refunds an invoice.
#[tool(defer = true)]
fn refund_invoice() {}

/// Refunds a payment.
#[tool(defer = false)]
fn refund_payment() {}

/// Finds a customer.
#[tool(defer = "yes")]
fn find_customer() {}

/// Finds a deal.
#[tool(defer(search))]
fn find_deal() {}

/// Lists deals.
#[tool(defer, defer)]
fn list_deals() {}

/// Lists customers.
#[tool(deferred)]
fn list_customers() {}

skills![
    guidance = "Use them.",
    tools = [refund_invoice, refund_payment, find_customer, find_deal, list_deals, list_customers]
];

fn main() {}
