//! The MCP bridge: an `rmcp` client lists the session's tools and calls them, through the
//! same validation, resolution, timeouts and strict results as every other bridge.

mod support;

use std::future::Future;

use pedelec_core::Session;
use pedelec_core::bridge::Mcp;
use pedelec_core::skills::SkillSet;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};
use support::*;

async fn client() -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    tokio::spawn(session.serve(Mcp::from_parts(r, w)));
    ().serve(client_end).await.unwrap()
}

fn call(name: &'static str, args: Value) -> CallToolRequestParams {
    CallToolRequestParams::new(name).with_arguments(args.as_object().unwrap().clone())
}

#[tokio::test]
async fn tools_are_listed_with_their_schemas_and_guidance() {
    let client = client().await;
    let info = client.peer_info().unwrap();
    assert_eq!(
        info.instructions.as_deref(),
        Some("Read current state before making changes.")
    );
    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| &*t.name).collect();
    assert_eq!(names, TOOL_NAMES);
    assert_eq!(
        Value::Object((*tools[0].input_schema).clone()),
        json!({"type": "object", "properties": {"delta": {"type": "integer"}}, "required": ["delta"], "additionalProperties": false})
    );
    assert_eq!(
        tools[0].description.as_deref(),
        Some("Update the visible counter by delta.")
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn calls_succeed_and_fail_like_everywhere_else() {
    quiet_deliberate_panics();
    let client = client().await;
    let r = client
        .call_tool(call("update_counter", json!({"delta": 2})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert_eq!(r.structured_content, Some(json!({"value": 2})));

    let r = client
        .call_tool(call("echo", json!({"text": "hi"})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false));
    assert_eq!(r.structured_content, None, "not an object: text only");
    // A string is its own text, not its JSON (a host shows the text to the model as is).
    assert_eq!(
        serde_json::to_value(&r.content).unwrap()[0]["text"],
        json!("hi")
    );

    for (name, args, code) in [
        ("update_counter", json!({"delta": "2"}), "TOOL_ARGS_INVALID"),
        ("fail", json!({}), "TOOL_HANDLER_ERROR"),
        ("explode", json!({}), "TOOL_HANDLER_ERROR"),
        ("slow", json!({}), "TOOL_TIMEOUT"),
        ("nan", json!({}), "TOOL_RESULT_INVALID"),
    ] {
        let r = client.call_tool(call(name, args)).await.unwrap();
        assert_eq!(r.is_error, Some(true), "{name}");
        // An error never carries `structuredContent`: it would contradict the tool's
        // outputSchema. The model reads the error as JSON text.
        assert_eq!(r.structured_content, None, "{name}");
        let error = error_of(&r);
        assert_eq!(error["code"], code, "{name}: {error}");
        assert!(error["message"].is_string());
    }
    // An unknown tool is a protocol error (`-32602`), not a tool's failure.
    let unknown = client.call_tool(call("nope", json!({}))).await.unwrap_err();
    assert!(
        unknown.to_string().contains("-32602") || unknown.to_string().contains("Unknown tool"),
        "{unknown}"
    );
    client.cancel().await.unwrap();
}

fn error_of(result: &rmcp::model::CallToolResult) -> Value {
    let text = serde_json::to_value(&result.content).unwrap()[0]["text"].clone();
    serde_json::from_str(text.as_str().unwrap()).unwrap()
}

#[tokio::test]
async fn a_call_without_arguments_is_a_call_with_none() {
    let client = client().await;
    let r = client
        .call_tool(CallToolRequestParams::new("fail"))
        .await
        .unwrap();
    assert_eq!(
        error_of(&r)["code"],
        "TOOL_HANDLER_ERROR",
        "the handler ran"
    );
    let r = client
        .call_tool(CallToolRequestParams::new("update_counter"))
        .await
        .unwrap();
    let error = error_of(&r);
    assert_eq!(error["code"], "TOOL_ARGS_INVALID", "{error}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn notifications_cancelled_cancels_the_call() {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    session.on_tool_name(ToolName::Manual, |args: Value, _ctx| async move {
        tokio::time::sleep(std::time::Duration::from_secs(20)).await;
        Ok(args)
    });
    let mut events = session.events();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    tokio::spawn(session.serve(Mcp::from_parts(r, w)));
    let client = ().serve(client_end).await.unwrap();
    let handle = client
        .peer()
        .send_cancellable_request(
            rmcp::model::ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(call(
                "manual",
                json!({"text": "t"}),
            ))),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    loop {
        if let Some(pedelec_core::session::SessionEvent::CallStarted { .. }) = events.recv().await {
            break;
        }
    }
    handle
        .cancel(Some("the user gave up".into()))
        .await
        .unwrap();
    let finished = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        loop {
            if let Some(pedelec_core::session::SessionEvent::CallFinished { error, .. }) =
                events.recv().await
            {
                return error;
            }
        }
    })
    .await
    .expect("the call ends when the client cancels it");
    assert_eq!(finished, Some(pedelec_core::ErrorCode::ToolCancelled));
    client.cancel().await.unwrap();
}

/// Records the progress notifications a client receives.
#[derive(Clone)]
struct ProgressLog(tokio::sync::mpsc::UnboundedSender<(f64, Option<f64>, Option<String>)>);

impl rmcp::ClientHandler for ProgressLog {
    fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: rmcp::service::NotificationContext<rmcp::RoleClient>,
    ) -> impl Future<Output = ()> + Send + '_ {
        let _ = self.0.send((params.progress, params.total, params.message));
        std::future::ready(())
    }
}

#[tokio::test]
async fn progress_reaches_the_client_before_the_result() {
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    session.on_tool_name(ToolName::Manual, |args: Value, ctx| async move {
        ctx.progress(1, Some(3), "one");
        tokio::task::yield_now().await;
        ctx.progress(2, Some(3), "two");
        ctx.progress(3, None, "");
        Ok(args)
    });
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    tokio::spawn(session.serve(Mcp::from_parts(r, w)));
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let client = ProgressLog(tx).serve(client_end).await.unwrap();
    // rmcp's client gives every request a progress token.
    let r = client
        .call_tool(call("manual", json!({"text": "t"})))
        .await
        .unwrap();
    assert_eq!(r.structured_content, Some(json!({"text": "t"})));
    let mut seen = Vec::new();
    while let Ok(update) = rx.try_recv() {
        seen.push(update);
    }
    assert_eq!(
        seen,
        [
            (1.0, Some(3.0), Some("one".to_owned())),
            (2.0, Some(3.0), Some("two".to_owned())),
            (3.0, None, None),
        ]
    );
    client.cancel().await.unwrap();
}

/// A client of `skills` with `update_counter` requiring `counter:write`, served with
/// `caller` (or anonymous).
async fn client_of(
    caller: Option<pedelec_core::context::Caller>,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let mut skills = ToolName::skills().untyped();
    for tool in skills.tools_mut() {
        if tool.name() == "update_counter" {
            *tool = tool.clone().with_scopes(["counter:write"]);
        }
    }
    let session = Session::builder(skills)
        .state(Counter::default())
        .create()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    let mut bridge = Mcp::from_parts(r, w);
    if let Some(caller) = caller {
        bridge = bridge.caller(caller);
    }
    tokio::spawn(session.serve(bridge));
    ().serve(client_end).await.unwrap()
}

#[tokio::test]
async fn the_connections_caller_makes_every_call_and_sees_its_tools() {
    use pedelec_core::context::Caller;
    // Anonymous (no `Mcp::caller`): the tool with scopes is neither listed nor callable.
    let anonymous = client_of(None).await;
    let names: Vec<String> = anonymous
        .list_all_tools()
        .await
        .unwrap()
        .iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(!names.iter().any(|n| n == "update_counter"), "{names:?}");
    assert!(names.iter().any(|n| n == "echo"), "{names:?}");
    let r = anonymous
        .call_tool(call("update_counter", json!({"delta": 1})))
        .await
        .unwrap();
    let error = error_of(&r);
    assert_eq!(error["code"], "TOOL_FORBIDDEN", "{error}");
    assert_eq!(error["details"]["missingScopes"], json!(["counter:write"]));
    anonymous.cancel().await.unwrap();

    // A caller holding the scope: listed and called.
    let editor = client_of(Some(Caller::new("editor").with_scopes(["counter:write"]))).await;
    let tools = editor.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "update_counter"));
    let r = editor
        .call_tool(call("update_counter", json!({"delta": 1})))
        .await
        .unwrap();
    assert_eq!(r.is_error, Some(false), "{r:?}");
    editor.cancel().await.unwrap();
}
