//! Step 2 of the call policy: [`RateLimit`], a token bucket per caller.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::context::Caller;
use crate::error::{ErrorCode, ToolError};
use crate::store::gcra;

/// A limit on how often each caller may call tools of a session: a token bucket per
/// [`Caller::subject`], holding `calls` tokens and refilled at `calls` per `per` (GCRA, in
/// whole milliseconds: the arithmetic of the shared stores too, so both agree). Calls
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

/// The buckets of a session's [`RateLimit`], by subject: each is its theoretical arrival
/// time (GCRA, in milliseconds since `epoch`), the arithmetic the stores use
/// ([`crate::store::gcra`]), so a budget kept here and one kept in a store agree.
pub(super) struct RateLimiter {
    /// The limit (a shared store applies it too).
    pub(super) limit: RateLimit,
    buckets: Mutex<Buckets>,
    /// What the buckets count milliseconds from.
    epoch: Instant,
}

#[derive(Default)]
struct Buckets {
    by_subject: HashMap<Box<str>, u64, foldhash::fast::RandomState>,
    anonymous: Option<u64>,
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
            epoch: Instant::now(),
        }
    }

    /// Takes a token of the caller's bucket, or says in how many milliseconds one is back.
    pub(super) fn take(&self, caller: Option<&Caller>, now: Instant) -> Result<(), u64> {
        let now = u64::try_from(now.saturating_duration_since(self.epoch).as_millis())
            .unwrap_or(u64::MAX);
        let (calls, per) = (self.limit.calls, self.limit.per);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        let buckets = &mut *buckets;
        let tat = match caller {
            None => &mut buckets.anonymous,
            Some(caller) => {
                let subject = caller.subject();
                if !buckets.by_subject.contains_key(subject)
                    && buckets.by_subject.len() >= buckets.swept_at + SWEEP_AFTER
                {
                    // A bucket whose arrival time passed is full: as if it were not there.
                    buckets.by_subject.retain(|_, tat| *tat > now);
                    buckets.swept_at = buckets.by_subject.len();
                }
                match buckets.by_subject.get(subject).copied() {
                    Some(tat) => {
                        let next = gcra(Some(tat), now, calls, per)?;
                        if let Some(slot) = buckets.by_subject.get_mut(subject) {
                            *slot = next;
                        }
                        return Ok(());
                    }
                    None => {
                        let next = gcra(None, now, calls, per)?;
                        buckets.by_subject.insert(subject.into(), next);
                        return Ok(());
                    }
                }
            }
        };
        *tat = Some(gcra(*tat, now, calls, per)?);
        Ok(())
    }
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
