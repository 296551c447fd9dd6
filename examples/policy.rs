//! Call policy: what surrounds every call of a session, written once instead of in every
//! handler (`cargo run --example policy`).
//!
//! - an audit layer: one line per call, with its caller, outcome and time;
//! - a guardrail: the destructive `wipe_notes` is refused unless its args say
//!   `"confirmed": true`;
//! - a redaction layer: e-mail addresses in results are masked;
//! - a per-caller rate limit: 3 calls per second each;
//! - scopes: `add_note` needs `notes:write`.
//!
//! The order, outside in: scopes → rate limit → the session's layers (audit, guardrail,
//! redaction: the first added is the outermost) → `max_concurrency` → `layer_for` layers →
//! validation → the handler.

use std::fmt::Write as _;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pedelec::context::Caller;
use pedelec::session::{RateLimit, from_fn};
use pedelec::{
    CallOptions, ErrorCode, Session, ToolArgs, ToolCallContext, ToolError, ToolResult, skills, tool,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tower::Service as _;

/// The notes, shared by the tools.
#[derive(Default)]
pub struct Notes(Mutex<Vec<String>>);

/// The args of `add_note`.
#[derive(Deserialize, ToolArgs)]
pub struct NoteArgs {
    /// The note's text.
    #[arg(min_length = 1, max_length = 200)]
    text: String,
}

/// Adds a note.
#[tool(scopes = ["notes:write"])]
async fn add_note(args: NoteArgs, ctx: ToolCallContext) -> Result<usize, ToolError> {
    let mut notes = ctx.state::<Notes>()?.0.lock().unwrap();
    notes.push(args.text);
    Ok(notes.len())
}

/// Lists the notes.
#[tool(read_only)]
async fn list_notes(ctx: ToolCallContext) -> Result<Vec<String>, ToolError> {
    Ok(ctx.state::<Notes>()?.0.lock().unwrap().clone())
}

/// Deletes every note.
#[tool(destructive, max_concurrency = 1)]
async fn wipe_notes(ctx: ToolCallContext) -> Result<&'static str, ToolError> {
    ctx.state::<Notes>()?.0.lock().unwrap().clear();
    Ok("wiped")
}

skills![
    guidance = "Keep notes for the user.",
    tools = [add_note, list_notes, wipe_notes],
];

/// What the audit layer writes: one line per call.
pub type AuditLog = std::sync::Arc<Mutex<Vec<String>>>;

/// The session, with its policy.
pub fn session(audit: AuditLog) -> Result<Session<ToolName>, pedelec::Error> {
    Session::builder(ToolName::skills())
        .state(Notes::default())
        .rate_limit(RateLimit::per_caller(3, Duration::from_secs(1)))
        // Audit: the outermost layer, so it sees every call that holds its scopes and is
        // within its rate limit (refused earlier ones are in the session's events), and
        // every answer, the other layers' refusals included.
        .layer(from_fn(move |call, mut next| {
            let audit = audit.clone();
            async move {
                let who = call.caller().map_or("anonymous", Caller::subject).to_owned();
                let tool = call.name.clone();
                let started = Instant::now();
                let result = next.call(call).await.unwrap_or_else(|never| match never {});
                let outcome = match &result {
                    ToolResult::Ok(_) => "ok".to_owned(),
                    ToolResult::Err(e) => e.code().to_string(),
                };
                let ms = started.elapsed().as_millis();
                audit.lock().unwrap().push(format!("{who} {tool}: {outcome} ({ms} ms)"));
                result
            }
        }))
        // Guardrail: the destructive tool needs an explicit confirmation, which is taken
        // out of the args before they are validated (the tool takes none).
        .layer(from_fn(|mut call, mut next| async move {
            if call.name == "wipe_notes" {
                let confirmed = call.args.get("confirmed") == Some(&Value::Bool(true));
                if !confirmed {
                    return ToolResult::Err(ToolError::with_code(
                        ErrorCode::ToolForbidden,
                        "`wipe_notes` deletes every note: call it again with `\"confirmed\": true` once the user agreed",
                    ));
                }
                call.args = json!({});
            }
            next.call(call).await.unwrap_or_else(|never| match never {})
        }))
        // Redaction: e-mail addresses never leave the session.
        .layer(from_fn(|call, mut next| async move {
            match next.call(call).await.unwrap_or_else(|never| match never {}) {
                ToolResult::Ok(value) => ToolResult::Ok(redact(value)),
                err @ ToolResult::Err(_) => err,
            }
        }))
        .create()
}

/// Masks the e-mail addresses in every string of `value`.
fn redact(value: Value) -> Value {
    match value {
        Value::String(s) => Value::String(
            s.split(' ')
                .map(|word| if word.contains('@') { "[email]" } else { word })
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(redact).collect()),
        Value::Object(map) => Value::Object(map.into_iter().map(|(k, v)| (k, redact(v))).collect()),
        other => other,
    }
}

/// Runs the demo and returns what it prints (the audit log's durations left out).
pub async fn transcript() -> Result<String, pedelec::Error> {
    let audit = AuditLog::default();
    let session = session(audit.clone())?;
    let alice = Caller::new("alice").with_scopes(["notes:write"]);
    let bob = Caller::new("bob");
    let as_ = |caller: &Caller| CallOptions::new().caller(caller.clone());
    let mut out = String::new();
    let mut show = |label: &str, result: ToolResult| {
        let line = serde_json::to_string(&result).unwrap_or_default();
        let _ = writeln!(out, "{label}\n  {line}");
    };
    show(
        "alice adds a note:",
        session
            .call_with(
                "add_note",
                json!({"text": "mail ann@example.com"}),
                as_(&alice),
            )
            .await,
    );
    show(
        "bob may not add one (no `notes:write`):",
        session
            .call_with("add_note", json!({"text": "hi"}), as_(&bob))
            .await,
    );
    show(
        "bob lists them (the address is redacted):",
        session.call_with("list_notes", json!({}), as_(&bob)).await,
    );
    show(
        "alice wipes without confirming (the guardrail refuses):",
        session
            .call_with("wipe_notes", json!({}), as_(&alice))
            .await,
    );
    show(
        "alice confirms:",
        session
            .call_with("wipe_notes", json!({"confirmed": true}), as_(&alice))
            .await,
    );
    show(
        "alice's fourth call within a second (rate limited):",
        session
            .call_with("list_notes", json!({}), as_(&alice))
            .await,
    );
    show(
        "bob is not limited by alice's calls:",
        session.call_with("list_notes", json!({}), as_(&bob)).await,
    );
    out.push_str("audit:\n");
    for line in audit.lock().unwrap().iter() {
        let without_time = line.rsplit_once(" (").map_or(line.as_str(), |(l, _)| l);
        let _ = writeln!(out, "  {without_time}");
    }
    Ok(out)
}

#[tokio::main]
async fn main() -> Result<(), pedelec::Error> {
    print!("{}", transcript().await?);
    Ok(())
}
