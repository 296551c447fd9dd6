//! A person in the loop (DESIGN §14): `#[tool(approval)]` and `#[tool(approval = path)]`
//! hold a call after validation until an approver decides, on every path (in process,
//! named handlers, layers, provider loops); a denial or nobody to ask leaves the handler
//! unrun, and every request and decision is an event. Over MCP, see
//! `pedelec-core/tests/mcp_stdio.rs` (both revisions, and a `requestState` attacked).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use pedelec::context::{Approval, ApprovalRequest, Caller};
use pedelec::export::{ExportOptions, Target};
use pedelec::session::SessionEvent;
use pedelec::{CallOptions, ErrorCode, Session, ToolArgs, ToolResult, skills, tool};
use serde::Deserialize;
use serde_json::{Value, json};

static REFUNDS: AtomicUsize = AtomicUsize::new(0);
static TRANSFERS: AtomicUsize = AtomicUsize::new(0);
static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[derive(Debug, Deserialize, ToolArgs)]
struct RefundArgs {
    /// The invoice.
    #[arg(pattern = "^INV-[0-9]+$")]
    invoice: String,
    /// A note for the ledger.
    note: Option<String>,
}

/// Refund an invoice.
#[tool(approval)]
fn refund(args: RefundArgs) -> String {
    REFUNDS.fetch_add(1, Ordering::SeqCst);
    match args.note {
        Some(note) => format!("refunded {} ({note})", args.invoice),
        None => format!("refunded {}", args.invoice),
    }
}

#[derive(Debug, Deserialize, ToolArgs)]
struct TransferArgs {
    /// Cents to move.
    cents: u64,
}

/// Transfers of 1,000 € or more need a person, unless a treasurer asks.
fn large_transfer(args: &TransferArgs, caller: Option<&Caller>) -> bool {
    args.cents >= 100_000 && caller.is_none_or(|c| c.subject() != "treasurer")
}

/// Move money.
#[tool(approval = large_transfer)]
fn transfer(args: TransferArgs) -> u64 {
    TRANSFERS.fetch_add(1, Ordering::SeqCst);
    args.cents
}

skills![guidance = "Money.", tools = [refund, transfer]];

fn code(result: &ToolResult) -> Option<ErrorCode> {
    match result {
        ToolResult::Ok(_) => None,
        ToolResult::Err(e) => Some(e.code()),
    }
}

fn approve_all(request: ApprovalRequest) -> impl Future<Output = Approval> {
    let _ = request;
    async { Approval::Approve }
}

#[tokio::test]
async fn nothing_runs_unapproved_and_an_approver_decides() {
    let _lock = LOCK.lock().await;
    let before = REFUNDS.load(Ordering::SeqCst);
    // Nobody to ask: required, and the handler does not run.
    let session = Session::builder(ToolName::skills()).create().unwrap();
    let result = session.call("refund", json!({"invoice": "INV-1"})).await;
    assert_eq!(
        code(&result),
        Some(ErrorCode::ToolApprovalRequired),
        "{result:?}"
    );
    let ToolResult::Err(e) = &result else {
        unreachable!()
    };
    assert!(
        e.message().contains("SessionBuilder::approver"),
        "{}",
        e.message()
    );
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before);

    // Invalid args are refused before anyone is asked.
    let asked = Arc::new(AtomicUsize::new(0));
    let counted = asked.clone();
    let session = Session::builder(ToolName::skills())
        .approver(move |request: ApprovalRequest| {
            counted.fetch_add(1, Ordering::SeqCst);
            async move {
                if request.args()["invoice"] == "INV-13" {
                    Approval::Deny("unlucky invoice".into())
                } else {
                    Approval::Approve
                }
            }
        })
        .create()
        .unwrap();
    let bad = session.call("refund", json!({"invoice": "13"})).await;
    assert_eq!(code(&bad), Some(ErrorCode::ToolArgsInvalid));
    assert_eq!(asked.load(Ordering::SeqCst), 0);

    // The session's approver: approves, or denies with its reason.
    let ok = session.call("refund", json!({"invoice": "INV-1"})).await;
    assert_eq!(ok, ToolResult::Ok(json!("refunded INV-1")));
    let denied = session.call("refund", json!({"invoice": "INV-13"})).await;
    assert_eq!(code(&denied), Some(ErrorCode::ToolApprovalDenied));
    let ToolResult::Err(e) = &denied else {
        unreachable!()
    };
    assert!(e.message().contains("unlucky invoice"), "{}", e.message());
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
    assert_eq!(asked.load(Ordering::SeqCst), 2);

    // A call's own approver comes first.
    let vetoed = session
        .call_with(
            "refund",
            json!({"invoice": "INV-2"}),
            CallOptions::new()
                .approver(|_request: ApprovalRequest| async { Approval::from(false) }),
        )
        .await;
    assert_eq!(code(&vetoed), Some(ErrorCode::ToolApprovalDenied));
    assert_eq!(asked.load(Ordering::SeqCst), 2);
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
}

#[tokio::test]
async fn the_approver_sees_validated_args_and_the_caller() {
    let _lock = LOCK.lock().await;
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let kept = seen.clone();
    let session = Session::builder(ToolName::skills())
        .approver(move |request: ApprovalRequest| {
            kept.lock().unwrap().push((
                request.tool().to_owned(),
                request.args().clone(),
                request.caller().map(|c| c.subject().to_owned()),
            ));
            async { Approval::Approve }
        })
        .create()
        .unwrap();
    let clerk = CallOptions::new().caller(Caller::new("clerk"));
    let result = session
        .call_with("refund", json!({"invoice": "INV-7", "note": null}), clerk)
        .await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [(
            "refund".to_owned(),
            json!({"invoice": "INV-7"}),
            Some("clerk".to_owned())
        )]
    );
}

#[tokio::test]
async fn a_predicate_picks_the_calls_that_need_approval() {
    let _lock = LOCK.lock().await;
    let before = TRANSFERS.load(Ordering::SeqCst);
    let session = Session::builder(ToolName::skills()).create().unwrap();
    // Small: no approval needed, no approver asked.
    let small = session.call("transfer", json!({"cents": 500})).await;
    assert_eq!(small, ToolResult::Ok(json!(500)));
    // Large: needs one, and there is none.
    let large = session.call("transfer", json!({"cents": 200_000})).await;
    assert_eq!(code(&large), Some(ErrorCode::ToolApprovalRequired));
    // Large, from the treasurer: the predicate waives it.
    let treasurer = CallOptions::new().caller(Caller::new("treasurer"));
    let waived = session
        .call_with("transfer", json!({"cents": 200_000}), treasurer)
        .await;
    assert_eq!(waived, ToolResult::Ok(json!(200_000)));
    assert_eq!(TRANSFERS.load(Ordering::SeqCst), before + 2);
}

#[tokio::test]
async fn named_handlers_and_layers_wait_for_approval_too() {
    let _lock = LOCK.lock().await;
    let ran = Arc::new(AtomicUsize::new(0));
    let counted = ran.clone();
    let session = Session::builder(ToolName::skills())
        .layer(tower::layer::util::Identity::new())
        .create()
        .unwrap();
    session.on_tool::<refund>(move |args, _ctx| {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok::<_, pedelec::ToolError>(format!("named {}", args.invoice))
        }
    });
    let result = session.call("refund", json!({"invoice": "INV-1"})).await;
    assert_eq!(code(&result), Some(ErrorCode::ToolApprovalRequired));
    assert_eq!(ran.load(Ordering::SeqCst), 0);
    let approved = session
        .call_with(
            "refund",
            json!({"invoice": "INV-1"}),
            CallOptions::new().approver(approve_all),
        )
        .await;
    assert_eq!(approved, ToolResult::Ok(json!("named INV-1")));
    assert_eq!(ran.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn every_request_and_decision_is_an_event() {
    let _lock = LOCK.lock().await;
    let session = Session::builder(ToolName::skills())
        .approver(|request: ApprovalRequest| async move {
            Approval::from(request.args()["invoice"] != "INV-9")
        })
        .create()
        .unwrap();
    let mut events = session.events();
    let _ = session.call("refund", json!({"invoice": "INV-8"})).await;
    let _ = session.call("refund", json!({"invoice": "INV-9"})).await;
    let mut decisions = Vec::new();
    while decisions.len() < 2 {
        match tokio::time::timeout(std::time::Duration::from_secs(5), events.recv())
            .await
            .expect("an event")
        {
            Some(SessionEvent::ApprovalRequested { tool, .. }) => assert_eq!(tool, "refund"),
            Some(SessionEvent::ApprovalDecided {
                approved, reason, ..
            }) => decisions.push((approved, reason)),
            Some(_) => {}
            None => panic!("the stream ended"),
        }
    }
    assert_eq!(
        decisions,
        [
            (true, None),
            (false, Some("the approver refused".to_owned()))
        ]
    );
}

#[tokio::test]
async fn a_provider_loop_asks_its_approver() {
    let _lock = LOCK.lock().await;
    let before = REFUNDS.load(Ordering::SeqCst);
    let session = Session::builder(ToolName::skills())
        .approver(|request: ApprovalRequest| async move {
            Approval::from(request.args()["invoice"] == "INV-1")
        })
        .create()
        .unwrap();
    let export = ToolName::export(Target::Anthropic, ExportOptions::default()).unwrap();
    let call = |invoice: &str| json!({"type": "tool_use", "id": "toolu_1", "name": "refund", "input": {"invoice": invoice}});
    let ok = session.call_provider(&export, &call("INV-1")).await;
    assert_eq!(ok["content"], r#"{"ok":true,"value":"refunded INV-1"}"#);
    let denied = session.call_provider(&export, &call("INV-2")).await;
    assert_eq!(denied["is_error"], true);
    let text: Value = serde_json::from_str(denied["content"].as_str().unwrap()).unwrap();
    assert_eq!(text["error"]["code"], "TOOL_APPROVAL_DENIED");
    assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1);
}

#[test]
fn definitions_and_json_skill_sets_carry_approval() {
    let skills = ToolName::skills();
    assert!(skills.tools()[0].approval());
    assert!(skills.tools()[1].approval());
    let json = pedelec::SkillsInput::from_json(&json!({
        "guidance": "g",
        "tools": [{"name": "wipe", "description": "Wipe.", "approval": true,
                   "argsSchema": {"type": "object", "properties": {}, "additionalProperties": false}}]
    }))
    .unwrap();
    assert!(json.tools()[0].approval());
    let bad = pedelec::SkillsInput::from_json(&json!({
        "guidance": "g",
        "tools": [{"name": "wipe", "description": "Wipe.", "approval": "yes",
                   "argsSchema": {"type": "object", "properties": {}, "additionalProperties": false}}]
    }))
    .unwrap_err();
    assert!(
        bad.to_string().contains("`approval` must be `true`"),
        "{bad}"
    );
}
