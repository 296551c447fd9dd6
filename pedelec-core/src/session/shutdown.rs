//! Graceful shutdown: [`Session::shutdown`] stops the session taking calls, lets the calls
//! in flight finish within a grace period, and answers the rest `TOOL_CANCELLED`; bridges
//! learn of it through [`Session::closed`] and stop reading once it is over.
//!
//! Only calls that did not finish at once (they wait on I/O, a timer, the blocking pool)
//! are counted here, on the path that already arms their timeout: a call that finishes in
//! its first poll pays one flag load.

use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::Duration;

use tokio::sync::Notify;

use super::Session;
use crate::context::Cancellation;
use crate::error::{ErrorCode, ToolError};

/// The session's shutdown: shared by every clone and every bridge.
#[derive(Default)]
pub(super) struct ShutdownState {
    /// Set when a shutdown starts: new calls are answered `TOOL_CANCELLED`.
    started: AtomicBool,
    /// Set when the grace period is over: calls still running are cancelled.
    expired: Cancellation,
    /// Set when the shutdown is over (every call in flight answered).
    done: Cancellation,
    /// The grace period in ms (the shortest asked), for the cancelled calls' message.
    grace_ms: AtomicU64,
    /// Calls running that did not finish in their first poll.
    waiting: AtomicUsize,
    /// Woken when `waiting` drops to zero.
    idle: Notify,
}

impl ShutdownState {
    /// Whether a shutdown started (new calls are refused).
    #[inline]
    pub(super) fn is_started(&self) -> bool {
        self.started.load(Ordering::Relaxed)
    }

    /// Counts a call that waits, until the guard is dropped.
    pub(super) fn enter(&self) -> Waiting<'_> {
        self.waiting.fetch_add(1, Ordering::SeqCst);
        Waiting(self)
    }

    /// Completes when the grace period of a shutdown is over.
    pub(super) async fn expired(&self) -> ToolError {
        self.expired.cancelled().await;
        let ms = self.grace_ms.load(Ordering::Relaxed);
        ToolError::with_code(
            ErrorCode::ToolCancelled,
            format!(
                "the call was cancelled: the session shut down and the call did not finish within the grace period of {ms} ms"
            ),
        )
        .with_details(serde_json::json!({ "shutdown": true, "graceMs": ms }))
    }

    /// Completes once no counted call is running.
    async fn all_finished(&self) {
        loop {
            let notified = self.idle.notified();
            tokio::pin!(notified);
            // Register before checking, so the last call leaving in between is not missed.
            notified.as_mut().enable();
            if self.waiting.load(Ordering::SeqCst) == 0 {
                return;
            }
            notified.await;
        }
    }

    async fn run(&self, grace: Duration) {
        let ms = u64::try_from(grace.as_millis()).unwrap_or(u64::MAX);
        self.grace_ms.fetch_min(ms, Ordering::Relaxed);
        self.started.store(true, Ordering::SeqCst);
        let grace_over = async {
            match tokio::time::Instant::now().checked_add(grace) {
                Some(deadline) => tokio::time::sleep_until(deadline).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = self.all_finished() => {}
            () = grace_over => {}
            // A concurrent shutdown with a shorter grace.
            () = self.expired.cancelled() => {}
        }
        self.expired.cancel();
        // Cancelled calls end at their next poll.
        self.all_finished().await;
        self.done.cancel();
    }
}

/// A counted waiting call (see [`ShutdownState::enter`]).
pub(super) struct Waiting<'a>(&'a ShutdownState);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        if self.0.waiting.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.idle.notify_waiters();
        }
    }
}

/// The result of a call that arrives once a shutdown started.
pub(super) fn refused_error() -> ToolError {
    ToolError::with_code(
        ErrorCode::ToolCancelled,
        "the call was cancelled: the session is shutting down and accepts no new calls",
    )
    .with_details(serde_json::json!({ "shutdown": true }))
}

pub(super) fn new_state() -> ShutdownState {
    ShutdownState {
        grace_ms: AtomicU64::new(u64::MAX),
        ..ShutdownState::default()
    }
}

impl<N> Session<N> {
    /// Shuts the session down gracefully, for every clone and every bridge serving it:
    ///
    /// 1. From now on, every new call is answered `TOOL_CANCELLED` ("the session is shutting
    ///    down"), in process and over every bridge; bridges keep reading meanwhile, so each
    ///    call Core sends during the grace period still gets its result.
    /// 2. Calls in flight may finish within `grace`; those still running then are cancelled
    ///    (their handlers' contexts cancelled, their futures dropped) and answered
    ///    `TOOL_CANCELLED` (`details.shutdown: true`).
    /// 3. The future completes once every call in flight is answered. Bridges then stop
    ///    reading, write the last results and end their `serve` futures with `Ok(())`
    ///    ([`closed`](Self::closed) tells a bridge of one's own).
    ///
    /// Nothing is lost: every accepted call gets exactly one result. Calling it again (or
    /// concurrently) waits for the same shutdown; the shortest grace wins. A shutdown
    /// cannot be undone: the session answers every later call `TOOL_CANCELLED`.
    ///
    /// Must be awaited within a tokio runtime (it sleeps for the grace period at most).
    pub fn shutdown(&self, grace: Duration) -> impl Future<Output = ()> + Send + 'static {
        let shared = self.shared.clone();
        async move { shared.shutdown.run(grace).await }
    }

    /// Whether [`shutdown`](Self::shutdown) was called: new calls are refused.
    #[must_use]
    pub fn is_shutting_down(&self) -> bool {
        self.shared.shutdown.is_started()
    }

    /// Completes when a [`shutdown`](Self::shutdown) is over (every call in flight
    /// answered); pending until a shutdown is asked. For bridges: stop reading when it
    /// completes, write what is left, and return.
    pub fn closed(&self) -> impl Future<Output = ()> + Send + 'static {
        let shared = self.shared.clone();
        async move { shared.shutdown.done.cancelled().await }
    }
}
