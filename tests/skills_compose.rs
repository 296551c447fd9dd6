//! Namespaces and composition (DESIGN §12): `skills![namespace = "billing", …]` prefixes
//! its tools' wire names; `skills![include = [billing::ToolName, crm::ToolName], …]`
//! composes sets into one enum, one manifest and one session, each tool keeping its scopes,
//! limits and deferral.

use pedelec::context::Caller;
use pedelec::export::{ExportOptions, Search, Target};
use pedelec::{CallOptions, Session, ToolArgs, skills, tool};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod billing {
    use super::{Deserialize, ToolArgs, skills, tool};

    #[derive(Debug, Deserialize, super::Serialize, ToolArgs)]
    pub struct RefundArgs {
        /// The invoice to refund.
        pub invoice_id: String,
    }

    /// Refund an invoice.
    #[tool(defer, scopes = ["billing:write"])]
    pub fn refund_invoice(args: RefundArgs) -> String {
        format!("refunded {}", args.invoice_id)
    }

    #[derive(Debug, Deserialize, ToolArgs)]
    pub struct ListArgs {
        /// The customer.
        pub customer_id: String,
    }

    /// List a customer's invoices.
    #[tool(max_concurrency = 2)]
    pub fn list_invoices(args: ListArgs) -> Vec<String> {
        vec![format!("INV-{}", args.customer_id.len())]
    }

    skills![
        namespace = "billing",
        guidance = "Invoices and refunds.",
        tools = [refund_invoice, list_invoices],
    ];
}

mod crm {
    use super::{Deserialize, Serialize, ToolArgs, skills, tool};

    #[derive(Debug, Deserialize, Serialize, ToolArgs)]
    pub struct FindArgs {
        /// A name or an email address.
        pub query: String,
    }

    /// Find a customer by name or email.
    #[tool]
    pub fn find_customer(args: FindArgs) -> String {
        format!("cus_{}", args.query.len())
    }

    skills![
        pub enum Crm,
        namespace = "crm",
        guidance = "Customers and deals.",
        tools = [find_customer],
    ];
}

#[derive(Debug, Deserialize, ToolArgs)]
struct PingArgs {}

/// Check that the back office answers.
#[tool]
fn ping(args: PingArgs) -> &'static str {
    let PingArgs {} = args;
    "pong"
}

skills![
    guidance = "Back office.",
    include = [billing::ToolName, crm::Crm as Customers],
    tools = [ping],
];

#[test]
fn a_namespace_prefixes_wire_names_and_the_typed_enum_keeps_them() {
    assert_eq!(billing::ToolName::NAMESPACE, Some("billing"));
    assert_eq!(
        billing::ToolName::RefundInvoice.as_str(),
        "billing.refund_invoice"
    );
    assert_eq!(
        "billing.list_invoices".parse::<billing::ToolName>(),
        Ok(billing::ToolName::ListInvoices)
    );
    let manifest = billing::ToolName::manifest();
    let names: Vec<&str> = manifest.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["billing.refund_invoice", "billing.list_invoices"]);
    assert_eq!(billing::ToolName::skills().namespaces().len(), 1);
}

#[test]
fn a_composed_set_is_one_enum_one_manifest() {
    assert_eq!(ToolName::NAMESPACE, None);
    let all: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
    assert_eq!(
        all,
        [
            "billing.refund_invoice",
            "billing.list_invoices",
            "crm.find_customer",
            "ping"
        ]
    );
    assert_eq!(
        ToolName::ALL[0],
        ToolName::Billing(billing::ToolName::RefundInvoice)
    );
    assert_eq!(
        ToolName::ALL[2],
        ToolName::Customers(crm::Crm::FindCustomer)
    );
    // An exhaustive match covers every child.
    let area = |tool: ToolName| match tool {
        ToolName::Billing(billing::ToolName::RefundInvoice | billing::ToolName::ListInvoices) => {
            "billing"
        }
        ToolName::Customers(crm::Crm::FindCustomer) => "crm",
        ToolName::Ping => "ops",
    };
    assert_eq!(area(ToolName::Ping), "ops");
    assert_eq!(
        "crm.find_customer".parse::<ToolName>(),
        Ok(ToolName::Customers(crm::Crm::FindCustomer))
    );
    assert_eq!(
        serde_json::to_value(ToolName::Billing(billing::ToolName::ListInvoices)).unwrap(),
        json!("billing.list_invoices")
    );
    let skills = ToolName::skills();
    assert_eq!(skills.guidance(), "Back office.");
    let names: Vec<&str> = skills
        .tools()
        .iter()
        .map(pedelec::ToolDefinition::name)
        .collect();
    assert_eq!(names, all);
    let namespaces: Vec<(&str, &str)> = skills
        .namespaces()
        .iter()
        .map(|(n, g)| (&**n, &**g))
        .collect();
    assert_eq!(
        namespaces,
        [
            ("billing", "Invoices and refunds."),
            ("crm", "Customers and deals.")
        ]
    );
    // Each tool keeps what its `#[tool]` says.
    let refund = &skills.tools()[0];
    assert!(refund.defer());
    assert_eq!(refund.scopes(), ["billing:write"]);
    assert_eq!(skills.tools()[1].max_concurrency(), Some(2));
}

#[tokio::test]
async fn one_session_runs_every_child_with_its_policy() {
    let session = Session::builder(ToolName::skills()).create().unwrap();
    let clerk = CallOptions::new().caller(Caller::new("clerk").with_scopes(["billing:write"]));
    let ok = session
        .call_with(
            "billing.refund_invoice",
            json!({"invoice_id": "INV-1"}),
            clerk,
        )
        .await;
    assert_eq!(ok.into_result().unwrap(), json!("refunded INV-1"));
    let forbidden = session
        .call("billing.refund_invoice", json!({"invoice_id": "INV-1"}))
        .await;
    assert_eq!(
        forbidden.into_result().unwrap_err().code().as_str(),
        "TOOL_FORBIDDEN"
    );
    assert_eq!(
        session
            .call("crm.find_customer", json!({"query": "ada"}))
            .await
            .into_result()
            .unwrap(),
        json!("cus_3")
    );
    // A typed key names a child's tool.
    session.on_tool_name(
        ToolName::Customers(crm::Crm::FindCustomer),
        |_args: serde_json::Value, _ctx| async { Ok::<_, pedelec::ToolError>("replaced") },
    );
    assert_eq!(
        session
            .call("crm.find_customer", json!({"query": "ada"}))
            .await
            .into_result()
            .unwrap(),
        json!("replaced")
    );
    // A namespaced set's own typed handler registers under the wire name.
    let billing = Session::builder(billing::ToolName::skills())
        .create()
        .unwrap();
    billing.on_tool::<billing::list_invoices>(|args: billing::ListArgs, _ctx| async move {
        Ok::<_, pedelec::ToolError>(vec![args.customer_id])
    });
    assert_eq!(
        billing
            .call("billing.list_invoices", json!({"customer_id": "c"}))
            .await
            .into_result()
            .unwrap(),
        json!(["c"])
    );
}

#[test]
fn openai_namespaces_carry_the_child_sets_guidance() {
    let export = ToolName::export(
        Target::OpenAiResponses,
        ExportOptions::default().search(Search::Provider),
    )
    .unwrap();
    let tools = export.tools().as_array().unwrap();
    assert_eq!(tools[0]["type"], "namespace");
    assert_eq!(tools[0]["name"], "billing");
    assert_eq!(tools[0]["description"], "Invoices and refunds.");
    assert_eq!(tools[1]["description"], "Customers and deals.");
}

#[tokio::test]
async fn the_enum_names_a_call_wherever_a_name_does() {
    let session = Session::builder(ToolName::skills()).create().unwrap();
    let tool = ToolName::Customers(crm::Crm::FindCustomer);
    let by_enum = session.call(tool, json!({"query": "ada"})).await;
    assert_eq!(by_enum.value(), Some(&json!("cus_3")));
    assert_eq!(
        by_enum,
        session
            .call("crm.find_customer", json!({"query": "ada"}))
            .await
    );
    let text = session.call_text(ToolName::Ping, "{}").await.unwrap();
    assert_eq!(text, r#""pong""#);
    // A name as text still reaches the session's checks, as a call from Core would.
    let unknown = session.call("crm.find", json!({})).await;
    assert_eq!(
        unknown.error().map(pedelec::ToolError::code),
        Some(pedelec::ErrorCode::ToolHandlerNotFound)
    );
}

#[tokio::test]
async fn a_typed_call_takes_the_args_type_and_answers_the_output_type() {
    let session = Session::builder(crm::Crm::skills()).create().unwrap();
    let id: String = session
        .call_tool::<crm::find_customer>(crm::FindArgs {
            query: "grace".into(),
        })
        .await
        .unwrap();
    assert_eq!(id, "cus_5");
    // Through the same checks as any call: a caller without the scope is refused.
    let billing = Session::builder(billing::ToolName::skills())
        .create()
        .unwrap();
    billing.on_tool::<billing::refund_invoice>(|args: billing::RefundArgs, _ctx| async move {
        Ok(format!("refunded {} by hand", args.invoice_id))
    });
    let refused = billing
        .call_tool_with::<billing::refund_invoice>(
            billing::RefundArgs {
                invoice_id: "in_1".into(),
            },
            CallOptions::new().caller(Caller::new("reader").with_scopes(["billing:read"])),
        )
        .await
        .unwrap_err();
    assert_eq!(refused.code(), pedelec::ErrorCode::ToolForbidden);
    let done = billing
        .call_tool_with::<billing::refund_invoice>(
            billing::RefundArgs {
                invoice_id: "in_1".into(),
            },
            CallOptions::new().caller(Caller::new("clerk").with_scopes(["billing:write"])),
        )
        .await
        .unwrap();
    assert_eq!(done, "refunded in_1 by hand");
}
