//! What call policy and provider calls cost, in instructions, beside a plain call in the
//! same binary (callgrind counts depend on what the compiler inlines, which depends on the
//! whole program: compare modes of one binary):
//!
//! ```text
//! cargo build --release -p pedelec-core --example policy_cost
//! valgrind --tool=callgrind target/release/examples/policy_cost MODE 2000
//! valgrind --tool=callgrind target/release/examples/policy_cost MODE 4000
//! ```
//!
//! Modes: `raw` (`Session::call_raw_with`, with a caller, as the others), `layer` (through
//! one pass-through tower layer), `rate_limit` (under a per-caller rate limit that never
//! refuses), `openai` and `anthropic` (`call_provider` with the provider's payload).

#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use pedelec_core::context::Caller;
use pedelec_core::session::{RateLimit, from_fn};
use pedelec_core::skills::SkillSet;
use pedelec_core::{CallOptions, Session};
use support::{Counter, ToolName};
use tower_service::Service as _;

fn main() {
    let mut argv = std::env::args().skip(1);
    let mode = argv.next().unwrap_or_else(|| "raw".to_owned());
    let n: u64 = argv
        .next()
        .map_or(1000, |n| n.parse().expect("a call count"));
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .expect("a session");
    match mode.as_str() {
        "raw" | "layer" | "rate_limit" => rt.block_on(mode_layer(session, n, &mode)),
        "openai" | "anthropic" => rt.block_on(mode_openai(session, n, &mode)),
        other => panic!("unknown mode {other:?}: raw, layer, rate_limit, openai or anthropic"),
    }
}

async fn mode_openai(session: Session<ToolName>, n: u64, mode: &str) {
    // `call_provider`: one provider tool call in, the provider's result message out.
    use pedelec_core::export::{ExportOptions, Target};
    let (target, payload) = if mode == "openai" {
        (
            Target::OpenAiChat,
            serde_json::json!({"id": "call_1", "type": "function", "function": {"name": "update_counter", "arguments": "{\"delta\":1}"}}),
        )
    } else {
        (
            Target::Anthropic,
            serde_json::json!({"type": "tool_use", "id": "toolu_1", "name": "update_counter", "input": {"delta": 1}}),
        )
    };
    let export = session
        .manifest()
        .export(target, ExportOptions::default())
        .expect("an export");
    for _ in 0..n {
        let message = session.call_provider(&export, &payload).await;
        let content = message["content"].as_str().unwrap_or_default();
        assert!(content.starts_with("{\"ok\":true"), "{message}");
    }
}

async fn mode_layer(_session: Session<ToolName>, n: u64, mode: &str) {
    // The same call, through one pass-through layer, or under a per-caller rate
    // limit that never refuses (with a caller, as a bridge would give).
    let builder = Session::builder(ToolName::skills()).state(Counter::default());
    let session = if mode == "raw" {
        builder
    } else if mode == "layer" {
        builder.layer(from_fn(|call, mut next| async move {
            next.call(call).await.unwrap_or_else(|never| match never {})
        }))
    } else {
        builder.rate_limit(RateLimit::per_caller(u32::MAX, Duration::from_millis(1)))
    }
    .create()
    .expect("a session");
    let caller = Arc::new(Caller::new("alice"));
    for _ in 0..n {
        let options = CallOptions::new().caller(caller.clone());
        let out = session
            .call_raw_with("update_counter", r#"{"delta":1}"#, options)
            .await;
        assert!(out.starts_with("{\"ok\":true"), "{out}");
    }
}
