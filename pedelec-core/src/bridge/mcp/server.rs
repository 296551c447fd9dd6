//! The MCP protocol, written once: [`Server`] answers one parsed JSON-RPC message with the
//! metadata its transport knows ([`Exchange`]: the connection's negotiated revision, the
//! HTTP version header, where notifications and requests to the client go). The stdio
//! loop, the stateless HTTP endpoint and the adapter under rmcp's session transport all
//! call it; none of them knows a method.
//!
//! Both revisions are served, chosen per request: a request whose `_meta` names
//! 2026-07-28 (or that arrives with that `MCP-Protocol-Version`) is served statelessly by
//! its `_meta`; any other is served as the revision its connection negotiated with
//! `initialize` (2025-11-25 and before), or the transport's default.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

use rmcp::model::{
    CacheScope, ClientCapabilities, DiscoverResult, ErrorCode, ErrorData, Icon, Implementation,
    InitializeResult, ListToolsResult, ProtocolVersion, ResultType, ServerCapabilities, Tool,
};
use serde_json::Value;

use super::call::{self, CallSettings};
use super::meta::{self, Meta, Revision, TraceParent};
use super::tasks::TaskStore;
use super::wire::{self, Kind, Message, Method};
use crate::context::{Caller, Cancellation, InputFuture, LogLevel};
use crate::output::OutputSchema;
use crate::schema::mcp_header::{ParamHeader, param_headers};
use crate::session::Session;
use crate::tool::{TaskSupport, ToolDefinition};

/// Makes the span a call runs in from the trace parent its request carried.
pub type TraceSpanFn = Arc<dyn Fn(&TraceParent) -> tracing::Span + Send + Sync>;

/// What the MCP bridges let a user set, shared by [`Mcp`](super::Mcp) and
/// [`McpHttp`](crate::bridge::McpHttp).
#[derive(Clone)]
pub(crate) struct Settings {
    /// The key `requestState` is signed with (input-required results); random per process
    /// by default.
    pub(crate) request_state_key: Option<Arc<[u8]>>,
    /// How long an input-required round's `requestState` stays valid.
    pub(crate) request_state_ttl: std::time::Duration,
    /// The span of a call whose request carried a `traceparent`.
    pub(crate) trace_span: Option<TraceSpanFn>,
    /// The caching hint of the lists (`ttlMs`).
    pub(crate) list_ttl_ms: u64,
    /// How long a task's result is kept (`ttlMs`), and the poll interval suggested.
    pub(crate) task_ttl_ms: u64,
    pub(crate) task_poll_ms: u64,
    /// The most tasks kept at once.
    pub(crate) max_tasks: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            request_state_key: None,
            request_state_ttl: std::time::Duration::from_mins(10),
            trace_span: None,
            list_ttl_ms: 300_000,
            task_ttl_ms: 3_600_000,
            task_poll_ms: 250,
            max_tasks: 10_000,
        }
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field(
                "request_state_key",
                &self.request_state_key.as_ref().map(|_| "…"),
            )
            .field("trace_span", &self.trace_span.is_some())
            .field("list_ttl_ms", &self.list_ttl_ms)
            .field("task_ttl_ms", &self.task_ttl_ms)
            .finish_non_exhaustive()
    }
}

/// The MCP side of a session. Cloning is cheap.
#[derive(Clone)]
pub(crate) struct Server {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) session: Session,
    pub(super) tools: Vec<Listed>,
    /// `tools/list` results, serialized once: 2026-07-28 (with `resultType` and caching
    /// hints) and before.
    list_current: Vec<u8>,
    list_legacy: Vec<u8>,
    /// The tools as listed, for lists filtered by the caller's scopes (when some tool has
    /// scopes; otherwise the lists above serve every caller).
    scoped: Option<Vec<Tool>>,
    /// `server/discover`'s result.
    discover: Vec<u8>,
    capabilities: ServerCapabilities,
    instructions: Option<String>,
    pub(super) call: CallSettings,
    pub(super) tasks: TaskStore,
    pub(super) settings: Settings,
    /// Whether some tool has an `x-mcp-header` argument.
    any_param_headers: bool,
}

/// A tool as the server knows it: what a call needs beyond the session.
pub(super) struct Listed {
    pub(super) name: Box<str>,
    /// The scopes a caller must hold to see and call it (`#[tool(scopes = [...])]`).
    pub(super) scopes: Box<[Box<str>]>,
    pub(super) output: Option<OutputSchema>,
    pub(super) task: TaskSupport,
    /// The arguments a client mirrors into `Mcp-Param-*` headers (`x-mcp-header`).
    pub(super) param_headers: Box<[ParamHeader]>,
}

/// What a connection negotiated with `initialize` (stdio, rmcp's sessions), and the log
/// level its client set.
#[derive(Default)]
pub(crate) struct Connection {
    negotiated: OnceLock<Negotiated>,
    /// `LogLevel as u8 + 1`; 0 when never set.
    log_level: AtomicU8,
}

pub(crate) struct Negotiated {
    pub(crate) revision: Revision,
    pub(crate) capabilities: ClientCapabilities,
}

impl Connection {
    pub(crate) fn info(&self) -> Option<&Negotiated> {
        self.negotiated.get()
    }

    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        match self.log_level.load(Ordering::Relaxed) {
            0 => None,
            n => LogLevel::ALL.get(usize::from(n - 1)).copied(),
        }
    }

    fn set_log_level(&self, level: LogLevel) {
        let i = LogLevel::ALL.iter().position(|l| *l == level).unwrap_or(0);
        self.log_level
            .store(u8::try_from(i + 1).unwrap_or(1), Ordering::Relaxed);
    }
}

/// Where a request's notifications and requests to the client go.
pub(crate) trait Link: Send + Sync + 'static {
    /// Sends a notification (a whole JSON-RPC message) on the request's stream.
    fn notify(&self, message: Vec<u8>);

    /// Sends a request to the client and waits for its result (the client's `result`, or
    /// an error); `None` when the transport cannot carry requests to the client.
    fn request(&self, method: &'static str, params: Value) -> Option<InputFuture> {
        let _ = (method, params);
        None
    }

    /// Why requests to the client are impossible here (for the handler's error).
    fn why_no_requests(&self) -> &'static str {
        "this transport cannot send requests to the client"
    }
}

/// What the transport knows of one request.
pub(crate) struct Exchange {
    /// The connection's handshake (stdio, rmcp's sessions); `None` on stateless HTTP.
    pub(crate) connection: Option<Arc<Connection>>,
    /// The `MCP-Protocol-Version` header (HTTP).
    pub(crate) header_version: Option<Box<str>>,
    pub(crate) link: Arc<dyn Link>,
    /// Cancels the request's call (stdio's `notifications/cancelled`; rmcp's token). Over
    /// HTTP, dropping the answer's future cancels it.
    pub(crate) cancellation: Option<Cancellation>,
    /// Who makes the request's calls: the HTTP request's authenticated caller, or the
    /// stdio connection's (`Mcp::caller`); `None`: anonymous.
    pub(crate) caller: Option<Arc<Caller>>,
}

/// Whether a caller may see a tool that requires `scopes` (`tools/list`): a tool without
/// scopes is open to every caller, one with scopes to a caller holding them all (an
/// anonymous caller holds none). A call of a tool not listed is refused all the same
/// (`TOOL_FORBIDDEN`; over HTTP with OAuth, `403 insufficient_scope`).
pub(crate) fn may_list<S: AsRef<str>>(caller: Option<&Caller>, scopes: &[S]) -> bool {
    scopes.is_empty() || caller.is_some_and(|c| c.holds_all(scopes))
}

/// The answer to a request: a whole JSON-RPC response and the HTTP status it goes with.
pub(crate) struct Reply {
    pub(crate) body: Vec<u8>,
    pub(crate) status: u16,
}

impl Reply {
    pub(crate) fn ok(body: Vec<u8>) -> Reply {
        Reply { body, status: 200 }
    }

    /// An error answer; its HTTP status by the 2026-07-28 rules when `current` (or when
    /// the request was malformed), 200 otherwise.
    pub(crate) fn error(
        id: Option<&str>,
        error: &ErrorData,
        current: bool,
        malformed: bool,
    ) -> Reply {
        let status = if current || malformed {
            wire::http_status_of(error.code, malformed)
        } else {
            200
        };
        Reply {
            body: wire::error(id, error),
            status,
        }
    }
}

/// How a request is served: its revision, and the client's capabilities for it.
pub(crate) struct Lifecycle<'a> {
    pub(crate) revision: Revision,
    pub(crate) capabilities: Option<&'a ClientCapabilities>,
}

impl Server {
    pub(crate) fn new(session: &Session, settings: Settings) -> Server {
        let definitions = session.definitions();
        let tools: Vec<Tool> = definitions.iter().map(listed_tool).collect();
        let listed = definitions
            .iter()
            .map(|d| Listed {
                name: d.name().into(),
                scopes: d.scopes().iter().map(|s| Box::from(&**s)).collect(),
                output: d.output_schema().copied(),
                task: d.task_support(),
                param_headers: param_headers(d.args_schema().node()).into(),
            })
            .collect::<Vec<_>>();
        let any_task = listed.iter().any(|t| t.task != TaskSupport::Forbidden);
        let mut capabilities = capabilities();
        if any_task {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    serde_json::Map::new(),
                );
        }
        let guidance = session.manifest().guidance;
        let instructions = (!guidance.is_empty()).then_some(guidance);

        let any_param_headers = listed.iter().any(|t| !t.param_headers.is_empty());
        let any_scopes = listed.iter().any(|t| !t.scopes.is_empty());
        let scoped = any_scopes.then(|| tools.clone());
        let mut list = ListToolsResult::with_all_items(tools);
        list.result_type = None;
        let list_legacy = serde_json::to_vec(&list).unwrap_or_default();
        list.result_type = Some(ResultType::COMPLETE);
        list.ttl_ms = Some(settings.list_ttl_ms);
        // The list is the same for every caller: any cache may share it.
        list.cache_scope = Some(CacheScope::Public);
        let list_current = serde_json::to_vec(&list).unwrap_or_default();

        let mut discover =
            DiscoverResult::new(meta::supported_versions().to_vec(), capabilities.clone())
                .with_server_info(server_info());
        discover.instructions.clone_from(&instructions);
        discover.ttl_ms = settings.list_ttl_ms;
        discover.cache_scope = CacheScope::Public;
        let discover = serde_json::to_vec(&discover).unwrap_or_default();

        let call = CallSettings::new(&settings);
        let tasks = TaskStore::new(&settings);
        Server {
            inner: Arc::new(Inner {
                session: session.clone(),
                tools: listed,
                list_current,
                list_legacy,
                scoped,
                discover,
                capabilities,
                instructions,
                call,
                tasks,
                settings,
                any_param_headers,
            }),
        }
    }

    /// `tools/list` for `caller`: the tools whose scopes it holds (the 2026-07-28 revision
    /// lets the list depend on the caller: `cacheScope` is then `private`).
    fn list_for(
        &self,
        id: &str,
        tools: &[Tool],
        caller: Option<&Caller>,
        current: bool,
    ) -> Vec<u8> {
        let visible = tools
            .iter()
            .zip(&self.inner.tools)
            .filter(|(_, listed)| may_list(caller, &listed.scopes))
            .map(|(tool, _)| tool.clone())
            .collect();
        let mut list = ListToolsResult::with_all_items(visible);
        if current {
            list.result_type = Some(ResultType::COMPLETE);
            list.ttl_ms = Some(self.inner.settings.list_ttl_ms);
            list.cache_scope = Some(CacheScope::Private);
        } else {
            list.result_type = None;
        }
        wire::result(id, &list)
    }

    /// The scopes the tool named `name` requires (`None`: no such tool).
    #[cfg_attr(not(feature = "oauth"), allow(dead_code, reason = "OAuth's step-up"))]
    pub(crate) fn scopes_of(&self, name: &str) -> Option<&[Box<str>]> {
        self.tool(name).map(|t| &*t.scopes)
    }

    /// The arguments of the tool named `name` a client mirrors into `Mcp-Param-*` headers
    /// (empty for an unknown tool, and without a lookup when no tool has any).
    pub(crate) fn param_headers_of(&self, name: &str) -> &[ParamHeader] {
        if !self.inner.any_param_headers {
            return &[];
        }
        self.tool(name).map_or(&[], |t| &*t.param_headers)
    }

    /// Every scope some tool requires, once each, in skill-set order.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code, reason = "OAuth's metadata"))]
    pub(crate) fn all_scopes(&self) -> Vec<String> {
        let mut all: Vec<String> = Vec::new();
        for scope in self.inner.tools.iter().flat_map(|t| t.scopes.iter()) {
            if !all.iter().any(|s| **s == **scope) {
                all.push(scope.to_string());
            }
        }
        all
    }

    pub(crate) fn session(&self) -> &Session {
        &self.inner.session
    }

    /// The tool named `name`.
    pub(super) fn tool(&self, name: &str) -> Option<&Listed> {
        self.inner.tools.iter().find(|t| &*t.name == name)
    }

    /// Answers one message: `None` for a notification (or a response, which the transport
    /// routes itself).
    pub(crate) async fn handle(&self, message: &Message, x: &Exchange) -> Option<Reply> {
        match message.kind {
            Kind::Request => {}
            // Notifications ask nothing of the core: `notifications/cancelled` is routed by
            // the transports that can (stdio, rmcp's sessions); a stateless request is
            // cancelled by closing it.
            Kind::Notification | Kind::Response => return None,
        }
        let id = message.id().unwrap_or("null");
        let Ok(meta) = Meta::parse(message.raw(&message.params.meta)) else {
            let error =
                ErrorData::invalid_params("Invalid params: `_meta` must be an object", None);
            return Some(Reply::error(Some(id), &error, true, true));
        };
        let life = match Self::lifecycle(message, &meta, x) {
            Ok(life) => life,
            Err((error, malformed)) => {
                return Some(Reply::error(Some(id), &error, true, malformed));
            }
        };
        let current = life.revision.is_current();
        let answer = match message.method {
            Method::ToolsCall => {
                let revision = life.revision;
                let capabilities = life.capabilities.cloned();
                let life = Lifecycle {
                    revision,
                    capabilities: capabilities.as_ref(),
                };
                return Some(call::call_tool(self, id, message, meta, &life, x).await);
            }
            Method::ToolsList => Ok(match &self.inner.scoped {
                Some(tools) => self.list_for(id, tools, x.caller.as_deref(), current),
                None => wire::raw_result(
                    id,
                    if current {
                        &self.inner.list_current
                    } else {
                        &self.inner.list_legacy
                    },
                ),
            }),
            Method::Initialize => self.initialize(id, message, x),
            Method::Discover => Ok(wire::raw_result(id, &self.inner.discover)),
            Method::Ping if !current => Ok(wire::raw_result(id, b"{}")),
            Method::SetLevel if !current => Self::set_level(id, message, x),
            Method::PromptsList => Ok(self.empty_list(id, "prompts", current)),
            Method::ResourcesList => Ok(self.empty_list(id, "resources", current)),
            Method::ResourceTemplatesList => Ok(self.empty_list(id, "resourceTemplates", current)),
            Method::PromptsGet => Err(ErrorData::invalid_params(
                format!(
                    "Invalid params: unknown prompt {} (this server has no prompts)",
                    message.raw(&message.params.name).unwrap_or("null")
                ),
                None,
            )),
            Method::ResourcesRead => {
                let code = if current {
                    ErrorCode::INVALID_PARAMS
                } else {
                    ErrorCode::RESOURCE_NOT_FOUND
                };
                Err(ErrorData::new(
                    code,
                    format!(
                        "Resource not found: {} (this server has no resources)",
                        message.raw(&message.params.uri).unwrap_or("null")
                    ),
                    None,
                ))
            }
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => {
                return Some(self.tasks_request(id, message, &life));
            }
            _ => Err(ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!("Method not found: {}", message.method_name()),
                None,
            )),
        };
        Some(match answer {
            Ok(body) => Reply::ok(body),
            Err(error) => Reply::error(Some(id), &error, current, false),
        })
    }

    /// The revision a request is served as, checking what that revision requires of its
    /// `_meta`. `Err` carries the error and whether the request was malformed (HTTP 400).
    pub(crate) fn lifecycle<'m>(
        message: &Message,
        meta: &'m Meta,
        x: &'m Exchange,
    ) -> Result<Lifecycle<'m>, (ErrorData, bool)> {
        let initialize = message.method == Method::Initialize;
        if let Some(version) = meta.version()
            && !initialize
            && Revision::of(version).is_none()
        {
            let requested =
                serde_json::from_value::<ProtocolVersion>(Value::from(version)).unwrap_or_default();
            return Err((
                ErrorData::unsupported_protocol_version(requested, meta::supported_versions()),
                true,
            ));
        }
        let header_current = x
            .header_version
            .as_deref()
            .is_some_and(|v| v >= meta::CURRENT);
        let meta_current = meta.version().is_some_and(|v| v >= meta::CURRENT);
        if initialize {
            if meta_current {
                // The handshake does not exist from 2026-07-28 on.
                return Err((
                    ErrorData::new(
                        ErrorCode::METHOD_NOT_FOUND,
                        "Method not found: initialize",
                        None,
                    ),
                    false,
                ));
            }
            return Ok(Lifecycle {
                revision: Revision::of(meta::LATEST_WITH_INITIALIZE).unwrap_or(Revision::CURRENT),
                capabilities: None,
            });
        }
        let requires_meta = message.method == Method::Discover || meta_current || header_current;
        if requires_meta {
            let missing = meta.missing_required();
            if !missing.is_empty() {
                return Err((meta::missing_meta_error(&missing), true));
            }
        }
        if let Some(revision) = meta.version().and_then(Revision::of) {
            return Ok(Lifecycle {
                revision,
                capabilities: meta.capabilities(),
            });
        }
        if let Some(info) = x.connection.as_deref().and_then(Connection::info) {
            return Ok(Lifecycle {
                revision: info.revision,
                capabilities: Some(&info.capabilities),
            });
        }
        let revision = x
            .header_version
            .as_deref()
            .and_then(Revision::of)
            .or_else(|| Revision::of(meta::DEFAULT_HTTP))
            .unwrap_or(Revision::CURRENT);
        Ok(Lifecycle {
            revision,
            capabilities: None,
        })
    }

    /// `initialize` (revisions before 2026-07-28): the client's version if served, else
    /// the newest one with a handshake.
    fn initialize(&self, id: &str, message: &Message, x: &Exchange) -> Result<Vec<u8>, ErrorData> {
        let requested = message
            .string(&message.params.protocol_version)
            .map_err(|()| {
                ErrorData::invalid_params(
                    "Invalid params: `protocolVersion` must be a string",
                    None,
                )
            })?;
        let revision = requested
            .as_deref()
            .and_then(Revision::of)
            .filter(|r| !r.is_current())
            .or_else(|| Revision::of(meta::LATEST_WITH_INITIALIZE))
            .unwrap_or(Revision::CURRENT);
        let capabilities = message
            .raw(&message.params.capabilities)
            .and_then(|raw| serde_json::from_str::<ClientCapabilities>(raw).ok())
            .unwrap_or_default();
        if let Some(connection) = &x.connection {
            let _ = connection.negotiated.set(Negotiated {
                revision,
                capabilities,
            });
        }
        let mut result = InitializeResult::new(self.inner.capabilities.clone());
        result.protocol_version =
            serde_json::from_value::<ProtocolVersion>(Value::from(revision.as_str()))
                .unwrap_or_default();
        result.server_info = server_info();
        result.instructions.clone_from(&self.inner.instructions);
        // The tasks extension is served from 2026-07-28 on.
        if let Some(extensions) = &mut result.capabilities.extensions {
            extensions.remove(rmcp::model::TASKS_EXTENSION_ID);
            if extensions.is_empty() {
                result.capabilities.extensions = None;
            }
        }
        Ok(wire::result(id, &result))
    }

    /// `logging/setLevel` (before 2026-07-28): the level of the messages the connection's
    /// calls send.
    fn set_level(id: &str, message: &Message, x: &Exchange) -> Result<Vec<u8>, ErrorData> {
        let level = message
            .string(&message.params.level)
            .ok()
            .flatten()
            .and_then(|l| LogLevel::from_name(&l))
            .ok_or_else(|| {
                ErrorData::invalid_params(
                    "Invalid params: `level` must be one of debug, info, notice, warning, error, critical, alert, emergency",
                    None,
                )
            })?;
        if let Some(connection) = &x.connection {
            connection.set_log_level(level);
        }
        Ok(wire::raw_result(id, b"{}"))
    }

    /// An empty list (prompts, resources, resource templates: declared, none served), with
    /// its caching hints on 2026-07-28.
    fn empty_list(&self, id: &str, key: &str, current: bool) -> Vec<u8> {
        let mut out = Vec::with_capacity(96);
        wire::open_result(&mut out, id);
        out.push(b'{');
        wire::write_str(&mut out, key);
        out.extend_from_slice(b":[]");
        if current {
            out.extend_from_slice(b",\"ttlMs\":");
            out.extend_from_slice(self.inner.settings.list_ttl_ms.to_string().as_bytes());
            out.extend_from_slice(b",\"cacheScope\":\"public\",\"resultType\":\"complete\"");
        }
        out.extend_from_slice(b"}}");
        out
    }

    fn tasks_request(&self, id: &str, message: &Message, life: &Lifecycle<'_>) -> Reply {
        let current = life.revision.is_current();
        if !self
            .inner
            .tools
            .iter()
            .any(|t| t.task != TaskSupport::Forbidden)
        {
            let error = ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                format!(
                    "Method not found: {} (no tool of this server runs as a task)",
                    message.method_name()
                ),
                None,
            );
            return Reply::error(Some(id), &error, current, false);
        }
        if !life
            .capabilities
            .is_some_and(ClientCapabilities::supports_tasks)
        {
            let error = ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            );
            return Reply::error(Some(id), &error, true, false);
        }
        let Ok(Some(task_id)) = message.string(&message.params.task_id) else {
            let error =
                ErrorData::invalid_params("Invalid params: `taskId` must be a string", None);
            return Reply::error(Some(id), &error, current, false);
        };
        let answer = match message.method {
            Method::TasksGet => self
                .inner
                .tasks
                .get(&task_id)
                .map(|task| wire::result(id, &task)),
            Method::TasksCancel => self.inner.tasks.cancel(&task_id).map(|()| ack(id)),
            _ => {
                let responses = message
                    .raw(&message.params.input_responses)
                    .unwrap_or("null");
                call::input_responses(responses).and_then(|responses| {
                    self.inner
                        .tasks
                        .update(&task_id, responses)
                        .map(|()| ack(id))
                })
            }
        };
        match answer {
            Ok(body) => Reply::ok(body),
            Err(error) => Reply::error(Some(id), &error, current, false),
        }
    }
}

/// `{"resultType":"complete"}`: the ack of `tasks/update` and `tasks/cancel`.
fn ack(id: &str) -> Vec<u8> {
    wire::raw_result(id, br#"{"resultType":"complete"}"#)
}

/// The capabilities declared: tools, logging, and empty prompts and resources (their
/// lists are answered, empty, with caching hints).
pub(crate) fn capabilities() -> ServerCapabilities {
    #[allow(
        deprecated,
        reason = "logging is deprecated from 2026-07-28 on, served before"
    )]
    ServerCapabilities::builder()
        .enable_tools()
        .enable_prompts()
        .enable_resources()
        .enable_logging()
        .build()
}

pub(crate) fn server_info() -> Implementation {
    Implementation::new("pedelec", env!("CARGO_PKG_VERSION"))
}

/// A tool as `tools/list` shows it: Core's manifest entry (name, description, argsSchema as
/// `inputSchema`) plus the MCP-only metadata of its definition: `title`, `annotations` (the
/// hints of `#[tool(read_only, …)]`), `outputSchema` (from `#[derive(ToolOutput)]`; always
/// an object schema, never an empty `{}`; none for `Content`), and `icons`.
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
    if let Some(output) = definition.output_schema().filter(|o| !o.is_content())
        && let Value::Object(schema) = output.to_json()
    {
        tool = tool.with_raw_output_schema(Arc::new(schema));
    }
    if let Some(src) = definition.icon() {
        let mut icon = Icon::new(src);
        icon.mime_type = definition.icon_mime_type().map(str::to_owned);
        tool.icons = Some(vec![icon]);
    }
    tool
}

/// The `inputSchema` of a tool: the argsSchema, made sure to be an object schema with
/// `properties` (clients such as `LangGraph` reject a no-parameter tool without them, and an
/// empty `{}` breaks others).
fn input_schema(schema: Value) -> serde_json::Map<String, Value> {
    let mut map = match schema {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    if !map.contains_key("type") {
        map.insert("type".into(), "object".into());
    }
    if map.get("type").and_then(Value::as_str) == Some("object") && !map.contains_key("properties")
    {
        map.insert("properties".into(), Value::Object(serde_json::Map::new()));
    }
    map
}
