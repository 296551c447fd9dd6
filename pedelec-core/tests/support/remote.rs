//! A small MCP server written with rmcp, for the gateway's tests (`tests/gateway.rs`, and
//! the root crate's `tests/mcp_clients.rs`): the remote a session mounts, served on stdio
//! ([`serve_stdio`], by a test binary run again as a child) or streamable HTTP on a
//! loopback port ([`serve_http`]).
//!
//! Tools: `echo` (its `text`), `add` (`{a, b}` → structured `{sum}`, with an output schema,
//! annotations and a full 2020-12 input schema), `slow` (`steps` progress notifications `delay_ms` apart), `wait`
//! (until cancelled; `cancelled` counts the calls the client cancelled), `fail` (an
//! `isError` result), `page:read` (a name outside pedelec's rule), and `grow`, which adds a
//! tool `extra` and says `notifications/tools/list_changed`; `crash` exits the process
//! (stdio only).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// The remote server's state (each connection over HTTP gets a clone: the counts are shared).
#[derive(Clone, Default)]
pub struct Remote {
    cancelled: Arc<AtomicU64>,
    grown: Arc<AtomicBool>,
    /// Served on stdio, its own process: `crash` may exit it.
    stdio: bool,
}

fn tool(value: Value) -> Tool {
    serde_json::from_value(value).expect("a tool")
}

fn result(value: Value) -> CallToolResult {
    serde_json::from_value(value).expect("a result")
}

fn text(text: impl Into<String>) -> CallToolResult {
    result(json!({ "content": [{ "type": "text", "text": text.into() }] }))
}

impl Remote {
    fn tools(&self) -> Vec<Tool> {
        let object = json!({ "type": "object" });
        let mut tools = vec![
            tool(json!({
                "name": "echo", "description": "Answers its text.",
                "inputSchema": { "type": "object", "properties": { "text": { "type": "string" } }, "required": ["text"] }
            })),
            tool(json!({
                "name": "add", "title": "Add two numbers", "description": "Adds a and b.",
                "inputSchema": {
                    "$schema": "https://json-schema.org/draft/2020-12/schema",
                    "type": "object",
                    "properties": { "a": { "type": "integer" }, "b": { "type": "integer" } },
                    "required": ["a", "b"],
                    "dependentRequired": { "a": ["b"] }
                },
                "outputSchema": { "type": "object", "properties": { "sum": { "type": "integer" } }, "required": ["sum"] },
                "annotations": { "readOnlyHint": true, "idempotentHint": true }
            })),
            tool(json!({
                "name": "slow", "description": "Reports progress `steps` times, `delay_ms` apart.",
                "inputSchema": { "type": "object", "properties": {
                    "steps": { "type": "integer", "minimum": 1 }, "delay_ms": { "type": "integer", "minimum": 0 }
                }, "required": ["steps"] }
            })),
            tool(
                json!({ "name": "wait", "description": "Waits until cancelled.", "inputSchema": object }),
            ),
            tool(
                json!({ "name": "cancelled", "description": "How many calls were cancelled.", "inputSchema": object }),
            ),
            tool(
                json!({ "name": "fail", "description": "Answers an error result.", "inputSchema": object }),
            ),
            tool(
                json!({ "name": "page:read", "description": "A name outside pedelec's rule.", "inputSchema": object }),
            ),
            tool(
                json!({ "name": "grow", "description": "Adds the tool `extra`.", "inputSchema": object }),
            ),
            tool(
                json!({ "name": "crash", "description": "Exits the process (stdio only).", "inputSchema": object }),
            ),
        ];
        if self.grown.load(Ordering::SeqCst) {
            tools.push(tool(
                json!({ "name": "extra", "description": "Added by `grow`.", "inputSchema": object }),
            ));
        }
        tools
    }
}

impl ServerHandler for Remote {
    fn get_info(&self) -> ServerConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": { "tools": { "listChanged": true } },
            "serverInfo": { "name": "gateway-remote", "version": "1.0.0" }
        }))
        .expect("server info")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let answer = match &*request.name {
            "echo" => text(args["text"].as_str().unwrap_or_default()),
            "add" => {
                let sum = args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0);
                result(json!({
                    "content": [{ "type": "text", "text": json!({ "sum": sum }).to_string() }],
                    "structuredContent": { "sum": sum }
                }))
            }
            "slow" => {
                let steps = args["steps"]
                    .as_u64()
                    .map_or(1, |s| u32::try_from(s).unwrap_or(u32::MAX));
                let delay = Duration::from_millis(args["delay_ms"].as_u64().unwrap_or(10));
                let token = context.meta.get_progress_token();
                for step in 1..=steps {
                    tokio::time::sleep(delay).await;
                    if let Some(token) = &token {
                        let mut params =
                            ProgressNotificationParam::new(token.clone(), f64::from(step));
                        params.total = Some(f64::from(steps));
                        params.message = Some(format!("step {step}"));
                        let _ = context.peer.notify_progress(params).await;
                    }
                }
                text(format!("done after {steps} steps"))
            }
            "wait" => {
                context.ct.cancelled().await;
                self.cancelled.fetch_add(1, Ordering::SeqCst);
                text("cancelled")
            }
            "cancelled" => text(self.cancelled.load(Ordering::SeqCst).to_string()),
            "fail" => result(json!({
                "content": [{ "type": "text", "text": "it failed, as asked" }],
                "isError": true
            })),
            "page:read" => text("page"),
            "grow" => {
                self.grown.store(true, Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                text("grown")
            }
            "extra" => text("extra"),
            "crash" if self.stdio => std::process::exit(3),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("Unknown tool: {other}"),
                    None,
                ));
            }
        };
        Ok(CallToolResponse::Complete(answer))
    }
}

/// Serves the remote on stdin and stdout until the client leaves.
pub async fn serve_stdio() {
    let remote = Remote {
        stdio: true,
        ..Remote::default()
    };
    if let Ok(running) = remote.serve(rmcp::transport::stdio()).await {
        let _ = running.waiting().await;
    }
}

/// Serves the remote over streamable HTTP (sessions, so notifications reach the client)
/// on a loopback port: its `http://ADDR/mcp`.
pub async fn serve_http() -> String {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };
    let remote = Remote::default();
    let service = StreamableHttpService::new(
        move || Ok(remote.clone()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr = listener.local_addr().expect("its address");
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/mcp")
}
