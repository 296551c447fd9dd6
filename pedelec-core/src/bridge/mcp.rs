//! The Model Context Protocol bridge (cargo feature `mcp`): serves a session to any MCP
//! client through the official `rmcp` crate. One server handler serves both transports:
//! [`Mcp`] (stdio, or any reader and writer) and [`McpHttp`](super::McpHttp) (streamable
//! HTTP).
//!
//! - `tools/list` lists the session's tools that the caller may call (a tool declared with
//!   `#[tool(scopes = [...])]` only to a caller holding them all): `inputSchema` is the argsSchema (always an
//!   object schema with `properties`, never an empty `{}`), with the definition's `title`,
//!   `annotations` and `outputSchema` when it has them; the guidance becomes the server's
//!   `instructions`;
//! - `tools/call` runs the call through the session — validation, resolution, timeout,
//!   panic isolation, strict results — and answers a `CallToolResult`:
//!   - on success, the value as JSON text, and as `structuredContent`: shaped by the tool's
//!     `outputSchema` when it lists one (`#[derive(ToolOutput)]`; a non-object output is
//!     wrapped as `{"result": …}`), or the value itself when it is an object;
//!   - on failure (bad args included: SEP-1303), `isError: true` with the error
//!     `{"code", "message", "details"?}` as JSON text, so the model reads exactly what a
//!     JSON Lines Core would get. An error never carries `structuredContent` (it would
//!     contradict a tool's `outputSchema`). A call is never answered with a JSON-RPC error;
//! - `notifications/cancelled` (or, over stateless HTTP, the client closing the request)
//!   cancels the call (`TOOL_CANCELLED`);
//! - every call carries its caller (`ctx.caller()`): over stdio the one given with
//!   [`Mcp::caller`] (none by default: the calls are anonymous, and a tool with scopes
//!   answers `TOOL_FORBIDDEN`); over HTTP the one the request authenticated as
//!   ([`McpHttp`](super::McpHttp));
//! - `ctx.progress(..)` in the handler sends `notifications/progress` when the call's
//!   request carried a `progressToken`, and nothing otherwise.

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
use crate::context::Caller;
use crate::error::{Error, ErrorCode, ToolResult};
use crate::output::OutputSchema;
use crate::session::Session;
use crate::tool::ToolDefinition;

/// The MCP bridge over a reader and a writer: `Mcp::stdio()` for a server started by an MCP
/// client, `Mcp::from_parts(reader, writer)` for anything else.
///
/// ```no_run
/// # async fn run(session: pedelec_core::Session) -> Result<(), pedelec_core::Error> {
/// session.serve(pedelec_core::bridge::Mcp::stdio()).await
/// # }
/// ```
#[derive(Debug)]
pub struct Mcp<R, W> {
    reader: R,
    writer: W,
    caller: Option<Arc<Caller>>,
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
        Mcp {
            reader,
            writer,
            caller: None,
        }
    }

    /// The caller of every call on this connection (`ctx.caller()`; scopes and per-caller
    /// rate limits apply to it). The stdio transport has no tokens: the client that
    /// started this process is trusted to be who you say. Without one, calls are
    /// anonymous: `tools/list` shows only the tools without scopes, and a call of a tool
    /// with scopes answers `TOOL_FORBIDDEN`. A local server started by the user's own
    /// MCP host usually trusts it with everything:
    /// `Mcp::stdio().caller(Caller::new("local").with_every_scope())`.
    #[must_use]
    pub fn caller(mut self, caller: impl Into<Arc<Caller>>) -> Self {
        self.caller = Some(caller.into());
        self
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
    fn serve<N: 'static>(
        self,
        session: Session<N>,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        let session = session.untyped();
        async move {
            let handler = Handler::new(&session).with_caller(self.caller);
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

/// The `rmcp` server handler of a session, shared by the stdio and HTTP bridges. Cloning is
/// cheap (the streamable HTTP service makes one per request).
#[derive(Clone)]
pub(crate) struct Handler {
    inner: Arc<Inner>,
}

struct Inner {
    session: Session,
    /// The tools as `tools/list` shows them, in skill-set order.
    tools: Vec<Tool>,
    /// Each tool's scopes (same order as `tools`): who may see it.
    scopes: Vec<Vec<String>>,
    /// The caller of calls whose request names none (stdio: `Mcp::caller`).
    caller: Option<Arc<Caller>>,
    /// Each listed tool's outputSchema (same order as `tools`): a success's
    /// `structuredContent` is shaped by it (a non-object output wrapped as `{"result": …}`).
    outputs: Vec<Option<OutputSchema>>,
    instructions: String,
}

impl Handler {
    pub(crate) fn new(session: &Session) -> Self {
        let manifest = session.manifest();
        let definitions = session.definitions();
        let tools = definitions.iter().map(listed_tool).collect();
        let outputs = definitions
            .iter()
            .map(|d| d.output_schema().copied())
            .collect();
        let scopes = definitions
            .iter()
            .map(|d| d.scopes().iter().map(ToString::to_string).collect())
            .collect();
        Handler {
            inner: Arc::new(Inner {
                session: session.clone(),
                tools,
                scopes,
                caller: None,
                outputs,
                instructions: manifest.guidance,
            }),
        }
    }

    /// The same handler, with `caller` for requests that carry none.
    pub(crate) fn with_caller(self, caller: Option<Arc<Caller>>) -> Self {
        let Ok(mut inner) = Arc::try_unwrap(self.inner) else {
            unreachable!("a new handler is not shared yet")
        };
        inner.caller = caller;
        Handler {
            inner: Arc::new(inner),
        }
    }

    /// The scopes the tool named `name` requires (`None`: no such tool).
    #[cfg(feature = "oauth")]
    pub(crate) fn scopes_of(&self, name: &str) -> Option<&[String]> {
        let i = self.inner.tools.iter().position(|t| t.name == name)?;
        Some(&self.inner.scopes[i])
    }

    /// Every scope some tool requires, once each, in skill-set order.
    #[cfg(feature = "oauth")]
    pub(crate) fn all_scopes(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for scope in self.inner.scopes.iter().flatten() {
            if !all.contains(scope) {
                all.push(scope.clone());
            }
        }
        all
    }

    /// The caller of a request: the one its HTTP request authenticated as (an
    /// `Arc<Caller>` in the request's extensions), or the connection's.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Option<Arc<Caller>> {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Arc<Caller>>())
            .or(self.inner.caller.as_ref())
            .cloned()
    }

    /// The outputSchema of the tool named `name`, if it lists one.
    fn output_schema(&self, name: &str) -> Option<&OutputSchema> {
        let i = self.inner.tools.iter().position(|t| t.name == name)?;
        self.inner.outputs[i].as_ref()
    }
}

/// A tool as `tools/list` shows it: Core's manifest entry (name, description, argsSchema as
/// `inputSchema`) plus the MCP-only metadata of its definition: `title`, `annotations` (the
/// hints of `#[tool(read_only, …)]`) and `outputSchema` (from `#[derive(ToolOutput)]`; always
/// an object schema, never an empty `{}`).
fn listed_tool(definition: &ToolDefinition) -> Tool {
    let mut tool = Tool::new(
        definition.name().to_owned(),
        definition.description().to_owned(),
        Arc::new(input_schema(definition.args_schema().to_json())),
    );
    if let Some(title) = definition.title() {
        tool = tool.with_title(title);
    }
    let hints = definition.annotations();
    if !hints.is_empty() {
        let mut annotations = rmcp::model::ToolAnnotations::new();
        annotations.read_only_hint = hints.read_only_hint;
        annotations.destructive_hint = hints.destructive_hint;
        annotations.idempotent_hint = hints.idempotent_hint;
        annotations.open_world_hint = hints.open_world_hint;
        tool = tool.with_annotations(annotations);
    }
    if let Some(Value::Object(schema)) = definition.output_schema().map(OutputSchema::to_json) {
        tool = tool.with_raw_output_schema(Arc::new(schema));
    }
    tool
}

/// The `inputSchema` of a tool: the argsSchema, made sure to be an object schema with
/// `properties` (clients such as `LangGraph` reject a no-parameter tool without them, and an
/// empty `{}` breaks others).
fn input_schema(schema: Value) -> JsonObject {
    let mut map = match schema {
        Value::Object(map) => map,
        _ => JsonObject::new(),
    };
    if !map.contains_key("type") {
        map.insert("type".into(), "object".into());
    }
    if map.get("type").and_then(Value::as_str) == Some("object") && !map.contains_key("properties")
    {
        map.insert("properties".into(), Value::Object(JsonObject::new()));
    }
    map
}

impl ServerHandler for Handler {
    fn get_info(&self) -> ServerConfig {
        let mut info = ServerConfig::new(ServerCapabilities::builder().enable_tools().build());
        info.server_info = Implementation::new("pedelec", env!("CARGO_PKG_VERSION"));
        if !self.inner.instructions.is_empty() {
            info.instructions = Some(self.inner.instructions.clone());
        }
        info
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + Send + '_ {
        let caller = self.caller(&context);
        let tools = self
            .inner
            .tools
            .iter()
            .zip(&self.inner.scopes)
            .filter(|(_, scopes)| may_list(caller.as_deref(), scopes))
            .map(|(tool, _)| tool.clone())
            .collect();
        std::future::ready(Ok(ListToolsResult::with_all_items(tools)))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
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
            // A call without `arguments` is a call with none (a no-parameter tool).
            let args = Value::Object(request.arguments.unwrap_or_default());
            let caller = self.caller(&context);
            let result =
                call::run(&self.inner.session, &request.name, args, caller, &context).await;
            let output = self.output_schema(&request.name);
            Ok(to_call_tool_result(result, output).into())
        }
    }
}

/// How one `tools/call` runs through the session's public call API: cancelled when the
/// client cancels, with the handler's progress sent as `notifications/progress` when the
/// client gave a `progressToken` (and dropped otherwise).
mod call {
    use rmcp::RoleServer;
    use rmcp::model::{ProgressNotificationParam, ProgressToken};
    use rmcp::service::RequestContext;
    use serde_json::Value;
    use tokio::sync::mpsc;

    use std::sync::Arc;

    use crate::CallOptions;
    use crate::context::{Caller, Cancellation, ProgressUpdate};
    use crate::error::ToolResult;
    use crate::session::Session;

    pub(super) async fn run(
        session: &Session,
        name: &str,
        args: Value,
        caller: Option<Arc<Caller>>,
        context: &RequestContext<RoleServer>,
    ) -> ToolResult {
        let cancel = Cancellation::new();
        let mut options = CallOptions::new().cancellation(cancel.clone());
        if let Some(caller) = caller {
            options = options.caller(caller);
        }
        let token = context.meta.get_progress_token();
        let (updates, mut updated) = mpsc::unbounded_channel::<ProgressUpdate>();
        if token.is_some() {
            options = options.on_progress(move |update| {
                // The receiver outlives the call: this cannot fail while it matters.
                let _ = updates.send(update);
            });
        }
        let call = session.call_with(name, args, options);
        tokio::pin!(call);
        let mut cancelled = false;
        loop {
            tokio::select! {
                biased;
                result = &mut call => {
                    // Progress reported before the result goes out before it.
                    if let Some(token) = &token {
                        while let Ok(update) = updated.try_recv() {
                            notify(context, token, update).await;
                        }
                    }
                    return result;
                }
                Some(update) = updated.recv(), if token.is_some() => {
                    if let Some(token) = &token {
                        notify(context, token, update).await;
                    }
                }
                () = context.ct.cancelled(), if !cancelled => {
                    cancelled = true;
                    cancel.cancel();
                }
            }
        }
    }

    #[allow(
        clippy::cast_precision_loss,
        reason = "MCP counts progress in JSON numbers"
    )]
    async fn notify(
        context: &RequestContext<RoleServer>,
        token: &ProgressToken,
        update: ProgressUpdate,
    ) {
        let mut param = ProgressNotificationParam::new(token.clone(), update.done as f64);
        if let Some(total) = update.total {
            param = param.with_total(total as f64);
        }
        if !update.message.is_empty() {
            param = param.with_message(update.message);
        }
        // A client that went away misses its progress; the call goes on.
        let _ = context.peer.notify_progress(param).await;
    }
}

/// Whether a caller may see a tool that requires `scopes` (`tools/list`): a tool without
/// scopes is open to every caller, one with scopes to a caller holding them all (an
/// anonymous caller holds none). A call of a tool not listed is answered `TOOL_FORBIDDEN`
/// (over HTTP with OAuth, `403 insufficient_scope`).
pub(crate) fn may_list<S: AsRef<str>>(caller: Option<&Caller>, scopes: &[S]) -> bool {
    scopes.is_empty() || caller.is_some_and(|c| c.holds_all(scopes))
}

/// A call's `CallToolResult`. On success, `structuredContent` is the value shaped by the
/// tool's outputSchema when it lists one (wrapped as `{"result": …}` for a non-object
/// output), or the value itself when it is an object; never on an error.
fn to_call_tool_result(result: ToolResult, output: Option<&OutputSchema>) -> CallToolResult {
    match result {
        ToolResult::Ok(value) => {
            let mut out = CallToolResult::success(vec![ContentBlock::text(value.to_string())]);
            out.structured_content = match output {
                Some(schema) => Some(schema.structured_content(value)),
                None if value.is_object() => Some(value),
                None => None,
            };
            out
        }
        ToolResult::Err(error) => {
            let text = serde_json::to_string(&error).unwrap_or_else(|_| error.to_string());
            CallToolResult::error(vec![ContentBlock::text(text)])
        }
    }
}
