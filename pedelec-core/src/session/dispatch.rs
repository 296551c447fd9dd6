//! Dispatch and supervision: one call from its arrival to its result. The tool is looked
//! up, its args decoded, the handler resolved (named, inline, fallback) and run under the
//! tool's timeout and the call's cancellation, a panic anywhere becoming
//! `TOOL_HANDLER_ERROR`; events and a tracing span around it.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::task::{Context, Poll};
use std::time::Duration;

use serde_json::Value;
use tokio::time::Instant;

use super::events::{EventHub, SessionEvent};
use super::shutdown::{ShutdownState, refused_error};
use crate::call::args::{ArgsIn, CompiledArgs};
use crate::call::encode::{Encoded, Encoding};
use crate::call::handler::{FallbackHandler, HandlerFuture, ToolCall, ToolHandler, panic_error};
use crate::context::{CallId, Cancellation, ProgressFn, StateMap, ToolCallContext};
use crate::error::{Error, ErrorCode, Problem, ToolError};
use crate::manifest::SerializableSkillsManifest;
use crate::tool::ToolDefinition;

/// One tool of a live session.
pub(super) struct ToolEntry {
    pub(super) name: Arc<str>,
    pub(super) args: CompiledArgs,
    pub(super) timeout: Duration,
    pub(super) inline: Option<ToolHandler>,
    pub(super) named: RwLock<Option<ToolHandler>>,
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
pub(super) struct Shared {
    pub(super) manifest: SerializableSkillsManifest,
    /// The skill set's definitions, in order (for bridges that list per-tool metadata).
    pub(super) definitions: Vec<ToolDefinition>,
    pub(super) tools: Vec<ToolEntry>,
    pub(super) by_name: HashMap<Box<str>, usize, foldhash::fast::RandomState>,
    pub(super) fallback: RwLock<Option<FallbackHandler>>,
    pub(super) state: Arc<StateMap>,
    pub(super) events: EventHub,
    pub(super) next_call: AtomicU64,
    pub(super) shutdown: ShutdownState,
}

/// How one call is identified and steered: what [`CallOptions`](super::CallOptions) holds,
/// resolved.
pub(super) struct CallSetup {
    pub(super) call_id: CallId,
    pub(super) cancel: Cancellation,
    pub(super) progress: Option<ProgressFn>,
}

impl Shared {
    pub(super) fn local_call_id(&self) -> CallId {
        CallId::Local(self.next_call.fetch_add(1, Ordering::Relaxed))
    }

    pub(super) fn register(&self, name: &str, handler: ToolHandler) -> Result<(), Error> {
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
    /// the call when the future is dropped before it finished. Never panics. `finish` turns
    /// the outcome into what the caller returns, inside this future: a wrapping `async`
    /// block would hold this (large) future and move it once more on every call.
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
            let CallSetup {
                call_id,
                cancel,
                progress,
            } = setup;
            // Entered around each poll, as `Instrument` would, without moving this
            // future's state into a wrapper (no work at all when nobody subscribes).
            let span = tracing::info_span!("tool_call", call_id = %call_id, tool = %name);
            let started = Instant::now();
            self.events.emit(|| SessionEvent::CallStarted {
                call_id: call_id.to_string(),
                tool: name.to_owned(),
            });
            let mut guard = CancelOnDrop(Some(cancel.clone()));
            let mut execute = CatchUnwind(std::pin::pin!(
                self.execute(&call_id, name, args, &cancel, progress, encoding, started)
            ));
            let result = poll_fn(|cx| {
                let _entered = span.enter();
                Pin::new(&mut execute).poll(cx)
            })
            .await;
            guard.0 = None;
            let error = result.as_ref().err().map(ToolError::code);
            {
                let _entered = span.enter();
                match &result {
                    Ok(_) => tracing::debug!("tool call succeeded"),
                    Err(e) => {
                        tracing::debug!(code = %e.code(), message = e.message(), "tool call failed");
                    }
                }
            }
            self.events.emit(|| SessionEvent::CallFinished {
                call_id: call_id.to_string(),
                tool: name.to_owned(),
                error,
                elapsed: started.elapsed(),
            });
            finish(result)
        }
    }

    // The parts of one call, which `run` keeps for its events and span.
    #[allow(clippy::too_many_arguments)]
    async fn execute(
        &self,
        call_id: &CallId,
        name: &str,
        args: ArgsIn<'_>,
        cancel: &Cancellation,
        progress: Option<ProgressFn>,
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
        if self.shutdown.is_started() {
            return Err(refused_error());
        }
        let ctx = ToolCallContext::of_call(
            call_id.clone(),
            tool_name.clone(),
            deadline.into_std(),
            cancel.clone(),
            self.state.clone(),
            progress,
        );
        let started_handler = std::panic::catch_unwind(AssertUnwindSafe(|| {
            self.start(tool, tool_name, args, ctx, encoding)
        }));
        let future = match started_handler {
            Ok(Ok(future)) => future,
            Ok(Err(e)) => return Err(e),
            Err(payload) => return Err(panic_error(payload.as_ref())),
        };
        supervise(future, cancel, deadline, timeout, name, &self.shutdown).await
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
    shutdown: &ShutdownState,
) -> Result<Encoded, ToolError> {
    let mut future = CatchUnwind(future);
    // Most handlers finish at once: then no timer is armed, no waiter registered, and the
    // (larger) waiting state is never allocated.
    if let Poll::Ready(result) = poll_fn(|cx| Poll::Ready(Pin::new(&mut future).poll(cx))).await {
        return result;
    }
    Box::pin(wait(future, cancel, deadline, timeout, tool, shutdown)).await
}

/// The rest of [`supervise`], for a handler that did not finish at once.
async fn wait(
    mut future: CatchUnwind<HandlerFuture>,
    cancel: &Cancellation,
    deadline: Instant,
    timeout: Duration,
    tool: &str,
    shutdown: &ShutdownState,
) -> Result<Encoded, ToolError> {
    // Counted until it ends, so a shutdown knows when every call in flight is answered.
    let _waiting = shutdown.enter();
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(cancelled_error()),
        error = shutdown.expired() => {
            // Tell the handler (and whatever it spawned) before its future is dropped.
            cancel.cancel();
            Err(error)
        }
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
/// waiting, or the bridge went away).
struct CancelOnDrop(Option<Cancellation>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(cancel) = self.0.take() {
            cancel.cancel();
        }
    }
}
