//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): calls of tools that
//! support tasks, kept in this process while they run and for `ttlMs` after they were
//! created.
//!
//! - A task is stored before its `CreateTaskResult` is sent (a `tasks/get` right after it
//!   finds it); its id is a random UUID (unguessable: the id is the only key to it).
//! - A tool that returns an error ends its task `completed` with an `isError` result (the
//!   tool ran; SEP-2663's error semantics); a panic, or a protocol error such as a missing
//!   client capability, ends it `failed` with a JSON-RPC error; a task cancelled with
//!   `tasks/cancel` ends `cancelled` (its handler's context is cancelled at once).
//! - A handler that asks for input parks its task in `input_required` with the requests
//!   by key; `tasks/update` delivers answers (some or all), and the task goes back to
//!   `working` once none is pending.
//! - Replicas: a task lives in the process that created it; `tasks/*` requests carry
//!   `Mcp-Name: <taskId>`, so a load balancer can route them there.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rmcp::model::{
    DetailedTask, ErrorData, GetTaskResult, JsonObject, Task, TaskPayload, TaskStatus,
};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use super::result::{input_request, missing_capability, write_call_result};
use super::settings::Settings;
use crate::context::{Cancellation, InputError, InputFuture, InputKind, InputRequest};
use crate::error::{ErrorCode as ToolErrorCode, ToolError};
use crate::output::OutputSchema;

pub(crate) struct TaskStore {
    tasks: Mutex<HashMap<String, Entry>>,
    ttl: Duration,
    poll_ms: u64,
    max: usize,
}

struct Entry {
    created_at: String,
    updated_at: String,
    expires: Instant,
    status: TaskStatus,
    result: Option<JsonObject>,
    error: Option<JsonObject>,
    /// Input the handler waits for, by key.
    pending: BTreeMap<String, Pending>,
    cancel: Cancellation,
}

struct Pending {
    request: Value,
    answer: oneshot::Sender<Value>,
}

impl TaskStore {
    pub(crate) fn new(settings: &Settings) -> Self {
        TaskStore {
            tasks: Mutex::new(HashMap::new()),
            ttl: Duration::from_millis(settings.task_ttl_ms),
            poll_ms: settings.task_poll_ms,
            max: settings.max_tasks,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    /// A new task, `working`, stored before it is returned.
    pub(crate) fn create(&self, cancel: Cancellation) -> Result<Task, ErrorData> {
        let now = Instant::now();
        let mut tasks = self.lock();
        // Tasks past their time, finished or not, make room; a running one is cancelled.
        tasks.retain(|_, entry| {
            let keep = entry.expires > now;
            if !keep {
                entry.cancel.cancel();
            }
            keep
        });
        if tasks.len() >= self.max {
            return Err(ErrorData::internal_error(
                format!(
                    "the server keeps at most {} tasks at once; try again once some have finished",
                    self.max
                ),
                None,
            ));
        }
        let task_id = uuid::Uuid::new_v4().to_string();
        let stamp = timestamp(SystemTime::now());
        tasks.insert(
            task_id.clone(),
            Entry {
                created_at: stamp.clone(),
                updated_at: stamp.clone(),
                expires: now + self.ttl,
                status: TaskStatus::Working,
                result: None,
                error: None,
                pending: BTreeMap::new(),
                cancel,
            },
        );
        Ok(
            Task::new(task_id, TaskStatus::Working, stamp.clone(), stamp)
                .with_ttl_ms(self.ttl_ms())
                .with_poll_interval_ms(self.poll_ms),
        )
    }

    fn unknown(task_id: &str) -> ErrorData {
        ErrorData::invalid_params(
            format!("Invalid params: no task {task_id:?} (it never existed, or its ttlMs passed)"),
            None,
        )
    }

    /// `tasks/get`.
    pub(crate) fn get(&self, task_id: &str) -> Result<GetTaskResult, ErrorData> {
        let tasks = self.lock();
        let entry = tasks
            .get(task_id)
            .filter(|e| e.expires > Instant::now())
            .ok_or_else(|| Self::unknown(task_id))?;
        let task = Task::new(
            task_id,
            entry.status,
            entry.created_at.clone(),
            entry.updated_at.clone(),
        )
        .with_ttl_ms(self.ttl_ms())
        .with_poll_interval_ms(self.poll_ms);
        let payload = match entry.status {
            TaskStatus::Completed => TaskPayload::Completed {
                result: entry.result.clone().unwrap_or_default(),
            },
            TaskStatus::Failed => TaskPayload::Failed {
                error: entry.error.clone().unwrap_or_default(),
            },
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            TaskStatus::InputRequired => TaskPayload::InputRequired {
                input_requests: entry
                    .pending
                    .iter()
                    .filter_map(|(k, p)| {
                        serde_json::from_value(p.request.clone())
                            .ok()
                            .map(|r| (k.clone(), r))
                    })
                    .collect(),
            },
            _ => TaskPayload::Working,
        };
        Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
    }

    /// `tasks/cancel`: a task not yet finished is cancelled (its handler's context at
    /// once); a finished one is left as it is (the ack is the same).
    pub(crate) fn cancel(&self, task_id: &str) -> Result<(), ErrorData> {
        let mut tasks = self.lock();
        let entry = tasks
            .get_mut(task_id)
            .ok_or_else(|| Self::unknown(task_id))?;
        if !entry.status.is_terminal() {
            entry.status = TaskStatus::Cancelled;
            entry.pending.clear();
            entry.updated_at = timestamp(SystemTime::now());
            entry.cancel.cancel();
        }
        Ok(())
    }

    /// `tasks/update`: answers to some of the task's pending requests (others are
    /// ignored).
    pub(crate) fn update(
        &self,
        task_id: &str,
        responses: Map<String, Value>,
    ) -> Result<(), ErrorData> {
        let mut tasks = self.lock();
        let entry = tasks
            .get_mut(task_id)
            .ok_or_else(|| Self::unknown(task_id))?;
        for (key, answer) in responses {
            if let Some(pending) = entry.pending.remove(&key) {
                let _ = pending.answer.send(answer);
            }
        }
        if entry.status == TaskStatus::InputRequired && entry.pending.is_empty() {
            entry.status = TaskStatus::Working;
            entry.updated_at = timestamp(SystemTime::now());
        }
        Ok(())
    }

    /// A handler running as a task asks for input: the task waits in `input_required`.
    pub(crate) fn ask(&self, task_id: &str, key: &str, request: &InputRequest) -> InputFuture {
        let (answer, answered) = oneshot::channel();
        {
            let mut tasks = self.lock();
            let Some(entry) = tasks.get_mut(task_id).filter(|e| !e.status.is_terminal()) else {
                return Box::pin(std::future::ready(Err(InputError::Failed(
                    "the task is over".into(),
                ))));
            };
            entry.pending.insert(
                key.to_owned(),
                Pending {
                    request: input_request(request),
                    answer,
                },
            );
            entry.status = TaskStatus::InputRequired;
            entry.updated_at = timestamp(SystemTime::now());
        }
        Box::pin(async move {
            answered
                .await
                .map_err(|_| InputError::Failed("the task ended before the answer came".into()))
        })
    }

    /// A task's call finished.
    pub(crate) fn finish(
        &self,
        task_id: &str,
        result: Result<String, ToolError>,
        missing: Option<InputKind>,
        output: Option<OutputSchema>,
    ) {
        let mut tasks = self.lock();
        let Some(entry) = tasks.get_mut(task_id) else {
            return;
        };
        if entry.status.is_terminal() {
            // Cancelled: what the handler came to no longer matters.
            return;
        }
        entry.pending.clear();
        entry.updated_at = timestamp(SystemTime::now());
        let failure = match &result {
            Err(_) if missing.is_some() => Some(missing_capability(
                missing.unwrap_or(InputKind::Elicitation),
            )),
            Err(error) if is_panic(error) => Some(ErrorData::internal_error(
                error.message().to_owned(),
                error.details().cloned(),
            )),
            Err(error) if error.code() == ToolErrorCode::ToolCancelled => {
                entry.status = TaskStatus::Cancelled;
                return;
            }
            _ => None,
        };
        match failure {
            Some(error) => {
                entry.status = TaskStatus::Failed;
                entry.error = serde_json::to_value(&error)
                    .ok()
                    .and_then(|v| v.as_object().cloned());
            }
            None => {
                let mut out = Vec::with_capacity(256);
                write_call_result(&mut out, &result, output, true);
                entry.status = TaskStatus::Completed;
                entry.result = serde_json::from_slice(&out).ok();
            }
        }
    }
}

/// Whether a call's error is a panic of its handler (a protocol-level failure for a
/// task, not a tool error).
fn is_panic(error: &ToolError) -> bool {
    error
        .details()
        .and_then(|d| d.get("panic"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// An RFC 3339 UTC timestamp with milliseconds (`2026-12-03T18:04:05.123Z`).
fn timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    // Howard Hinnant's days-to-civil.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        since.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc_3339() {
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_796_321_045_123);
        assert_eq!(timestamp(t), "2026-12-03T18:04:05.123Z");
    }
}
