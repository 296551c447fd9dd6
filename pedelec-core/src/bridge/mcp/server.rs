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

use std::sync::Arc;

use rmcp::model::{
    CacheScope, ClientCapabilities, DiscoverResult, ErrorCode, ErrorData, Icon, Implementation,
    InitializeResult, ListToolsResult, ProtocolVersion, ResultType, ServerCapabilities, Tool,
};
use serde_json::Value;

use super::call;
use super::meta::{self, Meta, Revision};
use super::search::Search;
use super::settings::Identity;
use super::shared::{
    CallSettings, Connection, Exchange, Inner, Lifecycle, Listed, Negotiated, Reply, Server,
    Settings, may_list,
};
use super::tasks::TaskStore;
use super::wire::{self, Kind, Message, Method};
use crate::context::{Caller, LogLevel};
use crate::schema::mcp_header::{ParamHeader, param_headers};
use crate::search::Index;
use crate::session::Session;
use crate::tool::{TaskSupport, ToolDefinition};

impl Server {
    pub(crate) fn new(session: &Session, settings: Settings) -> Server {
        let tasks = Arc::new(TaskStore::new(&settings, session.store()));
        let inner = Arc::new(Self::build(session, settings, tasks));
        Server {
            latest: Arc::new(std::sync::RwLock::new(inner.clone())),
            inner,
        }
    }

    /// The server as of the session's current tools: this one, or the state rebuilt once
    /// a mounted remote re-listed its tools (the lists, scopes and search follow it).
    pub(crate) fn now(&self) -> std::borrow::Cow<'_, Server> {
        let revision = self.inner.session.tools_revision();
        if self.inner.revision == revision {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut latest = self
            .latest
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if latest.revision != revision {
            let rebuilt = Arc::new(Self::build(
                &latest.session,
                latest.settings.clone(),
                latest.tasks.clone(),
            ));
            let mut slot = self
                .latest
                .write()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if slot.revision < rebuilt.revision {
                *slot = rebuilt;
            }
            latest = slot.clone();
        }
        std::borrow::Cow::Owned(Server {
            inner: latest,
            latest: self.latest.clone(),
        })
    }

    fn build(session: &Session, settings: Settings, tasks: Arc<TaskStore>) -> Inner {
        // Read first: a change after it makes the next request rebuild again.
        let revision = session.tools_revision();
        let definitions = session.definitions();
        let tools: Vec<Tool> = definitions.iter().map(listed_tool).collect();
        let mut listed = definitions
            .iter()
            .map(|d| Listed {
                name: d.name().into(),
                scopes: d.scopes().iter().map(|s| Box::from(&**s)).collect(),
                output: d.output_schema().copied(),
                task: d.task_support(),
                param_headers: param_headers(d.args_schema().node()).into(),
                hidden: false,
                remote: d.remote().is_some(),
            })
            .collect::<Vec<_>>();
        let any_task = listed.iter().any(|t| t.task != TaskSupport::Forbidden);
        let mut capabilities = capabilities();
        if session.has_mounts() {
            // A mounted remote's tools change when it says so: the clients are told.
            if let Some(tools) = &mut capabilities.tools {
                tools.list_changed = Some(true);
            }
        }
        if any_task {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(
                    rmcp::model::TASKS_EXTENSION_ID.to_owned(),
                    serde_json::Map::new(),
                );
        }
        let manifest = session.manifest();
        let identity = &settings.identity;
        let instructions = identity
            .instructions
            .clone()
            .or_else(|| (!manifest.guidance.is_empty()).then(|| manifest.guidance.clone()));
        let server_info = server_info(identity, session.package());

        let any_param_headers = listed.iter().any(|t| !t.param_headers.is_empty());
        let any_scopes = listed.iter().any(|t| !t.scopes.is_empty());
        // A session in code mode has its own `search_tools` (one per session): the bridge
        // adds none.
        let own_search = listed
            .iter()
            .any(|t| &*t.name == super::search::SEARCH_TOOLS);
        let search =
            (settings.search && !own_search && definitions.iter().any(ToolDefinition::defer))
                .then(|| Search::new(tools.clone(), Index::of(&manifest)));
        for (t, d) in listed.iter_mut().zip(definitions.iter()) {
            t.hidden = d.defer()
                && settings.search
                && (search.is_some() || (own_search && d.callable_by_program()));
        }
        let scoped = any_scopes.then(|| tools.clone());
        let mut list = ListToolsResult::with_all_items(shown(
            tools.into_iter().enumerate(),
            &listed,
            search.as_ref(),
        ));
        list.result_type = None;
        let list_legacy = serde_json::to_vec(&list).unwrap_or_default();
        list.result_type = Some(ResultType::COMPLETE);
        list.ttl_ms = Some(settings.list_ttl_ms);
        // The list is the same for every caller: any cache may share it.
        list.cache_scope = Some(CacheScope::Public);
        let list_current = serde_json::to_vec(&list).unwrap_or_default();

        let mut discover =
            DiscoverResult::new(meta::supported_versions().to_vec(), capabilities.clone())
                .with_server_info(server_info.clone());
        discover.instructions.clone_from(&instructions);
        discover.ttl_ms = settings.list_ttl_ms;
        discover.cache_scope = CacheScope::Public;
        let discover = serde_json::to_vec(&discover).unwrap_or_default();

        let call = CallSettings::new(&settings);
        Inner {
            session: session.clone(),
            revision,
            tools: listed,
            list_current,
            list_legacy,
            scoped,
            discover,
            capabilities,
            server_info,
            instructions,
            call,
            tasks,
            settings,
            any_param_headers,
            search,
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
            .enumerate()
            .zip(&self.inner.tools)
            .filter(|(_, listed)| may_list(caller, &listed.scopes))
            .map(|((i, tool), _)| (i, tool.clone()));
        let mut list = ListToolsResult::with_all_items(shown(
            visible,
            &self.inner.tools,
            self.inner.search.as_ref(),
        ));
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
    pub(crate) fn scopes_of(&self, name: &str) -> Option<std::borrow::Cow<'_, [Box<str>]>> {
        match self.now() {
            std::borrow::Cow::Borrowed(this) => this
                .tool(name)
                .map(|t| std::borrow::Cow::Borrowed(&*t.scopes)),
            std::borrow::Cow::Owned(this) => this
                .tool(name)
                .map(|t| std::borrow::Cow::Owned(t.scopes.to_vec())),
        }
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

    /// Answers one message: `None` for a notification (or a response, which the transport
    /// routes itself).
    pub(crate) async fn handle(&self, message: &Message, x: &Exchange) -> Option<Reply> {
        match self.now() {
            std::borrow::Cow::Borrowed(this) => this.handle_now(message, x).await,
            std::borrow::Cow::Owned(this) => this.handle_now(message, x).await,
        }
    }

    async fn handle_now(&self, message: &Message, x: &Exchange) -> Option<Reply> {
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
                return Some(self.tasks_request(id, message, &life).await);
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
            connection.negotiate(Negotiated {
                revision,
                capabilities,
            });
        }
        let mut result = InitializeResult::new(self.inner.capabilities.clone());
        result.protocol_version =
            serde_json::from_value::<ProtocolVersion>(Value::from(revision.as_str()))
                .unwrap_or_default();
        result.server_info = self.inner.server_info.clone();
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

    async fn tasks_request(&self, id: &str, message: &Message, life: &Lifecycle<'_>) -> Reply {
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
        let tasks = &self.inner.tasks;
        let answer = match message.method {
            Method::TasksGet => tasks
                .get(&task_id)
                .await
                .map(|task| wire::result(id, &task)),
            Method::TasksCancel => tasks.cancel(&task_id).await.map(|()| ack(id)),
            _ => {
                let responses = message
                    .raw(&message.params.input_responses)
                    .unwrap_or("null");
                match call::input_responses(responses) {
                    Ok(responses) => tasks.update(&task_id, responses).await.map(|()| ack(id)),
                    Err(error) => Err(error),
                }
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

/// The capabilities declared: tools, logging, and prompts and resources, whose lists are
/// answered (empty, with caching hints). Both are required by the MCP conformance suite:
/// its caching scenario (SEP-2549) lists prompts and resources whatever a server declares,
/// and its stateless scenario (SEP-2575) fails a server that answers a list it did not
/// declare. Answering `Method not found` instead fails the first; not declaring them while
/// answering fails the second.
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

/// `serverInfo`: what the user set, else the crate that declared the skill set, else
/// pedelec itself.
pub(crate) fn server_info(
    identity: &Identity,
    package: Option<(&'static str, &'static str)>,
) -> Implementation {
    let (name, version) = package.unwrap_or(("pedelec", env!("CARGO_PKG_VERSION")));
    let mut info = Implementation::new(
        identity.name.as_deref().unwrap_or(name),
        identity.version.as_deref().unwrap_or(version),
    );
    if let Some(title) = &identity.title {
        info = info.with_title(title);
    }
    info
}

/// A tool as `tools/list` shows it: Core's manifest entry (name, description, argsSchema as
/// `inputSchema`) plus the MCP-only metadata of its definition: `title`, `annotations` (the
/// hints of `#[tool(read_only, …)]`), `outputSchema` (from `#[derive(ToolOutput)]`; always
/// an object schema, never an empty `{}`; none for `Content`), and `icons`.
fn listed_tool(definition: &ToolDefinition) -> Tool {
    // A gateway's tool: as its remote listed it (under its wire name).
    if let Some(remote) = definition.remote()
        && let Ok(tool) = serde_json::from_value(Value::Object(remote.clone()))
    {
        return tool;
    }
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

/// What `tools/list` shows of `tools` (each with its position in the skill set, whose
/// `listed` says which are hidden): the others, and the bridge's `search_tools` and
/// `call_tool` when it searches (a session in code mode lists its own).
fn shown(
    tools: impl Iterator<Item = (usize, Tool)>,
    listed: &[Listed],
    search: Option<&Search>,
) -> Vec<Tool> {
    tools
        .filter(|(i, _)| !listed.get(*i).is_some_and(|t| t.hidden))
        .map(|(_, tool)| tool)
        .chain(search.into_iter().flat_map(|s| s.listed.iter().cloned()))
        .collect()
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
