//! What the files of the MCP bridge share, and nothing else: the user's [`Settings`], the
//! [`Server`] handle and its state, and what a transport knows of one request
//! ([`Exchange`], [`Link`], [`Connection`]) and answers ([`Reply`]). A leaf: it names none
//! of its siblings but the tasks store the state holds.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use rmcp::model::{ClientCapabilities, ErrorData, RequestStateCodec, ServerCapabilities, Tool};
use serde_json::Value;

use super::meta::Revision;
pub(crate) use super::settings::{Settings, TraceSpanFn};
use super::tasks::TaskStore;
use super::wire;
use crate::context::{Caller, Cancellation, InputFuture, LogLevel};
use crate::output::OutputSchema;
use crate::schema::mcp_header::ParamHeader;
use crate::session::Session;
use crate::tool::TaskSupport;

/// The MCP side of a session. Cloning is cheap.
#[derive(Clone)]
pub(crate) struct Server {
    pub(super) inner: Arc<Inner>,
    /// The latest state, rebuilt when the session's tools changed (a mounted remote
    /// re-listed): `inner` is the one this handle was made with.
    pub(super) latest: Arc<std::sync::RwLock<Arc<Inner>>>,
}

pub(super) struct Inner {
    pub(super) session: Session,
    /// The session's `tools_revision` this state was built from.
    pub(super) revision: u64,
    pub(super) tools: Vec<Listed>,
    /// `tools/list` results, serialized once: 2026-07-28 (with `resultType` and caching
    /// hints) and before.
    pub(super) list_current: Vec<u8>,
    pub(super) list_legacy: Vec<u8>,
    /// The tools as listed, for lists filtered by the caller's scopes (when some tool has
    /// scopes; otherwise the lists above serve every caller).
    pub(super) scoped: Option<Vec<Tool>>,
    /// `server/discover`'s result.
    pub(super) discover: Vec<u8>,
    pub(super) capabilities: ServerCapabilities,
    pub(super) server_info: rmcp::model::Implementation,
    pub(super) instructions: Option<String>,
    pub(super) call: CallSettings,
    /// Shared by every rebuilt state: tasks outlive a re-listing.
    pub(super) tasks: Arc<TaskStore>,
    pub(super) settings: Settings,
    /// Whether some tool has an `x-mcp-header` argument.
    pub(super) any_param_headers: bool,
    /// Deferred tools' search, when some tool is deferred (and the bridge searches).
    pub(super) search: Option<super::search::Search>,
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
    /// Left out of `tools/list`: deferred, and found by a search (the bridge's, or code
    /// mode's, which finds the tools a program may call).
    pub(super) hidden: bool,
    /// A gateway's tool: its value is the remote's `CallToolResult`, answered as is.
    pub(super) remote: bool,
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
    /// Records what `initialize` negotiated (the first time only).
    pub(crate) fn negotiate(&self, negotiated: Negotiated) {
        let _ = self.negotiated.set(negotiated);
    }

    pub(crate) fn info(&self) -> Option<&Negotiated> {
        self.negotiated.get()
    }

    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        match self.log_level.load(Ordering::Relaxed) {
            0 => None,
            n => LogLevel::ALL.get(usize::from(n - 1)).copied(),
        }
    }

    pub(crate) fn set_log_level(&self, level: LogLevel) {
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
    /// The HTTP request's `Idempotency-Key` header (IETF httpapi draft), for the call it
    /// carries (`#[tool(exactly_once)]`).
    pub(crate) idempotency_key: Option<Box<str>>,
}

/// Whether a caller may see a tool that requires `scopes` (`tools/list`): as it may call it
/// ([`Caller::may_call`]). A call of a tool not listed is refused all the same
/// (`TOOL_FORBIDDEN`; over HTTP with OAuth, `403 insufficient_scope`).
pub(crate) fn may_list<S: AsRef<str>>(caller: Option<&Caller>, scopes: &[S]) -> bool {
    Caller::may_call(caller, scopes)
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

/// What every call shares: the key `requestState` is sealed with, and the trace hook.
pub(crate) struct CallSettings {
    pub(super) codec: RequestStateCodec,
    pub(super) state_ttl: Duration,
}

impl CallSettings {
    pub(crate) fn new(settings: &Settings) -> Self {
        let key: Vec<u8> = match &settings.request_state_key {
            Some(key) => key.to_vec(),
            None => {
                let mut key = vec![0; 32];
                // Without an OS random source there is nothing to seal with: a fixed key
                // would let anyone forge state. `getrandom` fails only on exotic targets.
                getrandom::fill(&mut key).expect("no OS random source for the requestState key");
                key
            }
        };
        CallSettings {
            codec: RequestStateCodec::new_unchecked(key),
            state_ttl: settings.request_state_ttl,
        }
    }
}

impl Server {
    /// The session the server serves.
    /// What `initialize` declares: capabilities, `serverInfo` and instructions, as
    /// rmcp's server config (the legacy SSE transport's `get_info`).
    pub(crate) fn config(&self) -> rmcp::model::ServerConfig {
        let mut config = rmcp::model::ServerConfig::new(self.inner.capabilities.clone());
        config.server_info = self.inner.server_info.clone();
        config.instructions.clone_from(&self.inner.instructions);
        config
    }

    pub(crate) fn session(&self) -> &Session {
        &self.inner.session
    }

    /// The tool named `name`.
    pub(super) fn tool(&self, name: &str) -> Option<&Listed> {
        self.inner.tools.iter().find(|t| &*t.name == name)
    }

    /// The tasks extension's store.
    pub(super) fn tasks(&self) -> &TaskStore {
        &self.inner.tasks
    }

    /// Deferred tools' search, when some tool is deferred.
    pub(super) fn search(&self) -> Option<&super::search::Search> {
        self.inner.search.as_ref()
    }

    /// The tools as the server knows them, in the skill set's order.
    pub(super) fn tools(&self) -> &[Listed] {
        &self.inner.tools
    }

    /// The user's trace hook, when set.
    pub(super) fn trace_span(&self) -> Option<&TraceSpanFn> {
        self.inner.settings.trace_span.as_ref()
    }

    /// The `requestState` sealing shared by every call.
    pub(super) fn call_settings(&self) -> &CallSettings {
        &self.inner.call
    }
}
