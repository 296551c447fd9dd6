//! The Model Context Protocol bridge (cargo feature `mcp`): serves a session to any MCP
//! client through the official `rmcp` crate.
//!
//! - `tools/list` lists the manifest's tools (`inputSchema` is the argsSchema; the
//!   guidance becomes the server's `instructions`);
//! - `tools/call` runs the call through the session — validation, resolution, timeout,
//!   panic isolation, strict results — and answers a `CallToolResult`: on success the value
//!   as JSON text (and as `structuredContent` when it is an object); on failure
//!   `isError: true` with the error `{"code", "message", "details"?}` as JSON text and as
//!   `structuredContent`, so the model reads exactly what a JSON Lines Core would get;
//! - `notifications/cancelled` cancels the call (`TOOL_CANCELLED`).

use std::future::Future;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite};

use super::Bridge;
use crate::error::{Error, ErrorCode, ToolResult};
use crate::session::Session;

/// The MCP bridge over a reader and a writer: `Mcp::stdio()` for a server started by an MCP
/// client, `Mcp::from_parts(reader, writer)` for anything else.
#[derive(Debug)]
pub struct Mcp<R, W> {
    reader: R,
    writer: W,
}

impl Mcp<tokio::io::Stdin, tokio::io::Stdout> {
    /// Over the process's standard input and output (the MCP stdio transport).
    #[must_use]
    pub fn stdio() -> Self {
        Mcp::from_parts(tokio::io::stdin(), tokio::io::stdout())
    }
}

impl<R, W> Mcp<R, W> {
    /// Over a separate reader (messages from the client) and writer.
    pub fn from_parts(reader: R, writer: W) -> Self {
        Mcp { reader, writer }
    }
}

impl<R, W> Bridge for Mcp<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    #[allow(
        clippy::manual_async_fn,
        reason = "the trait's signature promises a `Send + 'static` future"
    )]
    fn serve(self, session: Session) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        async move {
            let handler = Handler::new(session);
            let running = handler
                .serve((self.reader, self.writer))
                .await
                .map_err(|e| {
                    Error::new(
                        ErrorCode::SubmitToolResultFailed,
                        format!("the MCP client did not initialize: {e}"),
                    )
                })?;
            running.waiting().await.map_err(|e| {
                Error::new(
                    ErrorCode::SubmitToolResultFailed,
                    format!("the MCP connection failed: {e}"),
                )
            })?;
            Ok(())
        }
    }
}

/// The `rmcp` server handler of a session.
struct Handler {
    session: Session,
    tools: Arc<[Tool]>,
    instructions: String,
}

impl Handler {
    fn new(session: Session) -> Self {
        let manifest = session.manifest();
        let tools = manifest
            .tools
            .iter()
            .map(|t| {
                let schema = match t.args_schema.to_json() {
                    Value::Object(map) => map,
                    _ => JsonObject::new(),
                };
                Tool::new(t.name.clone(), t.description.clone(), Arc::new(schema))
            })
            .collect();
        Handler {
            session,
            tools,
            instructions: manifest.guidance,
        }
    }
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("pedelec", env!("CARGO_PKG_VERSION"));
        if !self.instructions.is_empty() {
            info.instructions = Some(self.instructions.clone());
        }
        info
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + Send + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(self.tools.to_vec())))
    }

    #[allow(
        clippy::manual_async_fn,
        reason = "rmcp's trait signature promises a `Send` future"
    )]
    fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<CallToolResponse, ErrorData>> + Send + '_ {
        async move {
            let args = request.arguments.map_or(Value::Null, Value::Object);
            let mut pending = self.session.start_call(&request.name, args);
            let result = tokio::select! {
                result = &mut pending => result,
                () = context.ct.cancelled() => {
                    pending.cancel();
                    pending.await
                }
            };
            Ok(to_call_tool_result(result).into())
        }
    }
}

fn to_call_tool_result(result: ToolResult) -> CallToolResult {
    match result {
        ToolResult::Ok(value) => {
            let mut out = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
            if value.is_object() {
                out.structured_content = Some(value);
            }
            out
        }
        ToolResult::Err(error) => CallToolResult::structured_error(
            serde_json::to_value(&error).unwrap_or_else(|_| Value::String(error.to_string())),
        ),
    }
}
