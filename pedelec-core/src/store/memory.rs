//! The store of one process (the default).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::sync::Notify;
// Tokio's clock: a test with paused time (`start_paused`) sees leases, expiry and budgets
// pass in no time.
use tokio::time::Instant;

use super::{Claim, Store, StoreError, StoreFuture, TaskAnswer, TaskRecord, TaskStatus, gcra};

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
    tasks: HashMap<String, Task>,
    /// The waiters of running calls' keys ([`Store::changed`]), woken when the key is
    /// answered or released.
    waiters: HashMap<String, Arc<Notify>>,
    /// Single-use marks ([`Store::use_once`]), until they may be forgotten.
    used: HashMap<String, Instant>,
    /// How many entries the maps held after the last sweep: the next one runs once they
    /// hold [`SWEEP_AFTER`] more (as the in-process rate limiter sweeps its buckets).
    swept_at: usize,
}

/// Entries past their time are swept once this many more were added since the last sweep:
/// a store serving many callers and keys stays as large as what is live, not as all it saw.
const SWEEP_AFTER: usize = 1024;

impl State {
    /// Whether `key` is held by a running call whose lease has not lapsed.
    fn running(&self, key: &str, now: Instant) -> bool {
        self.keys
            .get(key)
            .is_some_and(|e| matches!(e.status, Status::Running) && e.until > now)
    }

    fn len(&self) -> usize {
        self.buckets.len()
            + self.keys.len()
            + self.tasks.len()
            + self.waiters.len()
            + self.used.len()
    }

    /// Before an insertion: sweeps what is past its time when enough was added since the
    /// last sweep (a full bucket is one nobody took from; a lapsed claim is kept as an
    /// unknown outcome for its retention).
    fn sweep(&mut self, now: Instant, epoch: Instant) {
        if self.len() < self.swept_at + SWEEP_AFTER {
            return;
        }
        let now_ms =
            u64::try_from(now.saturating_duration_since(epoch).as_millis()).unwrap_or(u64::MAX);
        self.buckets.retain(|_, tat| *tat > now_ms);
        self.keys.retain(|_, entry| match entry.status {
            Status::Answered(_) => entry.until > now,
            Status::Running => entry.until + UNKNOWN_RETENTION > now,
        });
        self.used.retain(|_, until| *until > now);
        self.tasks.retain(|_, task| task.expires > now);
        let keys = &self.keys;
        self.waiters.retain(|key, notify| {
            let running = keys
                .get(key)
                .is_some_and(|e| matches!(e.status, Status::Running) && e.until > now);
            if !running {
                notify.notify_waiters();
            }
            running
        });
        self.swept_at = self.len();
    }

    /// Wakes the waiters of `key`: its claim changed.
    fn wake(&mut self, key: &str) {
        if let Some(notify) = self.waiters.remove(key) {
            notify.notify_waiters();
        }
    }
}

/// A task: its record, its runner's lease, and the answers left for the runner.
#[derive(Debug)]
struct Task {
    status: TaskStatus,
    created_at: String,
    updated_at: String,
    payload: String,
    input: BTreeMap<String, String>,
    answers: Vec<TaskAnswer>,
    lease: Instant,
    expires: Instant,
}

impl Task {
    fn set(&mut self, status: TaskStatus, stamp: &str) {
        self.status = status;
        stamp.clone_into(&mut self.updated_at);
    }

    /// Ends the task as `status` with `payload` (its requests dropped).
    fn end(&mut self, status: TaskStatus, payload: &str, stamp: &str) {
        self.set(status, stamp);
        payload.clone_into(&mut self.payload);
        self.input.clear();
    }
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

    /// Runs `f` on the task `id` (`None`: unknown, or past its time).
    fn with_task<T>(&self, id: &str, f: impl FnOnce(&mut Task) -> T) -> Option<T> {
        let now = Instant::now();
        let mut state = self.state();
        match state.tasks.get_mut(id) {
            Some(task) if task.expires > now => Some(f(task)),
            Some(_) => {
                state.tasks.remove(id);
                None
            }
            None => None,
        }
    }
}

fn ready<T: Send + 'static>(value: T) -> StoreFuture<'static, T> {
    Box::pin(std::future::ready(Ok(value)))
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
        state.sweep(Instant::now(), self.epoch);
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
        state.sweep(now, self.epoch);
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
        state.wake(key);
        Box::pin(std::future::ready(result))
    }

    fn release(&self, key: &str) -> StoreFuture<'_, ()> {
        let mut state = self.state();
        state.keys.remove(key);
        state.wake(key);
        Box::pin(std::future::ready(Ok(())))
    }

    fn renew(&self, key: &str, lease: Duration) -> StoreFuture<'_, bool> {
        let now = Instant::now();
        let mut state = self.state();
        let renewed = match state.keys.get_mut(key) {
            Some(entry) if matches!(entry.status, Status::Running) && entry.until > now => {
                entry.until = now + lease;
                true
            }
            _ => false,
        };
        ready(renewed)
    }

    fn changed(&self, key: &str, within: Duration) -> StoreFuture<'_, ()> {
        let notified = {
            let mut state = self.state();
            if !state.running(key, Instant::now()) {
                return ready(());
            }
            let notify = state.waiters.entry(key.to_owned()).or_default().clone();
            // Registered before the lock is let go: a wake-up cannot fall in between.
            let mut notified = Box::pin(notify.notified_owned());
            notified.as_mut().enable();
            notified
        };
        Box::pin(async move {
            let _ = tokio::time::timeout(within, notified).await;
            Ok(())
        })
    }

    fn use_once(&self, key: &str, ttl: Duration) -> StoreFuture<'_, bool> {
        let now = Instant::now();
        let mut state = self.state();
        state.sweep(now, self.epoch);
        let fresh = match state.used.get(key) {
            Some(&until) if until > now => false,
            _ => {
                state.used.insert(key.to_owned(), now + ttl);
                true
            }
        };
        ready(fresh)
    }

    fn task_create(
        &self,
        id: &str,
        stamp: &str,
        requests: &[(String, String)],
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'_, ()> {
        let now = Instant::now();
        let mut state = self.state();
        state.sweep(now, self.epoch);
        let status = if requests.is_empty() {
            TaskStatus::Working
        } else {
            TaskStatus::InputRequired
        };
        state.tasks.insert(
            id.to_owned(),
            Task {
                status,
                created_at: stamp.to_owned(),
                updated_at: stamp.to_owned(),
                payload: String::new(),
                input: requests.iter().cloned().collect(),
                answers: Vec::new(),
                lease: now + lease,
                expires: now + ttl,
            },
        );
        ready(())
    }

    fn task_ask(&self, id: &str, key: &str, request: &str, stamp: &str) -> StoreFuture<'_, bool> {
        let asked = self.with_task(id, |task| {
            if task.status.is_over() {
                return false;
            }
            task.input.insert(key.to_owned(), request.to_owned());
            task.set(TaskStatus::InputRequired, stamp);
            true
        });
        ready(asked == Some(true))
    }

    fn task_finish(
        &self,
        id: &str,
        status: TaskStatus,
        payload: &str,
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        let finished = self.with_task(id, |task| {
            if task.status.is_over() {
                return false;
            }
            task.end(status, payload, stamp);
            true
        });
        ready(finished == Some(true))
    }

    fn task_cancel(&self, id: &str, stamp: &str) -> StoreFuture<'_, Option<bool>> {
        ready(self.with_task(id, |task| {
            if task.status.is_over() {
                return false;
            }
            task.end(TaskStatus::Cancelled, "", stamp);
            true
        }))
    }

    fn task_update(
        &self,
        id: &str,
        answers: &[(String, String)],
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        let known = self.with_task(id, |task| {
            for (key, answer) in answers {
                if task.input.remove(key).is_some() {
                    task.answers.push(TaskAnswer {
                        key: key.clone(),
                        answer: answer.clone(),
                    });
                }
            }
            if task.status == TaskStatus::InputRequired && task.input.is_empty() {
                task.set(TaskStatus::Working, stamp);
            }
        });
        ready(known.is_some())
    }

    fn task_get(&self, id: &str, stamp: &str, lapsed: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        let now = Instant::now();
        ready(self.with_task(id, |task| {
            if !task.status.is_over() && task.lease <= now {
                task.end(TaskStatus::Failed, lapsed, stamp);
            }
            TaskRecord {
                status: task.status,
                created_at: task.created_at.clone(),
                updated_at: task.updated_at.clone(),
                payload: task.payload.clone(),
                input_requests: task
                    .input
                    .iter()
                    .map(|(k, r)| (k.clone(), r.clone()))
                    .collect(),
            }
        }))
    }

    fn task_renew(
        &self,
        id: &str,
        lease: Duration,
    ) -> StoreFuture<'_, Option<(TaskStatus, Vec<TaskAnswer>)>> {
        let now = Instant::now();
        ready(self.with_task(id, |task| {
            if !task.status.is_over() {
                task.lease = now + lease;
            }
            (task.status, std::mem::take(&mut task.answers))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `Memory` holds stays as large as what is live, however many distinct callers and
    /// keys it served: `n` of each (a rate bucket, an idempotency key answered or released,
    /// a waiter of it, a single-use mark, a task), one a millisecond, each live for a
    /// second. Returns the most entries it held at once.
    async fn soak(n: u64) -> usize {
        let store = Memory::new();
        let second = Duration::from_secs(1);
        let mut largest = 0;
        for i in 0..n {
            let caller = format!("caller:{i}");
            assert_eq!(store.take(&caller, 5, second).await.unwrap(), None);
            let key = format!("once:{i}");
            assert_eq!(store.claim(&key, "f", second).await.unwrap(), Claim::First);
            // A duplicate waits on it and gives up: its waiter is forgotten with the claim.
            store.changed(&key, Duration::ZERO).await.unwrap();
            if i % 2 == 0 {
                store.finish(&key, "{}", second).await.unwrap();
            } else {
                store.release(&key).await.unwrap();
            }
            assert!(
                store
                    .use_once(&format!("approval:{i}"), second)
                    .await
                    .unwrap()
            );
            store
                .task_create(&format!("task:{i}"), "s", &[], second, second)
                .await
                .unwrap();
            tokio::time::advance(Duration::from_millis(1)).await;
            largest = largest.max(store.state().len());
        }
        // About a second's worth live (1,000 of each kind but the keys, half of which are
        // released), plus what waits for a sweep.
        let live = 4 * 1_000;
        assert!(
            largest < live + 2 * SWEEP_AFTER,
            "{largest} entries held after {n} of each"
        );
        eprintln!("{n} distinct keys and callers: at most {largest} entries held at once");
        largest
    }

    /// The soak in the test suite: 100,000 of each (about 3 s in a debug build).
    #[tokio::test(start_paused = true)]
    async fn memory_stays_flat_over_many_keys_and_callers() {
        soak(100_000).await;
    }

    /// The soak over a million distinct keys and callers, run with `--ignored` (see
    /// CONTRIBUTING: `cargo test -p pedelec-core --lib store::memory -- --ignored`).
    #[tokio::test(start_paused = true)]
    #[ignore = "a soak of a million keys; run it with --ignored"]
    async fn memory_stays_flat_over_a_million_keys_and_callers() {
        let (short, long) = (soak(100_000).await, soak(1_000_000).await);
        // Flat: ten times the keys, no more held.
        assert!(long <= short + SWEEP_AFTER, "{short} then {long} entries");
    }

    /// Leases, expiry and single-use marks follow Tokio's clock: paused, they pass at once.
    #[tokio::test(start_paused = true)]
    async fn leases_and_marks_follow_tokio_clock() {
        let store = Memory::new();
        let lease = Duration::from_secs(3);
        assert_eq!(store.claim("k", "f", lease).await.unwrap(), Claim::First);
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(store.renew("k", lease).await.unwrap());
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(matches!(
            store.claim("k", "f", lease).await.unwrap(),
            Claim::Running { .. }
        ));
        tokio::time::advance(Duration::from_secs(2)).await;
        assert!(!store.renew("k", lease).await.unwrap());
        assert!(matches!(
            store.claim("k", "f", lease).await.unwrap(),
            Claim::Unknown { .. }
        ));
        assert!(store.use_once("m", lease).await.unwrap());
        assert!(!store.use_once("m", lease).await.unwrap());
        tokio::time::advance(lease).await;
        assert!(store.use_once("m", lease).await.unwrap());
        // A bucket of one a second: empty, then full again a second later.
        assert_eq!(
            store.take("c", 1, Duration::from_secs(1)).await.unwrap(),
            None
        );
        assert!(
            store
                .take("c", 1, Duration::from_secs(1))
                .await
                .unwrap()
                .is_some()
        );
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(
            store.take("c", 1, Duration::from_secs(1)).await.unwrap(),
            None
        );
    }
}
