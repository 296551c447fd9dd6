//! Call policy: who may call a tool, how often, how many at once, and what wraps a call.
//!
//! On every call path (`call`, `call_raw`, JSON Lines, MCP), outside in:
//!
//! 1. scopes: a tool declared with `#[tool(scopes = [...])]` answers `TOOL_FORBIDDEN`
//!    unless the call's [`Caller`] holds them all;
//! 2. [`RateLimit`]: a token bucket per caller, `TOOL_RATE_LIMITED` when empty;
//! 3. the session's [`layers`](super::SessionBuilder::layer) (tower layers around every call,
//!    the first added outermost);
//! 4. `#[tool(max_concurrency = N)]`: `TOOL_RATE_LIMITED` past N calls of the tool at once;
//! 5. the tool's [`layer_for`](super::SessionBuilder::layer_for) layers;
//! 6. validation of the args as they are then, and the handler.
//!
//! pedelec's own limits never queue: a call over one is answered at once, with an integer
//! `details.retryAfterMs`. The call's timeout runs from its start and covers the layers.
//! A session without layers takes the plain path: the checks of steps 1, 2 and 4 are a
//! branch each when unused.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tower_service::Service;

use super::dispatch::{Shared, session_gone};
use crate::call::ToolCall;
use crate::context::Caller;
use crate::error::{ErrorCode, ToolError, ToolResult};

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

/// One caller's bucket.
#[derive(Clone, Copy)]
struct Bucket {
    tokens: f64,
    at: Instant,
}

/// The buckets of a session's [`RateLimit`], by subject.
pub(super) struct RateLimiter {
    limit: RateLimit,
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

/// The `TOOL_FORBIDDEN` answer for a caller without the tool's scopes.
pub(super) fn forbidden<S: AsRef<str>>(
    tool: &str,
    caller: Option<&Caller>,
    required: &[S],
) -> ToolError {
    let missing: Vec<&str> = match caller {
        Some(caller) => caller.missing(required),
        None => required.iter().map(AsRef::as_ref).collect(),
    };
    let who = match caller {
        Some(caller) => format!("the caller `{}`", caller.subject()),
        None => "an anonymous caller".to_owned(),
    };
    let list = |scopes: &[&str]| {
        scopes
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let required: Vec<&str> = required.iter().map(AsRef::as_ref).collect();
    ToolError::with_code(
        ErrorCode::ToolForbidden,
        format!(
            "`{tool}` requires the scopes {}, and {who} does not hold {}",
            list(&required),
            list(&missing)
        ),
    )
    .with_details(serde_json::json!({
        "requiredScopes": required,
        "missingScopes": missing,
    }))
}

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

type BoxFuture = Pin<Box<dyn Future<Output = Result<ToolResult, Infallible>> + Send>>;

/// The service a layer wraps: a call in, its result out, never an error (a failure is a
/// [`ToolResult`] like any other). What [`SessionBuilder::layer`](super::SessionBuilder::layer)
/// and [`layer_for`](super::SessionBuilder::layer_for) hand to a `tower::Layer`, boxed, and
/// cheap to clone.
pub struct ToolService {
    inner: Box<dyn CloneService>,
}

trait CloneService: Send {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>>;
    fn call(&mut self, call: ToolCall) -> BoxFuture;
    fn clone_box(&self) -> Box<dyn CloneService>;
}

impl<S> CloneService for S
where
    S: Service<ToolCall, Response = ToolResult, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Service::poll_ready(self, cx)
    }

    fn call(&mut self, call: ToolCall) -> BoxFuture {
        Box::pin(Service::call(self, call))
    }

    fn clone_box(&self) -> Box<dyn CloneService> {
        Box::new(self.clone())
    }
}

impl ToolService {
    /// Boxes any service of the right shape (what a layer made of the one it wrapped).
    pub fn new<S>(service: S) -> Self
    where
        S: Service<ToolCall, Response = ToolResult, Error = Infallible> + Clone + Send + 'static,
        S::Future: Send + 'static,
    {
        ToolService {
            inner: Box::new(service),
        }
    }
}

impl Clone for ToolService {
    fn clone(&self) -> Self {
        ToolService {
            inner: self.inner.clone_box(),
        }
    }
}

impl fmt::Debug for ToolService {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolService")
    }
}

impl Service<ToolCall> for ToolService {
    type Response = ToolResult;
    type Error = Infallible;
    type Future = BoxFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, call: ToolCall) -> BoxFuture {
        self.inner.call(call)
    }
}

/// A layer made of an `async` function over the call and the service it wraps (as axum's
/// `middleware::from_fn`): the function decides whether and how to pass the call on
/// (`next.call(call)`), and what to answer.
///
/// ```
/// # use pedelec_core::{ToolError, ToolResult};
/// # use pedelec_core::session::from_fn;
/// use tower_service::Service as _;
///
/// // Refuses `wipe` unless its args say `confirmed: true`.
/// let guardrail = from_fn(|call, mut next| async move {
///     if call.name == "wipe" && call.args["confirmed"] != true {
///         return ToolResult::Err(ToolError::new("`wipe` needs `confirmed: true`"));
///     }
///     next.call(call).await.unwrap_or_else(|never| match never {})
/// });
/// # let _ = guardrail;
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFn<F>
where
    F: Fn(ToolCall, ToolService) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    FromFn { f }
}

/// The layer of [`from_fn`].
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFn")
    }
}

impl<F: Clone> tower_layer::Layer<ToolService> for FromFn<F> {
    type Service = FromFnService<F>;

    fn layer(&self, next: ToolService) -> FromFnService<F> {
        FromFnService {
            f: self.f.clone(),
            next,
        }
    }
}

/// The service of [`from_fn`].
#[derive(Clone)]
pub struct FromFnService<F> {
    f: F,
    next: ToolService,
}

impl<F> fmt::Debug for FromFnService<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFnService")
    }
}

impl<F, Fut> Service<ToolCall> for FromFnService<F>
where
    F: Fn(ToolCall, ToolService) -> Fut + Clone + Send + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    type Response = ToolResult;
    type Error = Infallible;
    type Future = BoxFuture;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Service::poll_ready(&mut self.next, cx)
    }

    fn call(&mut self, call: ToolCall) -> BoxFuture {
        // The service that was made ready goes to this call; its clone stays for the next.
        let clone = self.next.clone();
        let next = std::mem::replace(&mut self.next, clone);
        let future = (self.f)(call, next);
        Box::pin(async move { Ok(future.await) })
    }
}

/// A layer, kept until the session is created (a `tower::Layer` applied to the service it
/// wraps then).
pub(super) type LayerFn = Box<dyn FnOnce(ToolService) -> ToolService + Send>;

/// Wraps `layer` for [`LayerFn`].
pub(super) fn layer_fn<L>(layer: L) -> LayerFn
where
    L: tower_layer::Layer<ToolService> + Send + 'static,
    L::Service:
        Service<ToolCall, Response = ToolResult, Error = Infallible> + Clone + Send + 'static,
    <L::Service as Service<ToolCall>>::Future: Send + 'static,
{
    Box::new(move |inner| ToolService::new(layer.layer(inner)))
}

/// Applies layers to `inner`, the first of the list outermost (as `tower::ServiceBuilder`).
pub(super) fn stack(inner: ToolService, layers: Vec<LayerFn>) -> ToolService {
    layers
        .into_iter()
        .rev()
        .fold(inner, |service, layer| layer(service))
}

/// A layered service, shared by the session's calls: each call clones it (under a lock,
/// since tower services need not be `Sync`) and calls the clone.
pub(super) struct SharedService(Mutex<ToolService>);

impl SharedService {
    pub(super) fn new(service: ToolService) -> Self {
        SharedService(Mutex::new(service))
    }

    /// A call through the service: ready, then called.
    pub(super) fn call(&self, call: ToolCall) -> impl Future<Output = ToolResult> + Send + use<> {
        let mut service = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        async move {
            let Ok(()) = std::future::poll_fn(|cx| Service::poll_ready(&mut service, cx)).await;
            let Ok(result) = Service::call(&mut service, call).await;
            result
        }
    }
}

/// The innermost service of the session's layers: the tool's policy and layers below
/// them (`Shared::per_tool`).
#[derive(Clone)]
pub(super) struct Dispatch(pub(super) Weak<Shared>);

/// The innermost service of a tool's layers: validation and the handler
/// (`Shared::endpoint`).
#[derive(Clone)]
pub(super) struct Endpoint(pub(super) Weak<Shared>);

macro_rules! inner_service {
    ($service:ident, $method:ident) => {
        impl Service<ToolCall> for $service {
            type Response = ToolResult;
            type Error = Infallible;
            type Future = BoxFuture;

            fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
                Poll::Ready(Ok(()))
            }

            fn call(&mut self, call: ToolCall) -> BoxFuture {
                match self.0.upgrade() {
                    Some(shared) => Box::pin(async move { Ok(shared.$method(call).await) }),
                    None => Box::pin(std::future::ready(Ok(ToolResult::Err(session_gone())))),
                }
            }
        }
    };
}

inner_service!(Dispatch, per_tool);
inner_service!(Endpoint, endpoint);

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

    #[test]
    fn forbidden_names_the_missing_scopes() {
        let caller = Caller::new("alice").with_scopes(["a"]);
        let err = forbidden("t", Some(&caller), &["a", "b"]);
        assert_eq!(err.code(), ErrorCode::ToolForbidden);
        assert_eq!(
            err.message(),
            "`t` requires the scopes `a`, `b`, and the caller `alice` does not hold `b`"
        );
        assert_eq!(
            err.details().unwrap(),
            &serde_json::json!({"requiredScopes": ["a", "b"], "missingScopes": ["b"]})
        );
        let err = forbidden("t", None, &["a"]);
        assert!(
            err.message()
                .contains("an anonymous caller does not hold `a`")
        );
    }
}
