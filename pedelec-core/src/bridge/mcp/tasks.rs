//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): calls of tools that
//! support tasks, kept in the session's store (DESIGN §13) while they run and for `ttlMs`
//! after they were created, so that any replica sharing the store answers `tasks/get`,
//! `tasks/update` and `tasks/cancel`.
//!
//! - A task is stored before its `CreateTaskResult` is sent (a `tasks/get` right after it
//!   finds it, on any replica); its id is a random UUID (unguessable: the id is the only key
//!   to it).
//! - Its handler runs in the process that created it, which renews the task's lease every
//!   200 ms and learns, in the same round trip, what other replicas did: the task's status
//!   (cancelled?) and the answers they left for its requests. (A list drained on renewal
//!   rather than pub/sub: nothing is lost while a replica reconnects; an answer waits at
//!   most one renewal.) A
//!   request that reaches the process running the task is delivered at once.
//! - A task whose process stops renewing its lease (3 s) ends `failed` at the next
//!   `tasks/get`, saying its outcome is unknown.
//! - A tool that returns an error ends its task `completed` with an `isError` result (the
//!   tool ran; SEP-2663's error semantics); a panic, or a protocol error such as a missing
//!   client capability, ends it `failed` with a JSON-RPC error; a task cancelled with
//!   `tasks/cancel` ends `cancelled` (its handler's context is cancelled).
//! - A handler that asks for input parks its task in `input_required` with the requests
//!   by key; `tasks/update` delivers answers (some or all), and the task goes back to
//!   `working` once none is pending.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rmcp::model::{DetailedTask, ErrorData, GetTaskResult, JsonObject, Task, TaskPayload};
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use super::result::{Frame, input_request, missing_capability, write_call_result};
use super::settings::Settings;
use crate::context::{Cancellation, InputError, InputFuture, InputKind, InputRequest};
use crate::error::{ErrorCode as ToolErrorCode, ToolError};
// One lease model for tasks and exactly-once claims: the process running a task renews its
// lease (and takes its answers) every `RENEWAL`; a task not renewed for a `LEASE` is lost.
pub(super) use crate::store::RENEWAL;
use crate::store::{LEASE, Store, StoreError, TaskAnswer, TaskRecord, TaskStatus};

pub(crate) struct TaskStore {
    store: Arc<dyn Store>,
    /// The tasks this process runs: their handlers' cancellation, and the answers they wait
    /// for.
    running: Mutex<HashMap<String, Running>>,
    ttl: Duration,
    poll_ms: u64,
    max: usize,
}

struct Running {
    cancel: Cancellation,
    /// Input the handler waits for, by key.
    pending: BTreeMap<String, oneshot::Sender<Value>>,
}

fn store_failed(error: &StoreError) -> ErrorData {
    ErrorData::internal_error(format!("the task store failed: {}", error.message()), None)
}

fn unknown(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(
        format!("Invalid params: no task {task_id:?} (it never existed, or its ttlMs passed)"),
        None,
    )
}

/// A status as rmcp's model has it (the same names on the wire).
fn wire(status: TaskStatus) -> rmcp::model::TaskStatus {
    use rmcp::model::TaskStatus as Wire;
    match status {
        TaskStatus::Working => Wire::Working,
        TaskStatus::InputRequired => Wire::InputRequired,
        TaskStatus::Completed => Wire::Completed,
        TaskStatus::Failed => Wire::Failed,
        TaskStatus::Cancelled => Wire::Cancelled,
    }
}

impl TaskStore {
    pub(crate) fn new(settings: &Settings, store: Arc<dyn Store>) -> Self {
        TaskStore {
            store,
            running: Mutex::new(HashMap::new()),
            ttl: Duration::from_millis(settings.task_ttl_ms),
            poll_ms: settings.task_poll_ms,
            max: settings.max_tasks,
        }
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashMap<String, Running>> {
        self.running.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn ttl_ms(&self) -> u64 {
        u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX)
    }

    fn task(&self, task_id: &str, status: TaskStatus, created: &str, updated: &str) -> Task {
        Task::new(
            task_id,
            wire(status),
            created.to_owned(),
            updated.to_owned(),
        )
        .with_ttl_ms(self.ttl_ms())
        .with_poll_interval_ms(self.poll_ms)
    }

    /// A new task run here, `working`, or `input_required` when its call already waits on
    /// `requests` (the round it asked for before it became a task); stored before it is
    /// returned.
    pub(crate) async fn create(
        &self,
        cancel: Cancellation,
        requests: &BTreeMap<String, InputRequest>,
    ) -> Result<Task, ErrorData> {
        let task_id = uuid::Uuid::new_v4().to_string();
        {
            let mut running = self.running();
            if running.len() >= self.max {
                return Err(ErrorData::internal_error(
                    format!(
                        "the server runs at most {} tasks at once; try again once some have finished",
                        self.max
                    ),
                    None,
                ));
            }
            running.insert(
                task_id.clone(),
                Running {
                    cancel,
                    pending: BTreeMap::new(),
                },
            );
        }
        let stamp = timestamp(SystemTime::now());
        let stored: Vec<(String, String)> = requests
            .iter()
            .map(|(key, request)| (key.clone(), input_request(request).to_string()))
            .collect();
        if let Err(error) = self
            .store
            .task_create(&task_id, &stamp, &stored, self.ttl, LEASE)
            .await
        {
            self.running().remove(&task_id);
            return Err(store_failed(&error));
        }
        let status = if requests.is_empty() {
            TaskStatus::Working
        } else {
            TaskStatus::InputRequired
        };
        Ok(self.task(&task_id, status, &stamp, &stamp))
    }

    /// `tasks/get`, from whichever process runs the task.
    pub(crate) async fn get(&self, task_id: &str) -> Result<GetTaskResult, ErrorData> {
        let lapsed = ErrorData::internal_error(
            "the replica running this task stopped renewing its lease: its outcome is unknown",
            None,
        );
        let record = self
            .store
            .task_get(
                task_id,
                &timestamp(SystemTime::now()),
                &serde_json::to_string(&lapsed).unwrap_or_default(),
            )
            .await
            .map_err(|e| store_failed(&e))?
            .ok_or_else(|| unknown(task_id))?;
        let TaskRecord {
            status,
            created_at,
            updated_at,
            payload,
            input_requests,
        } = record;
        let object = || serde_json::from_str::<JsonObject>(&payload).unwrap_or_default();
        let payload = match status {
            TaskStatus::Completed => TaskPayload::Completed { result: object() },
            TaskStatus::Failed => TaskPayload::Failed { error: object() },
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            TaskStatus::InputRequired => TaskPayload::InputRequired {
                input_requests: input_requests
                    .into_iter()
                    .filter_map(|(k, request)| serde_json::from_str(&request).ok().map(|r| (k, r)))
                    .collect(),
            },
            TaskStatus::Working => TaskPayload::Working,
        };
        let task = self.task(task_id, status, &created_at, &updated_at);
        Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
    }

    /// `tasks/cancel`: a task not yet finished is cancelled (its handler's context at once
    /// when it runs here, else at its process's next renewal); a finished one is left as it
    /// is (the ack is the same).
    pub(crate) async fn cancel(&self, task_id: &str) -> Result<(), ErrorData> {
        self.store
            .task_cancel(task_id, &timestamp(SystemTime::now()))
            .await
            .map_err(|e| store_failed(&e))?
            .ok_or_else(|| unknown(task_id))?;
        self.cancel_here(task_id);
        Ok(())
    }

    /// Cancels the handler of `task_id` if it runs here.
    fn cancel_here(&self, task_id: &str) {
        if let Some(running) = self.running().get_mut(task_id) {
            running.pending.clear();
            running.cancel.cancel();
        }
    }

    /// `tasks/update`: answers to some of the task's pending requests (others are
    /// ignored).
    pub(crate) async fn update(
        &self,
        task_id: &str,
        responses: Map<String, Value>,
    ) -> Result<(), ErrorData> {
        let answers: Vec<(String, String)> = responses
            .iter()
            .map(|(key, answer)| (key.clone(), answer.to_string()))
            .collect();
        let known = self
            .store
            .task_update(task_id, &answers, &timestamp(SystemTime::now()))
            .await
            .map_err(|e| store_failed(&e))?;
        if !known {
            return Err(unknown(task_id));
        }
        for (key, answer) in responses {
            self.deliver(task_id, &key, answer);
        }
        Ok(())
    }

    /// Hands `answer` to the handler of `task_id` waiting for `key`, if it waits here.
    fn deliver(&self, task_id: &str, key: &str, answer: Value) {
        let waiting = self
            .running()
            .get_mut(task_id)
            .and_then(|running| running.pending.remove(key));
        if let Some(waiting) = waiting {
            let _ = waiting.send(answer);
        }
    }

    /// Waits for the answer to `key`, a request already in the task's record.
    pub(crate) fn wait(&self, task_id: &str, key: &str) -> InputFuture {
        let (answer, answered) = oneshot::channel();
        match self.running().get_mut(task_id) {
            Some(running) => running.pending.insert(key.to_owned(), answer),
            None => {
                return Box::pin(std::future::ready(Err(InputError::Failed(
                    "the task is over".into(),
                ))));
            }
        };
        Box::pin(async move {
            answered
                .await
                .map_err(|_| InputError::Failed("the task ended before the answer came".into()))
        })
    }

    /// A handler running as a task asks for input: the task waits in `input_required`.
    pub(crate) fn ask(&self, task_id: &str, key: &str, request: &InputRequest) -> InputFuture {
        let answer = self.wait(task_id, key);
        let store = self.store.clone();
        let (task_id, key) = (task_id.to_owned(), key.to_owned());
        let request = input_request(request).to_string();
        Box::pin(async move {
            let stamp = timestamp(SystemTime::now());
            match store.task_ask(&task_id, &key, &request, &stamp).await {
                Ok(true) => answer.await,
                Ok(false) => Err(InputError::Failed("the task is over".into())),
                Err(error) => Err(InputError::Failed(format!(
                    "the task store failed: {}",
                    error.message()
                ))),
            }
        })
    }

    /// The process running `task_id` renews its lease and takes its answers (see the module
    /// docs).
    pub(crate) async fn renew(&self, task_id: &str) {
        match self.store.task_renew(task_id, LEASE).await {
            Ok(Some((status, answers))) => {
                for TaskAnswer { key, answer } in answers {
                    if let Ok(answer) = serde_json::from_str(&answer) {
                        self.deliver(task_id, &key, answer);
                    }
                }
                // Cancelled through another replica.
                if status == TaskStatus::Cancelled {
                    self.cancel_here(task_id);
                }
            }
            // Gone from the store (past its time): nobody can see its outcome.
            Ok(None) => self.cancel_here(task_id),
            // The store is away: the lease may lapse; the handler goes on.
            Err(_) => {}
        }
    }

    /// A task's call finished.
    pub(crate) async fn finish(
        &self,
        task_id: &str,
        result: Result<String, ToolError>,
        missing: Option<InputKind>,
        output: Frame,
    ) {
        self.running().remove(task_id);
        let failed = |error: ErrorData| {
            (
                TaskStatus::Failed,
                serde_json::to_string(&error).unwrap_or_default(),
            )
        };
        let (status, payload) = match &result {
            Err(_) if missing.is_some() => failed(missing_capability(
                missing.unwrap_or(InputKind::Elicitation),
            )),
            Err(error) if is_panic(error) => failed(ErrorData::internal_error(
                error.message().to_owned(),
                error.details().cloned(),
            )),
            // Cancelled (unless `tasks/cancel` ended it first: then that stands).
            Err(error) if error.code() == ToolErrorCode::ToolCancelled => {
                (TaskStatus::Cancelled, String::new())
            }
            _ => {
                let mut out = Vec::with_capacity(256);
                write_call_result(&mut out, &result, output, true);
                (
                    TaskStatus::Completed,
                    String::from_utf8(out).unwrap_or_default(),
                )
            }
        };
        let stamp = timestamp(SystemTime::now());
        if let Err(error) = self
            .store
            .task_finish(task_id, status, &payload, &stamp)
            .await
        {
            tracing::warn!(task = task_id, error = %error, "a task's outcome could not be stored");
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

    /// The store's statuses go on the wire under the names the store keeps them by.
    #[test]
    fn a_stored_status_is_sent_by_its_name() {
        for status in TaskStatus::ALL {
            assert_eq!(
                serde_json::to_value(wire(status)).unwrap(),
                Value::from(status.as_str())
            );
        }
    }
}
