//! What replicas of one service must agree on (DESIGN §13): each caller's rate budget and
//! the answers of calls made with an idempotency key. [`Memory`] keeps them in the process
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

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

pub use memory::Memory;
#[cfg(feature = "redis")]
pub use redis::Redis;

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

/// A store that could not answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreError {
    message: String,
}

impl StoreError {
    /// An error saying what failed.
    #[must_use]
    pub fn new(message: impl Into<String>) -> Self {
        StoreError {
            message: message.into(),
        }
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
    let interval = (period / u64::from(capacity.max(1))).max(1);
    let tat = tat.unwrap_or(now).max(now);
    let next = tat + interval;
    // The bucket holds `capacity` tokens: `next` may run up to `period` ahead of `now`.
    if next - now <= period {
        Ok(next)
    } else {
        Err(next - now - period)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcra_takes_capacity_tokens_then_says_when_the_next_frees() {
        let period = Duration::from_mins(1);
        let mut tat = None;
        for _ in 0..3 {
            tat = Some(gcra(tat, 1_000, 3, period).unwrap());
        }
        // Full: the next token frees in one interval (20 s).
        assert_eq!(gcra(tat, 1_000, 3, period), Err(20_000));
        // 20 s later, one more.
        assert!(gcra(tat, 21_000, 3, period).is_ok());
    }
}
