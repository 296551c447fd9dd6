//! The JSON Lines bridge under pressure (`docs/protocol.md`, "Limits" and "Lifecycle"): a
//! Core that stops reading, too many calls, too many connections, idle connections, and
//! graceful shutdown (`Session::shutdown`, dropping a served bridge).

mod support;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pedelec_core::bridge::JsonLines;
use pedelec_core::skills::SkillSet;
use pedelec_core::{Session, ToolError};
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// How long a test waits for something that should happen at once (a liveness bound, not
/// a timing assertion).
const PATIENCE: Duration = Duration::from_secs(30);

/// A session whose `echo` handler counts the calls it starts and then behaves as its text
/// says: `"wait:<ms>"` sleeps that long, `"forever"` never finishes (until cancelled),
/// anything else answers at once.
fn session(started: &Arc<AtomicUsize>) -> Session<ToolName> {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    let started = started.clone();
    session.on_tool::<echo>(move |args, _ctx| {
        started.fetch_add(1, Ordering::SeqCst);
        async move {
            if args.text == "forever" {
                std::future::pending::<()>().await;
            }
            if let Some(ms) = args.text.strip_prefix("wait:") {
                let ms: u64 = ms.parse().map_err(|_| ToolError::new("bad wait"))?;
                tokio::time::sleep(Duration::from_millis(ms)).await;
            }
            Ok(args.text)
        }
    });
    session
}

fn call(call_id: &str, text: &str) -> String {
    json!({"type": "tool_call", "callId": call_id, "name": "echo", "args": {"text": text}})
        .to_string()
        + "\n"
}

/// Core's end of a connection.
struct Core<R, W> {
    lines: tokio::io::Lines<BufReader<R>>,
    writer: W,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Core<R, W> {
    fn new(reader: R, writer: W) -> Self {
        Core {
            lines: BufReader::new(reader).lines(),
            writer,
        }
    }

    async fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.flush().await.unwrap();
    }

    /// The next message, or `None` at end of input.
    async fn next(&mut self) -> Option<Value> {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .expect("the session answers")
            .unwrap()?;
        Some(serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}")))
    }

    async fn recv(&mut self) -> Value {
        self.next()
            .await
            .expect("the session closed the connection")
    }
}

async fn tcp_core(
    addr: std::net::SocketAddr,
) -> Core<tokio::net::tcp::OwnedReadHalf, tokio::net::tcp::OwnedWriteHalf> {
    let (r, w) = TcpStream::connect(addr).await.unwrap().into_split();
    Core::new(r, w)
}

/// Waits until `started` reaches `n`.
async fn until_started(started: &AtomicUsize, n: usize) {
    tokio::time::timeout(PATIENCE, async {
        while started.load(Ordering::SeqCst) < n {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the calls start");
}

/// Collects `tool_result`s by call id until `n` arrived; panics on a second result for an
/// id or on any other message.
async fn results<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    core: &mut Core<R, W>,
    n: usize,
) -> HashMap<String, Value> {
    let mut results = HashMap::new();
    while results.len() < n {
        let msg = core.recv().await;
        assert_eq!(msg["type"], "tool_result", "{msg}");
        let id = msg["callId"].as_str().unwrap().to_owned();
        assert!(
            results.insert(id.clone(), msg["result"].clone()).is_none(),
            "{id} answered twice"
        );
    }
    results
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_core_that_stops_reading_cannot_grow_the_session_memory() {
    const CALLS: usize = 20_000;
    const PIPE: usize = 8 * 1024;
    const QUEUE: usize = 2 * 1024;
    const IN_FLIGHT: usize = 16;
    let started = Arc::new(AtomicUsize::new(0));
    let session = session(&started);
    let (core_end, session_end) = tokio::io::duplex(PIPE);
    let server = tokio::spawn(
        session.serve(
            JsonLines::new(session_end)
                .max_queued_bytes(QUEUE)
                .max_calls_in_flight(IN_FLIGHT),
        ),
    );
    let (r, mut w) = tokio::io::split(core_end);
    let mut core = Core::new(r, tokio::io::sink());
    assert_eq!(core.recv().await["type"], "manifest");

    // Core sends every call and reads nothing.
    let sender = tokio::spawn(async move {
        let mut all = String::new();
        for i in 0..CALLS {
            all.push_str(&call(&format!("c{i}"), "x"));
        }
        w.write_all(all.as_bytes()).await.unwrap();
        w.shutdown().await.unwrap();
        w
    });
    // Until the session stopped starting calls (the same count three times in a row).
    until_started(&started, 1).await;
    let (mut last, mut same) = (0, 0);
    while same < 3 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = started.load(Ordering::SeqCst);
        same = if now == last { same + 1 } else { 0 };
        last = now;
    }
    // What the session may hold: results in the pipe, one batch being written, a full
    // queue (each over by one line at most), and the calls in flight.
    let shortest = call("c0", "x")
        .len()
        .min(r#"{"type":"tool_result","callId":"c0","result":{"ok":true,"value":"x"}}"#.len() + 1);
    let longest = 100;
    let bound = (PIPE + 2 * (QUEUE + longest)) / shortest + IN_FLIGHT;
    assert!(
        last <= bound,
        "{last} calls started while Core read nothing (at most {bound} expected)"
    );
    assert!(!sender.is_finished(), "the session stopped reading");

    // Core reads again: every call is answered, once.
    let answered = results(&mut core, CALLS).await;
    assert!(answered.values().all(|r| r["ok"] == true));
    assert!(core.next().await.is_none());
    server.await.unwrap().unwrap();
    drop(sender.await.unwrap());
    assert_eq!(started.load(Ordering::SeqCst), CALLS);
}

#[tokio::test]
async fn calls_beyond_the_in_flight_limit_get_a_protocol_error() {
    let started = Arc::new(AtomicUsize::new(0));
    let session = session(&started);
    let (core_end, session_end) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(session.serve(JsonLines::new(session_end).max_calls_in_flight(3)));
    let (r, w) = tokio::io::split(core_end);
    let mut core = Core::new(r, w);
    assert_eq!(core.recv().await["type"], "manifest");
    for i in 0..5 {
        core.send(&call(&format!("c{i}"), "forever")).await;
    }
    for i in 3..5 {
        let msg = core.recv().await;
        assert_eq!(msg["type"], "protocol_error", "{msg}");
        assert_eq!(msg["code"], "TOO_MANY_CALLS");
        assert_eq!(msg["callId"], format!("c{i}"));
        assert_eq!(msg["line"], i + 1);
        assert_eq!(
            msg["message"],
            "too many calls in flight: this connection runs at most 3 at once; the call was not run (send it again once a result arrives)"
        );
    }
    until_started(&started, 3).await;
    // Cancels are still read, and free a place.
    core.send("{\"type\":\"cancel\",\"callId\":\"c0\"}\n").await;
    let msg = core.recv().await;
    assert_eq!(msg["callId"], "c0");
    assert_eq!(msg["result"]["error"]["code"], "TOOL_CANCELLED");
    core.send(&call("c5", "now")).await;
    let msg = core.recv().await;
    assert_eq!(msg["callId"], "c5", "{msg}");
    assert_eq!(msg["result"]["value"], "now");
    assert_eq!(started.load(Ordering::SeqCst), 4);
    core.send("{\"type\":\"cancel\",\"callId\":\"c1\"}\n{\"type\":\"cancel\",\"callId\":\"c2\"}\n")
        .await;
    let answered = results(&mut core, 2).await;
    assert!(answered.contains_key("c1") && answered.contains_key("c2"));
    drop(core);
    tokio::time::timeout(PATIENCE, server)
        .await
        .expect("serving ends")
        .unwrap()
        .unwrap();
}

#[tokio::test]
async fn a_listener_serves_at_most_max_connections() {
    let started = Arc::new(AtomicUsize::new(0));
    let session = session(&started);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(session.serve(JsonLines::listen(listener).max_connections(2)));

    let mut first = tcp_core(addr).await;
    assert_eq!(first.recv().await["type"], "manifest");
    let mut second = tcp_core(addr).await;
    assert_eq!(second.recv().await["type"], "manifest");
    let mut third = tcp_core(addr).await;
    let msg = third.recv().await;
    assert_eq!(
        msg,
        json!({
            "type": "protocol_error",
            "code": "TOO_MANY_CONNECTIONS",
            "message": "the server serves at most 2 connections at once; try again later",
            "line": 0,
        })
    );
    assert!(
        third.next().await.is_none(),
        "a refused connection is closed"
    );

    // One leaves: a new connection is served (once the session noticed).
    drop(first);
    let mut fourth = loop {
        let mut core = tcp_core(addr).await;
        let msg = core.recv().await;
        if msg["type"] == "manifest" {
            break core;
        }
        assert_eq!(msg["code"], "TOO_MANY_CONNECTIONS");
        tokio::time::sleep(Duration::from_millis(10)).await;
    };
    fourth.send(&call("a", "four")).await;
    assert_eq!(fourth.recv().await["result"]["value"], "four");
    second.send(&call("b", "two")).await;
    assert_eq!(second.recv().await["result"]["value"], "two");

    // Shutting the session down ends every connection, then the listener.
    session.shutdown(Duration::from_secs(5)).await;
    assert!(fourth.next().await.is_none());
    assert!(second.next().await.is_none());
    tokio::time::timeout(PATIENCE, server)
        .await
        .expect("the listener stops")
        .unwrap()
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_are_closed_but_not_while_calls_run() {
    const IDLE: Duration = Duration::from_millis(400);
    let started = Arc::new(AtomicUsize::new(0));
    let session = session(&started);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(session.serve(JsonLines::listen(listener).idle_timeout(Some(IDLE))));

    // Silent: closed, after being told why.
    let mut silent = tcp_core(addr).await;
    assert_eq!(silent.recv().await["type"], "manifest");
    let msg = silent.recv().await;
    assert_eq!(msg["type"], "protocol_error", "{msg}");
    assert_eq!(msg["code"], "IDLE_TIMEOUT");
    assert_eq!(msg["line"], 0);
    assert_eq!(
        msg["message"],
        "closing the connection: no message for 0.4 s and no call in flight"
    );
    assert!(silent.next().await.is_none());

    // A call that runs longer than two idle periods: answered; the connection is closed
    // only afterwards.
    let mut waiting = tcp_core(addr).await;
    assert_eq!(waiting.recv().await["type"], "manifest");
    waiting.send(&call("long", "wait:1200")).await;
    let msg = waiting.recv().await;
    assert_eq!(msg["callId"], "long", "{msg}");
    assert_eq!(msg["result"]["value"], "wait:1200");
    assert_eq!(waiting.recv().await["code"], "IDLE_TIMEOUT");
    assert!(waiting.next().await.is_none());

    // A chatty connection stays.
    let mut chatty = tcp_core(addr).await;
    assert_eq!(chatty.recv().await["type"], "manifest");
    for i in 0..30 {
        let id = format!("k{i}");
        chatty.send(&call(&id, "hi")).await;
        let msg = chatty.recv().await;
        assert_eq!(msg["callId"], id, "{msg}");
        tokio::time::sleep(Duration::from_millis(40)).await;
    }
    session.shutdown(Duration::ZERO).await;
    assert!(chatty.next().await.is_none());
    server.await.unwrap().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_lets_calls_finish_within_grace_and_cancels_the_rest() {
    let started = Arc::new(AtomicUsize::new(0));
    let session = session(&started);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(session.serve(JsonLines::listen(listener)));
    let mut cores = Vec::new();
    for c in 0..2 {
        let mut core = tcp_core(addr).await;
        assert_eq!(core.recv().await["type"], "manifest");
        for i in 0..4 {
            core.send(&call(&format!("fast-{c}-{i}"), "wait:200")).await;
            core.send(&call(&format!("slow-{c}-{i}"), "forever")).await;
        }
        cores.push(core);
    }
    until_started(&started, 16).await;

    let shutdown = tokio::spawn(session.shutdown(Duration::from_secs(3)));
    tokio::time::timeout(PATIENCE, async {
        while !session.is_shutting_down() {
            tokio::task::yield_now().await;
        }
    })
    .await
    .unwrap();
    // A call sent during the grace period: refused, but answered.
    cores[0].send(&call("late", "x")).await;
    // In process too.
    let late = session.call("echo", json!({"text": "x"})).await;
    let error = late.into_result().expect_err("refused");
    assert_eq!(error.code(), pedelec_core::ErrorCode::ToolCancelled);
    assert_eq!(
        error.message(),
        "the call was cancelled: the session is shutting down and accepts no new calls"
    );

    for (c, core) in cores.iter_mut().enumerate() {
        let n = if c == 0 { 9 } else { 8 };
        let answered = results(core, n).await;
        for (id, result) in &answered {
            if id.starts_with("fast") {
                assert_eq!(result, &json!({"ok": true, "value": "wait:200"}), "{id}");
            } else if id.starts_with("slow") {
                assert_eq!(
                    result["error"],
                    json!({
                        "code": "TOOL_CANCELLED",
                        "message": "the call was cancelled: the session shut down and the call did not finish within the grace period of 3000 ms",
                        "details": {"shutdown": true, "graceMs": 3000},
                    }),
                    "{id}"
                );
            } else {
                assert_eq!(id, "late");
                assert_eq!(result["error"]["code"], "TOOL_CANCELLED");
                assert_eq!(result["error"]["details"], json!({"shutdown": true}));
            }
        }
        // Then the connection ends.
        assert!(core.next().await.is_none());
    }
    tokio::time::timeout(PATIENCE, shutdown)
        .await
        .expect("the shutdown ends")
        .unwrap();
    tokio::time::timeout(PATIENCE, server)
        .await
        .expect("serving ends")
        .unwrap()
        .unwrap();
    // Started: 16 calls; the late ones never ran.
    assert_eq!(started.load(Ordering::SeqCst), 16);
}

#[tokio::test]
async fn shutdown_without_calls_in_flight_does_not_wait_for_the_grace_period() {
    let started = Arc::new(AtomicUsize::new(0));
    let session = session(&started);
    let pending = session.start_call("echo", json!({"text": "wait:50"}));
    until_started(&started, 1).await;
    tokio::time::timeout(PATIENCE, session.shutdown(Duration::from_hours(1)))
        .await
        .expect("the shutdown ends as soon as the call finished");
    assert_eq!(pending.await.into_result().unwrap(), json!("wait:50"));
    // Later shutdowns are over at once; the session refuses calls.
    tokio::time::timeout(PATIENCE, session.shutdown(Duration::from_hours(1)))
        .await
        .unwrap();
    tokio::time::timeout(PATIENCE, session.closed())
        .await
        .unwrap();
    let error = session
        .call("update_counter", json!({"delta": 1}))
        .await
        .into_result()
        .unwrap_err();
    assert_eq!(error.code(), pedelec_core::ErrorCode::ToolCancelled);
}

#[tokio::test]
async fn dropping_a_served_bridge_cancels_its_calls_and_still_answers_them() {
    let started = Arc::new(AtomicUsize::new(0));
    let session = session(&started);
    let (core_end, session_end) = tokio::io::duplex(1 << 16);
    let server = tokio::spawn(session.serve(JsonLines::new(session_end)));
    let (r, w) = tokio::io::split(core_end);
    let mut core = Core::new(r, w);
    assert_eq!(core.recv().await["type"], "manifest");
    for i in 0..3 {
        core.send(&call(&format!("s{i}"), "forever")).await;
    }
    until_started(&started, 3).await;
    server.abort();
    let answered = results(&mut core, 3).await;
    for (id, result) in answered {
        assert_eq!(result["error"]["code"], "TOOL_CANCELLED", "{id}");
    }
    assert!(core.next().await.is_none());
    // The session itself goes on.
    assert_eq!(
        session
            .call("echo", json!({"text": "still here"}))
            .await
            .into_result()
            .unwrap(),
        json!("still here")
    );
}
