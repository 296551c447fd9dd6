//! What a user sets on the MCP bridges ([`Settings`], shared by [`Mcp`](super::Mcp) and
//! [`McpHttp`](crate::bridge::McpHttp)). A leaf.

use std::sync::Arc;
use std::time::Duration;

use super::meta::TraceParent;

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
    pub(crate) request_state_ttl: Duration,
    /// The span of a call whose request carried a `traceparent`.
    pub(crate) trace_span: Option<TraceSpanFn>,
    /// The caching hint of the lists (`ttlMs`).
    pub(crate) list_ttl_ms: u64,
    /// How long a task's result is kept (`ttlMs`), and the poll interval suggested.
    pub(crate) task_ttl_ms: u64,
    pub(crate) task_poll_ms: u64,
    /// The most tasks kept at once.
    pub(crate) max_tasks: usize,
    /// Whether deferred tools leave `tools/list` for `search_tools` and `call_tool`.
    pub(crate) search: bool,
    /// What the server says it is in `initialize` (`serverInfo`, `instructions`).
    pub(crate) identity: Identity,
}

/// What a server says it is. Each field left `None` has a default: the name and version of
/// the crate whose `skills![]` declared the set (else `pedelec` and its version), no title,
/// and the skill set's guidance as the instructions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Identity {
    pub(crate) name: Option<String>,
    pub(crate) version: Option<String>,
    pub(crate) title: Option<String>,
    pub(crate) instructions: Option<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            request_state_key: None,
            request_state_ttl: Duration::from_mins(10),
            trace_span: None,
            list_ttl_ms: 300_000,
            task_ttl_ms: 3_600_000,
            task_poll_ms: 250,
            max_tasks: 10_000,
            search: true,
            identity: Identity::default(),
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
            .field("identity", &self.identity)
            .finish_non_exhaustive()
    }
}
