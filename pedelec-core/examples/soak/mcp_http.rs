//! The soak test over MCP's streamable HTTP transport (`McpHttp`, stateless): the same
//! session as the JSON Lines soak, `connections` clients on kept-alive connections (one
//! request in flight each, as HTTP/1.1 has it), a mix of valid calls, bad args, handler
//! errors, panics, timeouts, unknown tools, bodies that are not JSON or not JSON-RPC, and
//! clients that give up in the middle of a call (closing the connection, which cancels
//! it). Every request of a client that waited is answered exactly once: one response whose
//! id is the request's (or `null` for an unreadable body), with the status and code its
//! kind calls for.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pedelec_core::Session;
use pedelec_core::bridge::McpHttp;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::Mutex;

use super::driver::{Config, Report};

/// Serves `session` over MCP HTTP on `listener` until `stop` completes.
pub async fn serve(
    listener: TcpListener,
    session: Session,
    stop: impl Future<Output = ()> + Send + 'static,
) {
    let _ = session
        .serve(McpHttp::from_listener(listener).shutdown_on(stop))
        .await;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Valid,
    BadArgs,
    HandlerError,
    Panic,
    Timeout,
    UnknownTool,
    NotJson,
    NotJsonRpc,
    GiveUp,
}

impl Kind {
    /// 70% valid, 8% bad args, 6% errors, 3% panics, 3% timeouts, 2% unknown tools, 2% not
    /// JSON, 1% not JSON-RPC, 5% given up.
    fn of(i: u64) -> Kind {
        match (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 100 {
            0..70 => Kind::Valid,
            70..78 => Kind::BadArgs,
            78..84 => Kind::HandlerError,
            84..87 => Kind::Panic,
            87..90 => Kind::Timeout,
            90..92 => Kind::UnknownTool,
            92..94 => Kind::NotJson,
            94..95 => Kind::NotJsonRpc,
            _ => Kind::GiveUp,
        }
    }

    fn body(self, id: u64) -> String {
        let call = |name: &str, args: Value| {
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": name, "arguments": args}})
            .to_string()
        };
        match self {
            Kind::Valid => call("ok", json!({"n": id, "tag": "soak"})),
            Kind::BadArgs => call("ok", json!({"n": "not a number"})),
            Kind::HandlerError => call("fail", json!({})),
            Kind::Panic => call("panic", json!({})),
            Kind::Timeout => call("slow", json!({})),
            Kind::UnknownTool => call("no_such_tool", json!({})),
            Kind::NotJson => format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},"),
            Kind::NotJsonRpc => format!("{{\"id\":{id}}}"),
            Kind::GiveUp => call("wait", json!({"ms": 5_000})),
        }
    }

    /// The code a correct answer carries (`OK` for a success), and its HTTP status.
    fn expected(self) -> (&'static str, u16) {
        match self {
            Kind::Valid => ("OK", 200),
            Kind::BadArgs => ("TOOL_ARGS_INVALID", 200),
            Kind::HandlerError | Kind::Panic => ("TOOL_HANDLER_ERROR", 200),
            Kind::Timeout => ("TOOL_TIMEOUT", 200),
            Kind::UnknownTool => ("-32602", 200),
            Kind::NotJson => ("-32700", 400),
            Kind::NotJsonRpc => ("-32600", 400),
            Kind::GiveUp => ("", 0),
        }
    }
}

/// The code an answer carries: `OK`, the tool error's code, or the JSON-RPC error's.
fn code_of(answer: &Value) -> String {
    if let Some(error) = answer.get("error") {
        return error["code"].to_string();
    }
    let result = &answer["result"];
    if result["isError"] == true {
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        let error: Value = serde_json::from_str(text).unwrap_or_default();
        return error["code"].as_str().unwrap_or("?").to_owned();
    }
    "OK".to_owned()
}

#[derive(Default)]
struct Tally {
    codes: BTreeMap<String, u64>,
    problems: Vec<String>,
    latencies: Vec<u32>,
    answered: u64,
    abandoned: u64,
}

fn url(addr: std::net::SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

fn post(
    client: &reqwest::Client,
    addr: std::net::SocketAddr,
    body: String,
) -> reqwest::RequestBuilder {
    client
        .post(url(addr))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body)
}

/// The server's RSS in KiB (the `stats` tool).
async fn server_rss(client: &reqwest::Client, addr: std::net::SocketAddr) -> Result<u64, String> {
    let body = json!({"jsonrpc": "2.0", "id": "stats", "method": "tools/call",
        "params": {"name": "stats", "arguments": {}}})
    .to_string();
    let answer: Value = post(client, addr, body)
        .send()
        .await
        .map_err(|e| e.to_string())?
        .json()
        .await
        .map_err(|e| e.to_string())?;
    answer["result"]["structuredContent"]["rssKb"]
        .as_u64()
        .ok_or_else(|| format!("no RSS in {answer}"))
}

/// One client: calls one at a time on its kept-alive connection, until the calls run out.
async fn client(
    addr: std::net::SocketAddr,
    config: Config,
    next: Arc<AtomicU64>,
    warm_at: u64,
    warm: Arc<tokio::sync::Notify>,
    tally: Arc<Mutex<Tally>>,
) -> Result<u64, String> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(1)
        .build()
        .map_err(|e| e.to_string())?;
    let mut local = Tally::default();
    let mut sent = 0;
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= config.calls {
            break;
        }
        if i == warm_at {
            warm.notify_one();
        }
        sent += 1;
        let kind = Kind::of(i);
        let request = post(&client, addr, kind.body(i));
        if kind == Kind::GiveUp {
            // Gives up after a moment: the connection closes and the server cancels the
            // call (nothing to answer: nobody waits).
            let gave_up = request.timeout(Duration::from_millis(20)).send().await;
            if gave_up.is_ok() {
                local
                    .problems
                    .push(format!("call {i}: a 5 s wait was answered within 20 ms"));
            }
            local.abandoned += 1;
            continue;
        }
        let started = Instant::now();
        let response = request.send().await.map_err(|e| format!("call {i}: {e}"))?;
        let status = response.status().as_u16();
        let text = response
            .text()
            .await
            .map_err(|e| format!("call {i}: {e}"))?;
        local
            .latencies
            .push(u32::try_from(started.elapsed().as_micros()).unwrap_or(u32::MAX));
        local.answered += 1;
        let answer: Value = match serde_json::from_str(&text) {
            Ok(answer) => answer,
            Err(e) => {
                local.problems.push(format!(
                    "call {i}: the answer is not one JSON value ({e}): {text}"
                ));
                continue;
            }
        };
        let (code, want_status) = kind.expected();
        let want_id = if matches!(kind, Kind::NotJson | Kind::NotJsonRpc) {
            Value::Null
        } else {
            Value::from(i)
        };
        if answer["id"] != want_id {
            local.problems.push(format!(
                "call {i}: answered with id {}: {text}",
                answer["id"]
            ));
        }
        if status != want_status {
            local
                .problems
                .push(format!("{kind:?} call {i}: HTTP {status}: {text}"));
        }
        let got = code_of(&answer);
        if got != code {
            local
                .problems
                .push(format!("{kind:?} call {i}: answered {got}: {text}"));
        }
        if kind == Kind::Valid && answer["result"]["structuredContent"]["n"] != i {
            local
                .problems
                .push(format!("call {i}: a wrong value: {text}"));
        }
        *local.codes.entry(got).or_default() += 1;
    }
    let mut tally = tally.lock().await;
    tally.answered += local.answered;
    tally.abandoned += local.abandoned;
    tally.latencies.append(&mut local.latencies);
    tally.problems.append(&mut local.problems);
    for (code, n) in local.codes {
        *tally.codes.entry(code).or_default() += n;
    }
    Ok(sent)
}

/// Runs the load against an MCP HTTP server at `addr`.
///
/// # Errors
/// When the server cannot be reached.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
pub async fn run(addr: std::net::SocketAddr, config: Config) -> Result<Report, String> {
    let stats = reqwest::Client::new();
    let rss_start_kb = server_rss(&stats, addr).await?;
    let next = Arc::new(AtomicU64::new(0));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let warm = Arc::new(tokio::sync::Notify::new());
    let warm_at = (config.calls / 10).max(1);
    let start = Instant::now();
    // HTTP/1.1: one request in flight per connection, so the window is the connections.
    let clients: Vec<_> = (0..config.connections * config.window.min(4))
        .map(|_| {
            tokio::spawn(client(
                addr,
                config,
                next.clone(),
                warm_at,
                warm.clone(),
                tally.clone(),
            ))
        })
        .collect();
    let rss_warm = {
        let warm = warm.clone();
        let stats = stats.clone();
        tokio::spawn(async move {
            warm.notified().await;
            server_rss(&stats, addr).await
        })
    };
    let mut sent = 0;
    for c in clients {
        sent += c.await.map_err(|e| format!("a client failed: {e}"))??;
    }
    let elapsed = start.elapsed();
    let rss_warm_kb = if rss_warm.is_finished() {
        rss_warm.await.map_err(|e| e.to_string())??
    } else {
        rss_warm.abort();
        rss_start_kb
    };
    // Let the given-up calls end on the server before measuring.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let rss_end_kb = server_rss(&stats, addr).await?;
    let mut tally = Arc::try_unwrap(tally)
        .map_err(|_| "a client is still running".to_owned())?
        .into_inner();
    tally.latencies.sort_unstable();
    let pct = |p: f64| {
        let n = tally.latencies.len();
        if n == 0 {
            return Duration::ZERO;
        }
        let i = ((n as f64 - 1.0) * p).round() as usize;
        Duration::from_micros(u64::from(tally.latencies[i]))
    };
    Ok(Report {
        sent,
        answered: tally.answered,
        abandoned: tally.abandoned,
        elapsed,
        p50: pct(0.50),
        p99: pct(0.99),
        rss_start_kb,
        rss_warm_kb,
        rss_end_kb,
        codes: tally.codes,
        protocol_errors: BTreeMap::new(),
        problems: tally.problems,
    })
}
