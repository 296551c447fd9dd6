//! The JSON Lines bridge (`docs/protocol.md`): the manifest first, calls and results, many
//! in flight, cancellation, and every kind of bad input answered with a protocol error while
//! the session keeps serving.

mod support;

use std::collections::HashMap;
use std::time::Duration;

use pedelec_core::bridge::JsonLines;
use pedelec_core::session::SessionEvent;
use pedelec_core::skills::SkillSet;
use pedelec_core::{ErrorCode, Session};
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};

fn session() -> Session<ToolName> {
    Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap()
}

/// Core's end of a connection.
struct Core<R, W> {
    lines: tokio::io::Lines<BufReader<R>>,
    writer: W,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Core<R, W> {
    async fn send(&mut self, line: &str) {
        self.writer.write_all(line.as_bytes()).await.unwrap();
        self.writer.write_all(b"\n").await.unwrap();
        self.writer.flush().await.unwrap();
    }

    async fn send_json(&mut self, message: Value) {
        self.send(&message.to_string()).await;
    }

    async fn recv(&mut self) -> Value {
        let line = self
            .lines
            .next_line()
            .await
            .unwrap()
            .expect("the session closed the connection");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Sends a call and waits for its result (nothing else in flight).
    async fn call(&mut self, call_id: &str, name: &str, args: Value) -> Value {
        self.send_json(json!({"type": "tool_call", "callId": call_id, "name": name, "args": args}))
            .await;
        let msg = self.recv().await;
        assert_eq!(msg["type"], "tool_result", "{msg}");
        assert_eq!(msg["callId"], call_id, "{msg}");
        msg["result"].clone()
    }
}

/// A session served over an in-memory pipe; returns Core's end (manifest already read)
/// and the serve task.
async fn connect(
    session: &Session<ToolName>,
    bridge: impl FnOnce(
        DuplexStream,
    ) -> JsonLines<
        tokio::io::ReadHalf<DuplexStream>,
        tokio::io::WriteHalf<DuplexStream>,
    >,
) -> (
    Core<tokio::io::ReadHalf<DuplexStream>, tokio::io::WriteHalf<DuplexStream>>,
    tokio::task::JoinHandle<Result<(), pedelec_core::Error>>,
) {
    let (core_end, session_end) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(session.serve(bridge(session_end)));
    let (r, w) = tokio::io::split(core_end);
    let mut core = Core {
        lines: BufReader::new(r).lines(),
        writer: w,
    };
    let manifest = core.recv().await;
    assert_eq!(manifest["type"], "manifest");
    assert_eq!(manifest["protocol"], 1);
    assert_eq!(
        manifest["manifest"],
        serde_json::to_value(session.manifest()).unwrap()
    );
    (core, task)
}

#[tokio::test]
async fn the_manifest_comes_first_then_calls_are_answered() {
    let session = session();
    let (mut core, task) = connect(&session, JsonLines::new).await;
    assert_eq!(
        core.call("c1", "update_counter", json!({"delta": 2})).await,
        json!({"ok": true, "value": {"value": 2}})
    );
    let result = core
        .call("c2", "update_counter", json!({"delta": "2"}))
        .await;
    assert_eq!(result["ok"], false);
    assert_eq!(result["error"]["code"], "TOOL_ARGS_INVALID");
    let result = core.call("c3", "nope", json!({})).await;
    assert_eq!(result["error"]["code"], "TOOL_HANDLER_NOT_FOUND");
    // Missing and null args count as `{}`.
    core.send(r#"{"type":"tool_call","callId":"c4","name":"fail"}"#)
        .await;
    let msg = core.recv().await;
    assert_eq!(msg["result"]["error"]["message"], "the disk is full");
    core.send(r#"{"type":"tool_call","callId":"c5","name":"fail","args":null,"extra":"ignored"}"#)
        .await;
    assert_eq!(core.recv().await["callId"], "c5");
    drop(core);
    task.await.unwrap().unwrap();
}

/// Sends a bad line and returns the protocol error it got.
async fn bad_line<R: AsyncRead + Unpin, W: AsyncWrite + Unpin>(
    core: &mut Core<R, W>,
    line: &str,
) -> Value {
    core.send(line).await;
    let msg = core.recv().await;
    assert_eq!(msg["type"], "protocol_error", "{msg}");
    msg
}

#[tokio::test]
async fn bad_lines_get_protocol_errors_and_the_session_keeps_serving() {
    let session = session();
    let (mut core, task) = connect(&session, JsonLines::new).await;

    let e = bad_line(&mut core, "this is not json").await;
    assert_eq!(e["code"], "MALFORMED_JSON");
    assert_eq!(e["line"], 1);
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .starts_with("the line is not valid JSON: expected"),
        "{e}"
    );

    let e = bad_line(
        &mut core,
        r#"{"type":"tool_call","callId":"t1","name":"echo","args":{"te"#,
    )
    .await;
    assert_eq!(e["code"], "MALFORMED_JSON");
    assert!(
        e["message"].as_str().unwrap().contains("EOF while parsing"),
        "{e}"
    );
    assert_eq!(e["line"], 2);

    let e = bad_line(
        &mut core,
        r#"{"type":"tool_call","callId":"t2","name":5,"args":{}}"#,
    )
    .await;
    assert_eq!(
        e,
        json!({"type": "protocol_error", "code": "INVALID_MESSAGE", "message": "`name` must be a string, not a number (`5`)", "line": 3, "callId": "t2"})
    );

    let e = bad_line(
        &mut core,
        r#"{"type":"tool_call","callId":17,"name":"echo"}"#,
    )
    .await;
    assert_eq!(e["code"], "INVALID_MESSAGE");
    assert_eq!(
        e["message"],
        "`callId` must be a string, not a number (`17`)"
    );
    assert!(e.get("callId").is_none());

    let e = bad_line(&mut core, r#"{"type":"tool_call","name":"echo"}"#).await;
    assert_eq!(e["message"], "a `tool_call` needs a `callId` (a string)");

    let e = bad_line(&mut core, r#"{"type":"tool_call","callId":"t3"}"#).await;
    assert_eq!(
        e["message"],
        "a `tool_call` needs a `name` (a string: the tool to call)"
    );
    assert_eq!(e["callId"], "t3");

    let e = bad_line(&mut core, "[1, 2, 3]").await;
    assert_eq!(
        e["message"],
        "a message is a JSON object with a `type`, not an array"
    );

    let e = bad_line(&mut core, r#"{"callId":"t4"}"#).await;
    assert_eq!(
        e["message"],
        "a message needs a `type` (\"tool_call\" or \"cancel\")"
    );

    let e = bad_line(&mut core, r#"{"type":"tool_cal","callId":"t5"}"#).await;
    assert_eq!(e["code"], "UNKNOWN_MESSAGE_TYPE");
    assert_eq!(
        e["message"],
        "unknown message type \"tool_cal\"; expected \"tool_call\" or \"cancel\""
    );
    assert_eq!(e["callId"], "t5");

    let e = bad_line(&mut core, r#"{"type":"cancel","callId":"never-sent"}"#).await;
    assert_eq!(e["code"], "UNKNOWN_CALL_ID");
    assert_eq!(e["callId"], "never-sent");

    let deep = format!(
        r#"{{"type":"tool_call","callId":"t6","name":"echo","args":{{"text":{}1{}}}}}"#,
        "[".repeat(100),
        "]".repeat(100)
    );
    let e = bad_line(&mut core, &deep).await;
    assert_eq!(e["code"], "NESTING_TOO_DEEP");
    assert_eq!(
        e["message"],
        "the message nests arrays and objects deeper than 64 levels"
    );

    let huge = format!(
        r#"{{"type":"tool_call","callId":"t7","name":"echo","args":{{"text":"{}"}}}}"#,
        "x".repeat(2 << 20)
    );
    let e = bad_line(&mut core, &huge).await;
    assert_eq!(e["code"], "LINE_TOO_LONG");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .ends_with("bytes long, over the limit of 1048576 bytes"),
        "{e}"
    );

    core.writer
        .write_all(b"{\"type\":\"cancel\",\"callId\":\"\xff\"}\n")
        .await
        .unwrap();
    let e = core.recv().await;
    assert_eq!(e["code"], "MALFORMED_JSON");
    assert_eq!(e["message"], "the line is not valid UTF-8 (at byte 27)");

    // Blank lines are skipped (but counted); CRLF works.
    core.send("").await;
    core.send("   ").await;
    core.send("{\"type\":\"tool_call\",\"callId\":\"ok\",\"name\":\"echo\",\"args\":{\"text\":\"still here\"}}\r").await;
    let msg = core.recv().await;
    assert_eq!(msg["result"], json!({"ok": true, "value": "still here"}));

    let e = bad_line(&mut core, "nul").await;
    assert_eq!(e["line"], 17);

    drop(core);
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn limits_are_configurable() {
    let session = session();
    let (mut core, task) = connect(&session, |s| {
        JsonLines::new(s).max_line_bytes(100).max_depth(3)
    })
    .await;
    let long = format!(
        r#"{{"type":"tool_call","callId":"a","name":"echo","args":{{"text":"{}"}}}}"#,
        "y".repeat(100)
    );
    assert_eq!(bad_line(&mut core, &long).await["code"], "LINE_TOO_LONG");
    let nested = r#"{"type":"tool_call","callId":"b","name":"echo","args":{"text":[["x"]]}}"#;
    assert_eq!(
        bad_line(&mut core, nested).await["code"],
        "NESTING_TOO_DEEP"
    );
    let result = core.call("c", "echo", json!({"text": "fits"})).await;
    assert_eq!(result, json!({"ok": true, "value": "fits"}));
    drop(core);
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn cancel_and_duplicate_ids() {
    let session = session();
    session.on_tool::<slow>(|_args, ctx| async move {
        ctx.cancelled().await;
        // Too late: the session already answered TOOL_CANCELLED and dropped this future.
        Ok(())
    });
    let (mut core, task) = connect(&session, JsonLines::new).await;
    core.send(r#"{"type":"tool_call","callId":"s1","name":"slow","args":{}}"#)
        .await;
    let e = bad_line(
        &mut core,
        r#"{"type":"tool_call","callId":"s1","name":"echo","args":{"text":"dup"}}"#,
    )
    .await;
    assert_eq!(e["code"], "DUPLICATE_CALL_ID");
    assert_eq!(e["callId"], "s1");
    core.send(r#"{"type":"cancel","callId":"s1"}"#).await;
    let msg = core.recv().await;
    assert_eq!(
        msg,
        json!({"type": "tool_result", "callId": "s1", "result": {"ok": false, "error": {"code": "TOOL_CANCELLED", "message": "the call was cancelled"}}})
    );
    // The id is free again.
    let result = core.call("s1", "echo", json!({"text": "again"})).await;
    assert_eq!(result["value"], "again");
    drop(core);
    task.await.unwrap().unwrap();
}

#[tokio::test]
async fn calls_in_flight_at_end_of_input_are_still_answered() {
    let session = session();
    let (release, released) = tokio::sync::watch::channel(false);
    session.on_tool::<echo>(move |args, _ctx| {
        let mut released = released.clone();
        async move {
            released.wait_for(|r| *r).await.unwrap();
            Ok(args.text)
        }
    });
    let (mut core, task) = connect(&session, JsonLines::new).await;
    for i in 0..3 {
        core.send_json(json!({"type": "tool_call", "callId": format!("e{i}"), "name": "echo", "args": {"text": i.to_string()}}))
            .await;
    }
    // Core closes its side: no more calls. The session still answers the three.
    core.writer.shutdown().await.unwrap();
    release.send(true).unwrap();
    let mut ids = Vec::new();
    for _ in 0..3 {
        ids.push(core.recv().await["callId"].as_str().unwrap().to_owned());
    }
    ids.sort();
    assert_eq!(ids, ["e0", "e1", "e2"]);
    task.await.unwrap().unwrap();
    assert!(core.lines.next_line().await.unwrap().is_none());
}

/// A writer that takes the manifest line, then fails: Core went away.
struct BrokenPipe {
    manifest_written: bool,
}

impl AsyncWrite for BrokenPipe {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        if self.manifest_written {
            std::task::Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::BrokenPipe,
                "Core went away",
            )))
        } else {
            let end = buf
                .iter()
                .position(|b| *b == b'\n')
                .map_or(buf.len(), |i| i + 1);
            self.manifest_written = end <= buf.len() && buf[..end].ends_with(b"\n");
            std::task::Poll::Ready(Ok(end))
        }
    }
    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::task::Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn undeliverable_results_are_reported_as_events() {
    let session = session();
    let mut events = session.events();
    let (mut input, reader) = tokio::io::duplex(1024);
    let task = tokio::spawn(session.serve(JsonLines::from_parts(
        reader,
        BrokenPipe {
            manifest_written: false,
        },
    )));
    input
        .write_all(b"{\"type\":\"tool_call\",\"callId\":\"lost\",\"name\":\"update_counter\",\"args\":{\"delta\":1}}\n")
        .await
        .unwrap();
    let failed = loop {
        if let SessionEvent::SubmitToolResultFailed {
            call_id,
            tool,
            error,
        } = events.recv().await.unwrap()
        {
            break (call_id, tool, error);
        }
    };
    assert_eq!(failed.0, "lost");
    assert_eq!(failed.1, "update_counter");
    assert_eq!(failed.2.code(), ErrorCode::SubmitToolResultFailed);
    assert_eq!(failed.2.message(), "cannot write to Core: Core went away");
    // The bridge stops: Core is unreachable, an I/O failure that keeps its `io::Error`.
    let err = task.await.unwrap().unwrap_err();
    assert_eq!(err.code(), ErrorCode::IoFailed);
    assert_eq!(err.message(), "cannot write to Core");
    assert_eq!(
        err.to_string(),
        "IO_FAILED: cannot write to Core: Core went away"
    );
    let pedelec_core::Error::Io { source, .. } = &err else {
        panic!("an I/O error: {err:?}");
    };
    assert_eq!(source.kind(), std::io::ErrorKind::BrokenPipe);
    let chained = std::error::Error::source(&err).expect("the io::Error as the source");
    assert_eq!(chained.to_string(), "Core went away");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_concurrent_calls_over_tcp() {
    quiet_deliberate_panics();
    const CALLS: usize = 10_000;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let session = session();
    let server = tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        // Every call is sent at once: allow them all in flight.
        session
            .serve(JsonLines::tcp(stream).max_calls_in_flight(CALLS))
            .await
    });
    let stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (r, mut w) = stream.into_split();
    let mut lines = BufReader::new(r).lines();
    let manifest: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(manifest["type"], "manifest");

    // A mix: successes, bad args, handler errors, panics, timeouts, unknown tools.
    let kinds = [
        ("update_counter", json!({"delta": 1}), None),
        (
            "update_counter",
            json!({"delta": "one"}),
            Some(ErrorCode::ToolArgsInvalid),
        ),
        ("fail", json!({}), Some(ErrorCode::ToolHandlerError)),
        ("explode", json!({}), Some(ErrorCode::ToolHandlerError)),
        ("slow", json!({}), Some(ErrorCode::ToolTimeout)),
        ("nan", json!({}), Some(ErrorCode::ToolResultInvalid)),
        ("missing", json!({}), Some(ErrorCode::ToolHandlerNotFound)),
        ("echo", json!({"text": "hi"}), None),
    ];
    let mut expected: HashMap<Option<ErrorCode>, usize> = HashMap::new();
    let mut requests = String::new();
    for i in 0..CALLS {
        let (name, args, code) = &kinds[i % kinds.len()];
        *expected.entry(*code).or_default() += 1;
        requests.push_str(
            &json!({"type": "tool_call", "callId": format!("call-{i}"), "name": name, "args": args})
                .to_string(),
        );
        requests.push('\n');
    }
    let writer = tokio::spawn(async move {
        w.write_all(requests.as_bytes()).await.unwrap();
        w.flush().await.unwrap();
        w
    });

    let mut seen = vec![false; CALLS];
    let mut counts: HashMap<Option<ErrorCode>, usize> = HashMap::new();
    for _ in 0..CALLS {
        let line = tokio::time::timeout(Duration::from_mins(1), lines.next_line())
            .await
            .expect("results keep coming")
            .unwrap()
            .unwrap();
        let msg: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(msg["type"], "tool_result", "{msg}");
        let id: usize = msg["callId"].as_str().unwrap()["call-".len()..]
            .parse()
            .unwrap();
        assert!(!seen[id], "call {id} answered twice");
        seen[id] = true;
        let code = msg["result"]["error"]["code"]
            .as_str()
            .map(|c| serde_json::from_value::<ErrorCode>(json!(c)).unwrap());
        let (_, _, want) = &kinds[id % kinds.len()];
        assert_eq!(&code, want, "call {id}: {msg}");
        *counts.entry(code).or_default() += 1;
    }
    assert!(seen.iter().all(|s| *s));
    assert_eq!(counts, expected);

    // Core hangs up: the session finishes cleanly.
    let mut w = writer.await.unwrap();
    w.shutdown().await.unwrap();
    assert!(lines.next_line().await.unwrap().is_none());
    server.await.unwrap().unwrap();
}

#[tokio::test]
async fn progress_reports_come_before_the_result_and_never_after() {
    let session = session();
    let (late_tx, late_rx) = tokio::sync::oneshot::channel::<pedelec_core::ToolCallContext>();
    let late_tx = std::sync::Mutex::new(Some(late_tx));
    session.on_tool_name(ToolName::Slow, move |_args: Value, ctx| {
        ctx.progress(1, Some(2), "halfway");
        ctx.progress(2, None, String::new());
        // Keep the context past the result, to report once more after it was sent.
        if let Some(tx) = late_tx.lock().unwrap().take() {
            let _ = tx.send(ctx.clone());
        }
        async move { Ok::<_, pedelec_core::ToolError>(json!("done")) }
    });
    let (mut core, task) = connect(&session, JsonLines::new).await;
    core.send_json(json!({"type": "tool_call", "callId": "p1", "name": "slow"}))
        .await;
    assert_eq!(
        core.recv().await,
        json!({"type": "tool_progress", "callId": "p1", "done": 1, "total": 2, "message": "halfway"})
    );
    assert_eq!(
        core.recv().await,
        json!({"type": "tool_progress", "callId": "p1", "done": 2, "message": ""})
    );
    let result = core.recv().await;
    assert_eq!(result["type"], "tool_result", "{result}");
    assert_eq!(result["result"], json!({"ok": true, "value": "done"}));

    // After the result: dropped. The next line Core sees is the next call's result.
    let ctx = late_rx.await.unwrap();
    ctx.progress(3, Some(3), "too late");
    assert_eq!(
        core.call("c2", "update_counter", json!({"delta": 1})).await,
        json!({"ok": true, "value": {"value": 1}})
    );
    drop(core);
    task.await.unwrap().unwrap();
}

/// A bridge serves a session typed by its `ToolName` enum directly (`Bridge::serve`), not
/// only through `Session::serve`.
#[tokio::test]
async fn a_bridge_serves_a_typed_session() {
    use pedelec_core::bridge::Bridge;
    let (core_end, server_end) = tokio::io::duplex(1 << 16);
    let typed: Session<ToolName> = session();
    let served = tokio::spawn(JsonLines::new(server_end).serve(typed));
    let (r, w) = tokio::io::split(core_end);
    let mut core = Core {
        lines: BufReader::new(r).lines(),
        writer: w,
    };
    assert_eq!(core.recv().await["type"], "manifest");
    let result = core.call("c1", "update_counter", json!({"delta": 2})).await;
    assert_eq!(result, json!({"ok": true, "value": {"value": 2}}));
    drop(core);
    served.await.unwrap().unwrap();
}
