//! Step 4 of the call policy: a tool's `max_concurrency`, counted across callers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use super::rate::rate_limited;
use crate::error::ToolError;

/// A tool's `max_concurrency`: how many of its calls run at once, and how long they take
/// (for `retryAfterMs`).
pub(super) struct ConcurrencyLimit {
    max: u32,
    running: AtomicU32,
    /// A moving average of how long a call held its slot, in microseconds.
    average_us: AtomicU64,
}

impl ConcurrencyLimit {
    pub(super) fn new(max: u32) -> Arc<Self> {
        Arc::new(ConcurrencyLimit {
            max: max.max(1),
            running: AtomicU32::new(0),
            average_us: AtomicU64::new(0),
        })
    }

    /// A slot, or the milliseconds after which one is likely free: the average duration
    /// of a call over the number of slots (at least 1 ms).
    pub(super) fn acquire(self: &Arc<Self>, tool: &str) -> Result<Permit, ToolError> {
        let mut running = self.running.load(Ordering::Relaxed);
        loop {
            if running >= self.max {
                let average = self.average_us.load(Ordering::Relaxed);
                let retry = (average / u64::from(self.max)).div_ceil(1000).max(1);
                return Err(rate_limited(
                    format!(
                        "`{tool}` already runs {} calls at once, its `max_concurrency`; try again in {retry} ms",
                        self.max
                    ),
                    retry,
                ));
            }
            match self.running.compare_exchange_weak(
                running,
                running + 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    return Ok(Permit {
                        limit: self.clone(),
                        since: Instant::now(),
                    });
                }
                Err(now) => running = now,
            }
        }
    }
}

/// A call's slot under a [`ConcurrencyLimit`], given back when dropped.
pub(super) struct Permit {
    limit: Arc<ConcurrencyLimit>,
    since: Instant,
}

impl Drop for Permit {
    fn drop(&mut self) {
        let took = u64::try_from(self.since.elapsed().as_micros()).unwrap_or(u64::MAX);
        let average = self.limit.average_us.load(Ordering::Relaxed);
        // An exponential moving average over about eight calls (a race may lose an
        // update: it is an estimate).
        let next = if average == 0 {
            took
        } else {
            average - average / 8 + took / 8
        };
        self.limit.average_us.store(next, Ordering::Relaxed);
        self.limit.running.fetch_sub(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn concurrency_slots_are_counted_and_given_back() {
        let limit = ConcurrencyLimit::new(2);
        let a = limit.acquire("t").unwrap();
        let _b = limit.acquire("t").unwrap();
        let err = limit.acquire("t").err().unwrap();
        assert_eq!(err.code(), ErrorCode::ToolRateLimited);
        assert!(err.details().unwrap()["retryAfterMs"].as_u64().unwrap() >= 1);
        drop(a);
        assert!(limit.acquire("t").is_ok());
    }
}
