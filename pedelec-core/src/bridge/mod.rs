//! Bridges: how Core reaches a session.
//!
//! - [`LocalCore`]: Core embedded in the process; calls go straight to the session
//!   (`session.call(..)` uses it).
//! - [`JsonLines`]: one JSON message per line over any async reader/writer (stdio, TCP);
//!   the protocol is specified in `docs/protocol.md`.
//! - `Mcp` (cargo feature `mcp`): the Model Context Protocol over stdio, through the
//!   official `rmcp` crate, so that any MCP client can use the tools.
//!
//! A bridge implements [`Bridge`]; [`Session::serve`](crate::Session::serve) runs it.

mod json_lines;
#[cfg(feature = "mcp")]
mod mcp;

use std::future::Future;

use serde_json::Value;
use serde_json::value::RawValue;

pub use json_lines::{JsonLines, PROTOCOL_VERSION};
#[cfg(feature = "mcp")]
pub use mcp::Mcp;

use crate::error::{Error, ToolResult};
use crate::manifest::SerializableSkillsManifest;
use crate::session::{PendingCall, Session};

/// A way for Core to reach a session: it delivers the manifest, then feeds calls to the
/// session and delivers their results, until Core goes away.
///
/// Implement it for a custom transport with the public call API of [`Session`]
/// ([`call_raw`](Session::call_raw) for JSON text, [`call`](Session::call) for values,
/// [`start_call`](Session::start_call) for cancellable calls).
pub trait Bridge: Send + 'static {
    /// Serves `session` until Core disconnects.
    ///
    /// # Errors
    /// When the transport fails (`SUBMIT_TOOL_RESULT_FAILED`).
    fn serve(self, session: Session) -> impl Future<Output = Result<(), Error>> + Send + 'static;
}

/// Core embedded in the process: it has the manifest a remote Core would receive, and calls
/// tools directly. Tests and demos use it; `session.call(..)` is a shortcut for it.
#[derive(Clone, Debug)]
pub struct LocalCore {
    session: Session,
}

impl LocalCore {
    pub(crate) fn new(session: Session) -> Self {
        LocalCore { session }
    }

    /// The manifest, as Core receives it.
    #[must_use]
    pub fn manifest(&self) -> &SerializableSkillsManifest {
        self.session.shared().manifest()
    }

    /// Calls a tool and waits for its result (see [`Session::call`]).
    pub async fn call(&self, name: &str, args: Value) -> ToolResult {
        self.session.call(name, args).await
    }

    /// Calls a tool with JSON text args; the result as JSON text (see
    /// [`Session::call_raw`]).
    pub async fn call_raw(&self, name: &str, args: &RawValue) -> String {
        self.session.call_raw(name, args).await
    }

    /// Starts a call that can be cancelled (see [`Session::start_call`]).
    #[must_use]
    pub fn start_call(&self, name: &str, args: Value) -> PendingCall {
        self.session.start_call(name, args)
    }
}
