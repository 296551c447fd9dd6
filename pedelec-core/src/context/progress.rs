//! Progress reports: what a handler says with
//! [`ToolCallContext::progress`](super::ToolCallContext::progress), and where it goes
//! ([`ProgressSink`]).

use serde::Serialize;

/// How far a call has come, as its handler reports it with
/// [`ToolCallContext::progress`](super::ToolCallContext::progress).
///
/// The JSON Lines bridge sends it as a `tool_progress` message; the MCP bridge as
/// `notifications/progress` when the client asked for progress.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ProgressUpdate {
    /// Work done so far (in whatever unit the tool counts; it should only grow).
    pub done: u64,
    /// The total, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// What is happening now, for a person (may be empty).
    pub message: String,
}

impl ProgressUpdate {
    /// An update: `done` of `total` (if known), with a message.
    #[must_use]
    pub fn new(done: u64, total: Option<u64>, message: impl Into<String>) -> Self {
        ProgressUpdate {
            done,
            total,
            message: message.into(),
        }
    }
}

/// Where a call's progress reports go: a `CallOptions::on_progress` callback, or a bridge's
/// own sink given with `CallOptions::progress_sink`, which may keep per-call state next to
/// it (in the same allocation). Implemented for every `Fn(ProgressUpdate)`.
pub trait ProgressSink: Send + Sync {
    /// Receives one report, on the thread that made it (keep it short and non-blocking).
    fn report(&self, update: ProgressUpdate);
}

impl<F: Fn(ProgressUpdate) + Send + Sync> ProgressSink for F {
    fn report(&self, update: ProgressUpdate) {
        self(update);
    }
}
