//! [`Cancellation`]: a call's cancellation flag, shared between the runtime and a handler.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

use super::ContextInner;

/// A cancellation flag shared between the runtime and a handler.
///
/// Made standalone with [`Cancellation::new`] (and handed to a call with
/// `CallOptions::cancellation`), or obtained from a running call with
/// [`ToolCallContext::cancellation`](super::ToolCallContext::cancellation). Cloning is cheap (one reference count).
#[derive(Clone)]
pub struct Cancellation {
    inner: CancelRef,
}

/// Where a [`Cancellation`]'s flag lives: its own allocation, or the context of the call it
/// belongs to (a session puts the flag of a call in its context: one allocation per call
/// instead of two).
#[derive(Clone)]
enum CancelRef {
    Own(Arc<CancelFlag>),
    Call(Arc<ContextInner>),
}

impl Default for Cancellation {
    fn default() -> Self {
        Cancellation {
            inner: CancelRef::Own(Arc::default()),
        }
    }
}

/// The flag itself and its waiters.
#[derive(Default)]
pub(crate) struct CancelFlag {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelFlag {
    pub(super) fn cancel(&self) {
        if !self.cancelled.swap(true, Ordering::AcqRel) {
            self.notify.notify_waiters();
        }
    }

    pub(super) fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    pub(super) async fn cancelled(&self) {
        loop {
            let notified = self.notify.notified();
            tokio::pin!(notified);
            // Register before checking, so a `cancel` in between is not missed.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}

impl CancelFlag {
    /// Unsets the flag of a context nobody else holds, for its next call.
    pub(super) fn reset(&mut self) {
        *self.cancelled.get_mut() = false;
    }
}

impl Cancellation {
    /// The handle on the flag in a call's context.
    pub(super) fn of_call(ctx: Arc<ContextInner>) -> Self {
        Cancellation {
            inner: CancelRef::Call(ctx),
        }
    }

    /// A flag that is not set.
    #[must_use]
    pub fn new() -> Self {
        Cancellation::default()
    }

    #[inline]
    pub(super) fn flag(&self) -> &CancelFlag {
        match &self.inner {
            CancelRef::Own(flag) => flag,
            CancelRef::Call(ctx) => ctx.flag(),
        }
    }

    /// Sets the flag and wakes every waiter. Idempotent.
    pub fn cancel(&self) {
        self.flag().cancel();
    }

    /// Whether the flag is set.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.flag().is_cancelled()
    }

    /// Completes once the flag is set (at once if it already is).
    pub async fn cancelled(&self) {
        self.flag().cancelled().await;
    }
}

impl fmt::Debug for Cancellation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cancellation")
            .field("cancelled", &self.is_cancelled())
            .finish()
    }
}
