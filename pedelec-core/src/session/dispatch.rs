//! Dispatch and supervision: one call from its arrival to its result. The tool is looked
//! up, its args decoded, the handler resolved (named, inline, fallback) and run under the
//! tool's timeout and the call's cancellation, a panic anywhere becoming
//! `TOOL_HANDLER_ERROR`; events and a tracing span around it.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;
use tower::util::Oneshot;
use tower_service::Service;

use super::admission::{check_scopes, hold};
use super::behind::Behind;
use super::concurrency::Permit;
use super::entry::ToolEntry;
use super::events::{EventHub, SessionEvent};
use super::layers::ToolService;
use super::live::LiveTools;
use super::rate::{RateLimiter, admit_shared};
use super::shutdown::{ShutdownState, refused_error};
use super::spare::{SpareGuard, SpareSlot};
use crate::call::args::{CompiledArgs, args_error};
use crate::call::encode::to_tool_result;
use crate::call::encode::{Encoded, Encoding};
use crate::call::handler::{FallbackHandler, HandlerFuture, ToolCall, ToolHandler, panic_error};
use crate::call::handler::{Out, start_in};
use crate::context::{
    ApproverFn, CallExtras, CallId, CallParts, Caller, Cancellation, StateMap, ToolCallContext,
};
use crate::error::ToolResult;
use crate::error::{Error, ErrorCode, Problem, ToolError};
use crate::manifest::SerializableSkillsManifest;
use crate::schema::ArgsError;
use crate::schema::decode::ArgsIn;
use crate::tool::ToolDefinition;

/// Up to this many tools, a call finds its tool by comparing names instead of hashing.
const SCAN_TOOLS: usize = 8;

/// What every clone of a session, and every bridge serving it, shares.
pub(super) struct Shared {
    /// The skill set's manifest and its mounts' fixed tools.
    pub(super) manifest: SerializableSkillsManifest,
    /// `SkillsInput::package`.
    pub(super) package: Option<(&'static str, &'static str)>,
    /// The skill set's definitions, in order, then the mounts' fixed tools (for bridges
    /// that list per-tool metadata).
    pub(super) definitions: Vec<ToolDefinition>,
    /// The namespaces whose tools change at run time (remote servers), beside `tools`.
    pub(super) live: Box<[Arc<LiveTools>]>,
    /// `definitions`, then every live namespace's current tools: what is listed now.
    pub(super) listed: RwLock<Arc<[ToolDefinition]>>,
    /// Bumped each time a live namespace's tools change.
    pub(super) revision: AtomicU64,
    pub(super) tools: Vec<ToolEntry>,
    pub(super) by_name: HashMap<Box<str>, usize, foldhash::fast::RandomState>,
    pub(super) fallback: RwLock<Option<FallbackHandler>>,
    pub(super) state: Arc<StateMap>,
    /// What the last call left for the next one.
    pub(super) spare: SpareSlot,
    pub(super) events: EventHub,
    pub(super) next_call: AtomicU64,
    pub(super) shutdown: ShutdownState,
    /// `SessionBuilder::rate_limit`.
    pub(super) rate_limit: Option<RateLimiter>,
    /// `SessionBuilder::approver`.
    pub(super) approver: Option<ApproverFn>,
    /// Where what replicas share lives (`SessionBuilder::store`; `Memory` by default).
    pub(super) store: Arc<dyn crate::store::Store>,
    /// Whether the rate limit's budgets live in `store` (one was given) rather than here.
    pub(super) shares_limits: bool,
    /// The session's layers around every call (`SessionBuilder::layer`).
    pub(super) layers: Option<ToolService>,
    /// Whether a call may need a layer: session layers, or any tool's `layer_for`.
    pub(super) layered: bool,
    /// The session itself, for the innermost layered services.
    pub(super) this: Weak<Shared>,
}

/// How one call is identified and steered: what [`CallOptions`](super::CallOptions) holds,
/// resolved.
pub(super) struct CallSetup {
    pub(super) call_id: CallId,
    /// The caller's handle; without one, the call's flag lives in its context.
    pub(super) cancel: Option<Cancellation>,
    pub(super) caller: Option<Arc<Caller>>,
    pub(super) extras: Option<Box<CallExtras>>,
}

/// A call set up: its context, and its started handler or why it could not start.
struct Begun<'a> {
    ctx: ToolCallContext,
    timeout: Duration,
    handler: Result<HandlerFuture, ToolError>,
    /// The session's spare, and the spare handler future when the handler did not start
    /// in it.
    spare: SpareGuard<'a>,
    spare_future: Option<HandlerFuture>,
    /// The call's slot under the tool's `max_concurrency`, held until it is answered.
    permit: Option<Permit>,
}

impl Shared {
    pub(super) fn local_call_id(&self) -> CallId {
        CallId::Local(self.next_call.fetch_add(1, Ordering::Relaxed))
    }

    /// The tool of this name: in the fixed table, else in a live namespace (then `mounted`
    /// holds it for as long as the caller uses it).
    #[inline]
    pub(super) fn find<'a>(
        &'a self,
        name: &str,
        mounted: &'a mut Option<Arc<ToolEntry>>,
    ) -> Option<&'a ToolEntry> {
        match self.tool(name) {
            Some(tool) => Some(tool),
            None if self.live.is_empty() => None,
            None => {
                *mounted = self.live_tool(name);
                mounted.as_deref()
            }
        }
    }

    /// The mounted tool of this name, in a live namespace (looked up only when the fixed
    /// table has none: native tools pay nothing). The call holds the entry to its end.
    #[cold]
    pub(super) fn live_tool(&self, name: &str) -> Option<Arc<ToolEntry>> {
        self.live
            .iter()
            .find(|live| live.owns(name))
            .and_then(|live| live.get(name))
    }

    /// A live namespace's tools changed: the list is rebuilt, the revision bumped and
    /// subscribers told.
    pub(super) fn tools_changed(&self, namespace: &str) {
        self.refresh_listed();
        self.revision.fetch_add(1, Ordering::AcqRel);
        self.events.emit(|| SessionEvent::ToolsChanged {
            namespace: namespace.to_owned(),
        });
    }

    /// Rebuilds what is listed: the fixed definitions, then each live namespace's.
    pub(super) fn refresh_listed(&self) {
        let mut listed = self.definitions.clone();
        for live in &self.live {
            listed.extend(live.current().definitions.iter().cloned());
        }
        *self.listed.write().unwrap_or_else(PoisonError::into_inner) = listed.into();
    }

    /// The tool of this name. Among a few tools, comparing names (mostly just their
    /// lengths) is cheaper than hashing one: measured, 27 instructions less per call for
    /// the first tool of the list; a scan of all 8 costs about what hashing does.
    #[inline]
    pub(super) fn tool(&self, name: &str) -> Option<&ToolEntry> {
        if self.tools.len() <= SCAN_TOOLS {
            return self.tools.iter().find(|t| *t.name == *name);
        }
        self.by_name.get(name).map(|&i| &self.tools[i])
    }

    pub(super) fn register(&self, name: &str, handler: ToolHandler) -> Result<(), Error> {
        match self.by_name.get(name) {
            Some(&i) => {
                let tool = &self.tools[i];
                *tool.named.write().unwrap_or_else(PoisonError::into_inner) = Some(handler);
                tool.has_named.store(true, Ordering::Release);
                Ok(())
            }
            None => Err(Error::invalid_input(vec![Problem::at(
                String::new(),
                format!(
                    "cannot register a handler for `{name}`: the session has no tool of that name{}",
                    self.did_you_mean(name)
                ),
            )])),
        }
    }

    fn did_you_mean(&self, name: &str) -> String {
        match crate::schema::did_you_mean(name, self.tools.iter().map(|t| &*t.name)) {
            Some(n) => format!(" (did you mean `{n}`?)"),
            None => String::new(),
        }
    }

    /// Runs one call to its result: the events, the tracing span, and a guard that cancels
    /// the call when the future is dropped before it finished. Never panics. `finish` turns
    /// the outcome into what the caller returns, inside this future: a wrapping `async`
    /// block would hold this (large) future and move it once more on every call.
    ///
    /// One flat future: the call is set up and its handler started synchronously
    /// ([`begin`](Self::begin)), polled once, and only a handler that did not finish at
    /// once gets the boxed waiting state (timer, cancellation, shutdown, drop guard).
    // Not an `async fn`: measured, that form costs ~220 instructions more per call here.
    #[allow(clippy::manual_async_fn)]
    pub(super) fn run<T>(
        &self,
        setup: CallSetup,
        name: &str,
        args: ArgsIn<'_>,
        encoding: Encoding,
        finish: fn(Result<Encoded, ToolError>) -> T,
    ) -> impl Future<Output = T> + Send {
        async move {
            // Entered around each poll, as `Instrument` would, without moving this
            // future's state into a wrapper (no work at all when nobody subscribes).
            // OpenTelemetry's semantic conventions for a tool's execution (`otel.name` is
            // `tracing-opentelemetry`'s name for the span's name).
            let span = tracing::info_span!(
                "execute_tool",
                otel.name = %format_args!("execute_tool {name}"),
                gen_ai.operation.name = "execute_tool",
                gen_ai.tool.name = %name,
                gen_ai.tool.call.id = %setup.call_id,
                error.type = tracing::field::Empty,
            );
            let started = Instant::now();
            if self.events.enabled() {
                self.events.send(SessionEvent::CallStarted {
                    call_id: setup.call_id.to_string(),
                    tool: name.to_owned(),
                });
            }
            let Begun {
                ctx,
                timeout,
                handler,
                mut spare,
                spare_future,
                permit,
            } = {
                let _entered = span.enter();
                self.begin(setup, name, args, encoding, started)
            };
            let mut finished = spare_future;
            let result = match handler {
                Err(e) => Err(e),
                Ok(future) => {
                    let mut future = CatchUnwind(future);
                    // Most handlers finish at once: then no timer is armed, no waiter
                    // registered, and the (larger) waiting state is never allocated.
                    let first = poll_fn(|cx| {
                        let _entered = span.enter();
                        Poll::Ready(Pin::new(&mut future).poll(cx))
                    })
                    .await;
                    match first {
                        Poll::Ready(result) => {
                            // Finished: its allocation can start the next call.
                            finished = Some(future.0);
                            result
                        }
                        Poll::Pending => {
                            let mut waiting =
                                Box::pin(wait(future, &ctx, timeout, name, self, started));
                            poll_fn(|cx| {
                                let _entered = span.enter();
                                waiting.as_mut().poll(cx)
                            })
                            .await
                        }
                    }
                }
            };
            {
                let _entered = span.enter();
                match &result {
                    Ok(_) => tracing::debug!("tool call succeeded"),
                    Err(e) => {
                        span.record("error.type", e.code().as_str());
                        tracing::debug!(code = %e.code(), message = e.message(), "tool call failed");
                    }
                }
            }
            if self.events.enabled() {
                self.events.send(SessionEvent::CallFinished {
                    call_id: ctx.call_id_raw().to_string(),
                    tool: name.to_owned(),
                    error: result.as_ref().err().map(ToolError::code),
                    elapsed: started.elapsed(),
                });
            }
            drop(permit);
            spare.leave(ctx, finished);
            finish(result)
        }
    }

    /// The synchronous start of a call: the tool looked up, the call's context made, its
    /// args decoded and its handler started (a panic there becomes the call's error).
    #[inline]
    fn begin(
        &self,
        setup: CallSetup,
        name: &str,
        args: ArgsIn<'_>,
        encoding: Encoding,
        started: Instant,
    ) -> Begun<'_> {
        let CallSetup {
            call_id,
            cancel,
            caller,
            extras,
        } = setup;
        let mut mounted = None;
        let tool = self.find(name, &mut mounted);
        let unknown_name: Arc<str>;
        let (tool_name, timeout) = match tool {
            Some(t) => (&t.name, t.timeout),
            None => {
                unknown_name = Arc::from(name);
                (
                    &unknown_name,
                    Duration::from_millis(pedelec_rules::DEFAULT_TIMEOUT_MS),
                )
            }
        };
        let parts = CallParts {
            call_id,
            start: started.into_std(),
            timeout,
            cancellation: cancel,
            caller,
            extras,
        };
        // The context and handler future of the last call, reused (see `spare`).
        let (spare, recycled, mut spare_future) = self.spare.take();
        let ctx = match recycled {
            Some(recycled) => recycled.renew(parts, tool_name, &self.state),
            None => ToolCallContext::of_call(parts, tool_name.clone(), self.state.clone()),
        };
        let mut permit = None;
        let handler = if ctx.is_cancelled() {
            Err(cancelled_error())
        } else if self.shutdown.is_started() {
            Err(refused_error())
        } else {
            let handler_ctx = ctx.clone();
            match std::panic::catch_unwind(AssertUnwindSafe(|| {
                self.start(
                    tool,
                    name,
                    args,
                    handler_ctx,
                    Out {
                        encoding,
                        spare: &mut spare_future,
                    },
                    &mut permit,
                )
            })) {
                Ok(started) => started,
                Err(payload) => Err(panic_error(payload.as_ref())),
            }
        };
        Begun {
            ctx,
            timeout,
            handler,
            spare,
            spare_future,
            permit,
        }
    }

    /// Applies the call policy (see `policy`) and starts the call: through the layers when
    /// there are any, else straight to the resolved handler.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn start(
        &self,
        tool: Option<&ToolEntry>,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
        permit: &mut Option<Permit>,
    ) -> Result<HandlerFuture, ToolError> {
        if let Some(tool) = tool {
            if !tool.scopes.is_empty() {
                check_scopes(&tool.name, &tool.scopes, ctx.caller())?;
            }
            // An idempotent retry is answered before it costs any budget (DESIGN §13).
            if tool.exactly_once && ctx.idempotency_key().is_some() {
                return self.start_once(tool, name, args, ctx, out);
            }
        }
        self.start_admitted(tool, name, args, ctx, out, permit)
    }

    /// Steps 2 on, once the scopes passed: the rate limit (a refused call uses no budget),
    /// the tool's concurrency, then the layers or the resolved handler.
    #[inline]
    pub(super) fn start_admitted(
        &self,
        tool: Option<&ToolEntry>,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
        permit: &mut Option<Permit>,
    ) -> Result<HandlerFuture, ToolError> {
        // A budget kept in the store is taken once the handler is started (the check is
        // awaited before it is polled); one kept here, at once.
        let shared_limit = match &self.rate_limit {
            Some(limiter) if self.shares_limits => Some((limiter.limit, ctx.caller_arc())),
            Some(limiter) => {
                limiter.admit(ctx.caller(), ctx.started())?;
                None
            }
            None => None,
        };
        let started = if self.layered {
            self.start_layered(tool, name, args, ctx, out)?
        } else {
            if let Some(tool) = tool {
                *permit = hold(&tool.name, tool.concurrency.as_ref())?;
            }
            self.resolve(tool, name, args, ctx, out)?
        };
        Ok(match shared_limit {
            Some((limit, caller)) => {
                let store = self.store.clone();
                Behind::wrap(
                    async move { admit_shared(&*store, limit, caller.as_deref()).await },
                    started,
                )
            }
            None => started,
        })
    }

    /// A call through the layers: its args as a value (text is parsed first), passed to the
    /// session's layers, or to the tool's when only it has some.
    #[cold]
    #[inline(never)]
    fn start_layered(
        &self,
        tool: Option<&ToolEntry>,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
    ) -> Result<HandlerFuture, ToolError> {
        let args = match args {
            ArgsIn::Value(value) => value,
            ArgsIn::Text(text) => {
                serde_json::from_str(text).map_err(|e| args_error(name, ArgsError::Syntax(e)))?
            }
        };
        let call = ToolCall::in_context(name.to_owned(), args, ctx);
        let result = match &self.layers {
            Some(layers) => Inner::through(layers, call),
            None => self.per_tool(call),
        };
        let _ = tool;
        Ok(start_in(out, async move {
            let Ok(result) = result.await;
            result.into_result()
        }))
    }

    /// Below the session's layers: the tool's `max_concurrency`, then its own layers (or
    /// the endpoint). A layer may have renamed the call: its scopes are checked again then.
    pub(super) fn per_tool(&self, call: ToolCall) -> Inner {
        let mut mounted = None;
        let tool = self.find(&call.name, &mut mounted);
        if let Some(tool) = tool
            && !tool.scopes.is_empty()
            && call
                .context()
                .is_some_and(|ctx| ctx.tool_name() != call.name)
            && let Err(e) = check_scopes(&tool.name, &tool.scopes, call.caller())
        {
            return Inner::answered(ToolResult::Err(e));
        }
        let permit = match tool.map(|t| hold(&t.name, t.concurrency.as_ref())) {
            Some(Err(e)) => return Inner::answered(ToolResult::Err(e)),
            Some(Ok(permit)) => permit,
            None => None,
        };
        let mut inner = match tool.and_then(|t| t.layers.as_ref()) {
            Some(layers) => Inner::through(layers, call),
            None => self.endpoint(call),
        };
        inner.permit = permit;
        inner
    }

    /// The innermost service: validation of the args as they are now, and the handler.
    pub(super) fn endpoint(&self, mut call: ToolCall) -> Inner {
        let Some(ctx) = call.take_context() else {
            return Inner::answered(ToolResult::Err(ToolError::new(format!(
                "a layer passed on a call of `{}` without the session's context; pass on the `ToolCall` it received (its fields may change) instead of a new one",
                call.name
            ))));
        };
        let mut mounted = None;
        let tool = self.find(&call.name, &mut mounted);
        let started = self.resolve(
            tool,
            &call.name,
            ArgsIn::Value(call.args),
            ctx,
            Out {
                encoding: Encoding::Value,
                spare: &mut None,
            },
        );
        match started {
            Ok(future) => Inner {
                state: InnerState::Handler(future),
                permit: None,
            },
            Err(e) => Inner::answered(ToolResult::Err(e)),
        }
    }

    /// Validates the args and starts the resolved handler.
    #[inline]
    fn resolve(
        &self,
        tool: Option<&ToolEntry>,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
    ) -> Result<HandlerFuture, ToolError> {
        let Some(tool) = tool else {
            if let Some(why) = self
                .live
                .iter()
                .find(|live| live.owns(name))
                .and_then(|live| live.down())
            {
                return Err(ToolError::with_code(ErrorCode::IoFailed, why));
            }
            let fallback = self
                .fallback
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone();
            let Some(fallback) = fallback else {
                return Err(ToolError::with_code(
                    ErrorCode::ToolHandlerNotFound,
                    format!(
                        "there is no tool named `{name}` in this session{}, and no fallback handler is set",
                        self.did_you_mean(name)
                    ),
                ));
            };
            let tool_name = if ctx.tool_name() == name {
                ctx.tool_name_arc()
            } else {
                Arc::from(name)
            };
            let args = CompiledArgs::unchecked(tool_name).prepare(args)?;
            return Ok(fallback.start(call_of(name, args, &ctx), ctx, out.encoding));
        };
        if let Some(check) = tool.approval {
            return self.approving(tool, name, args, ctx, out, check);
        }
        self.handler(tool, name, args, ctx, out)
    }

    /// Resolution steps 1 to 3 for a tool of the skill set: its named handler, its inline
    /// handler, the fallback.
    pub(super) fn handler(
        &self,
        tool: &ToolEntry,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
    ) -> Result<HandlerFuture, ToolError> {
        if tool.exactly_once && ctx.idempotency_key().is_some() {
            return self.marked_handler(tool, name, args, ctx, out);
        }
        self.unmarked_handler(tool, name, args, ctx, out)
    }

    /// The handler of an exactly-once call, which marks its context when it is first
    /// polled: until then nothing of it ran, and its key may be released (DESIGN §13).
    #[cold]
    #[inline(never)]
    fn marked_handler(
        &self,
        tool: &ToolEntry,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
    ) -> Result<HandlerFuture, ToolError> {
        let marked = ctx.clone();
        let inner = self.unmarked_handler(tool, name, args, ctx, out)?;
        Ok(Behind::wrap(
            async move {
                marked.mark_started();
                Ok(())
            },
            inner,
        ))
    }

    /// [`handler`](Self::handler), without the exactly-once mark (inlined into both: the
    /// plain call's path keeps no extra call).
    #[allow(
        clippy::inline_always,
        reason = "measured with the call-cost bench: a call of its own on every plain call"
    )]
    #[inline(always)]
    fn unmarked_handler(
        &self,
        tool: &ToolEntry,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
    ) -> Result<HandlerFuture, ToolError> {
        // Resolution steps 1 and 2.
        if let Some(named) = tool.named() {
            return named.start(args, &tool.args, ctx, out);
        }
        if let Some(inline) = &tool.inline {
            return inline.start(args, &tool.args, ctx, out);
        }
        // Invalid args are reported before a missing handler.
        let args = tool.args.prepare(args)?;
        let fallback = self
            .fallback
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        match fallback {
            Some(fallback) => Ok(fallback.start(call_of(name, args, &ctx), ctx, out.encoding)),
            None => Err(ToolError::with_code(
                ErrorCode::ToolHandlerNotFound,
                format!(
                    "no handler for `{}`: register one with `session.on_tool(..)` or `session.on_tool_name(..)`, give the tool an inline handler, or set a fallback with `session.set_fallback(..)`",
                    tool.name
                ),
            )),
        }
    }
}

fn call_of(name: &str, args: Value, ctx: &ToolCallContext) -> ToolCall {
    ToolCall::in_context(name.to_owned(), args, ctx.clone())
}

/// The answer of a layered call whose session is gone (cannot happen while a call runs:
/// the call holds the session).
pub(super) fn session_gone() -> ToolError {
    ToolError::new("the session was dropped")
}

/// The innermost service of the session's layers: the tool's policy and layers below
/// them ([`Shared::per_tool`]).
#[derive(Clone)]
pub(super) struct Dispatch(pub(super) Weak<Shared>);

/// The innermost service of a tool's layers: validation and the handler
/// ([`Shared::endpoint`]).
#[derive(Clone)]
pub(super) struct Endpoint(pub(super) Weak<Shared>);

macro_rules! inner_service {
    ($service:ident, $method:ident) => {
        impl Service<ToolCall> for $service {
            type Response = ToolResult;
            type Error = Infallible;
            type Future = Inner;

            fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
                Poll::Ready(Ok(()))
            }

            fn call(&mut self, call: ToolCall) -> Inner {
                match self.0.upgrade() {
                    Some(shared) => shared.$method(call),
                    None => Inner::answered(ToolResult::Err(session_gone())),
                }
            }
        }
    };
}

/// The future of a call below the session's layers: its handler, started when the service
/// was called (or the answer known then), or the tool's own layers. Not boxed: the
/// [`ToolService`] around it boxes it once.
pub(super) struct Inner {
    state: InnerState,
    /// The call's slot under the tool's `max_concurrency`, held until it is answered.
    permit: Option<Permit>,
}

enum InnerState {
    Answered(Option<ToolResult>),
    Handler(HandlerFuture),
    Layers(Oneshot<ToolService, ToolCall>),
}

impl Inner {
    fn answered(result: ToolResult) -> Self {
        Inner {
            state: InnerState::Answered(Some(result)),
            permit: None,
        }
    }

    /// `call` through layers the session's calls share (a clone of them, made ready, then
    /// called).
    fn through(layers: &ToolService, call: ToolCall) -> Self {
        Inner {
            state: InnerState::Layers(Oneshot::new(layers.clone(), call)),
            permit: None,
        }
    }
}

impl Future for Inner {
    type Output = Result<ToolResult, Infallible>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let result = match &mut self.state {
            InnerState::Answered(answer) => answer.take().unwrap_or_else(|| {
                ToolResult::Err(ToolError::new(
                    "a layered call was polled after it answered",
                ))
            }),
            InnerState::Handler(future) => match future.as_mut().poll(cx) {
                Poll::Ready(result) => to_tool_result(result),
                Poll::Pending => return Poll::Pending,
            },
            InnerState::Layers(layers) => match Pin::new(layers).poll(cx) {
                Poll::Ready(Ok(result)) => result,
                Poll::Ready(Err(never)) => match never {},
                Poll::Pending => return Poll::Pending,
            },
        };
        self.permit = None;
        Poll::Ready(Ok(result))
    }
}

inner_service!(Dispatch, per_tool);
inner_service!(Endpoint, endpoint);

/// The rest of a call whose handler did not finish in its first poll: it runs until it
/// finishes, the call is cancelled, the deadline passes, or a shutdown's grace period ends.
/// Dropped before that (the caller stopped waiting), it cancels the call.
async fn wait(
    future: CatchUnwind<HandlerFuture>,
    ctx: &ToolCallContext,
    timeout: Duration,
    tool: &str,
    shared: &Shared,
    started: Instant,
) -> Result<Encoded, ToolError> {
    let shutdown = &shared.shutdown;
    // Counted until it ends, so a shutdown knows when every call in flight is answered.
    let _waiting = shutdown.enter();
    let mut guard = CancelOnDrop(Some((ctx, tool, &shared.events, started)));
    // Declared after the guard: dropped before it, as before.
    let mut future = future;
    let result = tokio::select! {
        biased;
        () = ctx.cancelled() => Err(cancelled_error()),
        error = shutdown.expired() => {
            // Tell the handler (and whatever it spawned) before its future is dropped.
            ctx.cancel();
            Err(error)
        }
        result = &mut future => result,
        () = tokio::time::sleep_until(Instant::from_std(ctx.deadline())) => {
            // Tell the handler (and whatever it spawned) before its future is dropped.
            ctx.cancel();
            let ms = timeout.as_millis();
            Err(ToolError::with_code(
                ErrorCode::ToolTimeout,
                format!("`{tool}` did not finish within its timeout of {ms} ms"),
            )
            .with_details(serde_json::json!({ "timeoutMs": ms })))
        }
    };
    guard.0 = None;
    result
}

pub(super) fn cancelled_error() -> ToolError {
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
/// waiting, or the bridge went away), and says so to the session's events: the call
/// finished, `TOOL_CANCELLED`.
struct CancelOnDrop<'a>(Option<(&'a ToolCallContext, &'a str, &'a EventHub, Instant)>);

impl Drop for CancelOnDrop<'_> {
    fn drop(&mut self) {
        if let Some((ctx, tool, events, started)) = self.0.take() {
            ctx.cancel();
            if events.enabled() {
                events.send(SessionEvent::CallFinished {
                    call_id: ctx.call_id_raw().to_string(),
                    tool: tool.to_owned(),
                    error: Some(ErrorCode::ToolCancelled),
                    elapsed: started.elapsed(),
                });
            }
        }
    }
}
