//! MCP tasks as a store keeps them: the record any replica answers `tasks/get` with, and the
//! answers the replica that runs a task takes when it renews its lease.

/// A task as the store keeps it (MCP's tasks extension): what any replica answers
/// `tasks/get` with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRecord {
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When its status last changed (RFC 3339).
    pub updated_at: String,
    /// The result's JSON text (`completed`) or the error's (`failed`); empty otherwise.
    pub payload: String,
    /// The requests it waits on (`input_required`): each key and the request's JSON text.
    pub input_requests: Vec<(String, String)>,
}

/// An answer a replica that got `tasks/update` leaves for the replica that runs the task
/// ([`Store::task_renew`](super::Store::task_renew) hands it over; a cancellation needs
/// none: the runner reads the task's status).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskAnswer {
    /// The request's key.
    pub key: String,
    /// The answer's JSON text.
    pub answer: String,
}

/// Whether `status` is final.
pub(crate) fn is_over(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}
