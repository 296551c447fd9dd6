//! A fixed number of tool calls, for instruction counts under callgrind (deterministic on a
//! busy machine, unlike wall time):
//!
//! ```text
//! cargo build --release -p pedelec-core --example call_cost
//! valgrind --tool=callgrind target/release/examples/call_cost raw 2000
//! valgrind --tool=callgrind target/release/examples/call_cost raw 4000
//! ```
//!
//! The difference of the two totals divided by 2000 is the cost of one call, without the
//! set-up. Modes: `raw` (`Session::call_raw` in process), `json_lines` (sequential calls
//! over an in-memory JSON Lines pipe, both ends on one current-thread runtime), `floor`
//! (the same call with plain `serde_json` and a direct function call: what `raw` is
//! measured against). The costs of call policy and of provider calls are measured by
//! `examples/policy_cost.rs`, beside a `raw` call in the same binary.

#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use pedelec_core::Session;
use pedelec_core::bridge::JsonLines;
use pedelec_core::skills::SkillSet;
use serde_json::value::RawValue;
use support::{Counter, CounterValue, ToolName, UpdateCounterArgs};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

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
        "floor" => rt.block_on(mode_floor(n)),
        other => panic!(
            "unknown mode {other:?}: raw, layer, rate_limit, openai, anthropic, json_lines or floor"
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
    for i in 0..n {
        let line = format!(
            "{{\"type\":\"tool_call\",\"callId\":\"c{i}\",\"name\":\"update_counter\",\"args\":{{\"delta\":1}}}}\n"
        );
        w.write_all(line.as_bytes()).await.expect("write");
        let answer = lines.next_line().await.expect("read").expect("a result");
        assert!(answer.contains("\"ok\":true"), "{answer}");
    }
}

#[allow(
    clippy::unused_async,
    reason = "inside the runtime, as the other modes and the baseline measured it"
)]
async fn mode_floor(n: u64) {
    // The same work without a framework (the session bench's floor): plain
    // `serde_json` and a direct call.
    let counter = Counter::default();
    for _ in 0..n {
        let out = floor(&counter, std::hint::black_box(r#"{"delta":1}"#));
        assert!(out.starts_with("{\"value\":"));
    }
}

/// The floor: what the tool call is, without a framework (as in `benches/session.rs`).
fn floor(counter: &Counter, args: &str) -> String {
    let args: UpdateCounterArgs = serde_json::from_str(args).expect("args");
    let out = CounterValue {
        value: counter.add(args.delta),
    };
    serde_json::to_string(&out).expect("json")
}
