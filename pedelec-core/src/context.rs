//! [`ToolCallContext`]: what a handler knows about the call it serves.

use std::any::{Any, TypeId};
use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_utils::atomic::AtomicCell;
use serde::Serialize;
use tokio::sync::Notify;

use crate::call::handler::HandlerFuture;
use crate::error::ToolError;

/// Shared application state registered on a session, one value per type.
#[derive(Clone, Default)]
pub struct StateMap {
    /// A handful of values at most: a scan of their `TypeId`s is cheaper than hashing (a
    /// handler looks its state up on every call).
    values: Vec<(TypeId, Arc<dyn Any + Send + Sync>)>,
}

impl StateMap {
    /// Registers `value`, replacing an earlier value of the same type.
    pub fn insert<T: Send + Sync + 'static>(&mut self, value: T) {
        self.insert_arc(Arc::new(value));
    }

    /// Registers a shared value, replacing an earlier value of the same type.
    pub fn insert_arc<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        let id = TypeId::of::<T>();
        match self.values.iter_mut().find(|(t, _)| *t == id) {
            Some((_, slot)) => *slot = value,
            None => self.values.push((id, value)),
        }
    }

    fn find<T: 'static>(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        let id = TypeId::of::<T>();
        self.values.iter().find(|(t, _)| *t == id).map(|(_, v)| v)
    }

    /// The value of type `T`, if one was registered.
    #[must_use]
    pub fn get<T: Send + Sync + 'static>(&self) -> Option<&T> {
        self.find::<T>()?.downcast_ref()
    }

    /// The value of type `T` as a shared pointer, if one was registered.
    #[must_use]
    pub fn get_arc<T: Send + Sync + 'static>(&self) -> Option<Arc<T>> {
        self.find::<T>()?.clone().downcast().ok()
    }

    /// The number of registered values.
    #[must_use]
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// `true` when nothing is registered.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap")
            .field("len", &self.values.len())
            .finish()
    }
}

/// A cancellation flag shared between the runtime and a handler.
///
/// Made standalone with [`Cancellation::new`] (and handed to a call with
/// `CallOptions::cancellation`), or obtained from a running call with
/// [`ToolCallContext::cancellation`]. Cloning is cheap (one reference count).
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
struct CancelFlag {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancelFlag {
    fn cancel(&self) {
        if !self.cancelled.swap(true, Ordering::AcqRel) {
            self.notify.notify_waiters();
        }
    }

    fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Acquire)
    }

    async fn cancelled(&self) {
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

impl Cancellation {
    /// A flag that is not set.
    #[must_use]
    pub fn new() -> Self {
        Cancellation::default()
    }

    #[inline]
    fn flag(&self) -> &CancelFlag {
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

/// What a handler knows about the call it serves: its id, the tool, the deadline, whether
/// the call was cancelled (by Core, or because the timeout passed), and the session's shared
/// state.
///
/// Cloning is cheap (one reference count).
#[derive(Clone)]
pub struct ToolCallContext {
    inner: Arc<ContextInner>,
}

/// A call's id: the one Core (or the caller) gave, or a session-local number that is only
/// formatted (`local-7`) when someone asks for it: most handlers never do, and the text would
/// cost an allocation on every in-process call.
#[derive(Clone, Debug)]
pub(crate) enum CallId {
    Given(Arc<str>),
    Local(u64),
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallId::Given(id) => f.write_str(id),
            CallId::Local(n) => write!(f, "local-{n}"),
        }
    }
}

/// How far a call has come, as its handler reports it with [`ToolCallContext::progress`].
///
/// The JSON Lines bridge sends it as a `tool_progress` message; the MCP bridge as
/// `notifications/progress` when the client asked for progress.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[non_exhaustive]
pub struct ProgressUpdate {
    /// Work done so far (in whatever unit the tool counts; it should only grow).
    pub done: u64,
    /// The total, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// What is happening now, for a person (may be empty).
    pub message: String,
}

impl ProgressUpdate {
    /// An update: `done` of `total` (if known), with a message.
    #[must_use]
    pub fn new(done: u64, total: Option<u64>, message: impl Into<String>) -> Self {
        ProgressUpdate {
            done,
            total,
            message: message.into(),
        }
    }
}

/// Where a call's progress reports go: a `CallOptions::on_progress` callback, or a bridge's
/// own sink (which may keep per-call state next to it, in the same allocation).
pub(crate) trait ProgressSink: Send + Sync {
    fn report(&self, update: ProgressUpdate);
}

impl<F: Fn(ProgressUpdate) + Send + Sync> ProgressSink for F {
    fn report(&self, update: ProgressUpdate) {
        self(update);
    }
}

/// A call's progress sink.
pub(crate) type ProgressFn = Arc<dyn ProgressSink>;

struct ContextInner {
    call_id: CallId,
    /// The text of a [`CallId::Local`], made on first use.
    local_id_text: OnceLock<Box<str>>,
    tool_name: Arc<str>,
    /// The deadline is `start + timeout`, added up only when someone asks for it.
    start: Instant,
    timeout: Duration,
    cancellation: CallCancel,
    state: Arc<StateMap>,
    progress: Option<ProgressFn>,
    /// The finished handler future of the call that last used this (spare) context: the
    /// next call of the same handler starts in its allocation. Only touched while the
    /// context is not shared (`Mutex::get_mut`: no locking; the `Mutex` only makes it
    /// `Sync`).
    spare_future: Mutex<Option<HandlerFuture>>,
}

/// A call's cancellation flag: in the context's own allocation, or the handle the caller
/// gave (`CallOptions::cancellation`, `ToolCallContext::new`).
enum CallCancel {
    Own(CancelFlag),
    Given(Cancellation),
}

impl ContextInner {
    #[inline]
    fn flag(&self) -> &CancelFlag {
        match &self.cancellation {
            CallCancel::Own(flag) => flag,
            CallCancel::Given(cancellation) => cancellation.flag(),
        }
    }
}

impl ToolCallContext {
    /// A context for one call. Sessions make these; tests and custom runtimes may too.
    #[must_use]
    pub fn new(
        call_id: impl Into<Arc<str>>,
        tool_name: impl Into<Arc<str>>,
        timeout: Duration,
        cancellation: Cancellation,
        state: Arc<StateMap>,
    ) -> Self {
        ToolCallContext::of_call(
            CallId::Given(call_id.into()),
            tool_name.into(),
            Instant::now(),
            timeout,
            Some(cancellation),
            state,
            None,
        )
    }

    /// A context with an explicit deadline (what a session makes for each call).
    #[must_use]
    pub fn with_deadline(
        call_id: Arc<str>,
        tool_name: Arc<str>,
        deadline: Instant,
        cancellation: Cancellation,
        state: Arc<StateMap>,
    ) -> Self {
        ToolCallContext::of_call(
            CallId::Given(call_id),
            tool_name,
            deadline,
            Duration::ZERO,
            Some(cancellation),
            state,
            None,
        )
    }

    /// A context for any kind of call id, its deadline `timeout` after `start` (a timeout
    /// too large to represent as an instant never passes); without a `cancellation`, the
    /// call's flag lives in the context's allocation.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn of_call(
        call_id: CallId,
        tool_name: Arc<str>,
        start: Instant,
        timeout: Duration,
        cancellation: Option<Cancellation>,
        state: Arc<StateMap>,
        progress: Option<ProgressFn>,
    ) -> Self {
        ToolCallContext {
            inner: Arc::new(ContextInner {
                call_id,
                local_id_text: OnceLock::new(),
                tool_name,
                start,
                timeout,
                cancellation: match cancellation {
                    Some(given) => CallCancel::Given(given),
                    None => CallCancel::Own(CancelFlag::default()),
                },
                state,
                progress,
                spare_future: Mutex::new(None),
            }),
        }
    }

    /// The tool's name, shared.
    pub(crate) fn tool_name_arc(&self) -> Arc<str> {
        self.inner.tool_name.clone()
    }

    /// The call's id, unformatted.
    pub(crate) fn call_id_raw(&self) -> &CallId {
        &self.inner.call_id
    }

    /// Cancels the call (the session does, on a timeout, a shutdown, or a dropped call).
    pub(crate) fn cancel(&self) {
        self.inner.flag().cancel();
    }

    /// A context for calling a handler directly, outside a session (tests, examples): no
    /// state, the default timeout, never cancelled unless you keep and use `cancellation`.
    #[must_use]
    pub fn detached(tool_name: impl Into<String>) -> Self {
        ToolCallContext::new(
            "detached",
            tool_name.into(),
            Duration::from_millis(pedelec_rules::DEFAULT_TIMEOUT_MS),
            Cancellation::new(),
            Arc::new(StateMap::default()),
        )
    }

    /// The call's id, as Core sent it.
    #[must_use]
    pub fn call_id(&self) -> &str {
        match &self.inner.call_id {
            CallId::Given(id) => id,
            CallId::Local(_) => self
                .inner
                .local_id_text
                .get_or_init(|| self.inner.call_id.to_string().into()),
        }
    }

    /// The name of the tool being called.
    #[must_use]
    pub fn tool_name(&self) -> &str {
        &self.inner.tool_name
    }

    /// When the call times out.
    #[must_use]
    pub fn deadline(&self) -> Instant {
        let start = self.inner.start;
        start
            .checked_add(self.inner.timeout)
            .unwrap_or_else(|| far_future(start))
    }

    /// Time left before the deadline (zero once it has passed).
    #[must_use]
    pub fn remaining(&self) -> Duration {
        self.deadline().saturating_duration_since(Instant::now())
    }

    /// Whether the call was cancelled (by Core, because its timeout passed, or because the
    /// caller stopped waiting for it). A handler doing long work should check this, or
    /// `select!` on [`cancelled`](Self::cancelled). The session drops a cancelled call's
    /// future, so this matters to work the handler moved elsewhere (a spawned task, a
    /// blocking thread) holding a clone of the context.
    #[must_use]
    #[inline]
    pub fn is_cancelled(&self) -> bool {
        self.inner.flag().is_cancelled()
    }

    /// Completes when the call is cancelled.
    pub async fn cancelled(&self) {
        self.inner.flag().cancelled().await;
    }

    /// A handle on the call's cancellation flag (shared with the session), e.g. to hand to
    /// other code or to a nested call (`CallOptions::cancellation`). Cancelling it cancels
    /// the call. It keeps the context's allocation alive while it lives (the flag is
    /// part of it), not the call.
    #[must_use]
    pub fn cancellation(&self) -> Cancellation {
        match &self.inner.cancellation {
            CallCancel::Own(_) => Cancellation {
                inner: CancelRef::Call(self.inner.clone()),
            },
            CallCancel::Given(given) => given.clone(),
        }
    }

    /// Reports how far the call has come: `done` of `total` (when known), with a message
    /// for a person. It reaches the caller when the caller asked for progress (a JSON Lines
    /// `tool_progress` message, an MCP `notifications/progress`, a
    /// `CallOptions::on_progress` callback); otherwise it does nothing, and costs nothing
    /// (the message is not even converted). Reports after the call's result was delivered
    /// are dropped.
    pub fn progress(&self, done: u64, total: Option<u64>, message: impl Into<String>) {
        if let Some(report) = &self.inner.progress {
            report.report(ProgressUpdate {
                done,
                total,
                message: message.into(),
            });
        }
    }

    /// Whether the caller listens to [`progress`](Self::progress) reports (to skip work
    /// that only serves them).
    #[must_use]
    pub fn wants_progress(&self) -> bool {
        self.inner.progress.is_some()
    }

    /// The session's shared state of type `T`.
    ///
    /// # Errors
    /// A `TOOL_HANDLER_ERROR` naming the type when no `T` was registered with
    /// `Session::builder(..).state(value)`; `?` in a handler turns it into the call's error.
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.inner
            .state
            .get::<T>()
            .ok_or_else(|| missing_state::<T>())
    }

    /// The session's shared state of type `T`, as an `Arc` that can outlive the call.
    ///
    /// # Errors
    /// As [`state`](Self::state).
    pub fn state_arc<T: Send + Sync + 'static>(&self) -> Result<Arc<T>, ToolError> {
        self.inner
            .state
            .get_arc::<T>()
            .ok_or_else(|| missing_state::<T>())
    }
}

/// A session's spare context allocation: a call whose context nobody else holds when it
/// ends leaves it here, cleared of everything the call brought (its id, cancellation handle
/// and progress sink), and the next call reuses it instead of allocating (measured: ~110
/// instructions less per sequential `call_raw`). What stays in it (the tool's name, the
/// session's state) belongs to the session anyway.
#[derive(Default)]
pub(crate) struct SpareContext(AtomicCell<Option<Arc<ContextInner>>>);

// One pointer: a plain atomic swap, not one of crossbeam's fallback locks.
const _: () = assert!(AtomicCell::<Option<Arc<ContextInner>>>::is_lock_free());

impl SpareContext {
    /// A context for a call of the session, in the spare allocation when there is one, and
    /// the spare handler future that came with it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn make(
        &self,
        call_id: CallId,
        tool_name: &Arc<str>,
        start: Instant,
        timeout: Duration,
        cancellation: Option<Cancellation>,
        state: &Arc<StateMap>,
        progress: Option<ProgressFn>,
    ) -> (ToolCallContext, Option<HandlerFuture>) {
        // Concurrent calls: one of them gets the spare, the others allocate.
        if let Some(mut inner) = self.0.take()
            && let Some(reused) = Arc::get_mut(&mut inner)
        {
            reused.call_id = call_id;
            if !Arc::ptr_eq(&reused.tool_name, tool_name) {
                reused.tool_name = tool_name.clone();
            }
            reused.start = start;
            reused.timeout = timeout;
            if let Some(given) = cancellation {
                reused.cancellation = CallCancel::Given(given);
            }
            if !Arc::ptr_eq(&reused.state, state) {
                reused.state = state.clone();
            }
            reused.progress = progress;
            let spare = reused
                .spare_future
                .get_mut()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            return (ToolCallContext { inner }, spare);
        }
        let ctx = ToolCallContext::of_call(
            call_id,
            tool_name.clone(),
            start,
            timeout,
            cancellation,
            state.clone(),
            progress,
        );
        (ctx, None)
    }

    /// Takes a finished call's context back, if nothing else holds it (a handler may have
    /// kept a clone, or a cancellation handle, for work that outlives the call), with the
    /// call's finished handler future for the next call to start in.
    #[inline]
    pub(crate) fn put(&self, mut ctx: ToolCallContext, future: Option<HandlerFuture>) {
        let Some(inner) = Arc::get_mut(&mut ctx.inner) else {
            return;
        };
        *inner
            .spare_future
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner) = future;
        // Cleared as a new context starts: not cancelled, no caller's id, handle or sink.
        inner.call_id = CallId::Local(0);
        inner.local_id_text.take();
        match &mut inner.cancellation {
            CallCancel::Own(flag) => *flag.cancelled.get_mut() = false,
            CallCancel::Given(_) => inner.cancellation = CallCancel::Own(CancelFlag::default()),
        }
        inner.progress = None;
        // A spare another call left meanwhile is dropped.
        drop(self.0.swap(Some(ctx.inner)));
    }
}

/// An instant about a century after `now` (or the latest representable one): the deadline of
/// a call whose timeout does not fit in an `Instant`.
fn far_future(now: Instant) -> Instant {
    let mut step = Duration::from_hours(100 * 365 * 24);
    loop {
        if let Some(t) = now.checked_add(step) {
            return t;
        }
        step /= 2;
    }
}

fn missing_state<T>() -> ToolError {
    let name = std::any::type_name::<T>();
    let short = without_paths(name);
    let register = if short
        .bytes()
        .all(|b| b == b'_' || b.is_ascii_alphanumeric())
    {
        format!("`Session::builder(..).state({short} {{ .. }})`")
    } else {
        format!("`Session::builder(..).state(value)` where `value: {short}`")
    };
    ToolError::new(format!(
        "no state of type `{name}` is registered on this session; register it with {register}"
    ))
}

/// A type name without its module paths: `std::sync::Mutex<alloc::vec::Vec<i64>>` →
/// `Mutex<Vec<i64>>`.
fn without_paths(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut segment_start = 0;
    for (i, c) in name.char_indices() {
        if !(c == '_' || c == ':' || c.is_alphanumeric()) {
            let segment = &name[segment_start..i];
            out.push_str(segment.rsplit("::").next().unwrap_or(segment));
            out.push(c);
            segment_start = i + c.len_utf8();
        }
    }
    let segment = &name[segment_start..];
    out.push_str(segment.rsplit("::").next().unwrap_or(segment));
    out
}

impl fmt::Debug for ToolCallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCallContext")
            .field("call_id", &self.call_id())
            .field("tool_name", &self.inner.tool_name)
            .field("remaining", &self.remaining())
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq)]
    struct Counter(i64);

    #[tokio::test]
    async fn cancellation_wakes_waiters_and_is_sticky() {
        let c = Cancellation::new();
        let waiter = tokio::spawn({
            let c = c.clone();
            async move { c.cancelled().await }
        });
        tokio::task::yield_now().await;
        c.cancel();
        waiter.await.unwrap();
        c.cancelled().await; // already cancelled: returns at once
        assert!(c.is_cancelled());
    }

    #[test]
    fn state_is_found_by_type_and_missing_state_is_named() {
        let mut state = StateMap::default();
        state.insert(Counter(3));
        let ctx = ToolCallContext::new(
            "c1",
            "t",
            Duration::from_secs(1),
            Cancellation::new(),
            Arc::new(state),
        );
        assert_eq!(ctx.state::<Counter>().unwrap(), &Counter(3));
        let err = ctx.state::<String>().unwrap_err();
        assert_eq!(
            err.message(),
            "no state of type `alloc::string::String` is registered on this session; \
             register it with `Session::builder(..).state(String { .. })`"
        );
        let err = ctx.state::<Mutex<Vec<(i64, Counter)>>>().unwrap_err();
        assert!(
            err.message().ends_with(
                "register it with `Session::builder(..).state(value)` \
                 where `value: Mutex<Vec<(i64, Counter)>>`"
            ),
            "{err}"
        );
    }

    /// The context of call `local-n` of tool `t`, with a 1 s timeout.
    fn local_ctx(n: u64) -> ToolCallContext {
        ToolCallContext::of_call(
            CallId::Local(n),
            "t".into(),
            Instant::now(),
            Duration::from_secs(1),
            None,
            Arc::default(),
            None,
        )
    }

    #[tokio::test]
    async fn a_context_s_cancellation_handle_is_its_flag() {
        // The flag in the context's allocation.
        let ctx = local_ctx(1);
        let handle = ctx.cancellation();
        assert!(!handle.is_cancelled() && !ctx.is_cancelled());
        let waiter = tokio::spawn({
            let ctx = ctx.clone();
            async move { ctx.cancelled().await }
        });
        tokio::task::yield_now().await;
        handle.cancel();
        waiter.await.unwrap();
        assert!(ctx.is_cancelled() && ctx.cancellation().is_cancelled());
        drop(ctx);
        assert!(handle.is_cancelled(), "the handle outlives the context");

        // A handle given by the caller: the context shares it.
        let given = Cancellation::new();
        let ctx = ToolCallContext::of_call(
            CallId::Local(2),
            "t".into(),
            Instant::now(),
            Duration::from_secs(1),
            Some(given.clone()),
            Arc::default(),
            None,
        );
        ctx.cancellation().cancel();
        assert!(given.is_cancelled() && ctx.is_cancelled());

        // A nested call given the handle of its parent's context.
        let parent = ToolCallContext::detached("parent");
        let child = ToolCallContext::of_call(
            CallId::Local(3),
            "child".into(),
            Instant::now(),
            Duration::from_secs(1),
            Some(parent.cancellation()),
            Arc::default(),
            None,
        );
        parent.cancel();
        assert!(child.is_cancelled());
        child.cancellation().cancelled().await;
    }

    #[test]
    fn a_spare_context_starts_clean() {
        let spare = SpareContext::default();
        let state: Arc<StateMap> = Arc::default();
        let (a, b): (Arc<str>, Arc<str>) = ("a".into(), "b".into());
        let given = Cancellation::new();
        let progress: ProgressFn = Arc::new(|_: ProgressUpdate| {});
        // A plain call of tool `b`, numbered `n`: its context and the spare handler future.
        let call = |spare: &SpareContext, n| {
            spare.make(
                CallId::Local(n),
                &b,
                Instant::now(),
                Duration::from_secs(2),
                None,
                &state,
                None,
            )
        };
        let local = |spare: &SpareContext, n| call(spare, n).0;
        let (ctx, no_future) = spare.make(
            CallId::Given("c1".into()),
            &a,
            Instant::now(),
            Duration::from_secs(1),
            Some(given.clone()),
            &state,
            Some(progress),
        );
        assert!(no_future.is_none());
        assert_eq!(ctx.call_id(), "c1");
        given.cancel();
        assert!(ctx.is_cancelled() && ctx.wants_progress());
        spare.put(ctx, Some(crate::call::handler::finished_future()));

        // The finished handler future comes back with the context.
        let (ctx, future) = call(&spare, 1);
        assert!(future.is_some());
        spare.put(ctx, None);

        // The allocation is reused, without the last call's id, handle or sink.
        let ctx = local(&spare, 2);
        assert_eq!((ctx.call_id(), ctx.tool_name()), ("local-2", "b"));
        assert!(!ctx.is_cancelled() && !ctx.wants_progress());
        ctx.cancel();
        spare.put(ctx, None);
        let ctx = local(&spare, 3);
        assert_eq!(ctx.call_id(), "local-3");
        assert!(!ctx.is_cancelled());

        // A context something else still holds is not taken back.
        let handle = ctx.cancellation();
        spare.put(ctx, None);
        let ctx = local(&spare, 4);
        handle.cancel();
        assert!(!ctx.is_cancelled());
    }

    #[test]
    fn local_call_ids_are_formatted_when_asked_for() {
        let ctx = local_ctx(7);
        assert_eq!(ctx.call_id(), "local-7");
        assert_eq!(ctx.call_id(), "local-7");
        assert!(format!("{ctx:?}").contains(r#"call_id: "local-7""#));
    }
}
