//! What a session mounts beside its skill set's tools (DESIGN's clarification: "`session`
//! defines a small extension trait for what it mounts"): code mode's `search_tools` and
//! `run_code`, and remote MCP servers (`bridge::McpRemote`). A mount adds tools of its own,
//! checked and dispatched like the skill set's, whose handlers reach the session back
//! through a [`SessionLink`]; the session names no mount.
//!
//! Tools that change at run time (a remote's) live in a [`LiveTools`] table (`live.rs`).

use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};

use super::Session;
use super::dispatch::Shared;
use super::live::LiveTools;
use crate::error::Problem;
use crate::tool::ToolDefinition;

/// Something mounted on a session under a namespace (`SessionBuilder::mount`): a remote
/// MCP server (`bridge::McpRemote`, feature `gateway`). Implemented by pedelec's mounts
/// only; its method is not public API.
pub trait Mount: Send + Sync + 'static {
    /// The tools it adds at creation, given its namespace (empty for the session's own
    /// mounts) and the skill set's definitions (checked, in order). Their handlers may call
    /// the session through `link` once it is created; tools that change at run time are
    /// published through [`SessionLink::live`].
    ///
    /// # Errors
    /// What is wrong, for the session's `INVALID_INPUT` error.
    #[doc(hidden)]
    fn tools(
        self: Box<Self>,
        namespace: &str,
        skills: &[ToolDefinition],
        link: &SessionLink,
    ) -> Result<Vec<ToolDefinition>, Vec<Problem>>;
}

/// A mounted tool's way back to its session: set when the session is created, weak (the
/// session owns the handler that owns the link). Opaque.
#[derive(Clone, Default)]
pub struct SessionLink(Arc<LinkInner>);

#[derive(Default)]
struct LinkInner {
    shared: OnceLock<Weak<Shared>>,
    /// Namespaces claimed while the session is built; taken by `create()`.
    live: Mutex<Vec<Arc<LiveTools>>>,
}

impl SessionLink {
    pub(super) fn set(&self, shared: &Arc<Shared>) {
        let _ = self.0.shared.set(Arc::downgrade(shared));
    }

    fn shared(&self) -> Option<Arc<Shared>> {
        self.0.shared.get()?.upgrade()
    }

    /// The session, while it lives.
    #[cfg_attr(
        not(feature = "code-mode"),
        allow(dead_code, reason = "what mounts use")
    )]
    pub(crate) fn session(&self) -> Option<Session<String>> {
        Some(Session {
            shared: self.shared()?,
            names: std::marker::PhantomData,
        })
    }

    /// Claims `namespace` for tools that change at run time (see the module docs): every
    /// name `namespace.…` is looked up in the returned table, empty until the mount
    /// [`replace`](LiveTools::replace)s its tools.
    #[cfg_attr(
        not(feature = "gateway"),
        allow(dead_code, reason = "what remote servers mount")
    )]
    pub(crate) fn live(&self, namespace: &str) -> Arc<LiveTools> {
        let live = Arc::new(LiveTools::new(namespace));
        self.0
            .live
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(live.clone());
        live
    }

    /// The namespaces claimed while the session was built.
    pub(super) fn take_live(&self) -> Vec<Arc<LiveTools>> {
        std::mem::take(&mut *self.0.live.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
