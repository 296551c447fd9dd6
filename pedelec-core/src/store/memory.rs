//! The store of one process (the default).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use super::{Claim, Store, StoreError, StoreFuture, gcra};

/// The store of one process: what replicas would share stays in this one (the default of
/// `SessionBuilder::store`).
#[derive(Debug)]
pub struct Memory {
    state: Mutex<State>,
    /// The epoch the bucket arithmetic counts milliseconds from.
    epoch: Instant,
}

impl Default for Memory {
    fn default() -> Self {
        Memory::new()
    }
}

#[derive(Debug, Default)]
struct State {
    buckets: HashMap<String, u64>,
    keys: HashMap<String, Entry>,
}

#[derive(Debug)]
struct Entry {
    fingerprint: String,
    status: Status,
    /// When the entry is forgotten (the end of a running call's lease: then `Unknown` until
    /// `until + unknown_retention`).
    until: Instant,
}

#[derive(Debug)]
enum Status {
    Running,
    Answered(String),
}

/// How long an unknown outcome is remembered once its lease ended.
const UNKNOWN_RETENTION: Duration = Duration::from_hours(24);

impl Memory {
    /// An empty store.
    #[must_use]
    pub fn new() -> Self {
        Memory {
            state: Mutex::default(),
            epoch: Instant::now(),
        }
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.epoch.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Store for Memory {
    fn take(
        &self,
        key: &str,
        capacity: u32,
        period: Duration,
    ) -> StoreFuture<'_, Option<Duration>> {
        let now = self.now_ms();
        let mut state = self.state();
        let result = match gcra(state.buckets.get(key).copied(), now, capacity, period) {
            Ok(tat) => {
                state.buckets.insert(key.to_owned(), tat);
                None
            }
            Err(wait) => Some(Duration::from_millis(wait)),
        };
        Box::pin(std::future::ready(Ok(result)))
    }

    fn claim(&self, key: &str, fingerprint: &str, lease: Duration) -> StoreFuture<'_, Claim> {
        let now = Instant::now();
        let mut state = self.state();
        let claim = match state.keys.get(key) {
            Some(entry) if entry.until > now => match &entry.status {
                Status::Running => Claim::Running {
                    fingerprint: entry.fingerprint.clone(),
                },
                Status::Answered(answer) => Claim::Answered {
                    fingerprint: entry.fingerprint.clone(),
                    answer: answer.clone(),
                },
            },
            Some(entry)
                if matches!(entry.status, Status::Running)
                    && entry.until + UNKNOWN_RETENTION > now =>
            {
                Claim::Unknown {
                    fingerprint: entry.fingerprint.clone(),
                }
            }
            _ => {
                state.keys.insert(
                    key.to_owned(),
                    Entry {
                        fingerprint: fingerprint.to_owned(),
                        status: Status::Running,
                        until: now + lease,
                    },
                );
                Claim::First
            }
        };
        Box::pin(std::future::ready(Ok(claim)))
    }

    fn finish(&self, key: &str, answer: &str, retention: Duration) -> StoreFuture<'_, ()> {
        let mut state = self.state();
        let result = match state.keys.get_mut(key) {
            Some(entry) => {
                entry.status = Status::Answered(answer.to_owned());
                entry.until = Instant::now() + retention;
                Ok(())
            }
            None => Err(StoreError::new(format!(
                "the idempotency key `{key}` was not claimed"
            ))),
        };
        Box::pin(std::future::ready(result))
    }

    fn release(&self, key: &str) -> StoreFuture<'_, ()> {
        self.state().keys.remove(key);
        Box::pin(std::future::ready(Ok(())))
    }
}
