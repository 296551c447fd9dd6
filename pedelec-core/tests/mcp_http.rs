//! `McpHttp`: the session over MCP's streamable HTTP transport, on loopback. rmcp's own
//! client lists and calls tools; raw HTTP requests check what the transport must refuse
//! (401 without the token, 403 for a foreign `Origin` or `Host`, 413 past the body limit);
//! shutdown answers the calls in flight; 1,000 concurrent calls from 4 clients are each
//! answered once with the right result; a tool call of 2026-07-28 must carry the
//! `Mcp-Param-*` headers its arguments' `x-mcp-header` annotations ask for, agreeing with
//! the body.

mod support;

use std::collections::HashSet;
use std::net::SocketAddr;
use std::time::Duration;

use pedelec_core::bridge::McpHttp;
use pedelec_core::session::SessionEvent;
use pedelec_core::{ErrorCode, Session};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};
use support::*;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

fn session() -> Session<ToolName> {
    session_with_sleeping_manual()
}

/// A server on a free loopback port; it stops when the returned sender is dropped or
/// fires. The join handle gives what `serve` returned.
async fn serve<S: Send + Sync + 'static>(
    session: &Session<S>,
    configure: impl FnOnce(McpHttp) -> McpHttp,
) -> (
    SocketAddr,
    oneshot::Sender<()>,
    tokio::task::JoinHandle<Result<(), pedelec_core::Error>>,
) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let bridge = configure(McpHttp::from_listener(listener)).shutdown_on(async move {
        let _ = stopped.await;
    });
    let serving = tokio::spawn(session.serve(bridge));
    (addr, stop, serving)
}

fn url(addr: SocketAddr) -> String {
    format!("http://{addr}/mcp")
}

async fn client(
    addr: SocketAddr,
    token: Option<&str>,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let mut config = StreamableHttpClientTransportConfig::with_uri(url(addr));
    if let Some(token) = token {
        config = config.auth_header(token);
    }
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone())
}

/// A raw JSON-RPC POST, as a browser or a script would send it.
fn post(addr: SocketAddr, body: impl Into<reqwest::Body>) -> reqwest::RequestBuilder {
    post_at(addr, "2025-11-25", body)
}

/// [`post`] at protocol revision `version`.
fn post_at(
    addr: SocketAddr,
    version: &str,
    body: impl Into<reqwest::Body>,
) -> reqwest::RequestBuilder {
    reqwest::Client::new()
        .post(url(addr))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", version)
        .body(body)
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;

#[tokio::test]
async fn the_rmcp_client_lists_and_calls_tools_over_http() {
    let session = session();
    let (addr, _stop, _serving) = serve(&session, |b| b).await;
    let client = client(addr, None).await;
    assert_eq!(
        client.peer_info().unwrap().instructions.as_deref(),
        Some("Read current state before making changes.")
    );
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, TOOL_NAMES);
    for tool in &tools {
        assert_eq!(tool.input_schema["type"], "object", "{}", tool.name);
        assert!(
            tool.input_schema.contains_key("properties"),
            "{}",
            tool.name
        );
    }

    let r = client
        .call_tool(call("update_counter", json!({"delta": 2})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert_eq!(r.structured_content, Some(json!({"value": 2})));

    // Bad args, a failing handler, a timeout: `isError` results (never JSON-RPC errors),
    // without `structuredContent`, the error as JSON text.
    for (name, args, code) in [
        ("update_counter", json!({"delta": "2"}), "TOOL_ARGS_INVALID"),
        ("fail", json!({}), "TOOL_HANDLER_ERROR"),
        ("slow", json!({}), "TOOL_TIMEOUT"),
    ] {
        let r = client.call_tool(call(name, args)).await.unwrap();
        assert_eq!(r.is_error, Some(true), "{name}");
        assert_eq!(r.structured_content, None, "{name}");
        let text = serde_json::to_value(&r.content).unwrap()[0]["text"].clone();
        let error: Value = serde_json::from_str(text.as_str().unwrap()).unwrap();
        assert_eq!(error["code"], code, "{name}: {error}");
    }
    // An unknown tool is a protocol error: `-32602`.
    let unknown = client.call_tool(call("nope", json!({}))).await.unwrap_err();
    assert!(
        unknown.to_string().contains("Unknown tool: nope"),
        "{unknown}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_bearer_token_is_required_on_every_request() {
    let session = session();
    let (addr, _stop, _serving) = serve(&session, |b| b.bearer_token("s3cret")).await;

    let r = post(addr, LIST).send().await.unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(r.headers()["www-authenticate"], "Bearer");
    for wrong in [
        "Bearer s3cre",
        "Bearer s3cret2",
        "Bearer S3CRET",
        "Basic s3cret",
        "s3cret",
    ] {
        let r = post(addr, LIST)
            .header("authorization", wrong)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 401, "{wrong}");
    }
    let r = post(addr, LIST)
        .header("authorization", "bearer s3cret")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["tools"][0]["name"], "update_counter");

    // rmcp's client with the token works end to end.
    let client = client(addr, Some("s3cret")).await;
    let r = client
        .call_tool(call("echo", json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn foreign_origins_and_hosts_are_forbidden() {
    let session = session();
    let (addr, _stop, _serving) = serve(&session, |b| b).await;
    for origin in [
        "http://evil.example",
        "http://localhost.evil.example:8080",
        "null",
    ] {
        let r = post(addr, LIST)
            .header("origin", origin)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 403, "{origin}");
    }
    // DNS rebinding: a page of evil.example whose name now resolves to 127.0.0.1.
    let r = post(addr, LIST)
        .header("host", format!("evil.example:{}", addr.port()))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    for origin in [
        "http://localhost:3000",
        "http://127.0.0.1:5173",
        "https://localhost",
    ] {
        let r = post(addr, LIST)
            .header("origin", origin)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{origin}");
    }
    for host in ["localhost", "127.0.0.1:9"] {
        let r = post(addr, LIST).header("host", host).send().await.unwrap();
        assert_eq!(r.status(), 200, "{host}");
    }

    // Configured lists replace the loopback defaults.
    let (addr, _stop, _serving) = serve(&session, |b| {
        b.allowed_hosts(["mcp.example.com"])
            .allowed_origins(["https://app.example.com"])
    })
    .await;
    let r = post(addr, LIST).send().await.unwrap();
    assert_eq!(r.status(), 403, "127.0.0.1 is no longer an allowed host");
    let r = post(addr, LIST)
        .header("host", "mcp.example.com")
        .header("origin", "https://app.example.com")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let r = post(addr, LIST)
        .header("host", "mcp.example.com")
        .header("origin", "http://localhost:3000")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

#[tokio::test]
async fn bodies_past_the_limit_are_refused() {
    let session = session();
    let (addr, _stop, _serving) = serve(&session, |b| b.max_body_bytes(1024)).await;
    let big = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "x".repeat(2000)}}});
    let r = post(addr, big.to_string()).send().await.unwrap();
    assert_eq!(r.status(), 413);
    // A chunked body without a length is counted too.
    let chunks = futures::stream::iter(
        (0..40).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![b' '; 100]))),
    );
    let r = post(addr, reqwest::Body::wrap_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    let r = post(addr, LIST).send().await.unwrap();
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn an_unspecified_address_needs_allowed_hosts() {
    let session = session();
    let error = session.serve(McpHttp::bind("0.0.0.0:0")).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidInput);
    assert!(error.message().contains(".allowed_hosts("), "{error}");
    let error = session
        .serve(McpHttp::bind("127.0.0.1:not-a-port"))
        .await
        .unwrap_err();
    assert!(
        error
            .message()
            .contains("cannot listen on `127.0.0.1:not-a-port`"),
        "{error}"
    );
}

#[tokio::test]
async fn shutdown_answers_every_call_in_flight() {
    let session = session();
    let mut events = session.events();
    let (addr, stop, serving) = serve(&session, |b| b).await;
    let calls: Vec<_> = (0..3)
        .map(|i| {
            let body = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                "params": {"name": "manual", "arguments": {"text": format!("call {i}"), "repeat": 300}}});
            tokio::spawn(post(addr, body.to_string()).send())
        })
        .collect();
    let mut started = 0;
    while started < 3 {
        if let Some(SessionEvent::CallStarted { .. }) = events.recv().await {
            started += 1;
        }
    }
    stop.send(()).unwrap();
    for (i, call) in calls.into_iter().enumerate() {
        let response = call.await.unwrap().unwrap();
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.unwrap();
        assert_eq!(
            body["result"]["structuredContent"]["text"],
            format!("call {i}"),
            "{body}"
        );
    }
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serve returns once the calls are answered")
        .unwrap()
        .unwrap();
    assert!(
        post(addr, LIST).send().await.is_err(),
        "no connection is accepted after shutdown"
    );
}

#[tokio::test]
async fn a_client_closing_its_request_cancels_the_call() {
    let session = session();
    let mut events = session.events();
    let (addr, _stop, _serving) = serve(&session, |b| b).await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "manual", "arguments": {"text": "t", "repeat": 20_000}}});
    let request = post(addr, body.to_string()).timeout(Duration::from_millis(300));
    assert!(request.send().await.unwrap_err().is_timeout());
    let finished = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(SessionEvent::CallFinished { error, .. }) = events.recv().await {
                return error;
            }
        }
    })
    .await
    .expect("the call ends when its client goes away");
    assert_eq!(finished, Some(ErrorCode::ToolCancelled));
}

#[tokio::test]
async fn the_router_mounts_into_an_existing_app() {
    let session = session();
    let app = axum::Router::new()
        .route("/health", axum::routing::get(|| async { "ok" }))
        .merge(
            McpHttp::options()
                .bearer_token("t")
                .into_router(session.clone()),
        );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let health = reqwest::get(format!("http://{addr}/health")).await.unwrap();
    assert_eq!(health.text().await.unwrap(), "ok");
    assert_eq!(post(addr, LIST).send().await.unwrap().status(), 401);
    let client = client(addr, Some("t")).await;
    assert_eq!(
        client.list_all_tools().await.unwrap().len(),
        TOOL_NAMES.len()
    );
    client.cancel().await.unwrap();

    // The plain router: loopback defaults, no token.
    let app = McpHttp::router(session);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    assert_eq!(post(addr, LIST).send().await.unwrap().status(), 200);
    let r = post(addr, LIST)
        .header("origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
}

/// 1,000 concurrent calls from 4 clients (250 each, all in flight together): every call is
/// answered once, with its own result, and ran once (the counter moved by exactly 1,000,
/// through 1,000 distinct values).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_concurrent_calls_from_four_clients_are_each_answered_once() {
    const CLIENTS: usize = 4;
    const PER_CLIENT: usize = 250;
    let session = session();
    let (addr, _stop, _serving) = serve(&session, |b| b).await;
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let config = StreamableHttpClientTransportConfig::with_uri(url(addr))
            .max_concurrent_requests(PER_CLIENT);
        clients.push(
            ().serve(StreamableHttpClientTransport::from_config(config))
                .await
                .unwrap(),
        );
    }
    let run = async {
        let mut tasks = tokio::task::JoinSet::new();
        for (c, client) in clients.iter().enumerate() {
            for i in 0..PER_CLIENT {
                let peer = client.peer().clone();
                tasks.spawn(async move {
                    let text = format!("{c}/{i}");
                    let echo = peer
                        .call_tool(call("manual", json!({"text": text, "repeat": 20})))
                        .await
                        .unwrap();
                    assert_eq!(echo.structured_content.unwrap()["text"], text);
                    let counted = peer
                        .call_tool(call("update_counter", json!({"delta": 1})))
                        .await
                        .unwrap();
                    counted.structured_content.unwrap()["value"]
                        .as_i64()
                        .unwrap()
                });
            }
        }
        let mut values = HashSet::new();
        while let Some(value) = tasks.join_next().await {
            assert!(values.insert(value.unwrap()), "each value is seen once");
        }
        values
    };
    let values = tokio::time::timeout(Duration::from_mins(2), run)
        .await
        .expect("every call is answered");
    assert_eq!(values, (1..=1000).collect::<HashSet<i64>>());
    let page = clients[0]
        .call_tool(call("update_counter", json!({"delta": 0})))
        .await
        .unwrap();
    assert_eq!(page.structured_content, Some(json!({"value": 1000})));
    for client in clients {
        client.cancel().await.unwrap();
    }
}

/// `.stateful(true)`: clients of the `initialize` handshake get an `Mcp-Session-Id`; a
/// client cancelling its call (rmcp's `RequestHandle::cancel`) cancels it on the server.
#[tokio::test]
async fn a_stateful_server_keeps_sessions_and_cancels_calls() {
    let session = session();
    let mut events = session.events();
    let (addr, _stop, _serving) = serve(&session, |b| b.stateful(true)).await;
    let r = post(addr, r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#)
        .send()
        .await
        .unwrap();
    assert!(r.headers().contains_key("mcp-session-id"), "{r:?}");
    // Ending the session answers 200 or 204 (the official clients log anything else as
    // a failed termination), and the session is gone after it.
    let id = r.headers()["mcp-session-id"].to_str().unwrap().to_owned();
    let ended = reqwest::Client::new()
        .delete(url(addr))
        .header("mcp-session-id", &id)
        .header("mcp-protocol-version", "2025-11-25")
        .send()
        .await
        .unwrap();
    assert!(
        matches!(ended.status().as_u16(), 200 | 204),
        "DELETE answered {}",
        ended.status()
    );
    let again = post(addr, LIST)
        .header("mcp-session-id", &id)
        .send()
        .await
        .unwrap();
    assert_eq!(again.status(), 404, "an ended session is not found");

    let client = client(addr, None).await;
    let handle = client
        .peer()
        .send_cancellable_request(
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(call(
                "manual",
                json!({"text": "t", "repeat": 20_000}),
            ))),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    loop {
        if let Some(SessionEvent::CallStarted { .. }) = events.recv().await {
            break;
        }
    }
    handle
        .cancel(Some("the user gave up".into()))
        .await
        .unwrap();
    let finished = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Some(SessionEvent::CallFinished { error, .. }) = events.recv().await {
                return error;
            }
        }
    })
    .await
    .expect("the call ends when the client cancels it");
    assert_eq!(finished, Some(ErrorCode::ToolCancelled));
    let r = client
        .call_tool(call("echo", json!({"text": "still here"})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    client.cancel().await.unwrap();
}

/// Progress goes out as `notifications/progress` on an SSE response only when the request
/// carried a `progressToken`; without one the call answers plain JSON, with nothing else.
#[tokio::test]
async fn progress_is_sent_only_to_a_client_that_asked_for_it() {
    let session = session();
    session.on_tool_name(ToolName::Echo, |args: Value, ctx| async move {
        ctx.progress(1, Some(2), "halfway");
        ctx.progress(2, Some(2), "done");
        Ok(args)
    });
    let (addr, _stop, _serving) = serve(&session, |b| b).await;
    let call = |meta: Value| {
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "t"}, "_meta": meta}})
        .to_string()
    };

    let r = post(addr, call(json!({"progressToken": "p-1"})))
        .send()
        .await
        .unwrap();
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    let events: Vec<Value> = r
        .text()
        .await
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter(|d| !d.trim().is_empty())
        .map(|d| serde_json::from_str(d.trim()).unwrap())
        .collect();
    assert_eq!(events.len(), 3, "{events:?}");
    assert_eq!(
        events[0],
        json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "p-1", "progress": 1.0, "total": 2.0, "message": "halfway"}})
    );
    assert_eq!(events[1]["params"]["progress"], 2.0);
    assert_eq!(events[2]["id"], 7);
    assert_eq!(
        events[2]["result"]["structuredContent"],
        json!({"text": "t"})
    );

    let r = post(addr, call(json!({}))).send().await.unwrap();
    assert_eq!(r.headers()["content-type"], "application/json");
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["id"], 7);
    assert_eq!(body["result"]["structuredContent"], json!({"text": "t"}));
}

/// A session of one tool whose `region` (a string) and `priority` (an optional integer) are
/// mirrored into `Mcp-Param-Region` and `Mcp-Param-Priority`; it answers its arguments.
fn routed_session() -> Session<String> {
    use pedelec_core::schema::{Property, SchemaNode};
    use pedelec_core::{SkillsInput, ToolArgsSchema, ToolDefinition};
    const ARGS: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "region",
                    SchemaNode::string().with_mcp_header("Region"),
                    true,
                ),
                Property::new(
                    "priority",
                    SchemaNode::integer().with_mcp_header("Priority"),
                    false,
                ),
                Property::new("note", SchemaNode::string(), false),
            ]
        },
    );
    let skills = SkillsInput::new(
        "Route work to a region.",
        vec![
            ToolDefinition::new("route", "Route work.", ToolArgsSchema::from_node(ARGS)),
            ToolDefinition::new(
                "plain",
                "No mirrored arguments.",
                ToolArgsSchema::from_node(ARGS_PLAIN),
            ),
        ],
    );
    const ARGS_PLAIN: SchemaNode =
        SchemaNode::object(const { &[Property::new("region", SchemaNode::string(), true)] });
    let session = Session::builder(skills).create().unwrap();
    for name in ["route", "plain"] {
        session.on_tool_name(name, |args: Value, _ctx| async move {
            Ok::<_, pedelec_core::ToolError>(args)
        });
    }
    session
}

/// A 2026-07-28 `tools/call` with its `Mcp-Method`/`Mcp-Name` headers and `headers` beside.
async fn call_2026(
    addr: SocketAddr,
    tool: &str,
    arguments: Value,
    headers: &[(&str, &str)],
) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": tool, "arguments": arguments,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        },
    }});
    let mut request = post_at(addr, "2026-07-28", body.to_string())
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn mirrored_arguments_need_headers_that_agree_with_the_body() {
    let session = routed_session();
    let (addr, _stop, _serving) = serve(&session, |b| b).await;
    let ok = |(status, body): (u16, Value)| {
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["result"]["isError"], false, "{body}");
        body["result"]["structuredContent"].clone()
    };
    let refused = |(status, body): (u16, Value), why: &str| {
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["id"], 3, "{body}");
        assert_eq!(body["error"]["code"], -32020, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(why), "{message:?} should say {why:?}");
    };
    let eu = json!({"region": "eu-west"});

    // The header agrees; `priority` left out (or null) needs no header.
    let answer = ok(call_2026(
        addr,
        "route",
        eu.clone(),
        &[("mcp-param-region", "eu-west")],
    )
    .await);
    assert_eq!(answer, eu);
    ok(call_2026(
        addr,
        "route",
        json!({"region": "eu-west", "priority": null}),
        &[("Mcp-Param-Region", "eu-west")],
    )
    .await);
    // Integers compare as numbers; Base64 carries any value.
    ok(call_2026(
        addr,
        "route",
        json!({"region": "eu-west", "priority": 42}),
        &[
            ("mcp-param-region", "eu-west"),
            ("mcp-param-priority", "42.0"),
        ],
    )
    .await);
    ok(call_2026(
        addr,
        "route",
        json!({"region": "zürich"}),
        &[("mcp-param-region", "=?base64?esO8cmljaA==?=")],
    )
    .await);

    refused(
        call_2026(addr, "route", eu.clone(), &[]).await,
        "missing required Mcp-Param-Region",
    );
    refused(
        call_2026(
            addr,
            "route",
            eu.clone(),
            &[("mcp-param-region", "us-east")],
        )
        .await,
        "does not match the argument `region`",
    );
    refused(
        call_2026(
            addr,
            "route",
            json!({"region": "eu-west", "priority": 42}),
            &[
                ("mcp-param-region", "eu-west"),
                ("mcp-param-priority", "43"),
            ],
        )
        .await,
        "does not match the argument `priority`",
    );
    refused(
        call_2026(
            addr,
            "route",
            eu.clone(),
            &[("mcp-param-region", "eu-west"), ("mcp-param-priority", "1")],
        )
        .await,
        "the argument `priority` is not",
    );
    refused(
        call_2026(
            addr,
            "route",
            eu.clone(),
            &[("mcp-param-region", "=?base64?ZXUtd2VzdA?=")],
        )
        .await,
        "not valid Base64",
    );

    // A tool without annotations ignores such headers; revisions before 2026-07-28 have
    // no header rules.
    ok(call_2026(
        addr,
        "plain",
        eu.clone(),
        &[("mcp-param-region", "anything")],
    )
    .await);
    let body = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "route", "arguments": eu}});
    let r = post(addr, body.to_string()).send().await.unwrap();
    assert_eq!(r.status(), 200);
}
