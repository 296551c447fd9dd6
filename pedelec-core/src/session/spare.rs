//! What a finished call leaves for the next one: its context allocation (cleared) and its
//! finished handler future, in which the next call of the same handler starts.
//!
//! Measured with `examples/call_cost.rs` (callgrind): reusing the context saves ~110
//! instructions per sequential `call_raw`, reusing the handler future another ~110 (of
//! ~2,250); together a tenth of the call. Concurrent calls share one spare: one of them
//! gets it, the others allocate as they would without it.

use crossbeam_utils::atomic::AtomicCell;

use crate::call::handler::HandlerFuture;
use crate::context::ToolCallContext;

/// The spare of the last finished call.
#[derive(Default)]
pub(super) struct Spare {
    /// A context nobody else holds, cleared ([`ToolCallContext::recycle`]).
    pub(super) ctx: Option<ToolCallContext>,
    /// The call's handler future, finished.
    pub(super) future: Option<HandlerFuture>,
}

/// The session's one spare: a box made once, taken by a call when it starts and put back,
/// refilled, when the call ends (or is dropped: [`SpareGuard`]).
pub(super) struct SpareSlot(AtomicCell<Option<Box<Spare>>>);

// One pointer: a plain atomic swap, not one of crossbeam's fallback locks.
const _: () = assert!(AtomicCell::<Option<Box<Spare>>>::is_lock_free());

impl Default for SpareSlot {
    fn default() -> Self {
        SpareSlot(AtomicCell::new(Some(Box::default())))
    }
}

impl SpareSlot {
    /// Takes the spare for a call that starts: what the last call left (both `None` while
    /// another call holds the spare), and the emptied box to leave this call's in.
    #[inline]
    pub(super) fn take(
        &self,
    ) -> (
        SpareGuard<'_>,
        Option<ToolCallContext>,
        Option<HandlerFuture>,
    ) {
        let mut spare = self.0.take();
        let (ctx, future) = match spare.as_deref_mut() {
            Some(spare) => (spare.ctx.take(), spare.future.take()),
            None => (None, None),
        };
        (SpareGuard { slot: self, spare }, ctx, future)
    }
}

/// A call's hold on the (emptied) spare: given back when dropped, whether the call
/// finished or was dropped before it did, so the one box is never lost.
pub(super) struct SpareGuard<'a> {
    slot: &'a SpareSlot,
    spare: Option<Box<Spare>>,
}

impl SpareGuard<'_> {
    /// Leaves a finished call's context and handler future for the next call.
    #[inline]
    pub(super) fn leave(&mut self, ctx: ToolCallContext, future: Option<HandlerFuture>) {
        if let Some(spare) = self.spare.as_deref_mut() {
            // The box was emptied by `take`: nothing to drop (no drop glue on the hot path).
            forget_none(std::mem::replace(&mut spare.ctx, ctx.recycle()));
            forget_none(std::mem::replace(&mut spare.future, future));
        }
    }
}

impl Drop for SpareGuard<'_> {
    #[inline]
    fn drop(&mut self) {
        if let Some(spare) = self.spare.take() {
            // There is one box, and this guard holds it: the slot is empty.
            forget_none(self.slot.0.swap(Some(spare)));
        }
    }
}

/// Forgets what is known to be `None` (skipping its drop glue), dropping it otherwise.
#[inline]
fn forget_none<T>(value: Option<T>) {
    match value {
        None => std::mem::forget(value),
        Some(_) => drop(value),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use super::*;
    use crate::call::handler::finished_future;
    use crate::context::{CallId, CallParts, StateMap};

    fn parts(n: u64) -> CallParts {
        CallParts {
            call_id: CallId::Local(n),
            start: Instant::now(),
            timeout: Duration::from_secs(1),
            cancellation: None,
            caller: None,
            extras: None,
        }
    }

    #[test]
    fn a_finished_call_leaves_its_context_and_future_for_the_next() {
        let slot = SpareSlot::default();
        let state: Arc<StateMap> = Arc::default();
        let tool: Arc<str> = "t".into();
        {
            let (mut first, ctx, future) = slot.take();
            assert!(ctx.is_none() && future.is_none());
            // A concurrent call finds no spare.
            let (mut second, ctx, future) = slot.take();
            assert!(ctx.is_none() && future.is_none());
            let ctx = ToolCallContext::of_call(parts(1), tool.clone(), state.clone());
            first.leave(ctx, Some(finished_future()));
            // The concurrent call's context is not kept: it had no spare to leave it in.
            second.leave(ToolCallContext::detached("t"), None);
        }
        let (_next, ctx, future) = slot.take();
        assert!(future.is_some());
        let ctx = ctx.unwrap().renew(parts(2), &tool, &state);
        assert_eq!(ctx.call_id(), "local-2");
    }

    #[test]
    fn a_dropped_call_gives_the_spare_back() {
        let slot = SpareSlot::default();
        drop(slot.take());
        assert!(slot.take().0.spare.is_some());
    }
}
