//! What replicas of one service must agree on (DESIGN §13): each caller's rate budget, the
//! answers of calls made with an idempotency key, and MCP tasks (any replica answers
//! `tasks/get`, `tasks/update` and `tasks/cancel`; [`TaskRecord`]). [`Memory`] keeps them in the process
//! (the default); [`Redis`] (feature `redis`) shares them between every replica that
//! connects to the same Redis.
//!
//! ```
//! use std::time::Duration;
//! use pedelec_core::store::{Claim, Memory, Store};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let store = Memory::new();
//! // A bucket of 2 calls a minute: two taken, the third told how long to wait.
//! assert_eq!(store.take("alice", 2, Duration::from_secs(60)).await?, None);
//! assert_eq!(store.take("alice", 2, Duration::from_secs(60)).await?, None);
//! assert!(store.take("alice", 2, Duration::from_secs(60)).await?.is_some());
//! // An idempotency key: the first claim runs the call, the answer is kept for retries.
//! let lease = Duration::from_secs(30);
//! assert_eq!(store.claim("refund:alice:k1", "args-hash", lease).await?, Claim::First);
//! store.finish("refund:alice:k1", "{\"ok\":true,\"value\":1}", Duration::from_secs(3600)).await?;
//! assert!(matches!(store.claim("refund:alice:k1", "args-hash", lease).await?, Claim::Answered { .. }));
//! # Ok::<(), pedelec_core::store::StoreError>(())
//! # }).unwrap();
//! ```

mod memory;
#[cfg(feature = "redis")]
mod redis;
mod task;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub use memory::Memory;
#[cfg(feature = "redis")]
pub use redis::{Redis, RedisConfig};
pub use task::{TaskAnswer, TaskRecord, TaskStatus};

/// How long a running call's claim, and a task's runner, holds without renewal: a replica
/// that stops is known to have stopped this long after (its call's retry is answered
/// `TOOL_OUTCOME_UNKNOWN`, its task ends `failed`).
pub const LEASE: Duration = Duration::from_secs(3);

/// How often the holder of a [`LEASE`] renews it.
pub const RENEWAL: Duration = Duration::from_millis(200);

/// A boxed, `Send` future of a store operation.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, StoreError>> + Send + 'a>>;

/// Where replicas keep what they must agree on. Every operation is one round trip (atomic
/// in the store: a Lua script on Redis), and fails fast with a [`StoreError`] when the store
/// cannot be reached.
pub trait Store: Send + Sync + 'static {
    /// Takes a token of the bucket `key` (`capacity` tokens, refilled evenly over `period`):
    /// `None` when one was taken, `Some(wait)` when the bucket is empty (`wait`: until the
    /// next token). A refused take uses nothing.
    fn take(&self, key: &str, capacity: u32, period: Duration)
    -> StoreFuture<'_, Option<Duration>>;

    /// Claims the idempotency key `key` for a call whose args hash to `fingerprint`:
    /// [`Claim::First`] when nobody had it (the caller runs the call, within `lease`), else
    /// what is known of the call that has it.
    fn claim(&self, key: &str, fingerprint: &str, lease: Duration) -> StoreFuture<'_, Claim>;

    /// Keeps `answer` (the result's JSON text) as the answer of the claimed `key`, for
    /// `retention`.
    fn finish(&self, key: &str, answer: &str, retention: Duration) -> StoreFuture<'_, ()>;

    /// Releases the claimed `key` without an answer (the call did not run, or stopped to ask
    /// for input): its retry runs.
    fn release(&self, key: &str) -> StoreFuture<'_, ()>;

    /// The call that claimed `key` still runs: its claim lasts `lease` from now (a session
    /// renews it every [`RENEWAL`] for [`LEASE`], as a task's runner renews its task).
    /// `false` when the key is not held by a running call any more (answered, released, or
    /// its lease already lapsed: then its outcome stays unknown).
    fn renew(&self, key: &str, lease: Duration) -> StoreFuture<'_, bool>;

    /// Waits, at most `within`, until the claim of `key` may have changed: its call answered
    /// or released it (the store wakes the waiters of the key; [`Memory`] in the process,
    /// `Redis` by pub/sub). It returns at once when `key` is not held by a running call.
    /// The waiter then claims again, which also finds a lease that lapsed.
    fn changed(&self, key: &str, within: Duration) -> StoreFuture<'_, ()>;

    /// Marks `key` used, for `ttl`: `true` the first time, `false` when it was used already
    /// (a single-use approval replayed).
    fn use_once(&self, key: &str, ttl: Duration) -> StoreFuture<'_, bool>;

    /// Stores the new task `id`, [`Working`](TaskStatus::Working) (or
    /// [`InputRequired`](TaskStatus::InputRequired) when it starts with
    /// `requests`: key and request JSON text), created at `stamp` (RFC 3339), kept for
    /// `ttl`, its runner's lease lasting `lease` (see [`task_renew`](Self::task_renew)).
    fn task_create(
        &self,
        id: &str,
        stamp: &str,
        requests: &[(String, String)],
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'_, ()>;

    /// The task's runner waits for input `key` (`request`: its JSON text): the task is
    /// [`InputRequired`](TaskStatus::InputRequired). `false` when the task is over (or
    /// unknown).
    fn task_ask(&self, id: &str, key: &str, request: &str, stamp: &str) -> StoreFuture<'_, bool>;

    /// The task's call ended: `status` (one that [is over](TaskStatus::is_over)) with
    /// `payload` (the result's or the error's JSON text). `false` when it was over already
    /// (cancelled elsewhere: that stands).
    fn task_finish(
        &self,
        id: &str,
        status: TaskStatus,
        payload: &str,
        stamp: &str,
    ) -> StoreFuture<'_, bool>;

    /// `tasks/cancel` on any replica: a task not over is [`Cancelled`](TaskStatus::Cancelled)
    /// (its runner reads it when it renews). `None` for an unknown task, `Some(false)` for
    /// one already over.
    fn task_cancel(&self, id: &str, stamp: &str) -> StoreFuture<'_, Option<bool>>;

    /// `tasks/update` on any replica: each answer (key, JSON text) to a request the task waits
    /// on goes to its runner ([`TaskAnswer`]); others are ignored. `false` for an
    /// unknown task.
    fn task_update(
        &self,
        id: &str,
        answers: &[(String, String)],
        stamp: &str,
    ) -> StoreFuture<'_, bool>;

    /// `tasks/get` on any replica. A task not over whose runner's lease lapsed (its replica
    /// stopped) becomes [`Failed`](TaskStatus::Failed) with `lapsed` (the error's JSON text)
    /// first.
    fn task_get(&self, id: &str, stamp: &str, lapsed: &str) -> StoreFuture<'_, Option<TaskRecord>>;

    /// The task's runner renews its lease for `lease` (unless the task is over) and takes
    /// the answers left for it: the task's status and them, or `None` when the task is gone.
    fn task_renew(
        &self,
        id: &str,
        lease: Duration,
    ) -> StoreFuture<'_, Option<(TaskStatus, Vec<TaskAnswer>)>>;
}

/// A shared store: replicas in one process (and tests) share one through an `Arc`.
impl<S: Store + ?Sized> Store for std::sync::Arc<S> {
    fn take(
        &self,
        key: &str,
        capacity: u32,
        period: Duration,
    ) -> StoreFuture<'_, Option<Duration>> {
        (**self).take(key, capacity, period)
    }

    fn claim(&self, key: &str, fingerprint: &str, lease: Duration) -> StoreFuture<'_, Claim> {
        (**self).claim(key, fingerprint, lease)
    }

    fn finish(&self, key: &str, answer: &str, retention: Duration) -> StoreFuture<'_, ()> {
        (**self).finish(key, answer, retention)
    }

    fn release(&self, key: &str) -> StoreFuture<'_, ()> {
        (**self).release(key)
    }

    fn renew(&self, key: &str, lease: Duration) -> StoreFuture<'_, bool> {
        (**self).renew(key, lease)
    }

    fn changed(&self, key: &str, within: Duration) -> StoreFuture<'_, ()> {
        (**self).changed(key, within)
    }

    fn use_once(&self, key: &str, ttl: Duration) -> StoreFuture<'_, bool> {
        (**self).use_once(key, ttl)
    }

    fn task_create(
        &self,
        id: &str,
        stamp: &str,
        requests: &[(String, String)],
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'_, ()> {
        (**self).task_create(id, stamp, requests, ttl, lease)
    }

    fn task_ask(&self, id: &str, key: &str, request: &str, stamp: &str) -> StoreFuture<'_, bool> {
        (**self).task_ask(id, key, request, stamp)
    }

    fn task_finish(
        &self,
        id: &str,
        status: TaskStatus,
        payload: &str,
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        (**self).task_finish(id, status, payload, stamp)
    }

    fn task_cancel(&self, id: &str, stamp: &str) -> StoreFuture<'_, Option<bool>> {
        (**self).task_cancel(id, stamp)
    }

    fn task_update(
        &self,
        id: &str,
        answers: &[(String, String)],
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        (**self).task_update(id, answers, stamp)
    }

    fn task_get(&self, id: &str, stamp: &str, lapsed: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        (**self).task_get(id, stamp, lapsed)
    }

    fn task_renew(
        &self,
        id: &str,
        lease: Duration,
    ) -> StoreFuture<'_, Option<(TaskStatus, Vec<TaskAnswer>)>> {
        (**self).task_renew(id, lease)
    }
}

/// What a [`Store::claim`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// Nobody had the key: run the call.
    First,
    /// The call with this key runs (elsewhere, perhaps on another replica), for args that
    /// hash to `fingerprint`.
    Running {
        /// The args' hash of the running call.
        fingerprint: String,
    },
    /// The call with this key finished.
    Answered {
        /// The args' hash of the call.
        fingerprint: String,
        /// Its result's JSON text.
        answer: String,
    },
    /// The call with this key started and never finished within its lease (its replica
    /// stopped): its outcome is unknown, and it is never run again.
    Unknown {
        /// The args' hash of the call.
        fingerprint: String,
    },
}

/// What kind of failure a [`StoreError`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum StoreErrorKind {
    /// The store did not answer in time.
    Timeout,
    /// The store cannot be reached (connection refused, dropped, or another I/O error).
    Unreachable,
    /// The store answered with an error (a script failed, a command was refused).
    Script,
    /// Anything else (a bad URL, an answer the store should not give).
    Other,
}

/// A store that could not answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    kind: StoreErrorKind,
    message: String,
}

impl StoreError {
    /// An error saying what failed ([`StoreErrorKind::Other`]).
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        StoreError::with_kind(StoreErrorKind::Other, message)
    }

    /// An error of `kind` saying what failed.
    #[must_use]
    pub fn with_kind(kind: StoreErrorKind, message: impl Into<String>) -> Self {
        StoreError {
            kind,
            message: message.into(),
        }
    }

    /// What kind of failure it is.
    #[must_use]
    pub fn kind(&self) -> StoreErrorKind {
        self.kind
    }

    /// What failed.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the store failed: {}", self.message)
    }
}

impl std::error::Error for StoreError {}

/// The bucket arithmetic both stores use (GCRA, in milliseconds): given the bucket's
/// theoretical arrival time `tat` (`None`: a full bucket) and `now`, the new `tat` when a
/// token is taken, or how long until one frees.
pub(crate) fn gcra(
    tat: Option<u64>,
    now: u64,
    capacity: u32,
    period: Duration,
) -> Result<u64, u64> {
    let period = u64::try_from(period.as_millis()).unwrap_or(u64::MAX).max(1);
    let capacity = u64::from(capacity.max(1));
    let interval = (period / capacity).max(1);
    // The bucket holds `capacity` tokens: `next` may run up to `capacity` intervals ahead of
    // `now` (not `period`: with the interval rounded down, that would admit more).
    let burst = interval.saturating_mul(capacity);
    let tat = tat.unwrap_or(now).max(now);
    let next = tat.saturating_add(interval);
    if next - now <= burst {
        Ok(next)
    } else {
        Err(next - now - burst)
    }
}

#[cfg(test)]
mod tests;
