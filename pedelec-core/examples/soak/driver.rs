//! The soak test's server and load driver (used by `examples/soak/main.rs`, run by
//! `cargo xtask soak`, and by `tests/soak.rs` with 20,000 calls).
//!
//! The server is a session with tools that succeed, fail, panic, time out, wait (to be
//! cancelled), and report the process's resident memory (`stats`). The driver opens
//! `connections` JSON Lines connections over loopback TCP, keeps up to `window` calls in
//! flight on each, and mixes valid calls, bad args, handler errors, panics, timeouts,
//! cancellations, and clients that disconnect in the middle of calls. It checks that every
//! call of a client that stayed connected is answered exactly once, with the code its kind
//! calls for, and measures throughput, latency and the server's memory.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pedelec_core::bridge::JsonLines;
use pedelec_core::{Session, SkillsInput, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Mutex, Semaphore};

/// What a deliberate panic says (a panic hook keeps it quiet).
pub const DELIBERATE: &str = "soak: deliberate panic";

/// The server's session.
#[must_use]
pub fn session() -> Session {
    let skills = SkillsInput::from_json(&json!({
        "guidance": "Soak test.",
        "tools": [
            {"name": "ok", "description": "Echo `n`.", "argsSchema": {"type": "object",
                "properties": {"n": {"type": "integer"}, "tag": {"type": "string", "maxLength": 32}},
                "required": ["n"], "additionalProperties": false}},
            {"name": "fail", "description": "Fail.", "argsSchema": {"type": "object"}},
            {"name": "panic", "description": "Panic.", "argsSchema": {"type": "object"}},
            {"name": "slow", "description": "Outlive the timeout.", "timeoutMs": 20,
             "argsSchema": {"type": "object"}},
            {"name": "wait", "description": "Wait `ms` milliseconds.", "argsSchema": {
                "type": "object", "properties": {"ms": {"type": "integer", "minimum": 0}}}},
            {"name": "stats", "description": "The server's resident memory.",
             "argsSchema": {"type": "object"}}
        ]
    }))
    .expect("the soak skill set");
    let session = Session::builder(skills).create().expect("the soak session");
    session.on_tool_name("ok", |args: Value, _ctx| async move {
        Ok::<_, ToolError>(json!({"n": args["n"]}))
    });
    session.on_tool_name("fail", |_args: Value, _ctx| async move {
        Err::<(), _>(ToolError::new("deliberate failure"))
    });
    session.on_tool_name(
        "panic",
        |_args: Value, _ctx| async move { deliberate_panic() },
    );
    session.on_tool_name("slow", |_args: Value, _ctx| async move {
        tokio::time::sleep(Duration::from_secs(10)).await;
        Ok::<_, ToolError>(())
    });
    session.on_tool_name("wait", |args: Value, _ctx| async move {
        let ms = args["ms"].as_u64().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok::<_, ToolError>(ms)
    });
    session.on_tool_name("stats", |_args: Value, _ctx| async move {
        Ok::<_, ToolError>(json!({"rssKb": rss_kb()}))
    });
    session
}

fn deliberate_panic() -> Result<(), ToolError> {
    panic!("{DELIBERATE}")
}

/// Keeps deliberate panics off stderr (a million of them would drown everything else).
pub fn quiet_deliberate_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if !message.is_some_and(|m| m.contains(DELIBERATE)) {
                previous(info);
            }
        }));
    });
}

/// This process's resident set size in KiB (`VmRSS` of `/proc/self/status`).
#[must_use]
pub fn rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Serves `session` on every connection `listener` accepts, until the future is dropped.
pub async fn serve(listener: TcpListener, session: Session) {
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        let _ = stream.set_nodelay(true);
        let served = session.serve(JsonLines::tcp(stream));
        tokio::spawn(async move {
            // A client that disconnects mid-call ends its connection with an error.
            let _ = served.await;
        });
    }
}

/// The load.
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Calls to send in all (those of disconnecting clients included).
    pub calls: u64,
    /// Connections that stay up.
    pub connections: usize,
    /// Calls in flight per connection at most.
    pub window: usize,
    /// One call in this many goes to a client that disconnects mid-call (0: none).
    pub disconnect_every: u64,
}

impl Config {
    /// The default load for `calls` calls.
    #[must_use]
    pub fn new(calls: u64) -> Self {
        Config {
            calls,
            connections: 16,
            window: 32,
            disconnect_every: 200,
        }
    }
}

/// What a call is meant to exercise, and which codes answer it correctly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Kind {
    Valid,
    BadArgs,
    HandlerError,
    Panic,
    Timeout,
    Cancel,
}

impl Kind {
    /// The mix: 70% valid, 8% bad args, 8% errors, 4% panics, 4% timeouts, 6% cancelled.
    fn of(i: u64) -> Kind {
        match (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) % 100 {
            0..70 => Kind::Valid,
            70..78 => Kind::BadArgs,
            78..86 => Kind::HandlerError,
            86..90 => Kind::Panic,
            90..94 => Kind::Timeout,
            _ => Kind::Cancel,
        }
    }

    fn line(self, id: u64) -> String {
        let (name, args) = match self {
            Kind::Valid => ("ok", json!({"n": id, "tag": "soak"})),
            Kind::BadArgs => ("ok", json!({"n": "not a number"})),
            Kind::HandlerError => ("fail", json!({})),
            Kind::Panic => ("panic", json!({})),
            Kind::Timeout => ("slow", json!({})),
            Kind::Cancel => ("wait", json!({"ms": 5_000})),
        };
        let mut line =
            json!({"type": "tool_call", "callId": id.to_string(), "name": name, "args": args})
                .to_string();
        line.push('\n');
        if self == Kind::Cancel {
            line.push_str(&json!({"type": "cancel", "callId": id.to_string()}).to_string());
            line.push('\n');
        }
        line
    }

    fn accepts(self, code: &str) -> bool {
        match self {
            Kind::Valid => code == "OK",
            Kind::BadArgs => code == "TOOL_ARGS_INVALID",
            Kind::HandlerError | Kind::Panic => code == "TOOL_HANDLER_ERROR",
            Kind::Timeout => code == "TOOL_TIMEOUT",
            // A cancel may lose the race with the (5 s) wait only on a very slow machine;
            // then the result is `OK`, which is also right.
            Kind::Cancel => code == "TOOL_CANCELLED" || code == "OK",
        }
    }
}

/// The figures of a run.
#[derive(Debug, Default)]
pub struct Report {
    /// Calls sent (those of disconnecting clients included).
    pub sent: u64,
    /// Calls answered (clients that stayed).
    pub answered: u64,
    /// Calls sent by clients that disconnected before their answers.
    pub abandoned: u64,
    /// Wall time of the load.
    pub elapsed: Duration,
    /// Median and 99th percentile latency of answered calls.
    pub p50: Duration,
    /// See `p50`.
    pub p99: Duration,
    /// The server's resident memory (KiB) before the load, after the warm-up and at the end.
    pub rss_start_kb: u64,
    /// See `rss_start_kb`.
    pub rss_warm_kb: u64,
    /// See `rss_start_kb`.
    pub rss_end_kb: u64,
    /// Answers per result code (`OK` for success).
    pub codes: BTreeMap<String, u64>,
    /// Protocol errors received (cancels that crossed their result: `UNKNOWN_CALL_ID`).
    pub protocol_errors: BTreeMap<String, u64>,
    /// Every broken guarantee: calls answered twice, never, or with the wrong code.
    pub problems: Vec<String>,
}

impl Report {
    /// Calls answered per second.
    #[must_use]
    #[allow(clippy::cast_precision_loss, reason = "a rate")]
    pub fn calls_per_sec(&self) -> f64 {
        self.answered as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// RSS growth after the warm-up, as a fraction.
    #[must_use]
    #[allow(clippy::cast_precision_loss, reason = "a ratio")]
    pub fn rss_growth(&self) -> f64 {
        (self.rss_end_kb as f64 - self.rss_warm_kb as f64) / (self.rss_warm_kb.max(1) as f64)
    }
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "calls: {} sent, {} answered, {} abandoned by clients that disconnected",
            self.sent, self.answered, self.abandoned
        )?;
        writeln!(
            f,
            "time: {:.2} s, {:.0} calls/s",
            self.elapsed.as_secs_f64(),
            self.calls_per_sec()
        )?;
        writeln!(f, "latency: p50 {:?}, p99 {:?}", self.p50, self.p99)?;
        writeln!(
            f,
            "server RSS: {} KiB at start, {} KiB after warm-up, {} KiB at end ({:+.1}% after warm-up)",
            self.rss_start_kb,
            self.rss_warm_kb,
            self.rss_end_kb,
            self.rss_growth() * 100.0
        )?;
        for (code, n) in &self.codes {
            writeln!(f, "  {code}: {n}")?;
        }
        for (code, n) in &self.protocol_errors {
            writeln!(f, "  protocol error {code}: {n}")?;
        }
        for p in self.problems.iter().take(20) {
            writeln!(f, "PROBLEM: {p}")?;
        }
        if self.problems.len() > 20 {
            writeln!(f, "PROBLEM: … {} more", self.problems.len() - 20)?;
        }
        Ok(())
    }
}

#[derive(Deserialize)]
struct Message {
    #[serde(rename = "type")]
    kind: String,
    #[serde(rename = "callId")]
    call_id: Option<String>,
    result: Option<ResultMsg>,
    code: Option<String>,
}

#[derive(Deserialize)]
struct ResultMsg {
    ok: bool,
    value: Option<Value>,
    error: Option<ErrorMsg>,
}

#[derive(Deserialize)]
struct ErrorMsg {
    code: String,
}

/// Shared tallies of a run.
#[derive(Default)]
struct Tally {
    codes: BTreeMap<String, u64>,
    protocol_errors: BTreeMap<String, u64>,
    problems: Vec<String>,
    latencies: Vec<u32>,
    answered: u64,
}

/// Calls `stats` on a fresh connection: the server's RSS in KiB.
async fn server_rss(addr: std::net::SocketAddr) -> Result<u64, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    let (r, mut w) = stream.into_split();
    let mut lines = BufReader::new(r).lines();
    w.write_all(b"{\"type\":\"tool_call\",\"callId\":\"s\",\"name\":\"stats\"}\n")
        .await
        .map_err(|e| e.to_string())?;
    while let Some(line) = lines.next_line().await.map_err(|e| e.to_string())? {
        let msg: Value = serde_json::from_str(&line).map_err(|e| e.to_string())?;
        if msg["type"] == "tool_result" {
            return msg["result"]["value"]["rssKb"]
                .as_u64()
                .ok_or_else(|| format!("no RSS in {msg}"));
        }
    }
    Err("the server closed the stats connection".into())
}

/// One connection that stays: sends its share of calls, `window` in flight at most, and
/// checks every answer.
async fn client(
    addr: std::net::SocketAddr,
    config: Config,
    next: Arc<AtomicU64>,
    warm_at: u64,
    warm: Arc<tokio::sync::Notify>,
    tally: Arc<Mutex<Tally>>,
) -> Result<u64, String> {
    let stream = TcpStream::connect(addr)
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    stream.set_nodelay(true).map_err(|e| e.to_string())?;
    let (r, w) = stream.into_split();
    let mut w = BufWriter::new(w);
    let mut lines = BufReader::new(r).lines();
    // The manifest.
    lines.next_line().await.map_err(|e| e.to_string())?;
    let inflight: Arc<std::sync::Mutex<HashMap<u64, (Kind, Instant)>>> = Arc::default();
    let window = Arc::new(Semaphore::new(config.window));
    let reader = {
        let inflight = inflight.clone();
        let window = window.clone();
        let tally = tally.clone();
        tokio::spawn(async move {
            let mut local = Tally::default();
            while let Ok(Some(line)) = lines.next_line().await {
                let msg: Message = match serde_json::from_str(&line) {
                    Ok(msg) => msg,
                    Err(e) => {
                        local
                            .problems
                            .push(format!("unreadable line ({e}): {line}"));
                        continue;
                    }
                };
                match msg.kind.as_str() {
                    "tool_result" => {
                        let id = msg.call_id.as_deref().and_then(|s| s.parse::<u64>().ok());
                        let entry = id.and_then(|id| {
                            inflight
                                .lock()
                                .unwrap_or_else(std::sync::PoisonError::into_inner)
                                .remove(&id)
                        });
                        let Some((kind, sent)) = entry else {
                            local
                                .problems
                                .push(format!("a result for a call not in flight: {line}"));
                            continue;
                        };
                        window.add_permits(1);
                        let elapsed = sent.elapsed();
                        local
                            .latencies
                            .push(u32::try_from(elapsed.as_micros()).unwrap_or(u32::MAX));
                        local.answered += 1;
                        let code = match &msg.result {
                            Some(ResultMsg {
                                ok: true, value, ..
                            }) => {
                                if kind == Kind::Valid
                                    && value.as_ref().and_then(|v| v["n"].as_u64()) != id
                                {
                                    local.problems.push(format!("a wrong value: {line}"));
                                }
                                "OK".to_owned()
                            }
                            Some(ResultMsg { error: Some(e), .. }) => e.code.clone(),
                            _ => {
                                local.problems.push(format!("a malformed result: {line}"));
                                continue;
                            }
                        };
                        if !kind.accepts(&code) {
                            local
                                .problems
                                .push(format!("{kind:?} call answered {code}: {line}"));
                        }
                        *local.codes.entry(code).or_default() += 1;
                    }
                    "protocol_error" => {
                        let code = msg.code.unwrap_or_default();
                        if code != "UNKNOWN_CALL_ID" {
                            local.problems.push(format!("a protocol error: {line}"));
                        }
                        *local.protocol_errors.entry(code).or_default() += 1;
                    }
                    _ => local
                        .problems
                        .push(format!("an unexpected message: {line}")),
                }
            }
            let mut tally = tally.lock().await;
            tally.answered += local.answered;
            tally.latencies.append(&mut local.latencies);
            tally.problems.append(&mut local.problems);
            for (code, n) in local.codes {
                *tally.codes.entry(code).or_default() += n;
            }
            for (code, n) in local.protocol_errors {
                *tally.protocol_errors.entry(code).or_default() += n;
            }
        })
    };
    let mut sent = 0;
    loop {
        let permit = window
            .acquire()
            .await
            .map_err(|e| format!("the window closed: {e}"))?;
        permit.forget();
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= config.calls {
            window.add_permits(1);
            break;
        }
        if i == warm_at {
            warm.notify_one();
        }
        if config.disconnect_every > 0 && i.is_multiple_of(config.disconnect_every) {
            // This call goes to a client that disconnects mid-call.
            window.add_permits(1);
            let slow = (i / config.disconnect_every).is_multiple_of(2);
            tokio::spawn(disconnecting_client(addr, i, slow));
            continue;
        }
        let kind = Kind::of(i);
        inflight
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(i, (kind, Instant::now()));
        w.write_all(kind.line(i).as_bytes())
            .await
            .map_err(|e| format!("cannot send: {e}"))?;
        sent += 1;
        // Flush when nothing more can be sent right away (batches under load).
        if window.available_permits() == 0 || next.load(Ordering::Relaxed) >= config.calls {
            w.flush().await.map_err(|e| format!("cannot send: {e}"))?;
        }
    }
    w.flush().await.map_err(|e| format!("cannot send: {e}"))?;
    // Wait for every answer (the slowest calls end by their timeouts), then close.
    let _ = window
        .acquire_many(u32::try_from(config.window).unwrap_or(u32::MAX))
        .await;
    drop(w);
    reader
        .await
        .map_err(|e| format!("the reader failed: {e}"))?;
    let left = inflight
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .len();
    if left > 0 {
        tally
            .lock()
            .await
            .problems
            .push(format!("{left} call(s) never answered"));
    }
    Ok(sent)
}

/// A client that sends one call that takes a while (and the start of another line) and
/// closes the connection before the answer.
async fn disconnecting_client(addr: std::net::SocketAddr, i: u64, slow: bool) {
    let Ok(mut stream) = TcpStream::connect(addr).await else {
        return;
    };
    let call = if slow {
        format!(r#"{{"type":"tool_call","callId":"{i}","name":"slow"}}"#)
    } else {
        format!(r#"{{"type":"tool_call","callId":"{i}","name":"wait","args":{{"ms":50}}}}"#)
    };
    let text = format!("{call}\n{{\"type\":\"tool_ca");
    let _ = stream.write_all(text.as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(5)).await;
    drop(stream);
}

/// Runs the load against a server at `addr`.
///
/// # Errors
/// When the server cannot be reached.
#[allow(
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss
)]
pub async fn run(addr: std::net::SocketAddr, config: Config) -> Result<Report, String> {
    let rss_start_kb = server_rss(addr).await?;
    let next = Arc::new(AtomicU64::new(0));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let warm = Arc::new(tokio::sync::Notify::new());
    let warm_at = (config.calls / 10).max(1);
    let start = Instant::now();
    let clients: Vec<_> = (0..config.connections)
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
        tokio::spawn(async move {
            warm.notified().await;
            server_rss(addr).await
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
    // Let the disconnected clients' calls end on the server before measuring.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let rss_end_kb = server_rss(addr).await?;
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
    let abandoned = if config.disconnect_every > 0 {
        config.calls.div_ceil(config.disconnect_every)
    } else {
        0
    };
    Ok(Report {
        sent: sent + abandoned,
        answered: tally.answered,
        abandoned,
        elapsed,
        p50: pct(0.50),
        p99: pct(0.99),
        rss_start_kb,
        rss_warm_kb,
        rss_end_kb,
        codes: tally.codes,
        protocol_errors: tally.protocol_errors,
        problems: tally.problems,
    })
}
