//! The session: a skill set made live. It checks the tools once, compiles their schemas,
//! keeps the handlers, and answers every call exactly once — validated, resolved to a
//! handler, run under the tool's timeout, panics isolated, the result serialized strictly.
//!
//! ```ignore
//! let session = pedelec::Session::builder(ToolName::skills())
//!     .state(Counter::default())
//!     .create()?;
//! session.on_tool::<update_counter>(|args, ctx| async move {
//!     Ok(CounterValue { value: ctx.state::<Counter>()?.add(args.delta) })
//! });
//! let result = session.call("update_counter", json!({"delta": 2})).await;
//! session.serve(pedelec::bridge::JsonLines::stdio()).await?;
//! ```
//!
//! # Handler resolution
//!
//! For a call of a tool in the skill set: (1) the named handler registered on the session
//! ([`Session::on_tool`], [`Session::on_tool_name`]), (2) the tool's inline handler (its
//! `#[tool]` function, or [`ToolDefinition::handler`](crate::ToolDefinition::handler)),
//! (3) the fallback ([`Session::set_fallback`]), (4) `TOOL_HANDLER_NOT_FOUND`. The args are
//! validated first, so invalid args are `TOOL_ARGS_INVALID` even when no handler exists. A
//! call of a name that is not in the skill set goes to the fallback (its args unchecked), or
//! is `TOOL_HANDLER_NOT_FOUND`.

pub(crate) mod args;
mod events;
mod input;
pub(crate) mod strict;

use std::collections::HashMap;
use std::fmt;
use std::future::{Future, poll_fn};
use std::marker::PhantomData;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::time::Instant;
use tracing::Instrument as _;

pub use events::{EventStream, SessionEvent};
pub(crate) use input::describe as describe_value;

use crate::bridge::Bridge;
use crate::context::{CallId, Cancellation, StateMap, ToolCallContext};
use crate::error::{Error, ErrorCode, Problem, ToolError, ToolResult};
use crate::handler::{
    Encoded, Encoding, FallbackHandler, HandlerFuture, ToolCall, ToolHandler, panic_error,
};
use crate::manifest::SerializableSkillsManifest;
use crate::skills::{InSkillSet, SkillSet, SkillsInput};
use crate::tool::Tool;
use args::{ArgsIn, CompiledArgs};

/// A handler function: `Fn(args, ctx) -> impl Future<Output = Result<O, ToolError>>`,
/// `Send + Sync + 'static`, its future `Send + 'static`. Implemented for every such closure
/// or function; it exists so that `session.on_tool::<T>(|args, ctx| async move { … })`
/// infers the closure's argument types.
pub trait HandlerFn<A, O>:
    Fn(A, ToolCallContext) -> <Self as HandlerFn<A, O>>::Future + Send + Sync + 'static
{
    /// The future the handler returns.
    type Future: Future<Output = Result<O, ToolError>> + Send + 'static;
}

impl<A, O, F, Fut> HandlerFn<A, O> for F
where
    F: Fn(A, ToolCallContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
{
    type Future = Fut;
}

/// A value naming a tool of a session whose tool names are `N`: the `ToolName` enum of a
/// `skills![]` session, or any string for a session built at run time (`N = String`).
pub trait ToolKey<N> {
    /// The wire name.
    fn tool_name(&self) -> &str;
}

impl<S: SkillSet> ToolKey<S> for S {
    fn tool_name(&self) -> &str {
        self.as_str()
    }
}

impl<T: AsRef<str> + ?Sized> ToolKey<String> for T {
    fn tool_name(&self) -> &str {
        self.as_ref()
    }
}

/// Creates a session with default options: `Session::builder(skills).create()`.
///
/// # Errors
/// `INVALID_INPUT` listing every problem of the skill set (see [`SessionBuilder::create`]).
pub fn create_session<N>(skills: SkillsInput<N>) -> Result<Session<N>, Error> {
    Session::builder(skills).create()
}

/// Options of a session being created (`Session::builder(skills)`).
pub struct SessionBuilder<N = String> {
    skills: SkillsInput<N>,
    state: StateMap,
    event_capacity: usize,
}

impl<N> SessionBuilder<N> {
    /// Registers shared application state, read by handlers with `ctx.state::<T>()`. One
    /// value per type; registering a second value of a type replaces the first.
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Registers shared state the application also keeps a handle to.
    #[must_use]
    pub fn state_arc<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.state.insert_arc(value);
        self
    }

    /// How many events a slow [`EventStream`] may fall behind before it misses some
    /// (default 1024).
    #[must_use]
    pub fn event_capacity(mut self, capacity: usize) -> Self {
        self.event_capacity = capacity;
        self
    }

    /// Creates the session (the seed's `createSession()`): checks every tool, compiles the
    /// argsSchemas, keeps the inline handlers and builds the manifest.
    ///
    /// # Errors
    /// One `INVALID_INPUT` [`Error`] listing every problem, each with its path
    /// (`tools[1].name: …`): bad names, blank descriptions, invalid schemas, zero timeouts,
    /// duplicate names.
    pub fn create(self) -> Result<Session<N>, Error> {
        let problems = input::definition_problems(self.skills.tools());
        if !problems.is_empty() {
            return Err(Error::invalid_input(problems));
        }
        let manifest = self.skills.manifest();
        let mut by_name = HashMap::with_capacity_and_hasher(
            self.skills.tools().len(),
            foldhash::fast::RandomState::default(),
        );
        let mut tools = Vec::with_capacity(self.skills.tools().len());
        let mut problems = Vec::new();
        for (i, def) in self.skills.tools().iter().enumerate() {
            let name: Arc<str> = Arc::from(def.name());
            by_name.insert(Box::from(def.name()), i);
            let timeout_ms = def
                .timeout_ms()
                .unwrap_or(pedelec_rules::DEFAULT_TIMEOUT_MS);
            // Compiled once here; every call validates against the compiled form.
            let mut schema = def.args_schema().clone();
            if let Err(e) = schema.compile() {
                problems.extend(e.problems().iter().map(|p| Problem {
                    path: format!("tools[{i}].argsSchema{}", p.pointer),
                    message: p.message.clone(),
                }));
            }
            let args = match schema.compiled_shared() {
                Some(compiled) => CompiledArgs::new(name.clone(), compiled.clone()),
                // Reported above; the session is not created.
                None => CompiledArgs::unchecked(name.clone()),
            };
            tools.push(ToolEntry {
                args,
                name,
                timeout: Duration::from_millis(timeout_ms),
                inline: def.handler().cloned(),
                named: RwLock::new(None),
            });
        }
        if !problems.is_empty() {
            return Err(Error::invalid_input(problems));
        }
        Ok(Session {
            shared: Arc::new(Shared {
                manifest,
                tools,
                by_name,
                fallback: RwLock::new(None),
                state: Arc::new(self.state),
                events: events::EventHub::new(self.event_capacity),
                next_call: AtomicU64::new(1),
            }),
            names: PhantomData,
        })
    }
}

impl<N> fmt::Debug for SessionBuilder<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionBuilder")
            .field("skills", &self.skills)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// A live skill set: answers tool calls from an in-process caller ([`call`](Self::call))
/// or from Core over a bridge ([`serve`](Self::serve)).
///
/// `N` is the type of tool names: the `ToolName` enum of a `skills![]` skill set, or
/// `String` for one built at run time. Cloning is cheap and every clone is the same session:
/// handlers registered on one clone serve calls arriving through any other, before or
/// after `serve` started.
pub struct Session<N = String> {
    shared: Arc<Shared>,
    names: PhantomData<fn() -> N>,
}

impl<N> Clone for Session<N> {
    fn clone(&self) -> Self {
        Session {
            shared: self.shared.clone(),
            names: PhantomData,
        }
    }
}

impl<N> fmt::Debug for Session<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Session")
            .field(
                "tools",
                &self
                    .shared
                    .tools
                    .iter()
                    .map(|t| &*t.name)
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl<N> Session<N> {
    /// Starts building a session for a skill set (`ToolName::skills()`, or
    /// `SkillsInput::from_json(..)`).
    #[must_use]
    pub fn builder(skills: SkillsInput<N>) -> SessionBuilder<N> {
        SessionBuilder {
            skills,
            state: StateMap::default(),
            event_capacity: 1024,
        }
    }

    /// The manifest sent to Core: guidance and every tool's name, description, argsSchema
    /// and timeout (no handlers).
    #[must_use]
    pub fn manifest(&self) -> SerializableSkillsManifest {
        self.shared.manifest.clone()
    }

    /// Registers the named handler of the tool `T` (resolution step 1), typed: it receives
    /// `T::Args` and returns `T::Output`. It does not compile when `T` is not in the
    /// session's skill set (for a session built at run time, every `#[tool]` qualifies and
    /// the name is checked when registering).
    ///
    /// Registering again replaces the previous named handler. Handlers may be registered
    /// before or after [`serve`](Self::serve); a call already running keeps the handler it
    /// started with.
    ///
    /// # Panics
    /// Only for a session built at run time whose skill set has no tool named `T::NAME`
    /// (use [`try_on_tool`](Self::try_on_tool) to get an error instead).
    pub fn on_tool<T>(&self, handler: impl HandlerFn<T::Args, T::Output>) -> &Self
    where
        T: Tool + InSkillSet<N>,
    {
        if let Err(e) = self.try_on_tool::<T>(handler) {
            panic!("{e}");
        }
        self
    }

    /// [`on_tool`](Self::on_tool), returning an error when the session has no tool named
    /// `T::NAME`.
    ///
    /// # Errors
    /// `INVALID_INPUT` naming the tool (with a "did you mean").
    pub fn try_on_tool<T>(
        &self,
        handler: impl HandlerFn<T::Args, T::Output>,
    ) -> Result<&Self, Error>
    where
        T: Tool + InSkillSet<N>,
    {
        self.shared.register(T::NAME, ToolHandler::typed(handler))?;
        Ok(self)
    }

    /// Registers the named handler of a tool, taking its args as JSON (validated, `null`s of
    /// optional properties removed) and returning any serializable value. Replaces an
    /// earlier named handler of the tool.
    ///
    /// # Panics
    /// Only for a session built at run time, when `name` is not in its skill set (use
    /// [`try_on_tool_name`](Self::try_on_tool_name) to get an error instead).
    pub fn on_tool_name<O: Serialize + Send + 'static>(
        &self,
        name: impl ToolKey<N>,
        handler: impl HandlerFn<Value, O>,
    ) -> &Self {
        if let Err(e) = self.try_on_tool_name(name, handler) {
            panic!("{e}");
        }
        self
    }

    /// [`on_tool_name`](Self::on_tool_name), returning an error for a name that is not in
    /// the skill set.
    ///
    /// # Errors
    /// `INVALID_INPUT` naming the tool (with a "did you mean").
    pub fn try_on_tool_name<O: Serialize + Send + 'static>(
        &self,
        name: impl ToolKey<N>,
        handler: impl HandlerFn<Value, O>,
    ) -> Result<&Self, Error> {
        self.shared
            .register(name.tool_name(), ToolHandler::json(handler))?;
        Ok(self)
    }

    /// Sets the fallback handler (resolution step 3): it serves every tool without a named
    /// or inline handler, and every call of a name outside the skill set. It receives the
    /// [`ToolCall`] (name, args, call id). Setting it again replaces it.
    pub fn set_fallback<O: Serialize + Send + 'static>(
        &self,
        handler: impl HandlerFn<ToolCall, O>,
    ) -> &Self {
        *self
            .shared
            .fallback
            .write()
            .unwrap_or_else(PoisonError::into_inner) = Some(FallbackHandler::new(handler));
        self
    }

    /// Subscribes to the session's events: calls started and finished, and results that
    /// could not be delivered (`SubmitToolResultFailed`).
    #[must_use]
    pub fn events(&self) -> EventStream {
        self.shared.events.subscribe()
    }

    /// Calls a tool in process (the embedded [`LocalCore`](crate::bridge::LocalCore)), as
    /// Core would: validated, resolved, under the timeout. The call runs in the caller's
    /// task; dropping the future cancels it.
    pub async fn call(&self, name: &str, args: Value) -> ToolResult {
        self.call_as(self.shared.local_call_id(), name, args).await
    }

    /// [`call`](Self::call) with a call id chosen by the caller (seen by the handler as
    /// `ctx.call_id()`, and in events).
    pub async fn call_with_id(
        &self,
        call_id: impl Into<Arc<str>>,
        name: &str,
        args: Value,
    ) -> ToolResult {
        self.call_as(CallId::Given(call_id.into()), name, args)
            .await
    }

    async fn call_as(&self, call_id: CallId, name: &str, args: Value) -> ToolResult {
        let result = self
            .shared
            .run(
                call_id,
                name,
                ArgsIn::Value(args),
                Cancellation::new(),
                Encoding::Value,
            )
            .await;
        to_tool_result(result)
    }

    /// Calls a tool with its args as JSON text and returns the result as JSON text
    /// (`{"ok":true,"value":…}` or `{"ok":false,"error":{…}}`): what a custom bridge needs.
    pub async fn call_raw(&self, name: &str, args: &RawValue) -> String {
        let call_id = self.shared.local_call_id();
        let result = self
            .shared
            .run(
                call_id,
                name,
                ArgsIn::Text(args.get()),
                Cancellation::new(),
                Encoding::Text,
            )
            .await;
        let out = match result {
            // The common case wraps the value's buffer (it has room) instead of copying it.
            Ok(Encoded::Text(mut text)) => {
                let len = text.len();
                text.resize(OK_PREFIX.len() + len, 0);
                text.copy_within(..len, OK_PREFIX.len());
                text[..OK_PREFIX.len()].copy_from_slice(OK_PREFIX);
                text.push(b'}');
                text
            }
            result => {
                let mut out = Vec::with_capacity(64);
                write_result(&mut out, result);
                out
            }
        };
        String::from_utf8(out).unwrap_or_default()
    }

    /// Starts a call on the runtime and returns at once: the [`PendingCall`] can be awaited
    /// for the result, or cancelled (the result is then `TOOL_CANCELLED`).
    ///
    /// Must be called within a tokio runtime.
    #[must_use]
    pub fn start_call(&self, name: &str, args: Value) -> PendingCall {
        let call_id: Arc<str> = self.shared.local_call_id().to_string().into();
        let cancel = Cancellation::new();
        let shared = self.shared.clone();
        let name: Box<str> = name.into();
        let task = tokio::spawn({
            let call_id = call_id.clone();
            let cancel = cancel.clone();
            async move {
                to_tool_result(
                    shared
                        .run(
                            CallId::Given(call_id),
                            &name,
                            ArgsIn::Value(args),
                            cancel,
                            Encoding::Value,
                        )
                        .await,
                )
            }
        });
        PendingCall {
            call_id,
            cancel,
            task,
            done: false,
        }
    }

    /// The in-process Core of this session: calls tools directly.
    #[must_use]
    pub fn local_core(&self) -> crate::bridge::LocalCore {
        crate::bridge::LocalCore::new(self.untyped())
    }

    /// Serves the session over a bridge: sends the manifest to Core, then answers its calls
    /// until Core disconnects. Handlers can still be registered while it runs.
    ///
    /// The returned future does not borrow the session, so it can be spawned.
    ///
    /// # Errors
    /// When the bridge fails (`SUBMIT_TOOL_RESULT_FAILED`: the connection broke).
    pub fn serve<B: Bridge>(
        &self,
        bridge: B,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        bridge.serve(self.untyped())
    }

    /// The same session, with tool names as strings (what bridges work with).
    #[must_use]
    pub fn untyped(&self) -> Session<String> {
        Session {
            shared: self.shared.clone(),
            names: PhantomData,
        }
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }
}

fn to_tool_result(result: Result<Encoded, ToolError>) -> ToolResult {
    match result.and_then(Encoded::into_value) {
        Ok(v) => ToolResult::Ok(v),
        Err(e) => ToolResult::Err(e),
    }
}

const OK_PREFIX: &[u8] = br#"{"ok":true,"value":"#;

/// Appends `{"ok":true,"value":…}` or `{"ok":false,"error":…}`.
pub(crate) fn write_result(out: &mut Vec<u8>, result: Result<Encoded, ToolError>) {
    let result = match result {
        Ok(Encoded::Text(text)) => {
            out.extend_from_slice(OK_PREFIX);
            out.extend_from_slice(&text);
            out.push(b'}');
            return;
        }
        Ok(Encoded::Value(v)) => ToolResult::Ok(v),
        Err(e) => ToolResult::Err(e),
    };
    // A ToolResult holds only JSON values: this cannot fail.
    let _ = serde_json::to_writer(&mut *out, &result);
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

/// One tool of a live session.
struct ToolEntry {
    name: Arc<str>,
    args: CompiledArgs,
    timeout: Duration,
    inline: Option<ToolHandler>,
    named: RwLock<Option<ToolHandler>>,
}

impl ToolEntry {
    /// Resolution steps 1 and 2.
    fn handler(&self) -> Option<ToolHandler> {
        let named = self
            .named
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        named.or_else(|| self.inline.clone())
    }
}

/// What every clone of a session, and every bridge serving it, shares.
pub(crate) struct Shared {
    manifest: SerializableSkillsManifest,
    tools: Vec<ToolEntry>,
    by_name: HashMap<Box<str>, usize, foldhash::fast::RandomState>,
    fallback: RwLock<Option<FallbackHandler>>,
    state: Arc<StateMap>,
    pub(crate) events: events::EventHub,
    next_call: AtomicU64,
}

impl Shared {
    pub(crate) fn manifest(&self) -> &SerializableSkillsManifest {
        &self.manifest
    }

    fn local_call_id(&self) -> CallId {
        CallId::Local(self.next_call.fetch_add(1, Ordering::Relaxed))
    }

    fn register(&self, name: &str, handler: ToolHandler) -> Result<(), Error> {
        match self.by_name.get(name) {
            Some(&i) => {
                *self.tools[i]
                    .named
                    .write()
                    .unwrap_or_else(PoisonError::into_inner) = Some(handler);
                Ok(())
            }
            None => Err(Error::invalid_input(vec![Problem {
                path: String::new(),
                message: format!(
                    "cannot register a handler for `{name}`: the session has no tool of that name{}",
                    self.did_you_mean(name)
                ),
            }])),
        }
    }

    fn did_you_mean(&self, name: &str) -> String {
        let best = self
            .tools
            .iter()
            .map(|t| (strsim::jaro_winkler(name, &t.name), &*t.name))
            .filter(|(score, _)| *score > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        match best {
            Some((_, n)) => format!(" (did you mean `{n}`?)"),
            None => String::new(),
        }
    }

    /// Runs one call to its result: the events, the tracing span, and a guard that cancels
    /// the call when the future is dropped before it finished. Never panics.
    pub(crate) fn run<'a>(
        &'a self,
        call_id: CallId,
        name: &'a str,
        args: ArgsIn<'a>,
        cancel: Cancellation,
        encoding: Encoding,
    ) -> impl Future<Output = Result<Encoded, ToolError>> + Send + 'a {
        let span = tracing::info_span!("tool_call", call_id = %call_id, tool = %name);
        async move {
            let started = Instant::now();
            self.events.emit(|| SessionEvent::CallStarted {
                call_id: call_id.to_string(),
                tool: name.to_owned(),
            });
            let mut guard = CancelOnDrop(Some(cancel.clone()));
            let execute =
                std::pin::pin!(self.execute(&call_id, name, args, &cancel, encoding, started));
            let result = CatchUnwind(execute).await;
            guard.0 = None;
            let error = result.as_ref().err().map(ToolError::code);
            match &result {
                Ok(_) => tracing::debug!("tool call succeeded"),
                Err(e) => {
                    tracing::debug!(code = %e.code(), message = e.message(), "tool call failed");
                }
            }
            self.events.emit(|| SessionEvent::CallFinished {
                call_id: call_id.to_string(),
                tool: name.to_owned(),
                error,
                elapsed: started.elapsed(),
            });
            result
        }
        .instrument(span)
    }

    async fn execute(
        &self,
        call_id: &CallId,
        name: &str,
        args: ArgsIn<'_>,
        cancel: &Cancellation,
        encoding: Encoding,
        started: Instant,
    ) -> Result<Encoded, ToolError> {
        let tool = self.by_name.get(name).map(|&i| &self.tools[i]);
        let (tool_name, timeout) = match tool {
            Some(t) => (t.name.clone(), t.timeout),
            None => (
                Arc::from(name),
                Duration::from_millis(pedelec_rules::DEFAULT_TIMEOUT_MS),
            ),
        };
        let deadline = started
            .checked_add(timeout)
            .unwrap_or_else(|| Instant::from_std(crate::context::far_future(started.into_std())));
        if cancel.is_cancelled() {
            return Err(cancelled_error());
        }
        let ctx = ToolCallContext::of_call(
            call_id.clone(),
            tool_name.clone(),
            deadline.into_std(),
            cancel.clone(),
            self.state.clone(),
        );
        let started_handler = std::panic::catch_unwind(AssertUnwindSafe(|| {
            self.start(tool, tool_name, args, ctx, encoding)
        }));
        let future = match started_handler {
            Ok(Ok(future)) => future,
            Ok(Err(e)) => return Err(e),
            Err(payload) => return Err(panic_error(payload.as_ref())),
        };
        supervise(future, cancel, deadline, timeout, name).await
    }

    /// Validates the args and starts the resolved handler.
    fn start(
        &self,
        tool: Option<&ToolEntry>,
        tool_name: Arc<str>,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        encoding: Encoding,
    ) -> Result<HandlerFuture, ToolError> {
        let Some(tool) = tool else {
            let fallback = self
                .fallback
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            let Some(fallback) = fallback else {
                return Err(ToolError::with_code(
                    ErrorCode::ToolHandlerNotFound,
                    format!(
                        "there is no tool named `{tool_name}` in this session{}, and no fallback handler is set",
                        self.did_you_mean(&tool_name)
                    ),
                ));
            };
            let args = CompiledArgs::unchecked(tool_name.clone()).prepare(args)?;
            return Ok(fallback.start(call_of(&tool_name, args, &ctx), ctx, encoding));
        };
        if let Some(handler) = tool.handler() {
            return handler.start(args, &tool.args, ctx, encoding);
        }
        // Invalid args are reported before a missing handler.
        let args = tool.args.prepare(args)?;
        let fallback = self
            .fallback
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match fallback {
            Some(fallback) => Ok(fallback.start(call_of(&tool_name, args, &ctx), ctx, encoding)),
            None => Err(ToolError::with_code(
                ErrorCode::ToolHandlerNotFound,
                format!(
                    "no handler for `{tool_name}`: register one with `session.on_tool(..)` or `session.on_tool_name(..)`, give the tool an inline handler, or set a fallback with `session.set_fallback(..)`"
                ),
            )),
        }
    }
}

fn call_of(name: &str, args: Value, ctx: &ToolCallContext) -> ToolCall {
    ToolCall {
        name: name.to_owned(),
        args,
        call_id: ctx.call_id().to_owned(),
    }
}

/// Runs a started handler until it finishes, the call is cancelled, or the deadline passes.
async fn supervise(
    future: HandlerFuture,
    cancel: &Cancellation,
    deadline: Instant,
    timeout: Duration,
    tool: &str,
) -> Result<Encoded, ToolError> {
    let mut future = CatchUnwind(future);
    // Most handlers finish at once: then no timer is armed, no waiter registered, and the
    // (larger) waiting state is never allocated.
    if let Poll::Ready(result) = poll_fn(|cx| Poll::Ready(Pin::new(&mut future).poll(cx))).await {
        return result;
    }
    Box::pin(wait(future, cancel, deadline, timeout, tool)).await
}

/// The rest of [`supervise`], for a handler that did not finish at once.
async fn wait(
    mut future: CatchUnwind<HandlerFuture>,
    cancel: &Cancellation,
    deadline: Instant,
    timeout: Duration,
    tool: &str,
) -> Result<Encoded, ToolError> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(cancelled_error()),
        result = &mut future => result,
        () = tokio::time::sleep_until(deadline) => {
            // Tell the handler (and whatever it spawned) before its future is dropped.
            cancel.cancel();
            let ms = timeout.as_millis();
            Err(ToolError::with_code(
                ErrorCode::ToolTimeout,
                format!("`{tool}` did not finish within its timeout of {ms} ms"),
            )
            .with_details(serde_json::json!({ "timeoutMs": ms })))
        }
    }
}

pub(crate) fn cancelled_error() -> ToolError {
    ToolError::with_code(ErrorCode::ToolCancelled, "the call was cancelled")
}

/// Turns a panic while polling into the call's `TOOL_HANDLER_ERROR`.
struct CatchUnwind<F>(F);

impl<F> Future for CatchUnwind<F>
where
    F: Future<Output = Result<Encoded, ToolError>> + Unpin,
{
    type Output = Result<Encoded, ToolError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match std::panic::catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(poll) => poll,
            Err(payload) => {
                let error = panic_error(payload.as_ref());
                tracing::warn!(message = error.message(), "tool handler panicked");
                Poll::Ready(Err(error))
            }
        }
    }
}

/// Cancels the call if its future is dropped before it finished (the caller stopped
/// waiting, or the bridge went away).
struct CancelOnDrop(Option<Cancellation>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel.cancel();
        }
    }
}
