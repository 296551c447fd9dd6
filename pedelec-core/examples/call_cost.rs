//! A fixed number of tool calls, for instruction counts under callgrind (deterministic on a
//! busy machine, unlike wall time):
//!
//! ```text
//! cargo build --release -p pedelec-core --example call_cost
//! valgrind --tool=callgrind target/release/examples/call_cost MODE 2000
//! valgrind --tool=callgrind target/release/examples/call_cost MODE 4000
//! ```
//!
//! The difference of the two totals divided by 2000 is the cost of one call, without the
//! set-up. Callgrind counts depend on what the compiler inlines, which depends on the whole
//! program: compare modes of this one binary. Modes:
//!
//! - `raw`: `Session::call_raw` in process, no caller;
//! - `json_lines`: sequential calls over an in-memory JSON Lines pipe, both ends on one
//!   current-thread runtime; `mcp_stdio` (feature `mcp`), the same over MCP's stdio
//!   transport (2025-11-25, initialized once);
//! - `floor`: the same call with plain `serde_json` and a direct function call (what `raw`
//!   is measured against); `value_floor`, the same through `serde_json::Value` both ways
//!   (the least a layer that sees the args and the result as values adds);
//! - `caller`: `Session::call_raw_with` as one caller (what the policy modes are measured
//!   against), `layer` (the same through one pass-through tower layer), `rate_limit`
//!   (under a per-caller rate limit that never refuses);
//! - `openai` and `anthropic` (`call_provider` with the provider's payload as a `Value`),
//!   `openai_raw` and `anthropic_raw` (`call_provider_raw`, the payload as text), as the
//!   same caller.

#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::sync::Arc;
use std::time::Duration;

use pedelec_core::bridge::JsonLines;
use pedelec_core::context::Caller;
use pedelec_core::session::{RateLimit, from_fn};
use pedelec_core::skills::SkillSet;
use pedelec_core::{CallOptions, Session};
use serde_json::value::RawValue;
use support::{Counter, CounterValue, ToolName, UpdateCounterArgs};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
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
    // One function per mode, each its own future: a mode's code does not change another's.
    match mode.as_str() {
        "raw" => rt.block_on(mode_raw(session, n)),
        "json_lines" => rt.block_on(mode_json_lines(session, n)),
        #[cfg(feature = "mcp")]
        "mcp_stdio" => rt.block_on(mode_mcp_stdio(session, n)),
        "floor" => rt.block_on(mode_floor(n, false)),
        "value_floor" => rt.block_on(mode_floor(n, true)),
        "caller" | "layer" | "rate_limit" => rt.block_on(mode_layer(n, &mode)),
        "openai" | "anthropic" | "openai_raw" | "anthropic_raw" => {
            rt.block_on(mode_provider(session, n, &mode));
        }
        other => panic!(
            "unknown mode {other:?}: raw, json_lines, mcp_stdio, floor, value_floor, caller, layer, rate_limit, openai, \
             anthropic, openai_raw or anthropic_raw"
        ),
    }
}

async fn mode_raw(session: Session<ToolName>, n: u64) {
    let args = RawValue::from_string(r#"{"delta":1}"#.to_owned()).expect("json");
    for _ in 0..n {
        let out = session.call_raw("update_counter", &args).await;
        assert!(out.starts_with("{\"ok\":true"));
    }
}

async fn mode_json_lines(session: Session<ToolName>, n: u64) {
    let (core_end, server_end) = tokio::io::duplex(1 << 16);
    tokio::spawn(session.serve(JsonLines::new(server_end)));
    let (r, mut w) = tokio::io::split(core_end);
    let mut lines = BufReader::new(r).lines();
    let manifest = lines.next_line().await.expect("read").expect("manifest");
    assert!(manifest.starts_with("{\"type\":\"manifest\""));
    let call = |i| {
        format!(
            "{{\"type\":\"tool_call\",\"callId\":\"c{i}\",\"name\":\"update_counter\",\"args\":{{\"delta\":1}}}}\n"
        )
    };
    exchange(&mut w, &mut lines, n, call, "\"ok\":true").await;
}

#[cfg(feature = "mcp")]
async fn mode_mcp_stdio(session: Session<ToolName>, n: u64) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (server_r, server_w) = tokio::io::split(server_end);
    tokio::spawn(session.serve(pedelec_core::bridge::Mcp::from_parts(server_r, server_w)));
    let (r, mut w) = tokio::io::split(client_end);
    let mut lines = BufReader::new(r).lines();
    w.write_all(
        b"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"cost\",\"version\":\"0\"}}}\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n",
    )
    .await
    .expect("write");
    let init = lines.next_line().await.expect("read").expect("an answer");
    assert!(init.contains("\"protocolVersion\""), "{init}");
    let call = |i| {
        format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"update_counter\",\"arguments\":{{\"delta\":1}}}}}}\n"
        )
    };
    exchange(&mut w, &mut lines, n, call, "\"isError\":false").await;
}

/// `n` sequential calls over a line-based pipe: each line written, its answer read and
/// checked to contain `ok`.
async fn exchange<W, R>(
    w: &mut W,
    lines: &mut tokio::io::Lines<R>,
    n: u64,
    call: impl Fn(u64) -> String,
    ok: &str,
) where
    W: tokio::io::AsyncWrite + Unpin,
    R: tokio::io::AsyncBufRead + Unpin,
{
    for i in 0..n {
        w.write_all(call(i).as_bytes()).await.expect("write");
        let answer = lines.next_line().await.expect("read").expect("a result");
        assert!(answer.contains(ok), "{answer}");
    }
}

#[allow(
    clippy::unused_async,
    reason = "inside the runtime, as the other modes and the baseline measured it"
)]
async fn mode_floor(n: u64, through_value: bool) {
    // The same work without a framework (the session bench's floor): plain
    // `serde_json` and a direct call.
    let counter = Counter::default();
    for _ in 0..n {
        let args = std::hint::black_box(r#"{"delta":1}"#);
        let out = if through_value {
            value_floor(&counter, args)
        } else {
            floor(&counter, args)
        };
        assert!(out.starts_with("{\"value\":"));
    }
}

/// The floor through `serde_json::Value` both ways: what any layer that sees a call's args
/// as a `ToolCall::args` value and its result as a `ToolResult::Ok` value must add to
/// `floor`, before any framework.
fn value_floor(counter: &Counter, args: &str) -> String {
    let args: serde_json::Value = serde_json::from_str(args).expect("args");
    let args: UpdateCounterArgs = serde_json::from_value(args).expect("args");
    let out = CounterValue {
        value: counter.add(args.delta),
    };
    serde_json::to_value(&out).expect("json").to_string()
}

/// The floor: what the tool call is, without a framework (as in `benches/session.rs`).
fn floor(counter: &Counter, args: &str) -> String {
    let args: UpdateCounterArgs = serde_json::from_str(args).expect("args");
    let out = CounterValue {
        value: counter.add(args.delta),
    };
    serde_json::to_string(&out).expect("json")
}

async fn mode_provider(session: Session<ToolName>, n: u64, mode: &str) {
    // `call_provider`: one provider tool call in, the provider's result message out.
    use pedelec_core::export::{ExportOptions, Target};
    let (target, payload) = if mode.starts_with("openai") {
        (
            Target::OpenAiChat,
            r#"{"id":"call_1","type":"function","function":{"name":"update_counter","arguments":"{\"delta\":1}"}}"#,
        )
    } else {
        (
            Target::Anthropic,
            r#"{"type":"tool_use","id":"toolu_1","name":"update_counter","input":{"delta":1}}"#,
        )
    };
    let export = ToolName::skills()
        .untyped()
        .export(target, ExportOptions::default())
        .expect("an export");
    let caller = Arc::new(Caller::new("alice"));
    if mode.ends_with("_raw") {
        for _ in 0..n {
            let options = CallOptions::new().caller(caller.clone());
            let message = session
                .call_provider_raw_with(&export, payload, options)
                .await;
            assert!(message.contains(r#""{\"ok\":true"#), "{message}");
        }
    } else {
        let payload: serde_json::Value = serde_json::from_str(payload).expect("a payload");
        for _ in 0..n {
            let options = CallOptions::new().caller(caller.clone());
            let message = session.call_provider_with(&export, &payload, options).await;
            let content = message["content"].as_str().unwrap_or_default();
            assert!(content.starts_with("{\"ok\":true"), "{message}");
        }
    }
}

async fn mode_layer(n: u64, mode: &str) {
    // The same call, through one pass-through layer, or under a per-caller rate
    // limit that never refuses (with a caller, as a bridge would give).
    let builder = Session::builder(ToolName::skills()).state(Counter::default());
    let session = if mode == "caller" {
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
