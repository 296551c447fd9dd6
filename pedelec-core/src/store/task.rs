//! MCP tasks as a store keeps them: the record any replica answers `tasks/get` with, its
//! status, and the answers the replica that runs a task takes when it renews its lease.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::StoreError;

/// A task's status (MCP's tasks extension). Serialized, and kept in Redis, as the spec's
/// names: `working`, `input_required`, `completed`, `failed`, `cancelled`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskStatus {
    /// Its call runs.
    Working,
    /// Its call waits for input (the record's `input_requests`).
    InputRequired,
    /// Its call ended with a result (a tool error included: the tool ran).
    Completed,
    /// Its call ended with a protocol error (a panic, a missing client capability, a
    /// runner that stopped renewing its lease).
    Failed,
    /// It was cancelled.
    Cancelled,
}

impl TaskStatus {
    /// Every status, in the spec's order.
    pub const ALL: [TaskStatus; 5] = [
        TaskStatus::Working,
        TaskStatus::InputRequired,
        TaskStatus::Completed,
        TaskStatus::Failed,
        TaskStatus::Cancelled,
    ];

    /// The spec's name (`input_required`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    /// Whether it is final (`completed`, `failed` or `cancelled`): nothing changes it any
    /// more.
    #[must_use]
    pub const fn is_over(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TaskStatus {
    type Err = StoreError;

    /// A status from its spec name; another name is an answer a store should not give.
    fn from_str(name: &str) -> Result<Self, StoreError> {
        TaskStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == name)
            .ok_or_else(|| StoreError::new(format!("`{name}` is not a task status")))
    }
}

/// A task as the store keeps it (MCP's tasks extension): what any replica answers
/// `tasks/get` with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskRecord {
    /// Its status.
    pub status: TaskStatus,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The names a store keeps are serde's, and read back.
    #[test]
    fn a_status_is_named_as_the_spec_names_it() {
        for status in TaskStatus::ALL {
            assert_eq!(
                serde_json::to_value(status).unwrap(),
                serde_json::Value::from(status.as_str())
            );
            assert_eq!(status.as_str().parse::<TaskStatus>(), Ok(status));
        }
        assert_eq!(TaskStatus::InputRequired.to_string(), "input_required");
        assert!("running".parse::<TaskStatus>().is_err());
        let over: Vec<_> = TaskStatus::ALL
            .into_iter()
            .filter(|s| s.is_over())
            .collect();
        assert_eq!(
            over,
            [
                TaskStatus::Completed,
                TaskStatus::Failed,
                TaskStatus::Cancelled
            ]
        );
    }
}
