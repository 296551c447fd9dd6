//! What a session mounts beside its skill set's tools (DESIGN's clarification: "`session`
//! defines a small extension trait for what it mounts"): code mode's `search_tools` and
//! `run_code`, and later remote servers. A mount adds tools of its own, checked and
//! dispatched like the skill set's, whose handlers reach the session back through a
//! [`SessionLink`]; the session names no mount.

use std::sync::{Arc, OnceLock, Weak};

use super::Session;
use super::dispatch::Shared;
use crate::error::Problem;
use crate::tool::ToolDefinition;

/// Something mounted on a session (`SessionBuilder::code_mode`, …).
pub(crate) trait Mount: Send + Sync + 'static {
    /// The tools it adds, given the skill set's definitions (checked, in order). Their
    /// handlers may call the session through `link` once it is created.
    ///
    /// # Errors
    /// What is wrong, for the session's `INVALID_INPUT` error.
    fn tools(
        self: Box<Self>,
        skills: &[ToolDefinition],
        link: &SessionLink,
    ) -> Result<Vec<ToolDefinition>, Vec<Problem>>;
}

/// A mounted tool's way back to its session: set when the session is created, weak (the
/// session owns the handler that owns the link).
#[derive(Clone, Default)]
pub(crate) struct SessionLink(Arc<OnceLock<Weak<Shared>>>);

impl SessionLink {
    pub(super) fn set(&self, shared: &Arc<Shared>) {
        let _ = self.0.set(Arc::downgrade(shared));
    }

    /// The session, while it lives.
    #[cfg_attr(
        not(feature = "code-mode"),
        allow(dead_code, reason = "what code mode mounts")
    )]
    pub(crate) fn session(&self) -> Option<Session<String>> {
        let shared = self.0.get()?.upgrade()?;
        Some(Session {
            shared,
            names: std::marker::PhantomData,
        })
    }
}
