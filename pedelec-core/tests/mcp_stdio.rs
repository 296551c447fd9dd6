//! `Mcp` (stdio) spoken to line by line, as a client would: both revisions on one
//! connection, a handler asking the user (2025-11-25: a request to the client; 2026-07-28:
//! an input-required result and a signed `requestState`, a tampered one refused), logs at
//! the level asked, the in-flight byte bound, and the session's shutdown ending `serve`.

mod support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering as AtomicOrdering};
use std::time::Duration;

use pedelec_core::bridge::Mcp;
use pedelec_core::context::{Elicited, LogLevel};
use pedelec_core::schema::{Property, SchemaNode, ToolArgsRoot};
use pedelec_core::skills::SkillSet;
use pedelec_core::{Session, SkillsInput, ToolArgs, ToolCall, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};
use support::*;
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};

const PATIENCE: Duration = Duration::from_secs(20);

#[derive(Debug, Deserialize)]
struct Confirm {
    ok: bool,
}

impl ToolArgs for Confirm {
    const SCHEMA: SchemaNode =
        SchemaNode::object(const { &[Property::new("ok", SchemaNode::boolean(), true)] }).closed();
}
impl ToolArgsRoot for Confirm {}

/// `manual` asks for a confirmation (logging before and after); `echo`'s handler sleeps
/// `repeat` ms.
fn session() -> Session<ToolName> {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    session.on_tool_name(ToolName::Manual, |_args: Value, ctx| async move {
        ctx.log(LogLevel::Debug, "asking");
        let answer = ctx.elicit::<Confirm>("confirm", "Go ahead?").await?;
        ctx.log(LogLevel::Info, "answered");
        Ok(match answer {
            Elicited::Accepted(Confirm { ok }) => format!("ok={ok}"),
            other => other.action().to_owned(),
        })
    });
    session.on_tool::<echo>(|args, _ctx| async move {
        tokio::time::sleep(Duration::from_millis(u64::from(args.repeat.unwrap_or(0)))).await;
        Ok(args.text)
    });
    session
}

struct Client {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
}

impl Client {
    async fn send(&mut self, message: &Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(PATIENCE, self.lines.next_line())
            .await
            .expect("the server answers")
            .unwrap()
            .expect("the server is still there");
        serde_json::from_str(&line).unwrap()
    }

    /// The next message that is not a notification.
    async fn next_answer(&mut self) -> Value {
        loop {
            let message = self.next().await;
            if message.get("id").is_some() {
                return message;
            }
        }
    }
}

type Serving = tokio::task::JoinHandle<Result<(), pedelec_core::Error>>;
type ServerMcp = Mcp<ReadHalf<DuplexStream>, WriteHalf<DuplexStream>>;

fn start<N: 'static>(session: &Session<N>) -> (Client, Serving) {
    start_with(session, |mcp| mcp)
}

/// [`start`], with the bridge set up by `configure`.
fn start_with<N: 'static>(
    session: &Session<N>,
    configure: impl FnOnce(ServerMcp) -> ServerMcp,
) -> (Client, Serving) {
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(server_end);
    let serving = tokio::spawn(session.serve(configure(Mcp::from_parts(r, w))));
    let (r, writer) = tokio::io::split(client_end);
    (
        Client {
            lines: BufReader::new(r).lines(),
            writer,
        },
        serving,
    )
}

fn meta(capabilities: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    })
}

#[tokio::test]
async fn a_2025_client_is_asked_with_a_request_and_its_answer_routed_back() {
    let session = session();
    let (mut client, _serving) = start(&session);
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "0"}}}),
        )
        .await;
    let init = client.next_answer().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    client
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    client
        .send(&json!({"jsonrpc": "2.0", "id": "l", "method": "logging/setLevel", "params": {"level": "debug"}}))
        .await;
    assert_eq!(client.next_answer().await["result"], json!({}));
    client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "manual", "arguments": {"text": "x"}}}))
        .await;
    // The debug message (the level the client set), then the request to the client.
    let log = client.next().await;
    assert_eq!(log["method"], "notifications/message", "{log}");
    assert_eq!(log["params"]["level"], "debug");
    let asked = client.next().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    assert_eq!(asked["params"]["message"], "Go ahead?");
    assert_eq!(
        asked["params"]["requestedSchema"],
        json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]})
    );
    client
        .send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept", "content": {"ok": true}}}))
        .await;
    let answer = client.next_answer().await;
    assert_eq!(answer["id"], 1);
    assert_eq!(
        answer["result"]["content"][0]["text"], "ok=true",
        "{answer}"
    );
    assert!(
        answer["result"].get("resultType").is_none(),
        "not on 2025-11-25"
    );
}

#[tokio::test]
async fn a_2026_client_gets_an_input_required_result_and_a_signed_state() {
    let session = session();
    let (mut client, _serving) = start(&session);
    let call = |extra: Value, capabilities: Value| {
        let mut params =
            json!({"name": "manual", "arguments": {"text": "x"}, "_meta": meta(capabilities)});
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    };
    // Without the capability: the protocol error -32021, naming it.
    client.send(&call(json!({}), json!({}))).await;
    let refused = client.next_answer().await;
    assert_eq!(refused["error"]["code"], -32021, "{refused}");
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {}})
    );
    // With it: round 1 asks.
    client
        .send(&call(json!({}), json!({"elicitation": {}})))
        .await;
    let round = client.next_answer().await;
    let result = &round["result"];
    assert_eq!(result["resultType"], "input_required", "{round}");
    assert_eq!(
        result["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let state = result["requestState"].as_str().unwrap().to_owned();
    // Round 2 with the answer and the state: the handler runs again and completes.
    let answers = json!({"confirm": {"action": "decline"}});
    client
        .send(&call(
            json!({"inputResponses": answers, "requestState": state}),
            json!({"elicitation": {}}),
        ))
        .await;
    let done = client.next_answer().await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "decline");
    // A state altered by one character is refused.
    let mut tampered = state.into_bytes();
    let last = tampered.len() - 1;
    tampered[last] = if tampered[last] == b'A' { b'B' } else { b'A' };
    let tampered = String::from_utf8(tampered).unwrap();
    client
        .send(&call(
            json!({"inputResponses": answers, "requestState": tampered}),
            json!({"elicitation": {}}),
        ))
        .await;
    let refused = client.next_answer().await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // Answers that are not result objects are the client's protocol error too, not the
    // tool's failure: `inputResponses` not an object, or an answer that is a number.
    for responses in [
        json!([1]),
        json!({"confirm": 12345}),
        json!({"confirm": null}),
    ] {
        client
            .send(&call(
                json!({"inputResponses": responses}),
                json!({"elicitation": {}}),
            ))
            .await;
        let refused = client.next_answer().await;
        assert_eq!(refused["error"]["code"], -32602, "{responses}: {refused}");
    }
    client
        .send(&call(
            json!({"inputResponses": {"confirm": 12345}}),
            json!({"elicitation": {}}),
        ))
        .await;
    let refused = client.next_answer().await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("`inputResponses.confirm` must be an object")),
        "{refused}"
    );
    // No log message without `logLevel` in `_meta` (the handler logged twice).
}

#[tokio::test]
async fn requests_in_flight_are_bounded_in_bytes() {
    // `echo` waits until the test opens the gate, so the first four calls are all in
    // flight when the fifth arrives, however slowly the lines are read.
    let gate = Arc::new(tokio::sync::Semaphore::new(0));
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    let held = gate.clone();
    session.on_tool::<echo>(move |args, _ctx| {
        let held = held.clone();
        async move {
            let _permit = held.acquire().await.expect("the gate stays open");
            Ok(args.text.len().to_string())
        }
    });
    let (mut client, _serving) = start(&session);
    // Five requests of 4 MiB (minus a little): the fifth is over the 16 MiB in flight.
    let text = "y".repeat((4 << 20) - 200);
    for id in 1..=5 {
        client
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "echo", "arguments": {"text": text}}}))
            .await;
    }
    let refused = client.next_answer().await;
    assert_eq!(refused["id"], 5, "{refused}");
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("16 MiB"),
        "{refused}"
    );
    // Once the four are answered their bytes are free again: a sixth is served.
    gate.add_permits(5);
    let mut answered = Vec::new();
    for _ in 0..4 {
        let answer = client.next_answer().await;
        assert_eq!(answer["result"]["isError"], false, "{answer}");
        answered.push(answer["id"].as_i64().unwrap());
    }
    answered.sort_unstable();
    assert_eq!(answered, [1, 2, 3, 4]);
    client
        .send(&json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": text}}}))
        .await;
    let sixth = client.next_answer().await;
    assert_eq!(sixth["id"], 6, "{sixth}");
    assert_eq!(sixth["result"]["isError"], false, "{sixth}");
}

#[tokio::test]
async fn serving_ends_when_the_session_shuts_down() {
    let session = session();
    let (mut client, serving) = start(&session);
    client
        .send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "late", "repeat": 200}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    let shutdown = tokio::spawn(session.shutdown(Duration::from_secs(10)));
    // The call in flight is answered; then `serve` returns (the client still connected).
    let answer = client.next_answer().await;
    assert_eq!(answer["result"]["content"][0]["text"], "late");
    tokio::time::timeout(PATIENCE, shutdown)
        .await
        .unwrap()
        .unwrap();
    let served = tokio::time::timeout(PATIENCE, serving)
        .await
        .expect("`serve` returns once the shutdown is over");
    assert!(served.unwrap().is_ok());
}

/// A `task = optional` tool that asks at once, called on 2026-07-28 by a client that
/// declared the tasks extension: the call becomes a task waiting in `input_required`, the
/// answer comes with `tasks/update`, and the handler (kept running) runs exactly once.
#[tokio::test]
async fn a_task_that_asks_at_once_keeps_its_handler_running() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use pedelec_core::skills::SkillsInput;
    use pedelec_core::tool::TaskSupport;

    let skills = SkillsInput::new(
        "Ask first.",
        vec![manual_definition().with_task_support(TaskSupport::Optional)],
    );
    let session: Session<String> = Session::builder(skills).create().unwrap();
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = runs.clone();
    session.on_tool_name("manual", move |_args: Value, ctx| {
        let counted = counted.clone();
        async move {
            counted.fetch_add(1, Ordering::SeqCst);
            let answer = ctx.elicit::<Confirm>("confirm", "Go ahead?").await?;
            Ok(match answer {
                Elicited::Accepted(Confirm { ok }) => format!("ok={ok}"),
                other => other.action().to_owned(),
            })
        }
    });
    let (client_end, server_end) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(server_end);
    let _serving = tokio::spawn(session.serve(Mcp::from_parts(r, w)));
    let (r, writer) = tokio::io::split(client_end);
    let mut client = Client {
        lines: BufReader::new(r).lines(),
        writer,
    };
    let capabilities =
        json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}});
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "manual", "arguments": {"text": "x"}, "_meta": meta(capabilities.clone())}}),
        )
        .await;
    let created = client.next_answer().await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    // The task waits for the answer, its request listed.
    let mut waiting = Value::Null;
    for i in 0..100 {
        client
            .send(
                &json!({"jsonrpc": "2.0", "id": format!("g{i}"), "method": "tasks/get",
                "params": {"taskId": task_id, "_meta": meta(capabilities.clone())}}),
            )
            .await;
        waiting = client.next_answer().await;
        if waiting["result"]["status"] == "input_required" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(waiting["result"]["status"], "input_required", "{waiting}");
    let request = &waiting["result"]["inputRequests"]["confirm"];
    assert_eq!(request["method"], "elicitation/create", "{waiting}");
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": "u", "method": "tasks/update", "params": {
            "taskId": task_id, "_meta": meta(capabilities.clone()),
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}}}),
        )
        .await;
    let ack = client.next_answer().await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let mut done = Value::Null;
    for i in 0..100 {
        client
            .send(
                &json!({"jsonrpc": "2.0", "id": format!("d{i}"), "method": "tasks/get",
                "params": {"taskId": task_id, "_meta": meta(capabilities.clone())}}),
            )
            .await;
        done = client.next_answer().await;
        if done["result"]["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(done["result"]["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "ok=true",
        "{done}"
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1, "the handler ran once");
}

/// A `task = optional` replica of `manual`, sharing `store`: counts its handler's runs, and
/// its handlers that stopped before they answered.
fn task_replica(
    store: &Arc<pedelec_core::store::Memory>,
    runs: &Arc<AtomicUsize>,
    stopped: &Arc<AtomicUsize>,
) -> Client {
    use pedelec_core::tool::TaskSupport;

    struct Stopped(Arc<AtomicUsize>, bool);
    impl Drop for Stopped {
        fn drop(&mut self) {
            if !self.1 {
                self.0.fetch_add(1, AtomicOrdering::SeqCst);
            }
        }
    }

    let skills = SkillsInput::new(
        "Ask first.",
        vec![manual_definition().with_task_support(TaskSupport::Optional)],
    );
    let session: Session<String> = Session::builder(skills)
        .store(store.clone())
        .create()
        .unwrap();
    let (runs, stopped) = (runs.clone(), stopped.clone());
    session.on_tool_name("manual", move |_args: Value, ctx| {
        runs.fetch_add(1, AtomicOrdering::SeqCst);
        let guard = Stopped(stopped.clone(), false);
        async move {
            // The whole guard moves in (a field assigned alone would be captured alone).
            let mut guard = guard;
            let answer = ctx.elicit::<Confirm>("confirm", "Go ahead?").await;
            guard.1 = true;
            Ok(match answer? {
                Elicited::Accepted(Confirm { ok }) => format!("ok={ok}"),
                other => other.action().to_owned(),
            })
        }
    });
    start(&session).0
}

impl Client {
    /// One request, and its answer.
    async fn ask(&mut self, id: &str, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.next_answer().await
    }

    /// `tasks/get` until the task's status is `status` (or 5 s pass): the last answer.
    async fn task_until(&mut self, task_id: &str, status: &str, meta: &Value) -> Value {
        let mut got = Value::Null;
        for i in 0..250 {
            got = self
                .ask(
                    &format!("g{i}"),
                    "tasks/get",
                    json!({"taskId": task_id, "_meta": meta}),
                )
                .await;
            if got["result"]["status"] == status {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        got
    }
}

/// Two replicas sharing one store (DESIGN §13): a task started on one is polled, answered
/// and cancelled through the other; its handler runs once, where it started, and the
/// cancellation reaches it there.
#[tokio::test]
async fn a_task_is_polled_answered_and_cancelled_through_another_replica() {
    let store = Arc::new(pedelec_core::store::Memory::new());
    let (runs, stopped) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (other_runs, other_stopped) =
        (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let mut here = task_replica(&store, &runs, &stopped);
    let mut there = task_replica(&store, &other_runs, &other_stopped);
    let meta =
        meta(json!({"elicitation": {}, "extensions": {"io.modelcontextprotocol/tasks": {}}}));
    let call = json!({"name": "manual", "arguments": {"text": "x"}, "_meta": meta});

    // Answered through the other replica.
    let created = here.ask("1", "tools/call", call.clone()).await;
    assert_eq!(created["result"]["resultType"], "task", "{created}");
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    let waiting = there.task_until(&task_id, "input_required", &meta).await;
    assert_eq!(
        waiting["result"]["inputRequests"]["confirm"]["method"], "elicitation/create",
        "{waiting}"
    );
    let ack = there
        .ask(
            "u",
            "tasks/update",
            json!({"taskId": task_id, "_meta": meta,
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}}}),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = there.task_until(&task_id, "completed", &meta).await;
    assert_eq!(
        done["result"]["result"]["content"][0]["text"], "ok=true",
        "{done}"
    );
    // The same record from the replica that runs it.
    let same = here.task_until(&task_id, "completed", &meta).await;
    assert_eq!(same["result"]["result"], done["result"]["result"]);

    // Cancelled through the other replica: the handler, here, stops.
    let created = here.ask("2", "tools/call", call).await;
    let task_id = created["result"]["taskId"].as_str().unwrap().to_owned();
    there.task_until(&task_id, "input_required", &meta).await;
    let ack = there
        .ask(
            "c",
            "tasks/cancel",
            json!({"taskId": task_id, "_meta": meta}),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let cancelled = here.task_until(&task_id, "cancelled", &meta).await;
    assert_eq!(cancelled["result"]["status"], "cancelled", "{cancelled}");
    for _ in 0..100 {
        if stopped.load(AtomicOrdering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        stopped.load(AtomicOrdering::SeqCst),
        1,
        "the cancelled handler stopped"
    );
    assert_eq!(
        runs.load(AtomicOrdering::SeqCst),
        2,
        "each task ran once, where it started"
    );
    assert_eq!(other_runs.load(AtomicOrdering::SeqCst), 0);
    // An unknown task, from either.
    let unknown = there
        .ask("x", "tasks/get", json!({"taskId": "nope", "_meta": meta}))
        .await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
}

/// Deferred tools (`"defer": true`): left out of `tools/list`, found by `search_tools` with
/// their full definitions, called by `call_tool` (validated, under the same policy);
/// `search(false)` lists everything.
#[tokio::test]
async fn deferred_tools_are_found_with_search_tools_and_called_with_call_tool() {
    let skills = SkillsInput::from_json(&json!({"guidance": "Back office.", "tools": [
        {"name": "ping", "description": "Check that the service answers.",
         "argsSchema": {"type": "object", "properties": {}, "additionalProperties": false}},
        {"name": "billing.refund_invoice", "description": "Refund an invoice, in full or in part.",
         "defer": true,
         "argsSchema": {"type": "object", "properties": {
             "invoiceId": {"type": "string", "description": "The invoice to refund."}},
             "required": ["invoiceId"], "additionalProperties": false}}
    ]}))
    .unwrap();
    let session = Session::builder(skills).create().unwrap();
    session.set_fallback(|call: ToolCall, _ctx| async move {
        Ok::<_, ToolError>(json!({"tool": call.name, "args": call.args}))
    });
    let (mut client, _serving) = start(&session);
    let mut id = 0;
    let mut request = async |client: &mut Client, method: &str, params: Value| {
        id += 1;
        let mut params = params;
        params["_meta"] = meta(json!({}));
        client
            .send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        client.next_answer().await
    };
    let names = |list: &Value| -> Vec<String> {
        list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let list = request(&mut client, "tools/list", json!({})).await;
    assert_eq!(
        names(&list),
        ["ping", "search_tools", "call_tool"],
        "{list}"
    );

    let found = request(
        &mut client,
        "tools/call",
        json!({"name": "search_tools",
        "arguments": {"query": "refund the customer's invoice", "limit": 1}}),
    )
    .await;
    let text = found["result"]["content"][0]["text"].as_str().unwrap();
    let tools: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        tools["tools"][0]["name"], "billing.refund_invoice",
        "{found}"
    );
    assert_eq!(
        tools["tools"][0]["inputSchema"]["required"],
        json!(["invoiceId"])
    );

    let called = request(
        &mut client,
        "tools/call",
        json!({"name": "call_tool",
        "arguments": {"name": "billing.refund_invoice", "arguments": {"invoiceId": "in_1"}}}),
    )
    .await;
    assert_eq!(called["result"]["isError"], json!(false), "{called}");
    let value: Value =
        serde_json::from_str(called["result"]["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(
        value,
        json!({"tool": "billing.refund_invoice", "args": {"invoiceId": "in_1"}})
    );
    // The call is validated as any call is.
    let invalid = request(
        &mut client,
        "tools/call",
        json!({"name": "call_tool",
        "arguments": {"name": "billing.refund_invoice", "arguments": {}}}),
    )
    .await;
    assert_eq!(invalid["result"]["isError"], json!(true), "{invalid}");
    assert!(
        invalid["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("TOOL_ARGS_INVALID")
    );
    // Arguments `search_tools` cannot read are the tool's error, saying what it takes.
    let bad = request(
        &mut client,
        "tools/call",
        json!({"name": "search_tools",
        "arguments": {"q": "refund"}}),
    )
    .await;
    assert_eq!(bad["result"]["isError"], json!(true), "{bad}");

    // `search(false)`: every tool listed, no search tools.
    let (mut client, _serving) = start_with(&session, |mcp| mcp.search(false));
    let list = request(&mut client, "tools/list", json!({})).await;
    assert_eq!(names(&list), ["ping", "billing.refund_invoice"], "{list}");
}

/// A session whose `refund` and `wipe` need approval; `runs` counts the handlers that ran.
fn approval_session(runs: &Arc<AtomicUsize>) -> Session {
    approval_replica(runs, Arc::new(pedelec_core::store::Memory::new()))
}

/// [`approval_session`], a replica sharing `store` with others.
fn approval_replica(
    runs: &Arc<AtomicUsize>,
    store: Arc<dyn pedelec_core::store::Store>,
) -> Session {
    let schema = pedelec_core::ToolArgsSchema::from_json(&json!({
        "type": "object",
        "properties": {"invoice": {"type": "string"}},
        "required": ["invoice"],
        "additionalProperties": false
    }))
    .unwrap();
    let tools = ["refund", "wipe"]
        .map(|name| {
            pedelec_core::ToolDefinition::new(name, "Moves money.", schema.clone())
                .with_approval(true)
        })
        .to_vec();
    let session = Session::builder(SkillsInput::new("Approve first.", tools))
        .store(store)
        .create()
        .unwrap();
    for name in ["refund", "wipe"] {
        let runs = runs.clone();
        session.on_tool_name(name, move |args: Value, _ctx| {
            let runs = runs.clone();
            async move {
                runs.fetch_add(1, AtomicOrdering::SeqCst);
                Ok::<_, ToolError>(format!("done {}", args["invoice"]))
            }
        });
    }
    session
}

#[tokio::test]
async fn a_2025_client_approves_declines_or_cancels_through_an_elicitation() {
    let runs = Arc::new(AtomicUsize::new(0));
    let session = approval_session(&runs);
    let (mut client, _serving) = start(&session);
    client
        .send(
            &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {"elicitation": {}},
            "clientInfo": {"name": "t", "version": "0"}}}),
        )
        .await;
    client.next_answer().await;
    client
        .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    // An `accept` approves only with an explicit `approve: true` (never by default).
    for (i, (action, content, ran, error)) in [
        ("accept", json!({"approve": true}), 1, None),
        ("accept", json!({}), 1, Some("without `approve: true`")),
        (
            "accept",
            json!({"approve": false}),
            1,
            Some("did not approve"),
        ),
        ("decline", json!({"approve": true}), 1, Some("declined")),
        ("cancel", json!({"approve": true}), 1, Some("dismissed")),
    ]
    .into_iter()
    .enumerate()
    {
        client
            .send(
                &json!({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call",
                "params": {"name": "refund", "arguments": {"invoice": "INV-1"}}}),
            )
            .await;
        let asked = client.next().await;
        assert_eq!(asked["method"], "elicitation/create", "{asked}");
        let message = asked["params"]["message"].as_str().unwrap();
        assert!(
            message.contains("`refund`") && message.contains("INV-1"),
            "{message}"
        );
        client
            .send(&json!({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": action, "content": content}}))
            .await;
        let answer = client.next_answer().await;
        assert_eq!(runs.load(AtomicOrdering::SeqCst), ran, "{action}: {answer}");
        match error {
            None => assert_eq!(answer["result"]["content"][0]["text"], "done \"INV-1\""),
            Some(why) => {
                assert_eq!(answer["result"]["isError"], true, "{answer}");
                let text = answer["result"]["content"][0]["text"].as_str().unwrap();
                assert!(
                    text.contains("TOOL_APPROVAL_DENIED") && text.contains(why),
                    "{text}"
                );
            }
        }
    }
}

#[tokio::test]
async fn a_2026_approval_is_bound_to_its_round_tool_args_and_caller() {
    let runs = Arc::new(AtomicUsize::new(0));
    let store: Arc<dyn pedelec_core::store::Store> = Arc::new(pedelec_core::store::Memory::new());
    let session = approval_replica(&runs, store.clone());
    let key = b"a shared key of at least thirty-two bytes!".to_vec();
    let (mut client, _serving) = start_with(&session, |mcp| {
        mcp.request_state_key(key.clone())
            .caller(pedelec_core::context::Caller::new("alice"))
    });
    let capabilities = json!({"elicitation": {}});
    let call = |id: &str, tool: &str, invoice: &str, extra: Value| {
        let mut params = json!({"name": tool, "arguments": {"invoice": invoice},
            "_meta": meta(capabilities.clone())});
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let approve =
        json!({"dev.pedelec/approval": {"action": "accept", "content": {"approve": true}}});
    // An approval nobody asked for is not one: the server asks.
    client
        .send(&call(
            "u",
            "refund",
            "INV-1",
            json!({"inputResponses": approve}),
        ))
        .await;
    let round = client.next_answer().await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let request = &round["result"]["inputRequests"]["dev.pedelec/approval"];
    assert_eq!(request["method"], "elicitation/create", "{round}");
    let state = round["result"]["requestState"].as_str().unwrap().to_owned();
    assert_eq!(runs.load(AtomicOrdering::SeqCst), 0);
    let with = |state: &str| json!({"inputResponses": approve, "requestState": state});
    // The approval, carried to other args or another tool: refused.
    for (tool, invoice) in [("refund", "INV-2"), ("wipe", "INV-1")] {
        client.send(&call("x", tool, invoice, with(&state))).await;
        let refused = client.next_answer().await;
        assert_eq!(
            refused["error"]["code"], -32602,
            "{tool} {invoice}: {refused}"
        );
    }
    // Altered by one character: refused.
    let mut flipped = state.clone().into_bytes();
    let middle = flipped.len() / 2;
    flipped[middle] = if flipped[middle] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    client
        .send(&call("f", "refund", "INV-1", with(&flipped)))
        .await;
    assert_eq!(client.next_answer().await["error"]["code"], -32602);
    assert_eq!(runs.load(AtomicOrdering::SeqCst), 0);
    // Another caller, on a replica with the same key: refused.
    let (mut bob, _serving_bob) = start_with(&session, |mcp| {
        mcp.request_state_key(key.clone())
            .caller(pedelec_core::context::Caller::new("bob"))
    });
    bob.send(&call("b", "refund", "INV-1", with(&state))).await;
    assert_eq!(bob.next_answer().await["error"]["code"], -32602);
    // Alice's retry, answered on another replica sharing the key and the store: the tool
    // runs once.
    let other = approval_replica(&runs, store.clone());
    let (mut replica, _serving_replica) = start_with(&other, |mcp| {
        mcp.request_state_key(key.clone())
            .caller(pedelec_core::context::Caller::new("alice"))
    });
    replica
        .send(&call("r", "refund", "INV-1", with(&state)))
        .await;
    let done = replica.next_answer().await;
    assert_eq!(done["result"]["resultType"], "complete", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "done \"INV-1\"");
    assert_eq!(runs.load(AtomicOrdering::SeqCst), 1);
    // The same approved request replayed, on either replica: the approval was used.
    replica
        .send(&call("r2", "refund", "INV-1", with(&state)))
        .await;
    let replayed = replica.next_answer().await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    client
        .send(&call("r3", "refund", "INV-1", with(&state)))
        .await;
    let replayed = client.next_answer().await;
    assert_eq!(replayed["error"]["code"], -32602, "{replayed}");
    assert!(
        replayed["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("used already")),
        "{replayed}"
    );
    assert_eq!(runs.load(AtomicOrdering::SeqCst), 1);
    // A declined approval: denied, nothing runs.
    let decline = json!({"dev.pedelec/approval": {"action": "decline"}});
    client
        .send(&call(
            "d",
            "refund",
            "INV-1",
            json!({"inputResponses": decline, "requestState": state}),
        ))
        .await;
    let denied = client.next_answer().await;
    assert_eq!(denied["result"]["isError"], true, "{denied}");
    assert!(
        denied["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("TOOL_APPROVAL_DENIED")
    );
    assert_eq!(runs.load(AtomicOrdering::SeqCst), 1);
}

#[tokio::test]
async fn an_expired_approval_round_is_refused() {
    let runs = Arc::new(AtomicUsize::new(0));
    let session = approval_session(&runs);
    let (mut client, _serving) = start_with(&session, |mcp| {
        mcp.request_state_ttl(Duration::from_millis(200))
    });
    let call = |extra: Value| {
        let mut params = json!({"name": "refund", "arguments": {"invoice": "INV-1"},
            "_meta": meta(json!({"elicitation": {}}))});
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    };
    client.send(&call(json!({}))).await;
    let round = client.next_answer().await;
    let state = round["result"]["requestState"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_millis(1_100)).await;
    let approve = json!({"dev.pedelec/approval": {"action": "accept"}});
    client
        .send(&call(
            json!({"inputResponses": approve, "requestState": state}),
        ))
        .await;
    let refused = client.next_answer().await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(runs.load(AtomicOrdering::SeqCst), 0);
}

/// An exactly-once call that stops for input (2026-07-28: answered input-required, its
/// future dropped) releases its key although its handler started: the retry that brings the
/// answers, with the same key, runs (not kept waiting on the first call's claim, nor told
/// its outcome is unknown); a retry of that answered call gets its answer and runs nothing.
#[tokio::test]
async fn an_exactly_once_call_that_stops_for_input_releases_its_key() {
    let runs = Arc::new(AtomicUsize::new(0));
    let schema = pedelec_core::ToolArgsSchema::from_json(
        &json!({"type": "object", "properties": {}, "additionalProperties": false}),
    )
    .unwrap();
    let pay =
        pedelec_core::ToolDefinition::new("pay", "Pays, once.", schema).with_exactly_once(true);
    let session = Session::builder(SkillsInput::new("Pay once.", vec![pay]))
        .create()
        .unwrap();
    let counted = runs.clone();
    session.on_tool_name("pay", move |_args: Value, ctx| {
        let runs = counted.clone();
        async move {
            runs.fetch_add(1, AtomicOrdering::SeqCst);
            let answer = ctx.elicit::<Confirm>("confirm", "Pay?").await?;
            Ok::<_, ToolError>(format!("paid: {}", answer.action()))
        }
    });
    let (mut client, _serving) = start(&session);
    let call = |id: &str, extra: Value| {
        let mut meta = meta(json!({"elicitation": {}}));
        meta["dev.pedelec/idempotencyKey"] = json!("pay-1");
        let mut params = json!({"name": "pay", "arguments": {}, "_meta": meta});
        if let (Value::Object(params), Value::Object(extra)) = (&mut params, extra) {
            params.extend(extra);
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    client.send(&call("1", json!({}))).await;
    let round = client.next_answer().await;
    assert_eq!(round["result"]["resultType"], "input_required", "{round}");
    let state = round["result"]["requestState"].as_str().unwrap().to_owned();
    let answered = json!({
        "inputResponses": {"confirm": {"action": "accept", "content": {"ok": true}}},
        "requestState": state,
    });
    for id in ["2", "3"] {
        client.send(&call(id, answered.clone())).await;
        let done = client.next_answer().await;
        assert_eq!(
            done["result"]["content"][0]["text"], "paid: accept",
            "{done}"
        );
    }
    // Up to its question, then again with the answer; the last retry ran nothing.
    assert_eq!(runs.load(AtomicOrdering::SeqCst), 2);
}
