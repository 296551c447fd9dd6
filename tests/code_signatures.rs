//! Code mode's signatures (DESIGN §15): each tool's argsSchema and output schema as a
//! TypeScript signature, rendered when code mode is turned on (`pedelec::code::signature`),
//! the same for a `skills![]` set, a composed one, and a skill set read from JSON.

use pedelec::{ToolArgs, ToolOutput, skills, tool};
use serde::{Deserialize, Serialize};

#[derive(Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read by the schema, not the test")]
struct RefundArgs {
    /// The invoice to refund.
    #[serde(rename = "invoiceId")]
    invoice_id: String,
    /// How much, in cents; the whole invoice when left out.
    cents: Option<u32>,
    reason: Reason,
    tags: Vec<String>,
}

#[derive(Deserialize, ToolArgs)]
#[serde(rename_all = "snake_case")]
enum Reason {
    Duplicate,
    Fraud,
    /// Asked for by the customer.
    Requested,
}

#[derive(Serialize, ToolOutput)]
struct Refund {
    refunded: u32,
    status: String,
}

/// Refund an invoice, in full or in part.
#[tool]
fn refund_invoice(args: RefundArgs) -> Refund {
    Refund {
        refunded: args.cents.unwrap_or(100),
        status: "done".into(),
    }
}

#[derive(Deserialize, ToolArgs)]
#[allow(dead_code, reason = "read by the schema, not the test")]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Count a tree's nodes.
#[tool]
fn count_nodes(tree: Node) -> usize {
    1 + tree.children.len()
}

/// Ping.
#[tool]
fn ping() -> bool {
    true
}

mod billing {
    pedelec::skills![
        namespace = "billing",
        guidance = "Invoices.",
        tools = [super::refund_invoice]
    ];
}

skills![
    guidance = "Back office.",
    tools = [refund_invoice, count_nodes, ping]
];

mod composed {
    pedelec::skills![
        guidance = "All.",
        include = [super::billing::ToolName as Billing],
        tools = [super::ping],
    ];
}

/// Each tool's signature, in the set's order.
fn signatures<N>(skills: &pedelec::SkillsInput<N>) -> Vec<String> {
    skills
        .tools()
        .iter()
        .map(pedelec::code::signature)
        .collect()
}

#[test]
fn signatures_are_rendered_from_the_schemas() {
    let signatures = signatures(&ToolName::skills());
    expect_test::expect![[r#"
        (args: {
          /** The invoice to refund. */
          invoiceId: string;
          /** How much, in cents; the whole invoice when left out. */
          cents?: number;
          /** - `requested`: Asked for by the customer. */
          reason: "duplicate" | "fraud" | "requested";
          tags: string[];
        }): Promise<{
          refunded: number;
          status: string;
        }>
        ----
        type Node = {
          name: string;
          children: Node[];
        };
        (args: {
          name: string;
          children: Node[];
        }): Promise<number>
        ----
        (): Promise<boolean>"#]]
    .assert_eq(&signatures.join("\n----\n"));
}

#[test]
fn composed_sets_render_their_tools_in_order() {
    let sigs = signatures(&composed::ToolName::skills());
    assert_eq!(sigs.len(), 2);
    assert_eq!(sigs[0], signatures(&ToolName::skills())[0]);
    assert_eq!(sigs[1], "(): Promise<boolean>");
}
