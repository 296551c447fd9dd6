//! The load generator of `cargo xtask load`, and the Redis seeder of its `tmdevlab` workload:
//!
//! ```text
//! load-gen run --url http://127.0.0.1:PORT/mcp [--clients C] [--warmup SECS] [--secs SECS]
//!              [--workload counter|tmdevlab] [--protocol 2025-11-25|2026-07-28]
//!              [--server-pid PID] [--threads N]
//! load-gen seed --redis redis://127.0.0.1:PORT
//! ```
//!
//! `run` opens C HTTP/1.1 connections (hyper, kept alive, Nagle off), each with one request
//! in flight at a time, for a warm-up and then the measured window; bodies are encoded
//! before the run. Every answer is checked. It prints one `result key=value …` line (the
//! `xtask` reads it): calls/s, latency percentiles, errors, its own CPU time and, with
//! `--server-pid`, the server's CPU time over the window and its memory at the end.
//!
//! - `counter`: every client sends `tools/call update_counter {"delta": 1}` with the headers
//!   a stateless streamable HTTP server needs (`pedelec_load::wire`), back to back;
//! - `tmdevlab`: each client is one of the TM Dev Lab v2 k6 script's virtual users: for each
//!   of `search_products`, `get_user_cart` and `checkout`, `initialize` (`2024-11-05`),
//!   `notifications/initialized`, the `tools/call` (its answer checked as the script checks
//!   it), and `DELETE` when the server gave a session; then the same around a `tools/list`;
//!   then a 50 ms pause. Requests/s counts what the script counts (`initialize`,
//!   `tools/call`, `tools/list`); latency is the tool calls'.

use std::net::SocketAddr;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty, Full, combinators::BoxBody};
use hyper::client::conn::http1::SendRequest;
use hyper::header::{ACCEPT, CONTENT_TYPE, HOST, HeaderMap, HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use pedelec_load::wire::{self, Protocol};
use pedelec_load::{procfs, stats};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::time::Instant;

type Body = BoxBody<Bytes, std::convert::Infallible>;

const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Workload {
    Counter,
    TmDevLab,
}

#[derive(Debug, PartialEq)]
struct Config {
    url: String,
    clients: usize,
    warmup: Duration,
    duration: Duration,
    workload: Workload,
    protocol: Protocol,
    server_pid: Option<u32>,
    threads: usize,
}

fn number<T: std::str::FromStr>(flag: &str, value: &str) -> Result<T, String> {
    value
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{flag}` takes a number, not `{value}`"))
}

fn seconds(flag: &str, value: &str) -> Result<Duration, String> {
    let secs: f64 = number(flag, value)?;
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{flag}` takes seconds, not `{value}`"))
}

fn parse_run(args: &[String]) -> Result<Config, String> {
    let mut config = Config {
        url: String::new(),
        clients: 16,
        warmup: Duration::from_secs(2),
        duration: Duration::from_secs(5),
        workload: Workload::Counter,
        protocol: Protocol::V2025_11_25,
        server_pid: None,
        threads: std::thread::available_parallelism().map_or(2, usize::from),
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("`{flag}` takes a value"))?;
        match flag.as_str() {
            "--url" => config.url.clone_from(value),
            "--clients" => config.clients = number(flag, value)?,
            "--warmup" => config.warmup = seconds(flag, value)?,
            "--secs" => config.duration = seconds(flag, value)?,
            "--workload" => {
                config.workload = match value.as_str() {
                    "counter" => Workload::Counter,
                    "tmdevlab" => Workload::TmDevLab,
                    _ => return Err(format!("unknown workload `{value}` (counter, tmdevlab)")),
                }
            }
            "--protocol" => config.protocol = Protocol::parse(value)?,
            "--server-pid" => config.server_pid = Some(number(flag, value)?),
            "--threads" => config.threads = number(flag, value)?,
            _ => return Err(format!("unknown flag `{flag}`")),
        }
    }
    if config.url.is_empty() {
        return Err("`--url http://HOST:PORT/PATH` is needed".into());
    }
    if config.clients == 0 || config.threads == 0 || config.duration.is_zero() {
        return Err("`--clients`, `--threads` and `--secs` must be above 0".into());
    }
    Ok(config)
}

/// Where the requests go.
struct Target {
    addr: SocketAddr,
    uri: Uri,
    host: HeaderValue,
}

impl Target {
    fn parse(url: &str) -> Result<Self, String> {
        let uri: Uri = url.parse().map_err(|e| format!("`{url}`: {e}"))?;
        if uri.scheme_str() != Some("http") {
            return Err(format!("`{url}`: only http:// (loopback) is supported"));
        }
        let authority = uri
            .authority()
            .ok_or_else(|| format!("`{url}` has no host"))?
            .clone();
        let addr: SocketAddr = authority
            .as_str()
            .parse()
            .map_err(|_| format!("`{url}`: the host must be an IP address and a port"))?;
        if !addr.ip().is_loopback() {
            return Err(format!("`{url}`: only loopback addresses are load-tested"));
        }
        let path = uri.path_and_query().map_or("/", |p| p.as_str());
        Ok(Target {
            addr,
            uri: path.parse().map_err(|e| format!("{e}"))?,
            host: HeaderValue::from_str(authority.as_str()).map_err(|e| e.to_string())?,
        })
    }
}

/// The measured window: requests that complete within it are counted.
#[derive(Clone, Copy)]
struct Window {
    start: Instant,
    end: Instant,
}

impl Window {
    fn contains(&self, t: Instant) -> bool {
        t >= self.start && t <= self.end
    }
}

/// What one client saw.
#[derive(Default)]
struct Tally {
    /// Latencies of the calls measured (ns).
    latencies: Vec<u64>,
    /// Tool calls answered successfully in the window.
    calls: u64,
    /// Requests the TM Dev Lab script counts (initialize, tools/call, tools/list).
    mcp_requests: u64,
    /// Every HTTP request completed in the window.
    http_requests: u64,
    /// Failures in the window (transport, status, JSON-RPC error, tool error, check).
    errors: u64,
    /// Failures during the warm-up.
    warmup_errors: u64,
    first_error: Option<String>,
}

impl Tally {
    fn fail(&mut self, window: &Window, at: Instant, what: impl FnOnce() -> String) {
        if window.contains(at) {
            self.errors += 1;
        } else {
            self.warmup_errors += 1;
        }
        if self.first_error.is_none() {
            self.first_error = Some(what());
        }
    }

    fn merge(&mut self, other: Tally) {
        self.latencies.extend(other.latencies);
        self.calls += other.calls;
        self.mcp_requests += other.mcp_requests;
        self.http_requests += other.http_requests;
        self.errors += other.errors;
        self.warmup_errors += other.warmup_errors;
        if self.first_error.is_none() {
            self.first_error = other.first_error;
        }
    }
}

/// The connection's I/O driver (hyper's `Connection` future), polled by the client's own
/// task while a request is out, rather than spawned: no hop between tasks per request.
type Driver = Pin<Box<hyper::client::conn::http1::Connection<TokioIo<TcpStream>, Body>>>;

/// One kept-alive HTTP/1.1 connection.
struct Connection {
    target: Arc<Target>,
    open: Option<(SendRequest<Body>, Driver)>,
}

struct Answer {
    status: StatusCode,
    session: Option<HeaderValue>,
    body: Bytes,
}

impl Connection {
    fn new(target: Arc<Target>) -> Self {
        Connection { target, open: None }
    }

    async fn open(&mut self) -> Result<&mut (SendRequest<Body>, Driver), String> {
        if self.open.as_ref().is_some_and(|(s, _)| !s.is_closed()) {
            return Ok(self.open.as_mut().expect("checked"));
        }
        let stream = TcpStream::connect(self.target.addr)
            .await
            .map_err(|e| format!("connect: {e}"))?;
        stream.set_nodelay(true).map_err(|e| e.to_string())?;
        let (send, driver) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        Ok(self.open.insert((send, Box::pin(driver))))
    }

    /// Sends one request and reads its whole answer.
    async fn exchange(
        &mut self,
        method: Method,
        headers: &HeaderMap,
        session: Option<&HeaderValue>,
        body: Option<&Bytes>,
    ) -> Result<Answer, String> {
        let mut request = Request::new(match body {
            Some(body) => Full::new(body.clone()).boxed(),
            None => Empty::new().boxed(),
        });
        *request.method_mut() = method;
        *request.uri_mut() = self.target.uri.clone();
        *request.headers_mut() = headers.clone();
        if let Some(session) = session {
            request.headers_mut().insert(SESSION_ID, session.clone());
        }
        let (send, driver) = self.open().await?;
        let exchange = async {
            send.ready().await.map_err(|e| e.to_string())?;
            let response = send
                .send_request(request)
                .await
                .map_err(|e| e.to_string())?;
            let status = response.status();
            let session = response.headers().get(SESSION_ID).cloned();
            let body = response
                .into_body()
                .collect()
                .await
                .map_err(|e| e.to_string())?
                .to_bytes();
            Ok(Answer {
                status,
                session,
                body,
            })
        };
        let result = tokio::select! {
            biased;
            answer = exchange => answer,
            ended = driver.as_mut() => Err(match ended {
                Ok(()) => "the server closed the connection".to_owned(),
                Err(e) => e.to_string(),
            }),
        };
        if result.is_err() {
            // Reconnect for the next request.
            self.open = None;
        }
        result
    }
}

fn headers(target: &Target, call: Option<(Protocol, &str)>) -> HeaderMap {
    let mut headers = HeaderMap::new();
    headers.insert(HOST, target.host.clone());
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(
        ACCEPT,
        HeaderValue::from_static("application/json, text/event-stream"),
    );
    if let Some((protocol, tool)) = call {
        for (name, value) in wire::call_headers(protocol, tool) {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_str(&value).expect("a tool name is a header value"),
            );
        }
    }
    headers
}

fn describe(answer: &Answer) -> String {
    let body = String::from_utf8_lossy(&answer.body);
    let body: String = body.chars().take(300).collect();
    format!("HTTP {}: {body}", answer.status.as_u16())
}

async fn counter_client(target: Arc<Target>, protocol: Protocol, window: Window) -> Tally {
    let headers = headers(&target, Some((protocol, "update_counter")));
    let body = Bytes::from(wire::tools_call(
        protocol,
        1,
        "update_counter",
        &json!({"delta": 1}),
    ));
    let mut connection = Connection::new(target);
    let mut tally = Tally::default();
    while Instant::now() < window.end {
        let started = Instant::now();
        let answer = connection
            .exchange(Method::POST, &headers, None, Some(&body))
            .await;
        let done = Instant::now();
        match answer {
            Ok(answer) if answer.status == StatusCode::OK && wire::succeeded(&answer.body) => {
                if window.contains(done) {
                    tally.calls += 1;
                    tally.mcp_requests += 1;
                    tally.http_requests += 1;
                    tally.latencies.push(nanos(done - started));
                }
            }
            Ok(answer) => tally.fail(&window, done, || describe(&answer)),
            Err(e) => {
                tally.fail(&window, done, || e);
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }
    tally
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// One TM Dev Lab v2 tool call of the k6 script, with the check the script applies.
struct TmTool {
    body: Bytes,
    check: fn(&Value) -> bool,
}

fn tmdevlab_tools(vu: usize) -> Vec<TmTool> {
    let user = format!("user-{:05}", vu % 1000);
    let call =
        |name, args: Value| Bytes::from(wire::tools_call(Protocol::V2025_11_25, 2, name, &args));
    vec![
        TmTool {
            body: call(
                "search_products",
                json!({"category": "Electronics", "min_price": 50.0, "max_price": 500.0, "limit": 10}),
            ),
            check: |d| {
                d["total_found"] == 2251
                    && d["products"].as_array().is_some_and(|p| p.len() == 10)
                    && d["top10_popular_ids"]
                        .as_array()
                        .is_some_and(|p| p.len() == 10)
            },
        },
        TmTool {
            body: call("get_user_cart", json!({"user_id": user})),
            check: |d| {
                d["user_id"].as_str().is_some_and(|u| !u.is_empty())
                    && d["cart"]["items"].as_array().is_some_and(|i| !i.is_empty())
                    && d["recent_history"].as_array().is_some_and(|h| h.len() == 5)
            },
        },
        TmTool {
            body: call(
                "checkout",
                json!({"user_id": user, "items": [{"product_id": 42, "quantity": 2}, {"product_id": 1337, "quantity": 1}]}),
            ),
            check: |d| {
                d["status"] == "confirmed"
                    && d["total"].as_f64().is_some_and(|t| t > 0.0)
                    && d["items_count"] == 2
            },
        },
    ]
}

/// One k6 "session": initialize, notifications/initialized, the request, DELETE when the
/// server handed out a session. Returns the request's answer and when it completed.
async fn tm_session(
    connection: &mut Connection,
    headers: &HeaderMap,
    bodies: &TmBodies,
    request: &Bytes,
    window: &Window,
    tally: &mut Tally,
) -> Option<(Answer, Duration, Instant)> {
    let answer = connection
        .exchange(Method::POST, headers, None, Some(&bodies.initialize))
        .await;
    let done = Instant::now();
    let session = match answer {
        Ok(answer) if answer.status.is_success() && wire::payload(&answer.body).is_some() => {
            if window.contains(done) {
                tally.mcp_requests += 1;
                tally.http_requests += 1;
            }
            answer.session
        }
        Ok(answer) => {
            tally.fail(window, done, || {
                format!("initialize: {}", describe(&answer))
            });
            return None;
        }
        Err(e) => {
            tally.fail(window, done, || format!("initialize: {e}"));
            return None;
        }
    };
    let answer = connection
        .exchange(
            Method::POST,
            headers,
            session.as_ref(),
            Some(&bodies.initialized),
        )
        .await;
    let done = Instant::now();
    match answer {
        Ok(answer) if answer.status.is_success() => {
            if window.contains(done) {
                tally.http_requests += 1;
            }
        }
        Ok(answer) => tally.fail(window, done, || {
            format!("initialized: {}", describe(&answer))
        }),
        Err(e) => tally.fail(window, done, || format!("initialized: {e}")),
    }
    let started = Instant::now();
    let answer = connection
        .exchange(Method::POST, headers, session.as_ref(), Some(request))
        .await;
    let done = Instant::now();
    let result = match answer {
        Ok(answer) => {
            if window.contains(done) {
                tally.mcp_requests += 1;
                tally.http_requests += 1;
            }
            Some((answer, done - started, done))
        }
        Err(e) => {
            tally.fail(window, done, || e);
            None
        }
    };
    if let Some(session) = &session {
        let mut delete = HeaderMap::new();
        delete.insert(HOST, connection.target.host.clone());
        let answer = connection
            .exchange(Method::DELETE, &delete, Some(session), None)
            .await;
        if answer.is_ok() && window.contains(Instant::now()) {
            tally.http_requests += 1;
        }
    }
    result
}

struct TmBodies {
    initialize: Bytes,
    initialized: Bytes,
    list: Bytes,
}

async fn tmdevlab_client(target: Arc<Target>, vu: usize, window: Window) -> Tally {
    // The script sends no MCP-Protocol-Version header.
    let headers = headers(&target, None);
    let tools = tmdevlab_tools(vu);
    let bodies = TmBodies {
        initialize: Bytes::from(wire::initialize(1, "2024-11-05")),
        initialized: Bytes::from(wire::initialized()),
        list: Bytes::from(wire::tools_list(2)),
    };
    let mut connection = Connection::new(target);
    let mut tally = Tally::default();
    while Instant::now() < window.end {
        for tool in &tools {
            let Some((answer, latency, done)) = tm_session(
                &mut connection,
                &headers,
                &bodies,
                &tool.body,
                &window,
                &mut tally,
            )
            .await
            else {
                continue;
            };
            let checked = answer.status == StatusCode::OK
                && wire::tool_text(&answer.body).is_some_and(|d| (tool.check)(&d));
            if checked {
                if window.contains(done) {
                    tally.calls += 1;
                    tally.latencies.push(nanos(latency));
                }
            } else {
                tally.fail(&window, done, || describe(&answer));
            }
        }
        if let Some((answer, _, done)) = tm_session(
            &mut connection,
            &headers,
            &bodies,
            &bodies.list,
            &window,
            &mut tally,
        )
        .await
        {
            let listed = wire::payload(&answer.body)
                .and_then(|p| serde_json::from_slice::<Value>(p).ok())
                .is_some_and(|m| m["result"]["tools"].is_array());
            if !listed {
                tally.fail(&window, done, || {
                    format!("tools/list: {}", describe(&answer))
                });
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tally
}

async fn run(config: Config) -> Result<(), String> {
    let target = Arc::new(Target::parse(&config.url)?);
    let start = Instant::now();
    let window = Window {
        start: start + config.warmup,
        end: start + config.warmup + config.duration,
    };
    // CPU time and memory at the window's edges, beside the clients.
    let pid = config.server_pid;
    let meter = tokio::spawn(async move {
        tokio::time::sleep_until(window.start).await;
        let before = (
            procfs::cpu_seconds(None),
            pid.map(|p| procfs::cpu_seconds(Some(p))),
        );
        tokio::time::sleep_until(window.end).await;
        let after = (
            procfs::cpu_seconds(None),
            pid.map(|p| procfs::cpu_seconds(Some(p))),
        );
        let memory = pid.map(|p| procfs::memory(Some(p)));
        (before, after, memory)
    });
    let clients: Vec<_> = (0..config.clients)
        .map(|i| {
            let target = target.clone();
            match config.workload {
                Workload::Counter => tokio::spawn(counter_client(target, config.protocol, window)),
                Workload::TmDevLab => tokio::spawn(tmdevlab_client(target, i + 1, window)),
            }
        })
        .collect();
    let mut tally = Tally::default();
    for client in clients {
        tally.merge(client.await.map_err(|e| e.to_string())?);
    }
    let (before, after, memory) = meter.await.map_err(|e| e.to_string())?;
    let secs = config.duration.as_secs_f64();
    let summary = stats::summarize(&mut tally.latencies);
    let us = |ns: u64| {
        #[allow(clippy::cast_precision_loss, reason = "a latency")]
        let us = ns as f64 / 1000.0;
        us
    };
    #[allow(clippy::cast_precision_loss, reason = "counts")]
    let per_s = |n: u64| n as f64 / secs;
    let cpu = |b: std::io::Result<f64>, a: std::io::Result<f64>| match (b, a) {
        (Ok(b), Ok(a)) => format!("{:.2}", a - b),
        _ => "-".into(),
    };
    let (server_cpu, rss, hwm) = match (before.1, after.1, memory) {
        (Some(b), Some(a), Some(Ok(m))) => {
            (cpu(b, a), m.rss_kib.to_string(), m.hwm_kib.to_string())
        }
        _ => ("-".into(), "-".into(), "-".into()),
    };
    println!(
        "result calls={} secs={secs:.2} calls_per_s={:.1} mcp_per_s={:.1} http_per_s={:.1} \
         errors={} warmup_errors={} mean_us={:.1} p50_us={:.1} p90_us={:.1} p95_us={:.1} \
         p99_us={:.1} max_us={:.1} gen_cpu_s={} server_cpu_s={server_cpu} rss_kib={rss} \
         hwm_kib={hwm}",
        tally.calls,
        per_s(tally.calls),
        per_s(tally.mcp_requests),
        per_s(tally.http_requests),
        tally.errors,
        tally.warmup_errors,
        summary.mean / 1000.0,
        us(summary.p50),
        us(summary.p90),
        us(summary.p95),
        us(summary.p99),
        us(summary.max),
        cpu(before.0, after.0),
    );
    if let Some(error) = tally.first_error {
        println!("first_error {}", error.replace('\n', " "));
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("run") => parse_run(&args[1..]).and_then(|config| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(config.threads)
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?
                .block_on(run(config))
        }),
        Some("seed") => match args.get(1..) {
            Some([flag, url]) if flag == "--redis" => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())
                .and_then(|rt| rt.block_on(pedelec_load::tmdevlab::seed(url))),
            _ => Err("usage: load-gen seed --redis redis://HOST:PORT".into()),
        },
        _ => Err(
            "usage: load-gen run --url URL [--clients C] [--warmup S] [--secs S] \
                  [--workload counter|tmdevlab] [--protocol V] [--server-pid PID] [--threads N] \
                  | load-gen seed --redis URL"
                .into(),
        ),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("load-gen: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn run_flags() {
        let config = parse_run(&args(
            "--url http://127.0.0.1:9/mcp --clients 64 --warmup 0.5 --secs 1_0 --workload tmdevlab \
             --protocol 2026-07-28 --server-pid 42 --threads 1",
        ))
        .unwrap();
        assert_eq!(config.clients, 64);
        assert_eq!(config.warmup, Duration::from_millis(500));
        assert_eq!(config.duration, Duration::from_secs(10));
        assert_eq!(config.workload, Workload::TmDevLab);
        assert_eq!(config.protocol, Protocol::V2026_07_28);
        assert_eq!((config.server_pid, config.threads), (Some(42), 1));
        assert!(
            parse_run(&args("--clients 4"))
                .unwrap_err()
                .contains("--url")
        );
        assert!(
            parse_run(&args("--url x --clients"))
                .unwrap_err()
                .contains("takes a value")
        );
        assert!(
            parse_run(&args("--url x --clients many"))
                .unwrap_err()
                .contains("number")
        );
        assert!(parse_run(&args("--url x --clients 0")).is_err());
        assert!(
            parse_run(&args("--url x --bogus 1"))
                .unwrap_err()
                .contains("unknown flag")
        );
    }

    #[test]
    fn loopback_targets_only() {
        let target = Target::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(target.uri, "/mcp");
        assert_eq!(target.host, "127.0.0.1:8080");
        assert!(Target::parse("http://10.0.0.1:8080/mcp").is_err());
        assert!(Target::parse("https://127.0.0.1:8080/mcp").is_err());
        assert!(Target::parse("http://localhost:8080/mcp").is_err());
    }

    #[test]
    fn the_scripts_checks() {
        let tools = tmdevlab_tools(7);
        let search = json!({"total_found": 2251, "products": vec![json!({}); 10], "top10_popular_ids": (0..10).collect::<Vec<_>>()});
        assert!((tools[0].check)(&search));
        assert!(!(tools[0].check)(&json!({"total_found": 2250})));
        let cart = json!({"user_id": "user-00007", "cart": {"items": [1]}, "recent_history": [1, 2, 3, 4, 5]});
        assert!((tools[1].check)(&cart));
        let order = json!({"status": "confirmed", "total": 24.63, "items_count": 2});
        assert!((tools[2].check)(&order));
        assert!(!(tools[2].check)(
            &json!({"status": "confirmed", "total": 0.0, "items_count": 2})
        ));
        let body: Value = serde_json::from_slice(&tools[1].body).unwrap();
        assert_eq!(body["params"]["arguments"]["user_id"], "user-00007");
    }
}
