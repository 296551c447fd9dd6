//! One call's channel to its client ([`CallChannel`]): its progress notifications, its
//! log messages, and its requests for input, answered by the round the client brings back
//! (2026-07-28), by `tasks/update` (a task), or directly (2025-11-25 sessions).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::ClientCapabilities;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::oneshot;

use super::shared::{Link, Server};
use super::wire;
use crate::context::{
    ClientChannel, InputError, InputFuture, InputKind, InputRequest, LogLevel, ProgressSink,
    ProgressUpdate,
};

/// The client's capabilities for input, as far as the call knows them.
#[derive(Clone, Copy, Default)]
pub(super) struct Abilities {
    elicitation: bool,
    sampling: bool,
    roots: bool,
}

impl Abilities {
    pub(super) fn of(capabilities: Option<&ClientCapabilities>) -> Self {
        capabilities.map_or_else(Abilities::default, |c| Abilities {
            elicitation: c.elicitation.is_some(),
            sampling: c.sampling.is_some(),
            roots: c.roots.is_some(),
        })
    }

    fn has(self, kind: InputKind) -> bool {
        match kind {
            InputKind::Elicitation => self.elicitation,
            InputKind::Sampling => self.sampling,
            InputKind::Roots => self.roots,
            #[allow(unreachable_patterns, reason = "the enum is non-exhaustive")]
            _ => false,
        }
    }
}

/// How a call's requests for input are answered.
pub(super) enum Mode {
    /// 2026-07-28: from the answers the retried call brought, or by ending the call with
    /// an input-required result asking for `round`.
    Rounds {
        answers: Map<String, Value>,
        round: BTreeMap<String, InputRequest>,
        /// Where each request of the round waits for its answer: nowhere, when the call
        /// ends with an input-required result; the task's, when the call becomes a task
        /// ([`CallChannel::become_task`]).
        waiting: BTreeMap<String, oneshot::Sender<InputFuture>>,
    },
    /// Running as a task: answered through `tasks/update`.
    Task {
        answers: Map<String, Value>,
        task_id: String,
    },
    /// 2025-11-25 on a connection that carries requests to the client.
    Direct,
    /// Not at all, for this reason.
    Unavailable(&'static str),
}

/// One call's channel to its client: its progress sink and [`ClientChannel`].
pub(crate) struct CallChannel {
    link: Arc<dyn Link>,
    progress_token: Option<Box<RawValue>>,
    log_threshold: Option<LogLevel>,
    abilities: Abilities,
    mode: Mutex<Mode>,
    /// Set when the handler asked for input the client did not declare.
    missing: Mutex<Option<InputKind>>,
    /// The result is out: later notifications are dropped.
    answered: AtomicBool,
    /// The call stopped for the round it asked ([`round`](Self::round) took it): it is
    /// answered input-required and dropped ([`ClientChannel::parked`]).
    parked: AtomicBool,
    server: Server,
}

impl CallChannel {
    pub(super) fn new(
        link: Arc<dyn Link>,
        progress_token: Option<Box<RawValue>>,
        log_threshold: Option<LogLevel>,
        abilities: Abilities,
        mode: Mode,
        server: Server,
    ) -> Self {
        CallChannel {
            link,
            progress_token,
            log_threshold,
            abilities,
            mode: Mutex::new(mode),
            missing: Mutex::new(None),
            answered: AtomicBool::new(false),
            parked: AtomicBool::new(false),
            server,
        }
    }

    /// Whether the client asked for progress notifications.
    pub(super) fn wants_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    pub(super) fn mode(&self) -> std::sync::MutexGuard<'_, Mode> {
        self.mode.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The input requests of the round the call stopped for, if it asked for any.
    pub(super) fn round(&self) -> Option<BTreeMap<String, InputRequest>> {
        match &mut *self.mode() {
            Mode::Rounds { round, .. } if !round.is_empty() => {
                self.parked.store(true, Ordering::Release);
                Some(std::mem::take(round))
            }
            _ => None,
        }
    }

    /// The input requests of the round the call waits on, left in place (a task starts with
    /// them).
    pub(super) fn round_requests(&self) -> BTreeMap<String, InputRequest> {
        match &*self.mode() {
            Mode::Rounds { round, .. } => round.clone(),
            _ => BTreeMap::new(),
        }
    }

    /// The call goes on as the task `task_id`: the answers it already had stay, and the
    /// requests of the round it asked for wait in the task (`input_required`), answered by
    /// `tasks/update`, while its handler keeps running.
    pub(super) fn become_task(&self, task_id: &str) {
        let mut mode = self.mode();
        let (answers, round, waiting) = match &mut *mode {
            Mode::Rounds {
                answers,
                round,
                waiting,
            } => (
                std::mem::take(answers),
                std::mem::take(round),
                std::mem::take(waiting),
            ),
            _ => (Map::new(), BTreeMap::new(), BTreeMap::new()),
        };
        *mode = Mode::Task {
            answers,
            task_id: task_id.to_owned(),
        };
        drop(mode);
        let mut waiting = waiting;
        // The round's requests are in the task's record already (`TaskStore::create`).
        for key in round.into_keys() {
            let answer = self.server.tasks().wait(task_id, &key);
            if let Some(to) = waiting.remove(&key) {
                let _ = to.send(answer);
            }
        }
    }

    pub(super) fn answers(&self) -> Map<String, Value> {
        match &*self.mode() {
            Mode::Rounds { answers, .. } | Mode::Task { answers, .. } => answers.clone(),
            _ => Map::new(),
        }
    }

    pub(super) fn missing(&self) -> Option<InputKind> {
        *self.missing.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(super) fn finish(&self) {
        self.answered.store(true, Ordering::Release);
    }

    fn notify(&self, message: Vec<u8>) {
        if !self.answered.load(Ordering::Acquire) {
            self.link.notify(message);
        }
    }
}

impl ProgressSink for CallChannel {
    #[allow(
        clippy::cast_precision_loss,
        reason = "MCP counts progress in JSON numbers"
    )]
    fn report(&self, update: ProgressUpdate) {
        let Some(token) = &self.progress_token else {
            return;
        };
        let mut params = serde_json::json!({
            "progressToken": token,
            "progress": update.done as f64,
        });
        if let Some(total) = update.total {
            params["total"] = Value::from(total as f64);
        }
        if !update.message.is_empty() {
            params["message"] = Value::from(update.message);
        }
        self.notify(wire::notification("notifications/progress", &params));
    }
}

impl ClientChannel for CallChannel {
    fn log_enabled(&self, level: LogLevel) -> bool {
        self.log_threshold.is_some_and(|t| level >= t)
    }

    fn log(&self, level: LogLevel, message: &str) {
        let params = serde_json::json!({
            "level": level.as_str(),
            "logger": "pedelec",
            "data": message,
        });
        self.notify(wire::notification("notifications/message", &params));
    }

    fn supports(&self, kind: InputKind) -> bool {
        !matches!(&*self.mode(), Mode::Unavailable(_)) && self.abilities.has(kind)
    }

    fn parked(&self) -> bool {
        self.parked.load(Ordering::Acquire)
    }

    fn ask(&self, key: &str, request: InputRequest) -> InputFuture {
        let kind = request.kind();
        let mut mode = self.mode();
        if let Mode::Unavailable(why) = &*mode {
            return ready(Err(InputError::Unsupported((*why).to_owned())));
        }
        if !self.abilities.has(kind) {
            *self.missing.lock().unwrap_or_else(PoisonError::into_inner) = Some(kind);
            return ready(Err(InputError::MissingCapability(kind)));
        }
        match &mut *mode {
            Mode::Rounds {
                answers,
                round,
                waiting,
            } => {
                if let Some(answer) = answers.get(key) {
                    return ready(Ok(answer.clone()));
                }
                round.insert(key.to_owned(), request);
                let (to, answer) = oneshot::channel();
                waiting.insert(key.to_owned(), to);
                // Either the call ends with an input-required result before this completes
                // (the sender is dropped: it never does), or it becomes a task and the
                // task's answer comes.
                Box::pin(async move {
                    match answer.await {
                        Ok(answer) => answer.await,
                        Err(_) => std::future::pending().await,
                    }
                })
            }
            Mode::Task { answers, task_id } => {
                if let Some(answer) = answers.get(key) {
                    return ready(Ok(answer.clone()));
                }
                let task_id = task_id.clone();
                drop(mode);
                self.server.tasks().ask(&task_id, key, &request)
            }
            Mode::Direct => {
                drop(mode);
                match self.link.request(request.method(), request.params()) {
                    Some(answer) => answer,
                    None => ready(Err(InputError::Unsupported(
                        self.link.why_no_requests().to_owned(),
                    ))),
                }
            }
            Mode::Unavailable(_) => unreachable!("answered above"),
        }
    }
}

fn ready(answer: Result<Value, InputError>) -> InputFuture {
    Box::pin(std::future::ready(answer))
}

/// Why a call cannot ask for input on a transport without requests to the client.
pub(super) const NO_REQUESTS: &str = "this request cannot carry a request to the client: over MCP 2025-11-25, asking the user (elicitation), the client's model (sampling) or its roots needs a session (stdio, or `McpHttp::stateful(true)`), or a client on MCP 2026-07-28";
