//! Calling tools: the public call API every caller uses, in process or in a bridge.
//!
//! - [`Session::call`] / [`Session::call_with`]: args as a `Value`, the result as a
//!   [`ToolResult`] (tests, demos, agent loops).
//! - [`Session::call_raw`] / [`Session::call_raw_with`]: args as JSON text, the result as
//!   the JSON text `{"ok":…}`, serialized once straight from the handler's output (what a
//!   bridge writes; the JSON Lines bridge is built on it).
//! - [`Session::start_call`]: a call on its own task, awaited or cancelled through its
//!   [`PendingCall`].
//!
//! [`CallOptions`] carry what a caller may choose per call: the call id the handler sees,
//! a [`Cancellation`] to stop it from elsewhere, and a progress callback.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;

use super::Session;
use super::dispatch::{CallSetup, Shared, cancelled_error};
use crate::call::encode::{Encoding, to_json_text, to_tool_result, to_value_text};
use crate::call::handler::panic_error;
use crate::context::{
    Approver, CallExtras, CallId, Caller, Cancellation, ClientChannel, ProgressSink, ProgressUpdate,
};
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::schema::decode::ArgsIn;
use crate::skills::{InSkillSet, SkillSet};
use crate::tool::Tool;

/// What a caller chooses for one call: its id, a cancellation handle, a progress callback.
/// All optional; `CallOptions::default()` is what [`Session::call`] uses.
///
/// ```
/// # use pedelec_core::CallOptions;
/// # use pedelec_core::context::{Cancellation, ProgressUpdate};
/// let cancel = Cancellation::new();
/// let options = CallOptions::new()
///     .call_id("c-42")
///     .cancellation(cancel.clone())
///     .on_progress(|update: ProgressUpdate| eprintln!("{}/{:?} {}", update.done, update.total, update.message));
/// // session.call_with("update_counter", json!({"delta": 2}), options).await
/// // cancel.cancel() from elsewhere makes it TOOL_CANCELLED
/// # let _ = options;
/// ```
#[derive(Clone, Default)]
pub struct CallOptions {
    call_id: Option<Arc<str>>,
    cancellation: Option<Cancellation>,
    caller: Option<Arc<Caller>>,
    extras: Option<Box<CallExtras>>,
}

impl CallOptions {
    /// No options: a session-local call id, no outside cancellation, progress dropped.
    #[must_use]
    pub fn new() -> Self {
        CallOptions::default()
    }

    /// The call's id, as the handler sees it (`ctx.call_id()`) and as events report it
    /// (by default a session-local `local-N`).
    #[must_use]
    pub fn call_id(mut self, call_id: impl Into<Arc<str>>) -> Self {
        self.call_id = Some(call_id.into());
        self
    }

    /// A cancellation handle: cancelling it stops the call (the handler's future is
    /// dropped, its context cancelled, the result `TOOL_CANCELLED`). The session also sets
    /// it when the call times out or its future is dropped.
    #[must_use]
    pub fn cancellation(mut self, cancellation: Cancellation) -> Self {
        self.cancellation = Some(cancellation);
        self
    }

    /// Receives the handler's [`progress`](crate::ToolCallContext::progress) reports, on the
    /// thread that reports them (keep it short and non-blocking).
    #[must_use]
    pub fn on_progress(mut self, f: impl Fn(ProgressUpdate) + Send + Sync + 'static) -> Self {
        self.extras().progress = Some(Arc::new(f));
        self
    }

    /// [`on_progress`](Self::on_progress) with a sink the caller already shares (a bridge
    /// keeping its per-call state in the sink's allocation, as the JSON Lines bridge does).
    #[must_use]
    pub fn progress_sink(mut self, sink: Arc<dyn ProgressSink>) -> Self {
        self.extras().progress = Some(sink);
        self
    }

    /// The call's channel to its client: where the handler's
    /// [`log`](crate::ToolCallContext::log) messages and requests for input
    /// ([`elicit`](crate::ToolCallContext::elicit), [`sample`](crate::ToolCallContext::sample),
    /// [`roots`](crate::ToolCallContext::roots)) go. Bridges to clients that can answer
    /// them set it; without one, requests for input fail.
    #[must_use]
    pub fn client_channel(mut self, channel: Arc<dyn ClientChannel>) -> Self {
        self.extras().client = Some(channel);
        self
    }

    /// Who makes the call: the handler sees it (`ctx.caller()`), a tool declared with
    /// `#[tool(scopes = [...])]` answers `TOOL_FORBIDDEN` unless the caller holds them all,
    /// and a per-caller rate limit counts the call against the caller's subject. Without a
    /// caller the call is anonymous: tools without scopes run, tools with scopes are
    /// forbidden.
    #[must_use]
    pub fn caller(mut self, caller: impl Into<Arc<Caller>>) -> Self {
        self.caller = Some(caller.into());
        self
    }

    /// Who approves this call if its tool needs approval (`#[tool(approval)]`), before the
    /// session's approver (`SessionBuilder::approver`).
    #[must_use]
    pub fn approver(mut self, approver: impl Approver) -> Self {
        self.extras().approver = Some(Arc::new(approver));
        self
    }

    /// The call's idempotency key: for a tool declared `#[tool(exactly_once)]`, the first
    /// call with a key runs, a concurrent one waits for its answer, a later one gets it
    /// (scoped by the caller's subject and the tool); the same key with other args is
    /// `TOOL_IDEMPOTENCY_CONFLICT`.
    #[must_use]
    pub fn idempotency_key(mut self, key: impl Into<Arc<str>>) -> Self {
        self.extras().idempotency_key = Some(key.into());
        self
    }

    /// The caller, if one was given.
    pub(crate) fn caller_ref(&self) -> Option<&Caller> {
        self.caller.as_deref()
    }

    fn into_setup(self, shared: &Shared) -> CallSetup {
        CallSetup {
            call_id: match self.call_id {
                Some(id) => CallId::Given(id),
                None => shared.local_call_id(),
            },
            cancel: self.cancellation,
            caller: self.caller,
            extras: self.extras,
        }
    }

    /// The rarely given options, made on first use.
    fn extras(&mut self) -> &mut CallExtras {
        self.extras.get_or_insert_default()
    }
}

impl fmt::Debug for CallOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let extras = self.extras.as_deref();
        f.debug_struct("CallOptions")
            .field("call_id", &self.call_id)
            .field("cancellation", &self.cancellation)
            .field("on_progress", &extras.is_some_and(|x| x.progress.is_some()))
            .field(
                "client_channel",
                &extras.is_some_and(|x| x.client.is_some()),
            )
            .field("caller", &self.caller)
            .field("approver", &extras.is_some_and(|x| x.approver.is_some()))
            .field(
                "idempotency_key",
                &extras.and_then(|x| x.idempotency_key.as_ref()),
            )
            .finish()
    }
}

/// JSON text a call takes as its args: a `str` or `String`, or `serde_json`'s [`RawValue`]
/// (the same four text methods take all three). Text that is not one JSON value is
/// `TOOL_ARGS_INVALID`; `null` counts as no args.
pub trait JsonText: sealed::Sealed {
    /// The text.
    fn json_text(&self) -> &str;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for str {}
    impl Sealed for String {}
    impl Sealed for serde_json::value::RawValue {}
    impl Sealed for Box<serde_json::value::RawValue> {}
    impl<T: Sealed + ?Sized> Sealed for &T {}
}

impl JsonText for str {
    fn json_text(&self) -> &str {
        self
    }
}

impl JsonText for String {
    fn json_text(&self) -> &str {
        self
    }
}

impl JsonText for RawValue {
    fn json_text(&self) -> &str {
        self.get()
    }
}

impl JsonText for Box<RawValue> {
    fn json_text(&self) -> &str {
        self.get()
    }
}

impl<T: JsonText + ?Sized> JsonText for &T {
    fn json_text(&self) -> &str {
        (**self).json_text()
    }
}

/// What names a tool in a call ([`Session::call`] and the other call methods): the
/// skill set's enum (`session.call(ToolName::Add, args)`), or the wire name as text
/// (`"add"`, `&String`), which any session takes: a name the set does not have is answered
/// `TOOL_HANDLER_NOT_FOUND` (or served by the fallback), as a call from Core would be.
///
/// An enum names a tool only in a session of its own set: `ToolName::Add` of one
/// `skills![]` in a session of another does not compile.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name a tool in a `Session<{N}>`",
    label = "not a `{N}` variant or a `&str`",
    note = "name the tool with the session's enum (`{N}::…`, variants are the tool names in UpperCamelCase, namespace dropped: `math.add` is `Add`) or its wire name as `&str`"
)]
pub trait CallName<'a, N> {
    /// The wire name.
    fn call_name(self) -> &'a str;
}

impl<'a, S: SkillSet> CallName<'a, S> for S {
    fn call_name(self) -> &'a str {
        self.as_str()
    }
}

impl<'a, N> CallName<'a, N> for &'a str {
    fn call_name(self) -> &'a str {
        self
    }
}

impl<'a, N> CallName<'a, N> for &'a String {
    fn call_name(self) -> &'a str {
        self
    }
}

impl<'a, N> CallName<'a, N> for &'a Arc<str> {
    fn call_name(self) -> &'a str {
        self
    }
}

impl<'a, N> CallName<'a, N> for &'a std::borrow::Cow<'_, str> {
    fn call_name(self) -> &'a str {
        self
    }
}

impl<'a, N> CallName<'a, N> for &'a Box<str> {
    fn call_name(self) -> &'a str {
        self
    }
}

impl<N> Session<N> {
    /// Calls the tool `T` with its own argument type and answers its own output type:
    /// `session.call_tool::<add>(AddArgs { a: 2, b: 3 }).await? == 5`.
    ///
    /// The call is the one [`call_text`](Self::call_text) makes with the args as JSON:
    /// validated against the argsSchema, resolved (named, inline or fallback handler),
    /// wrapped by the session's layers, under the timeout, so a typed call and a call from
    /// a model behave the same. `T` must be a tool of the session's skill set (a compile
    /// error otherwise); its args must be `Serialize` and its output `Deserialize` (derive
    /// them beside `ToolArgs`).
    ///
    /// # Errors
    /// The call's [`ToolError`]; `TOOL_ARGS_INVALID` when the args do not serialize, and
    /// `TOOL_RESULT_INVALID` when the answer does not read back as `T::Output` (a fallback
    /// or JSON handler answered another shape).
    pub async fn call_tool<T>(&self, args: T::Args) -> Result<T::Output, ToolError>
    where
        T: Tool + InSkillSet<N>,
        T::Args: Serialize,
        T::Output: DeserializeOwned,
    {
        self.call_tool_with::<T>(args, CallOptions::default()).await
    }

    /// [`call_tool`](Self::call_tool) with [`CallOptions`].
    ///
    /// # Errors
    /// As [`call_tool`](Self::call_tool).
    pub async fn call_tool_with<T>(
        &self,
        args: T::Args,
        options: CallOptions,
    ) -> Result<T::Output, ToolError>
    where
        T: Tool + InSkillSet<N>,
        T::Args: Serialize,
        T::Output: DeserializeOwned,
    {
        let name = <T as InSkillSet<N>>::WIRE_NAME;
        let args = serde_json::to_string(&args).map_err(|e| {
            ToolError::with_code(
                ErrorCode::ToolArgsInvalid,
                format!("the args of `{name}` do not serialize to JSON: {e}"),
            )
        })?;
        let answer = self.call_text_with(name, &args, options).await?;
        serde_json::from_str(&answer).map_err(|e| {
            ToolError::with_code(
                ErrorCode::ToolResultInvalid,
                format!(
                    "the answer of `{name}` does not read as `{}`: {e}",
                    std::any::type_name::<T::Output>()
                ),
            )
        })
    }
}

impl<N> Session<N> {
    /// Calls a tool in process, as Core would: validated, resolved, under the timeout. The
    /// call runs in the caller's task; dropping the future cancels it.
    ///
    /// (Not an `async fn` delegating to [`call_with`](Self::call_with): that would nest
    /// one future in another, and moving the larger future costs a copy on every call.)
    pub fn call<'a>(
        &self,
        name: impl CallName<'a, N>,
        args: Value,
    ) -> impl Future<Output = ToolResult> + Send {
        self.call_with(name, args, CallOptions::default())
    }

    /// [`call`](Self::call) with [`CallOptions`]: a call id, a cancellation handle, a
    /// progress callback.
    pub fn call_with<'a>(
        &self,
        name: impl CallName<'a, N>,
        args: Value,
        options: CallOptions,
    ) -> impl Future<Output = ToolResult> + Send {
        let setup = options.into_setup(&self.shared);
        self.shared.run(
            setup,
            name.call_name(),
            ArgsIn::Value(args),
            Encoding::Value,
            to_tool_result,
        )
    }

    /// Calls a tool with its args as JSON text and returns the result as JSON text
    /// (`{"ok":true,"value":…}` or `{"ok":false,"error":{…}}`): what a custom bridge needs.
    pub fn call_raw<'a>(
        &self,
        name: impl CallName<'a, N>,
        args: &(impl JsonText + ?Sized),
    ) -> impl Future<Output = String> + Send {
        self.call_raw_with(name, args, CallOptions::default())
    }

    /// [`call_raw`](Self::call_raw) with [`CallOptions`], the args as JSON text (text
    /// that is not one JSON value is `TOOL_ARGS_INVALID`; `null` counts as no args). The
    /// args go from the text straight to the handler's argument type and the output
    /// straight to the returned text: this is the fast path bridges use.
    pub fn call_raw_with<'a>(
        &self,
        name: impl CallName<'a, N>,
        args: &(impl JsonText + ?Sized),
        options: CallOptions,
    ) -> impl Future<Output = String> + Send {
        let setup = options.into_setup(&self.shared);
        self.shared.run(
            setup,
            name.call_name(),
            ArgsIn::Text(args.json_text()),
            Encoding::Text,
            to_json_text,
        )
    }

    /// Calls a tool with its args as JSON text and returns the value's JSON text (no
    /// `{"ok":…}` envelope) or the call's error: [`call_text_with`](Self::call_text_with)
    /// without options.
    pub fn call_text<'a>(
        &self,
        name: impl CallName<'a, N>,
        args: &(impl JsonText + ?Sized),
    ) -> impl Future<Output = Result<String, ToolError>> + Send {
        self.call_text_with(name, args, CallOptions::default())
    }

    /// [`call_raw_with`](Self::call_raw_with) for a bridge that frames results its own
    /// way (MCP): the value's JSON text on success (no `{"ok":…}` envelope), the error on
    /// failure. Same fast path: args from text straight to the handler's type, the output
    /// straight to text.
    pub fn call_text_with<'a>(
        &self,
        name: impl CallName<'a, N>,
        args: &(impl JsonText + ?Sized),
        options: CallOptions,
    ) -> impl Future<Output = Result<String, ToolError>> + Send {
        let setup = options.into_setup(&self.shared);
        self.shared.run(
            setup,
            name.call_name(),
            ArgsIn::Text(args.json_text()),
            Encoding::Text,
            to_value_text,
        )
    }

    /// Starts a call on the runtime and returns at once: the [`PendingCall`] can be awaited
    /// for the result, or cancelled (the result is then `TOOL_CANCELLED`).
    ///
    /// Must be called within a tokio runtime.
    #[must_use]
    pub fn start_call<'a>(&self, name: impl CallName<'a, N>, args: Value) -> PendingCall {
        self.start_call_with(name, args, CallOptions::default())
    }

    /// [`start_call`](Self::start_call) with [`CallOptions`] (a given cancellation handle
    /// is the one [`PendingCall::cancel`] sets).
    #[must_use]
    pub fn start_call_with<'a>(
        &self,
        name: impl CallName<'a, N>,
        args: Value,
        options: CallOptions,
    ) -> PendingCall {
        let call_id: Arc<str> = match &options.call_id {
            Some(id) => id.clone(),
            None => self.shared.local_call_id().to_string().into(),
        };
        let cancel = options.cancellation.clone().unwrap_or_default();
        let setup = CallSetup {
            call_id: CallId::Given(call_id.clone()),
            cancel: Some(cancel.clone()),
            caller: options.caller,
            extras: options.extras,
        };
        let shared = self.shared.clone();
        let name: Box<str> = name.call_name().into();
        let task = tokio::spawn(async move {
            shared
                .run(
                    setup,
                    &name,
                    ArgsIn::Value(args),
                    Encoding::Value,
                    to_tool_result,
                )
                .await
        });
        PendingCall {
            call_id,
            cancel,
            task,
            done: false,
        }
    }
}

/// A call started with [`Session::start_call`]: await it for the result, or cancel it.
/// Dropping it before the result arrived cancels the call.
#[derive(Debug)]
pub struct PendingCall {
    call_id: Arc<str>,
    cancel: Cancellation,
    task: tokio::task::JoinHandle<ToolResult>,
    done: bool,
}

impl PendingCall {
    /// The call's id.
    #[must_use]
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// Cancels the call, as Core does: the handler's future is dropped, its context is
    /// cancelled, and the result is `TOOL_CANCELLED` (unless it had already finished).
    pub fn cancel(&self) {
        self.cancel.cancel();
    }

    /// A handle that cancels this call from elsewhere.
    #[must_use]
    pub fn cancellation(&self) -> Cancellation {
        self.cancel.clone()
    }
}

impl Future for PendingCall {
    type Output = ToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolResult> {
        let result = match Pin::new(&mut self.task).poll(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Ok(result)) => result,
            Poll::Ready(Err(e)) if e.is_panic() => {
                ToolResult::Err(panic_error(e.into_panic().as_ref()))
            }
            Poll::Ready(Err(_)) => ToolResult::Err(cancelled_error()),
        };
        self.done = true;
        Poll::Ready(result)
    }
}

impl Drop for PendingCall {
    fn drop(&mut self) {
        if !self.done {
            self.cancel.cancel();
        }
    }
}
