//! [`ToolCallContext`]: what a handler knows about the call it serves.
//!
//! - `mod.rs`: the context itself (call id, tool, deadline, state, progress), and how a
//!   session makes one per call and reuses its allocation for the next call;
//! - `caller`: [`Caller`], who makes the call and which scopes they hold;
//! - `cancel`: [`Cancellation`], the call's cancellation flag;
//! - `state`: [`StateMap`], the session's shared state;
//! - `progress`: [`ProgressUpdate`] and where reports go ([`ProgressSink`]);
//! - `client`: what a handler can ask of the client ([`ClientChannel`]): log messages,
//!   elicitation, sampling, roots.
//!
//! It knows nothing of handlers, tools or sessions.

mod approval;
mod caller;
mod cancel;
mod client;
mod progress;
mod state;

use std::fmt;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

#[cfg(feature = "mcp")]
pub(crate) use approval::APPROVAL_KEY;
pub(crate) use approval::ApproverFn;
pub use approval::{Approval, ApprovalFuture, ApprovalRequest, Approver};
pub use caller::Caller;
use cancel::CancelFlag;
pub use cancel::Cancellation;
pub use client::{
    ClientChannel, Elicited, InputError, InputFuture, InputKind, InputRequest, LogLevel, Root,
    SampleRequest, Sampled,
};
pub use progress::{ProgressSink, ProgressUpdate};
pub use state::StateMap;

use crate::error::ToolError;

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

impl CallId {
    /// The id as text (`local-7` for a local one), without the formatting machinery.
    pub(crate) fn to_text(&self) -> String {
        match self {
            CallId::Given(id) => id.to_string(),
            CallId::Local(n) => {
                let mut digits = [0u8; 20];
                let mut at = digits.len();
                let mut n = *n;
                loop {
                    at -= 1;
                    // A digit: below 10, so the cast keeps it.
                    #[allow(clippy::cast_possible_truncation)]
                    let digit = (n % 10) as u8;
                    digits[at] = b'0' + digit;
                    n /= 10;
                    if n == 0 {
                        break;
                    }
                }
                let mut text = String::with_capacity(6 + digits.len() - at);
                text.push_str("local-");
                for &d in &digits[at..] {
                    text.push(char::from(d));
                }
                text
            }
        }
    }
}

impl fmt::Display for CallId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallId::Given(id) => f.write_str(id),
            CallId::Local(n) => write!(f, "local-{n}"),
        }
    }
}

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
    caller: Option<Arc<Caller>>,
    extras: Option<Box<CallExtras>>,
}

/// What few calls bring: a progress sink, a channel to an MCP client, the call's own
/// approver (`CallOptions::approver`), an idempotency key (`CallOptions::idempotency_key`).
/// Behind one pointer, which a plain call leaves empty: its context moves, renews and
/// clears one word instead of four (measured with `examples/call_cost.rs`).
#[derive(Clone, Default)]
pub(crate) struct CallExtras {
    pub(crate) progress: Option<ProgressFn>,
    pub(crate) client: Option<ClientFn>,
    pub(crate) approver: Option<ApproverFn>,
    pub(crate) idempotency_key: Option<Arc<str>>,
    /// Whether the call's handler started (set for exactly-once calls only).
    pub(crate) marks: CallMarks,
}

/// What a session learns of a call as it goes, for the calls that need to know (an
/// exactly-once call: whether its handler started). A copy starts afresh: it is another call.
#[derive(Default)]
pub(crate) struct CallMarks {
    started: std::sync::atomic::AtomicBool,
}

impl Clone for CallMarks {
    fn clone(&self) -> Self {
        CallMarks::default()
    }
}

/// A call's channel to its client.
pub(crate) type ClientFn = Arc<dyn ClientChannel>;

/// A call's progress sink.
pub(crate) type ProgressFn = Arc<dyn ProgressSink>;

/// What a session knows of a call when it makes the call's context.
pub(crate) struct CallParts {
    pub(crate) call_id: CallId,
    /// The deadline is `start + timeout`.
    pub(crate) start: Instant,
    pub(crate) timeout: Duration,
    /// The caller's handle; without one, the call's flag lives in the context.
    pub(crate) cancellation: Option<Cancellation>,
    pub(crate) caller: Option<Arc<Caller>>,
    pub(crate) extras: Option<Box<CallExtras>>,
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
            CallParts {
                call_id: CallId::Given(call_id.into()),
                start: Instant::now(),
                timeout,
                cancellation: Some(cancellation),
                caller: None,
                extras: None,
            },
            tool_name.into(),
            state,
        )
    }

    /// A context for any kind of call id, its deadline `timeout` after `start` (a timeout
    /// too large to represent as an instant never passes); without a `cancellation`, the
    /// call's flag lives in the context's allocation.
    pub(crate) fn of_call(parts: CallParts, tool_name: Arc<str>, state: Arc<StateMap>) -> Self {
        let CallParts {
            call_id,
            start,
            timeout,
            cancellation,
            caller,
            extras,
        } = parts;
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
                caller,
                extras,
            }),
        }
    }

    /// A context for a new call in this one's allocation (one [`recycle`](Self::recycle)d
    /// by a call that finished): what stays (the tool's name, the state) is replaced only
    /// when it differs. A context something else holds is left alone and a new one made.
    #[inline]
    pub(crate) fn renew(
        mut self,
        parts: CallParts,
        tool_name: &Arc<str>,
        state: &Arc<StateMap>,
    ) -> Self {
        let Some(reused) = Arc::get_mut(&mut self.inner) else {
            return ToolCallContext::of_call(parts, tool_name.clone(), state.clone());
        };
        reused.call_id = parts.call_id;
        if !Arc::ptr_eq(&reused.tool_name, tool_name) {
            reused.tool_name = tool_name.clone();
        }
        reused.start = parts.start;
        reused.timeout = parts.timeout;
        if let Some(given) = parts.cancellation {
            reused.cancellation = CallCancel::Given(given);
        }
        if !Arc::ptr_eq(&reused.state, state) {
            reused.state = state.clone();
        }
        reused.caller = parts.caller;
        reused.extras = parts.extras;
        self
    }

    /// A finished call's context, cleared of everything the call brought (its id,
    /// cancellation handle and progress sink) so that the next call can
    /// [`renew`](Self::renew) it; `None` when something else still holds it (a handler may
    /// keep a clone, or a cancellation handle, for work that outlives the call).
    #[inline]
    pub(crate) fn recycle(mut self) -> Option<Self> {
        let inner = Arc::get_mut(&mut self.inner)?;
        // Cleared as a new context starts: not cancelled, no caller's id, handle or sink.
        inner.call_id = CallId::Local(0);
        inner.local_id_text.take();
        match &mut inner.cancellation {
            CallCancel::Own(flag) => flag.reset(),
            CallCancel::Given(_) => inner.cancellation = CallCancel::Own(CancelFlag::default()),
        }
        inner.caller = None;
        inner.extras = None;
        Some(self)
    }

    /// The tool's name, shared.
    pub(crate) fn tool_name_arc(&self) -> Arc<str> {
        self.inner.tool_name.clone()
    }

    /// When the call started (its deadline is this plus its timeout).
    pub(crate) fn started(&self) -> Instant {
        self.inner.start
    }

    /// What the call brought beyond its id, cancellation and caller, if anything.
    #[inline]
    pub(crate) fn extras(&self) -> Option<&CallExtras> {
        self.inner.extras.as_deref()
    }

    /// The call's channel to its client, if it has one.
    pub(crate) fn client_fn(&self) -> Option<&ClientFn> {
        self.extras().and_then(|x| x.client.as_ref())
    }

    /// The call's handler was polled: from now on it may have done what it does (a call
    /// without extras, which no exactly-once call is, keeps no mark).
    pub(crate) fn mark_started(&self) {
        if let Some(extras) = self.extras() {
            extras
                .marks
                .started
                .store(true, std::sync::atomic::Ordering::Release);
        }
    }

    /// Whether [`mark_started`](Self::mark_started) was called.
    pub(crate) fn handler_started(&self) -> bool {
        self.extras()
            .is_some_and(|x| x.marks.started.load(std::sync::atomic::Ordering::Acquire))
    }

    /// Whether the call stopped to ask its client for input it must be retried with
    /// ([`ClientChannel::parked`]).
    pub(crate) fn parked(&self) -> bool {
        self.client_fn().is_some_and(|client| client.parked())
    }

    /// The call's id as an owned string (formatted without caching it).
    pub(crate) fn call_id_text(&self) -> String {
        self.inner.call_id.to_text()
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
            CallCancel::Own(_) => Cancellation::of_call(self.inner.clone()),
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
        if let Some(report) = self.extras().and_then(|x| x.progress.as_ref()) {
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
        self.extras().is_some_and(|x| x.progress.is_some())
    }

    /// Logs a message for the client: an MCP `notifications/message` when the client
    /// asked for messages of this level (`logging/setLevel`, or the request's `logLevel`),
    /// and always a `tracing` event (target `pedelec::tool`) with the call's span.
    /// Reports after the call's result was delivered are dropped.
    pub fn log(&self, level: LogLevel, message: impl AsRef<str>) {
        let message = message.as_ref();
        match level {
            LogLevel::Debug => tracing::debug!(target: "pedelec::tool", "{message}"),
            LogLevel::Info | LogLevel::Notice => {
                tracing::info!(target: "pedelec::tool", level = %level, "{message}");
            }
            LogLevel::Warning => tracing::warn!(target: "pedelec::tool", "{message}"),
            _ => tracing::error!(target: "pedelec::tool", level = %level, "{message}"),
        }
        if let Some(client) = self.client_fn()
            && client.log_enabled(level)
        {
            client.log(level, message);
        }
    }

    /// Whether a [`log`](Self::log) message at `level` reaches the client (to skip
    /// building messages nobody reads).
    #[must_use]
    pub fn wants_log(&self, level: LogLevel) -> bool {
        self.client_fn()
            .is_some_and(|client| client.log_enabled(level))
    }

    /// Whether the client can answer requests for `kind` of input (it declared the
    /// capability, and the transport carries the request).
    #[must_use]
    pub fn client_supports(&self, kind: InputKind) -> bool {
        self.client_fn().is_some_and(|client| client.supports(kind))
    }

    /// Asks the person using the client to fill in a form of type `T` (MCP elicitation),
    /// with `message` telling them why. `key` names the request among this call's requests
    /// (unique per call, for instance `"confirm"`).
    ///
    /// `T`'s argsSchema is the form: it must be an object of strings, numbers, integers,
    /// booleans and multiple choices (arrays of an enum), which is checked at compile
    /// time. Declining or cancelling the form are answers ([`Elicited`]), not errors.
    /// Choices whose variants have `#[arg(title = "…")]` are shown by their titles (MCP's
    /// titled choices: a `oneOf` or `items.anyOf` of `{"const", "title"}`, or `enumNames`
    /// for a field with `#[arg(enum_names)]`).
    ///
    /// Over MCP 2025-11-25 this sends `elicitation/create` while the call waits (on stdio,
    /// or `McpHttp::stateful(true)`); over 2026-07-28 the call is answered with an
    /// input-required result and the client calls again with the answer: **the handler then
    /// runs again from its start**, so work before the first `elicit` runs twice (keep it
    /// idempotent, or ask first). Several `elicit`s awaited together
    /// (`tokio::join!`) become one round.
    ///
    /// # Errors
    /// When the client cannot be asked (it did not declare `elicitation`: over MCP the call
    /// then answers the protocol error `-32021`; the transport carries no requests to the
    /// client), the request failed, or the answer does not match `T`.
    pub async fn elicit<T>(
        &self,
        key: &str,
        message: impl Into<String>,
    ) -> Result<Elicited<T>, ToolError>
    where
        T: crate::schema::ToolArgs + serde::de::DeserializeOwned,
    {
        const {
            assert!(
                const { &T::SCHEMA }.is_flat_form(),
                "`ctx.elicit::<T>` asks a person to fill in a form: `T` must be a struct of strings, numbers, integers, booleans and multiple choices (a `Vec` of a unit enum), with nothing nested"
            );
        }
        let schema = const { &T::SCHEMA };
        let request = InputRequest::Elicit {
            message: message.into(),
            requested_schema: client::form_schema(schema),
        };
        let answer = self.ask(key, request).await?;
        client::read_elicited(key, schema, answer)
    }

    /// Asks the client's model for a completion (MCP sampling): the answer's text, the
    /// model's name and why it stopped. `key` names the request among this call's
    /// requests. Over 2026-07-28 the handler runs again from its start with the answer (see
    /// [`elicit`](Self::elicit)).
    ///
    /// # Errors
    /// As [`elicit`](Self::elicit), with the `sampling` capability.
    pub async fn sample(&self, key: &str, request: SampleRequest) -> Result<Sampled, ToolError> {
        let answer = self
            .ask(key, InputRequest::Sample(request.to_json()))
            .await?;
        client::read_sampled(key, &answer)
    }

    /// The client's roots (MCP `roots/list`): the `file://` locations it lets the server
    /// work in. `key` names the request among this call's requests. Over 2026-07-28 the
    /// handler runs again from its start with the answer (see [`elicit`](Self::elicit)).
    ///
    /// # Errors
    /// As [`elicit`](Self::elicit), with the `roots` capability.
    pub async fn roots(&self, key: &str) -> Result<Vec<Root>, ToolError> {
        let answer = self.ask(key, InputRequest::ListRoots).await?;
        client::read_roots(key, answer)
    }

    async fn ask(&self, key: &str, request: InputRequest) -> Result<serde_json::Value, ToolError> {
        let kind = request.kind();
        let Some(client) = self.client_fn() else {
            return Err(client::input_error(
                key,
                kind,
                &InputError::Unsupported(
                    "this call's caller cannot be asked for input (it is not an MCP client)".into(),
                ),
            ));
        };
        client
            .ask(key, request)
            .await
            .map_err(|e| client::input_error(key, kind, &e))
    }

    /// Who makes the call: the caller a bridge authenticated (`McpHttp` from the access
    /// token, `JsonLines::caller`), or the one given with `CallOptions::caller`; `None` for
    /// an anonymous in-process call.
    #[must_use]
    pub fn caller(&self) -> Option<&Caller> {
        self.inner.caller.as_deref()
    }

    /// The caller, shared (what the call keeps beyond its own context).
    pub(crate) fn caller_arc(&self) -> Option<Arc<Caller>> {
        self.inner.caller.clone()
    }

    /// The call's idempotency key (`CallOptions::idempotency_key`, MCP's
    /// `_meta["dev.pedelec/idempotencyKey"]`, the HTTP `Idempotency-Key` header), if any.
    #[must_use]
    pub fn idempotency_key(&self) -> Option<&str> {
        self.extras().and_then(|x| x.idempotency_key.as_deref())
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
    use std::sync::Mutex;

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

    /// Call `local-n`, with a 1 s timeout and `cancellation`.
    fn parts(n: u64, cancellation: Option<Cancellation>) -> CallParts {
        CallParts {
            call_id: CallId::Local(n),
            start: Instant::now(),
            timeout: Duration::from_secs(1),
            cancellation,
            caller: None,
            extras: None,
        }
    }

    /// The context of call `local-n` of `tool`.
    fn ctx_of(n: u64, tool: &str, cancellation: Option<Cancellation>) -> ToolCallContext {
        ToolCallContext::of_call(parts(n, cancellation), tool.into(), Arc::default())
    }

    #[tokio::test]
    async fn a_context_s_cancellation_handle_is_its_flag() {
        // The flag in the context's allocation.
        let ctx = ctx_of(1, "t", None);
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
        let ctx = ctx_of(2, "t", Some(given.clone()));
        ctx.cancellation().cancel();
        assert!(given.is_cancelled() && ctx.is_cancelled());

        // A nested call given the handle of its parent's context.
        let parent = ToolCallContext::detached("parent");
        let child = ctx_of(3, "child", Some(parent.cancellation()));
        parent.cancel();
        assert!(child.is_cancelled());
        child.cancellation().cancelled().await;
    }

    #[test]
    fn a_recycled_context_starts_clean() {
        let state: Arc<StateMap> = Arc::default();
        let b: Arc<str> = "b".into();
        let given = Cancellation::new();
        let mut first = parts(1, Some(given.clone()));
        first.call_id = CallId::Given("c1".into());
        first.extras = Some(Box::new(CallExtras {
            progress: Some(Arc::new(|_: ProgressUpdate| {})),
            ..CallExtras::default()
        }));
        let ctx = ToolCallContext::of_call(first, "a".into(), state.clone());
        given.cancel();
        assert!(ctx.is_cancelled() && ctx.wants_progress());
        let at = Arc::as_ptr(&ctx.inner);

        // The allocation is reused, without the last call's id, handle or sink.
        let ctx = ctx.recycle().unwrap().renew(parts(2, None), &b, &state);
        assert_eq!(Arc::as_ptr(&ctx.inner), at);
        assert_eq!((ctx.call_id(), ctx.tool_name()), ("local-2", "b"));
        assert!(!ctx.is_cancelled() && !ctx.wants_progress());
        ctx.cancel();
        let ctx = ctx.recycle().unwrap().renew(parts(3, None), &b, &state);
        assert_eq!(ctx.call_id(), "local-3");
        assert!(!ctx.is_cancelled());

        // A context something else still holds is not taken back.
        let handle = ctx.cancellation();
        assert!(ctx.recycle().is_none());
        handle.cancel();
    }

    #[test]
    fn local_call_ids_are_formatted_when_asked_for() {
        for n in [0, 7, 10, 12_345, u64::MAX] {
            assert_eq!(CallId::Local(n).to_text(), format!("local-{n}"));
        }
        assert_eq!(CallId::Given("c-1".into()).to_text(), "c-1");
        let ctx = ctx_of(7, "t", None);
        assert_eq!(ctx.call_id(), "local-7");
        assert_eq!(ctx.call_id(), "local-7");
        assert!(format!("{ctx:?}").contains(r#"call_id: "local-7""#));
    }
}
