//! Step 2 of the call policy: [`RateLimit`], a token bucket per caller.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::context::Caller;
use crate::error::{ErrorCode, ToolError};

/// A limit on how often each caller may call tools of a session: a token bucket per
/// [`Caller::subject`], holding `calls` tokens and refilled at `calls` per `per`. Calls
/// without a caller share one anonymous bucket. A call that finds its bucket empty is
/// answered at once with `TOOL_RATE_LIMITED` and `details.retryAfterMs`, the time until a
/// token is back; refused calls use no token.
///
/// ```
/// # use std::time::Duration;
/// # use pedelec_core::session::RateLimit;
/// let limit = RateLimit::per_caller(100, Duration::from_secs(60)); // 100 calls a minute
/// # let _ = limit;
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RateLimit {
    calls: u32,
    per: Duration,
}

impl RateLimit {
    /// `calls` calls per `per` for each caller, in bursts of up to `calls` (at least one
    /// call, per at least a millisecond).
    #[must_use]
    pub fn per_caller(calls: u32, per: Duration) -> Self {
        RateLimit {
            calls: calls.max(1),
            per: per.max(Duration::from_millis(1)),
        }
    }

    /// The burst size and refill: `calls` per `per`.
    #[must_use]
    pub const fn calls(&self) -> u32 {
        self.calls
    }

    /// The refill period.
    #[must_use]
    pub const fn per(&self) -> Duration {
        self.per
    }
}

/// Step 2 through a shared store (`SessionBuilder::store`): one budget per caller across
/// every replica that shares it.
pub(super) async fn admit_shared(
    store: &dyn crate::store::Store,
    limit: RateLimit,
    caller: Option<&Caller>,
) -> Result<(), ToolError> {
    let subject = caller.map_or("", Caller::subject);
    match store
        .take(&format!("caller:{subject}"), limit.calls, limit.per)
        .await
    {
        Ok(None) => Ok(()),
        Ok(Some(wait)) => Err(over_rate_limit(
            caller,
            u64::try_from(wait.as_millis()).unwrap_or(u64::MAX).max(1),
        )),
        Err(e) => Err(store_failed(&e)),
    }
}

/// `IO_FAILED` for a store that did not answer (the call was not run).
pub(super) fn store_failed(error: &crate::store::StoreError) -> ToolError {
    ToolError::with_code(
        ErrorCode::IoFailed,
        format!("{error}; the call was not run"),
    )
}

/// One caller's bucket.
#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets of a session's [`RateLimit`], by subject.
pub(super) struct RateLimiter {
    /// The limit (a shared store applies it too).
    pub(super) limit: RateLimit,
    buckets: Mutex<Buckets>,
}

#[derive(Default)]
struct Buckets {
    by_subject: HashMap<Box<str>, Bucket, foldhash::fast::RandomState>,
    anonymous: Option<Bucket>,
    /// The map's size after the last sweep: the next sweep runs once it doubled.
    swept_at: usize,
}

/// Buckets are swept (those refilled to full are dropped: a new one starts full anyway)
/// once the map holds this many more than after the last sweep.
const SWEEP_AFTER: usize = 1024;

impl RateLimiter {
    pub(super) fn new(limit: RateLimit) -> Self {
        RateLimiter {
            limit,
            buckets: Mutex::default(),
        }
    }

    /// Takes a token of the caller's bucket, or says in how many milliseconds one is back.
    pub(super) fn take(&self, caller: Option<&Caller>, now: Instant) -> Result<(), u64> {
        let capacity = f64::from(self.limit.calls);
        let rate = capacity / self.limit.per.as_secs_f64(); // tokens per second
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let buckets = &mut *buckets;
        let bucket = match caller {
            None => buckets.anonymous.get_or_insert(Bucket {
                tokens: capacity,
                at: now,
            }),
            Some(caller) => {
                let subject = caller.subject();
                if !buckets.by_subject.contains_key(subject) {
                    if buckets.by_subject.len() >= buckets.swept_at + SWEEP_AFTER {
                        buckets.by_subject.retain(|_, b| {
                            b.tokens + now.saturating_duration_since(b.at).as_secs_f64() * rate
                                < capacity
                        });
                        buckets.swept_at = buckets.by_subject.len();
                    }
                    buckets.by_subject.insert(
                        subject.into(),
                        Bucket {
                            tokens: capacity,
                            at: now,
                        },
                    );
                }
                // Just found or inserted.
                let Some(bucket) = buckets.by_subject.get_mut(subject) else {
                    return Ok(());
                };
                bucket
            }
        };
        let elapsed = now.saturating_duration_since(bucket.at).as_secs_f64();
        bucket.tokens = (bucket.tokens + elapsed * rate).min(capacity);
        bucket.at = now;
        if bucket.tokens >= 1.0 {
            bucket.tokens -= 1.0;
            Ok(())
        } else {
            let wait = (1.0 - bucket.tokens) / rate;
            Err(ceil_ms(wait))
        }
    }
}

/// Seconds as whole milliseconds, rounded up, at least 1.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "a positive wait, far below u64::MAX ms"
)]
fn ceil_ms(seconds: f64) -> u64 {
    ((seconds * 1000.0).ceil() as u64).max(1)
}

/// The `TOOL_RATE_LIMITED` answer.
pub(super) fn rate_limited(message: String, retry_after_ms: u64) -> ToolError {
    ToolError::with_code(ErrorCode::ToolRateLimited, message)
        .with_details(serde_json::json!({ "retryAfterMs": retry_after_ms }))
}

impl RateLimiter {
    /// Takes a token for `caller`, or answers `TOOL_RATE_LIMITED` saying when to retry.
    #[inline]
    pub(super) fn admit(&self, caller: Option<&Caller>, now: Instant) -> Result<(), ToolError> {
        self.take(caller, now)
            .map_err(|retry| over_rate_limit(caller, retry))
    }
}

/// `TOOL_RATE_LIMITED` for a caller whose bucket is empty.
#[cold]
fn over_rate_limit(caller: Option<&Caller>, retry_after_ms: u64) -> ToolError {
    let who = match caller {
        Some(caller) => format!("the caller `{}`", caller.subject()),
        None => "anonymous callers".to_owned(),
    };
    rate_limited(
        format!(
            "too many calls: {who} reached the session's rate limit; try again in {retry_after_ms} ms"
        ),
        retry_after_ms,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_empties_refills_and_is_per_caller() {
        let limiter = RateLimiter::new(RateLimit::per_caller(2, Duration::from_secs(1)));
        let alice = Caller::new("alice");
        let bob = Caller::new("bob");
        let t0 = Instant::now();
        assert_eq!(limiter.take(Some(&alice), t0), Ok(()));
        assert_eq!(limiter.take(Some(&alice), t0), Ok(()));
        // Empty: the next token is back in 500 ms.
        assert_eq!(limiter.take(Some(&alice), t0), Err(500));
        // Refused calls used no budget, and another caller has its own bucket.
        assert_eq!(limiter.take(Some(&bob), t0), Ok(()));
        assert_eq!(
            limiter.take(Some(&alice), t0 + Duration::from_millis(250)),
            Err(250)
        );
        assert_eq!(
            limiter.take(Some(&alice), t0 + Duration::from_millis(500)),
            Ok(())
        );
        // Anonymous calls share one bucket.
        assert_eq!(limiter.take(None, t0), Ok(()));
        assert_eq!(limiter.take(None, t0), Ok(()));
        assert!(limiter.take(None, t0).is_err());
    }

    #[test]
    fn full_buckets_are_swept() {
        let limiter = RateLimiter::new(RateLimit::per_caller(1, Duration::from_millis(10)));
        let t0 = Instant::now();
        for i in 0..3 * SWEEP_AFTER {
            let _ = limiter.take(Some(&Caller::new(format!("c{i}"))), t0);
        }
        let later = t0 + Duration::from_secs(1);
        let _ = limiter.take(Some(&Caller::new("late")), later);
        let _ = limiter.take(Some(&Caller::new("late2")), later);
        let held = limiter.buckets.lock().unwrap().by_subject.len();
        assert!(held < SWEEP_AFTER, "{held} buckets kept");
    }
}
