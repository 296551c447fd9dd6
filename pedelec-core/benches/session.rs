//! What a tool call costs.
//!
//! (a) In process: `session.call_raw` of a trivial tool (args text → validate → deserialize
//!     → handler → strict serialize) against the floor: the same work with plain
//!     `serde_json` and a direct function call.
//! (b) JSON Lines over `tokio::io::duplex` on a current-thread runtime: sequential calls
//!     (latency) and 256 in flight (throughput), against a hand-written `serde_json` line
//!     protocol doing the least possible work.
//! (c) With `--features mcp`: the same calls over MCP's stdio transport (`bridge::Mcp`)
//!     beside JSON Lines, driven the same way over the same kind of in-memory pipe.
//! (d) Call policy: `call_raw` with no layers, through one pass-through layer, and under a
//!     per-caller rate limit that never refuses, in one group (the ratios are the point).

#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pedelec_core::Session;
use pedelec_core::bridge::JsonLines;
use pedelec_core::skills::SkillSet;
use serde::Deserialize;
use serde_json::value::RawValue;
use support::{Counter, CounterValue, ToolName, UpdateCounterArgs};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

fn session() -> Session<ToolName> {
    Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap()
}

/// The floor: what the tool call is, without a framework.
fn direct(counter: &Counter, args: &str) -> String {
    let args: UpdateCounterArgs = serde_json::from_str(args).unwrap();
    let out = CounterValue {
        value: counter.add(args.delta),
    };
    serde_json::to_string(&out).unwrap()
}

fn policy(c: &mut Criterion) {
    use pedelec_core::CallOptions;
    use pedelec_core::context::Caller;
    use pedelec_core::session::{RateLimit, from_fn};
    use tower_service::Service as _;

    let rt = runtime();
    let mut group = c.benchmark_group("policy");
    group.throughput(Throughput::Elements(1));
    let args = RawValue::from_string(r#"{"delta":1}"#.to_owned()).unwrap();
    let plain = session();
    let layered = Session::builder(ToolName::skills())
        .state(Counter::default())
        .layer(from_fn(|call, mut next| async move {
            next.call(call).await.unwrap_or_else(|never| match never {})
        }))
        .create()
        .unwrap();
    let limited = Session::builder(ToolName::skills())
        .state(Counter::default())
        .rate_limit(RateLimit::per_caller(u32::MAX, Duration::from_millis(1)))
        .create()
        .unwrap();
    let caller = std::sync::Arc::new(Caller::new("alice"));
    for (label, session) in [
        ("no_layers", &plain),
        ("one_pass_through_layer", &layered),
        ("rate_limit", &limited),
    ] {
        group.bench_function(label, |b| {
            b.to_async(&rt).iter(|| async {
                let options = CallOptions::new().caller(caller.clone());
                session
                    .call_raw_with(black_box("update_counter"), args.get(), options)
                    .await
            });
        });
    }
    group.finish();
}

fn in_process(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("in_process");
    group.throughput(Throughput::Elements(1));
    let text = r#"{"delta":1}"#;
    let counter = Counter::default();
    group.bench_function("floor_serde_json_direct_fn", |b| {
        b.iter(|| direct(&counter, black_box(text)));
    });
    let session = session();
    let args = RawValue::from_string(text.to_owned()).unwrap();
    group.bench_function("session_call_raw", |b| {
        b.to_async(&rt)
            .iter(|| async { session.call_raw(black_box("update_counter"), &args).await });
    });
    let value = serde_json::json!({"delta": 1});
    group.bench_function("session_call_value", |b| {
        b.to_async(&rt)
            .iter(|| async { session.call("update_counter", value.clone()).await });
    });
    group.finish();
    print_in_process_ratio(&rt, &session, &args, &counter, text);
}

/// The in-process ratio at a glance (issue 11's measure): `call_raw` and the floor timed
/// the same way, right after criterion's runs, the best of 5 rounds of 100,000 calls each
/// (instruction counts, steadier on a busy machine: `examples/call_cost.rs` under callgrind).
fn print_in_process_ratio(
    rt: &tokio::runtime::Runtime,
    session: &Session<ToolName>,
    args: &RawValue,
    counter: &Counter,
    text: &str,
) {
    const CALLS: u32 = 100_000;
    let best = |round: &mut dyn FnMut() -> Duration| {
        let best = (0..5).map(|_| round()).min().unwrap();
        best.as_secs_f64() * 1e9 / f64::from(CALLS)
    };
    let floor = best(&mut || {
        let start = Instant::now();
        for _ in 0..CALLS {
            black_box(direct(counter, black_box(text)));
        }
        start.elapsed()
    });
    let raw = best(&mut || {
        rt.block_on(async {
            let start = Instant::now();
            for _ in 0..CALLS {
                black_box(session.call_raw(black_box("update_counter"), args).await);
            }
            start.elapsed()
        })
    });
    println!(
        "in_process: call_raw {raw:.0} ns, floor {floor:.0} ns, ratio {:.2}×",
        raw / floor
    );
}

/// Request lines with distinct ids (unique among 256 in flight).
fn requests() -> Vec<Vec<u8>> {
    (0..1024)
        .map(|i| {
            format!(
                "{{\"type\":\"tool_call\",\"callId\":\"c{i}\",\"name\":\"update_counter\",\"args\":{{\"delta\":1}}}}\n"
            )
            .into_bytes()
        })
        .collect()
}

/// Core's side: sends `iters` calls with at most `window` in flight, reads every result.
async fn drive<R, W>(
    lines: &mut tokio::io::Lines<BufReader<R>>,
    writer: &mut BufWriter<W>,
    requests: &[Vec<u8>],
    iters: u64,
    window: u64,
) -> Duration
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let start = Instant::now();
    let (mut sent, mut received) = (0u64, 0u64);
    while received < iters {
        while sent < iters && sent - received < window {
            #[allow(clippy::cast_possible_truncation)]
            writer
                .write_all(&requests[(sent % requests.len() as u64) as usize])
                .await
                .unwrap();
            sent += 1;
        }
        writer.flush().await.unwrap();
        let line = lines.next_line().await.unwrap().unwrap();
        debug_assert!(
            line.contains("\"ok\":true") || line.contains("\"isError\":false"),
            "{line}"
        );
        black_box(line);
        received += 1;
    }
    start.elapsed()
}

/// A minimal hand-written line protocol: parse, call, write; no validation, timeout,
/// panic isolation or concurrency.
async fn handwritten_server(stream: tokio::io::DuplexStream) {
    #[derive(Deserialize)]
    struct Call<'a> {
        #[serde(rename = "callId", borrow)]
        call_id: &'a str,
        args: UpdateCounterArgs,
    }
    let (r, w) = tokio::io::split(stream);
    let mut lines = BufReader::new(r).lines();
    let mut w = BufWriter::new(w);
    let counter = Counter::default();
    let mut out = Vec::new();
    while let Ok(Some(line)) = lines.next_line().await {
        let call: Call<'_> = serde_json::from_str(&line).unwrap();
        let value = CounterValue {
            value: counter.add(call.args.delta),
        };
        out.clear();
        out.extend_from_slice(b"{\"type\":\"tool_result\",\"callId\":");
        serde_json::to_writer(&mut out, call.call_id).unwrap();
        out.extend_from_slice(b",\"result\":{\"ok\":true,\"value\":");
        serde_json::to_writer(&mut out, &value).unwrap();
        out.extend_from_slice(b"}}\n");
        w.write_all(&out).await.unwrap();
        if lines.get_ref().buffer().is_empty() {
            w.flush().await.unwrap();
        }
    }
}

fn json_lines(c: &mut Criterion) {
    let rt = runtime();
    let requests = requests();
    let mut group = c.benchmark_group("json_lines");
    group.throughput(Throughput::Elements(1));
    for (label, window) in [("sequential", 1), ("pipelined_256", 256)] {
        for server in ["handwritten", "pedelec"] {
            let (core_end, server_end) = tokio::io::duplex(1 << 16);
            let (r, w) = tokio::io::split(core_end);
            let mut writer = BufWriter::new(w);
            let mut lines = BufReader::new(r).lines();
            rt.block_on(async {
                if server == "pedelec" {
                    tokio::spawn(session().serve(JsonLines::new(server_end)));
                    let manifest = lines.next_line().await.unwrap().unwrap();
                    assert!(manifest.starts_with("{\"type\":\"manifest\""));
                } else {
                    tokio::spawn(handwritten_server(server_end));
                }
            });
            group.bench_function(format!("{server}_{label}"), |b| {
                b.iter_custom(|iters| {
                    rt.block_on(drive(&mut lines, &mut writer, &requests, iters, window))
                });
            });
        }
    }
    group.finish();
}

/// MCP `tools/call` lines with distinct ids (unique among 256 in flight).
#[cfg(feature = "mcp")]
fn mcp_requests() -> Vec<Vec<u8>> {
    (0..1024)
        .map(|i| {
            format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":{i},\"method\":\"tools/call\",\"params\":{{\"name\":\"update_counter\",\"arguments\":{{\"delta\":1}}}}}}\n"
            )
            .into_bytes()
        })
        .collect()
}

/// A server on one end of an in-memory pipe, the client's reader and writer on the other:
/// `json_lines` (its manifest read) or `mcp` (its `initialize` handshake done).
#[cfg(feature = "mcp")]
fn connect(
    rt: &tokio::runtime::Runtime,
    server: &str,
) -> (
    tokio::io::Lines<BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>>,
    BufWriter<tokio::io::WriteHalf<tokio::io::DuplexStream>>,
) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(client_end);
    let mut writer = BufWriter::new(w);
    let mut lines = BufReader::new(r).lines();
    rt.block_on(async {
        if server == "mcp" {
            let (sr, sw) = tokio::io::split(server_end);
            tokio::spawn(session().serve(pedelec_core::bridge::Mcp::from_parts(sr, sw)));
            writer
                .write_all(concat!(
                    r#"{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}"#,
                    "\n",
                    r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                    "\n"
                ).as_bytes())
                .await
                .unwrap();
            writer.flush().await.unwrap();
            let initialized = lines.next_line().await.unwrap().unwrap();
            assert!(initialized.contains("\"protocolVersion\""), "{initialized}");
        } else {
            tokio::spawn(session().serve(JsonLines::new(server_end)));
            let manifest = lines.next_line().await.unwrap().unwrap();
            assert!(manifest.starts_with("{\"type\":\"manifest\""));
        }
    });
    (lines, writer)
}

/// MCP over stdio against JSON Lines, the same calls over the same kind of in-memory pipe,
/// driven the same way (pre-encoded lines, every answer read), in the same run.
#[cfg(feature = "mcp")]
fn mcp(c: &mut Criterion) {
    let rt = runtime();
    let mut group = c.benchmark_group("mcp_stdio");
    group.throughput(Throughput::Elements(1));
    let json_lines_requests = requests();
    let mcp_requests = mcp_requests();
    let mut timed = Vec::new();
    for (label, window) in [("sequential", 1), ("pipelined_256", 256)] {
        for server in ["json_lines", "mcp"] {
            let (mut lines, mut writer) = connect(&rt, server);
            let requests = if server == "mcp" {
                &mcp_requests
            } else {
                &json_lines_requests
            };
            group.bench_function(format!("{server}_{label}"), |b| {
                b.iter_custom(|iters| {
                    rt.block_on(drive(&mut lines, &mut writer, requests, iters, window))
                });
            });
            // The ratio at a glance: the best of 5 rounds of 20,000 calls, right after.
            let best = (0..5)
                .map(|_| rt.block_on(drive(&mut lines, &mut writer, requests, 20_000, window)))
                .min()
                .unwrap();
            timed.push((server, label, best.as_secs_f64() * 1e9 / 20_000.0));
        }
    }
    group.finish();
    for label in ["sequential", "pipelined_256"] {
        let of = |server: &str| {
            timed
                .iter()
                .find(|(s, l, _)| *s == server && *l == label)
                .map_or(f64::NAN, |t| t.2)
        };
        let (json_lines, mcp) = (of("json_lines"), of("mcp"));
        println!(
            "mcp_stdio {label}: MCP {mcp:.0} ns/call, JSON Lines {json_lines:.0} ns/call, ratio {:.2}×",
            mcp / json_lines
        );
    }
}

#[cfg(not(feature = "mcp"))]
fn mcp(_: &mut Criterion) {
    eprintln!("mcp benchmarks skipped: run `cargo bench -p pedelec-core --features mcp`");
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    targets = in_process, policy, json_lines, mcp
}
criterion_main!(benches);
