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

mod admission;
mod approval;
mod behind;
mod builder;
mod calls;
mod concurrency;
mod dispatch;
mod entry;
mod events;
mod input;
mod layers;
pub(crate) mod live;
pub(crate) mod mount;
pub use mount::{Mount, SessionLink};
mod once;
mod rate;
mod shutdown;
mod spare;

use std::fmt;
use std::future::Future;
use std::marker::PhantomData;
use std::sync::{Arc, PoisonError};

use serde::Serialize;
use serde_json::Value;

pub use builder::{SessionBuilder, create_session};
pub use calls::{CallName, CallOptions, JsonText, PendingCall};
pub use events::{EventStream, SessionEvent};
pub use layers::{
    FromFn, FromFnFuture, FromFnService, LayeredService, ToolLayer, ToolService, from_fn,
};
pub use rate::RateLimit;

use crate::call::handler::{FallbackHandler, ToolCall, ToolHandler};
use crate::context::{StateMap, ToolCallContext};
use crate::error::{Error, ToolError};
use crate::manifest::SerializableSkillsManifest;
use crate::skills::{InSkillSet, SkillSet, SkillsInput};
use crate::tool::{Tool, ToolDefinition};
use dispatch::Shared;

/// A way for Core to reach a session: it delivers the manifest, then feeds calls to the
/// session and delivers their results, until Core goes away.
///
/// Implement it for a custom transport with the public call API of [`Session`]:
/// [`manifest`](Session::manifest), [`call_raw_with`](Session::call_raw_with) (JSON text in
/// and out, with a call id, a cancellation handle and a progress callback in
/// [`CallOptions`]), [`call_with`](Session::call_with) for values, and
/// [`report_undelivered`](Session::report_undelivered) when a result cannot be written.
/// The JSON Lines bridge uses nothing else.
pub trait Bridge: Send + 'static {
    /// Serves `session` (typed by its `ToolName` enum or not) until Core disconnects.
    ///
    /// # Errors
    /// When the transport fails (`SUBMIT_TOOL_RESULT_FAILED`).
    fn serve<N: 'static>(
        self,
        session: Session<N>,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static;
}

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
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not name a tool of this session's skill set (`{N}`)",
    label = "not a `{N}`",
    note = "a session of a `skills![]` set names its tools with that set's enum (`{N}::…`); a name as a string works only for a skill set read at run time"
)]
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

/// A live skill set: answers tool calls from an in-process caller ([`call`](Self::call))
/// or from Core over a bridge ([`serve`](Self::serve)).
///
/// `N` is the type of tool names: the `ToolName` enum of a `skills![]` skill set, or
/// `String` for one built at run time. Cloning is cheap and every clone is the same session:
/// handlers registered on one clone serve calls arriving through any other, before or
/// after `serve` started.
///
/// # Calls and handlers
///
/// | Call | Args | Answer |
/// |---|---|---|
/// | [`call`](Self::call), [`call_with`](Self::call_with) | `Value` | [`ToolResult`](crate::ToolResult) |
/// | [`call_raw`](Self::call_raw), [`call_raw_with`](Self::call_raw_with) | JSON text ([`JsonText`]: `&str`, `&String`, `&RawValue`) | `{"ok":…}` envelope as text |
/// | [`call_text`](Self::call_text), [`call_text_with`](Self::call_text_with) | JSON text ([`JsonText`]) | the value's text, or the [`ToolError`] |
/// | [`start_call`](Self::start_call), [`start_call_with`](Self::start_call_with) | `Value` | a spawned [`PendingCall`] |
/// | [`call_provider`](Self::call_provider), [`call_provider_with`](Self::call_provider_with) | a provider's tool call as `Value` | the provider's result message |
/// | [`call_provider_raw`](Self::call_provider_raw), [`call_provider_raw_with`](Self::call_provider_raw_with) | the same as text | the same as text |
///
/// Each `_with` form takes [`CallOptions`] (call id, caller, cancellation, progress, client
/// channel); the plain form is it with the defaults.
///
/// | Handler | For |
/// |---|---|
/// | [`on_tool`](Self::on_tool) | a tool of the skill set, typed args and output |
/// | [`on_tool_name`](Self::on_tool_name) | a tool by name, args as `Value` |
/// | [`set_fallback`](Self::set_fallback) | every tool without a handler, and unknown names |
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
            layers: Vec::new(),
            tool_layers: Vec::new(),
            rate_limit: None,
            approver: None,
            store: None,
            mounts: Vec::new(),
        }
    }

    /// The manifest sent to Core: guidance and every tool's name, description, argsSchema
    /// and timeout (no handlers).
    /// With mounted remote servers, their tools as listed now.
    #[must_use]
    pub fn manifest(&self) -> SerializableSkillsManifest {
        let mut manifest = self.shared.manifest.clone();
        for live in &self.shared.live {
            manifest.tools.extend(
                live.current()
                    .definitions
                    .iter()
                    .map(ToolDefinition::manifest),
            );
        }
        manifest
    }

    /// The name and version of the crate whose `skills![]` declared the session's skill set
    /// (Cargo's), if known: what an MCP server says it is by default.
    #[must_use]
    pub fn package(&self) -> Option<(&'static str, &'static str)> {
        self.shared.package
    }

    /// Waits until what is mounted under `namespace` ([`SessionBuilder::mount`]) has listed
    /// its tools once (a remote server: connected and answered `tools/list`). Mounts
    /// connect in the background from `create()` on, so a program that wants the remote's
    /// tools in its first listing awaits this (with a timeout of its choosing: a remote that
    /// is down keeps it waiting while the mount retries).
    ///
    /// # Errors
    /// `INVALID_INPUT` when nothing is mounted under `namespace`.
    pub async fn mount_ready(&self, namespace: &str) -> Result<(), Error> {
        let live = self.live(namespace)?;
        live.listed().await;
        Ok(())
    }

    /// The warnings and problems of the last listing of what is mounted under `namespace`:
    /// schemas read leniently, names mapped, tools left out (and why). Each is also logged
    /// with `tracing::warn!`.
    ///
    /// # Errors
    /// `INVALID_INPUT` when nothing is mounted under `namespace`.
    pub fn mount_report(&self, namespace: &str) -> Result<Vec<crate::error::Problem>, Error> {
        Ok(self.live(namespace)?.report())
    }

    fn live(&self, namespace: &str) -> Result<Arc<live::LiveTools>, Error> {
        self.shared
            .live
            .iter()
            .find(|live| live.namespace() == namespace)
            .cloned()
            .ok_or_else(|| {
                Error::invalid_input(vec![crate::error::Problem::at(
                    String::new(),
                    format!("nothing is mounted under `{namespace}`"),
                )])
            })
    }

    /// Whether something is mounted under a namespace ([`SessionBuilder::mount`]): then the
    /// session's tools may change at run time, and bridges that list them say so
    /// (MCP's `listChanged`).
    #[must_use]
    pub fn has_mounts(&self) -> bool {
        !self.shared.live.is_empty()
    }

    /// How many times the tools of mounted namespaces changed (a remote server re-listed
    /// its tools; see [`SessionBuilder::mount`]): a bridge that keeps a list compares it
    /// to know it is stale. 0 for a session whose tools never change.
    #[must_use]
    pub fn tools_revision(&self) -> u64 {
        self.shared
            .revision
            .load(std::sync::atomic::Ordering::Acquire)
    }

    /// Whether `caller` may call the tool `name`: it holds the tool's scopes (step 1 of the
    /// call policy). A name the session does not know is not callable. What a search
    /// answers is limited by this (DESIGN §12: only the tools the caller may call).
    pub(crate) fn may_call(&self, name: &str, caller: Option<&crate::context::Caller>) -> bool {
        match self.shared.tool(name) {
            Some(t) => crate::context::Caller::may_call(caller, &t.scopes),
            None => self
                .shared
                .live_tool(name)
                .is_some_and(|t| crate::context::Caller::may_call(caller, &t.scopes)),
        }
    }

    /// Where the session keeps what replicas share (`SessionBuilder::store`): MCP tasks live
    /// there too.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "MCP's tasks"))]
    pub(crate) fn store(&self) -> Arc<dyn crate::store::Store> {
        self.shared.store.clone()
    }

    /// Validates `args` for the tool `name` as its call would, without calling it (code mode
    /// checks a program's call where the program makes it). A name the session does not
    /// know passes (its call will say so).
    #[cfg_attr(
        not(feature = "code-mode"),
        allow(dead_code, reason = "what code mode mounts")
    )]
    pub(crate) fn check_args(&self, name: &str, args: Value) -> Result<Value, ToolError> {
        let value = crate::schema::decode::ArgsIn::Value;
        match self.shared.tool(name) {
            Some(tool) => tool.args.prepare(value(args)),
            None => match self.shared.live_tool(name) {
                Some(tool) => tool.args.prepare(value(args)),
                None => Ok(args),
            },
        }
    }

    /// The skill set's tool definitions, in its order, then the tools mounted beside them
    /// (code mode's `search_tools` and `run_code`, then each mounted remote server's tools
    /// as listed now): everything known about each tool, including what is not in Core's
    /// manifest (for bridges that list more, such as MCP). A snapshot: a mounted remote's
    /// tools may change later ([`tools_revision`](Self::tools_revision)).
    #[must_use]
    pub fn definitions(&self) -> Arc<[ToolDefinition]> {
        self.shared
            .listed
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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
    /// (the message names the tool; a typed skill set makes that a compile error).
    #[doc(alias = "onTool")]
    pub fn on_tool<T>(&self, handler: impl HandlerFn<T::Args, T::Output>) -> &Self
    where
        T: Tool + InSkillSet<N>,
    {
        let name = <T as InSkillSet<N>>::WIRE_NAME;
        if let Err(e) = self.shared.register(name, ToolHandler::typed(handler)) {
            panic!("{e}");
        }
        self
    }

    /// Registers the named handler of a tool, taking its args as JSON (validated, `null`s of
    /// optional properties removed) and returning any serializable value. Replaces an
    /// earlier named handler of the tool.
    ///
    /// # Panics
    /// Only for a session built at run time, when `name` is not in its skill set (the
    /// message names it, with a "did you mean").
    pub fn on_tool_name<O: Serialize + Send + 'static>(
        &self,
        name: impl ToolKey<N>,
        handler: impl HandlerFn<Value, O>,
    ) -> &Self {
        if let Err(e) = self
            .shared
            .register(name.tool_name(), ToolHandler::json(handler))
        {
            panic!("{e}");
        }
        self
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

    /// Whether a fallback handler is set ([`set_fallback`](Self::set_fallback)): then a
    /// call of a name outside the skill set is served, not refused (bridges that list
    /// tools ask before answering "unknown tool").
    #[must_use]
    pub fn has_fallback(&self) -> bool {
        self.shared
            .fallback
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// Subscribes to the session's events: calls started and finished, and results that
    /// could not be delivered (`SubmitToolResultFailed`).
    #[must_use]
    pub fn events(&self) -> EventStream {
        self.shared.events.subscribe()
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

    /// Reports that a call's result could not be delivered to its caller (the transport
    /// failed, or the caller went away): subscribers of [`events`](Self::events) receive
    /// [`SessionEvent::SubmitToolResultFailed`] with code `SUBMIT_TOOL_RESULT_FAILED` and
    /// `why` as its message. For bridges; it is also logged.
    pub fn report_undelivered(&self, call_id: &str, tool: &str, why: impl Into<String>) {
        let why = why.into();
        tracing::error!(call_id, tool, "{why}");
        self.shared
            .events
            .emit(|| SessionEvent::SubmitToolResultFailed {
                call_id: call_id.to_owned(),
                tool: tool.to_owned(),
                error: Error::undelivered(why),
            });
    }
}
