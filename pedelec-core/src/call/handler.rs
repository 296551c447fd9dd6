//! Handlers: [`ToolHandler`] (a type-erased tool handler the runtime can call) and
//! [`ToolCall`] (what a fallback handler receives).
//!
//! A handler is started with the call's arguments, the tool's compiled schema and the
//! context. Typed handlers decode their argument struct through the schema in one step
//! (validate + deserialize); JSON handlers get the validated `Value`. The handler's output
//! is serialized by the strict serializer (no NaN, no infinities, string keys only) inside
//! the call, in the form the bridge needs.

use std::any::Any;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::args::CompiledArgs;
use super::encode::{Encoded, Encoding, encode};
use crate::context::{Caller, Cancellation, ToolCallContext};
use crate::error::ToolError;
use crate::schema::decode::ArgsIn;

/// A boxed, `Send`, `'static` future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// The future of a started handler: the serialized result, or the call's error. Once it
/// finished, its allocation can start the next call of the same handler
/// ([`Handler::restart`]).
pub(crate) type HandlerFuture = Pin<Box<dyn Handler>>;

/// A handler's future whose allocation can be reused: the session keeps a finished one
/// with its spare context and starts the next call in it (measured: ~110 instructions less
/// per call than a new allocation).
pub(crate) trait Handler: Future<Output = Result<Encoded, ToolError>> + Send {
    /// Starts `next` in this allocation: `true` when this future finished and `next` is
    /// `Some` of its type ([`Encode`] of the same handler's future), which is then taken.
    fn restart(self: Pin<&mut Self>, next: &mut dyn Any) -> bool;
}

/// Where a started handler's answer goes: the form its output is serialized to, and the
/// spare future it may start in (a finished one of the same handler, else a new allocation).
pub(crate) struct Out<'a> {
    pub(crate) encoding: Encoding,
    pub(crate) spare: &'a mut Option<HandlerFuture>,
}

type StartFn = dyn Fn(ArgsIn<'_>, &CompiledArgs, ToolCallContext, Out<'_>) -> Result<HandlerFuture, ToolError>
    + Send
    + Sync;

/// How a compile-time tool starts: a plain function per tool (no closure, no vtable, no
/// allocation).
type StartTool =
    fn(ArgsIn<'_>, &CompiledArgs, ToolCallContext, Out<'_>) -> Result<HandlerFuture, ToolError>;

#[derive(Clone)]
enum Start {
    Tool(StartTool),
    Closure(Arc<StartFn>),
}

/// A tool handler with its types erased.
///
/// Made from a compile-time tool ([`of_tool`](Self::of_tool), which `ToolDefinition::of`
/// uses for the inline handler), from a closure over typed args ([`typed`](Self::typed)),
/// or from a closure over JSON args ([`json`](Self::json)). Cloning is cheap.
#[derive(Clone)]
pub struct ToolHandler {
    start: Start,
}

impl ToolHandler {
    /// A handler taking typed args and returning a typed result.
    ///
    /// The args are validated against the tool's argsSchema and deserialized into `A` in
    /// one step; the result is serialized strictly (a NaN makes the call
    /// `TOOL_RESULT_INVALID` instead of turning into `null`).
    pub fn typed<A, O, F, Fut>(f: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        O: Serialize + Send + 'static,
        F: Fn(A, ToolCallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        ToolHandler {
            start: Start::Closure(Arc::new(
                move |args, schema: &CompiledArgs, ctx, out: Out<'_>| {
                    let args = schema.decode::<A>(args)?;
                    Ok(start_in(out, f(args, ctx)))
                },
            )),
        }
    }

    /// The handler of a compile-time tool: what [`of_tool`](Self::of_tool) makes.
    pub(crate) fn of_start(start: StartTool) -> Self {
        ToolHandler {
            start: Start::Tool(start),
        }
    }

    /// A handler taking the validated args as JSON (`null`s of optional properties
    /// removed) and returning any serializable result.
    pub fn json<O, F, Fut>(f: F) -> Self
    where
        O: Serialize + Send + 'static,
        F: Fn(Value, ToolCallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        ToolHandler {
            start: Start::Closure(Arc::new(
                move |args, schema: &CompiledArgs, ctx, out: Out<'_>| {
                    let args = schema.prepare(args)?;
                    Ok(start_in(out, f(args, ctx)))
                },
            )),
        }
    }

    /// Calls the handler directly with JSON args, outside a session: the args are
    /// deserialized but not validated against any schema, and there is no timeout or panic
    /// isolation. Meant for tests; a session does all of that.
    #[must_use]
    pub fn call(&self, args: Value, ctx: ToolCallContext) -> BoxFuture<Result<Value, ToolError>> {
        let unchecked = CompiledArgs::unchecked(Arc::from(ctx.tool_name()));
        match self.start(
            ArgsIn::Value(args),
            &unchecked,
            ctx,
            Out {
                encoding: Encoding::Value,
                spare: &mut None,
            },
        ) {
            Ok(fut) => Box::pin(async move { fut.await?.into_value() }),
            Err(e) => Box::pin(async move { Err(e) }),
        }
    }

    /// Decodes the args and starts the handler (the decoding runs now, the handler when the
    /// future is polled), in `out`'s spare when it is a finished future of this handler.
    pub(crate) fn start(
        &self,
        args: ArgsIn<'_>,
        schema: &CompiledArgs,
        ctx: ToolCallContext,
        out: Out<'_>,
    ) -> Result<HandlerFuture, ToolError> {
        match &self.start {
            Start::Tool(start) => start(args, schema, ctx, out),
            Start::Closure(start) => start(args, schema, ctx, out),
        }
    }
}

impl fmt::Debug for ToolHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolHandler")
    }
}

pin_project_lite::pin_project! {
    /// A handler's future, then its output serialized (a hand-written future: an `async`
    /// block would be a larger state machine, compiled for every tool). `Done` once it
    /// finished: its allocation may then start the next call ([`Handler::restart`]).
    #[project = EncodeProj]
    enum Encode<F> {
        Running {
            #[pin]
            future: F,
            encoding: Encoding,
        },
        Done,
    }
}

impl<F> Encode<F> {
    fn new(future: F, encoding: Encoding) -> Self {
        Encode::Running { future, encoding }
    }
}

impl<F, O> Future for Encode<F>
where
    F: Future<Output = Result<O, ToolError>>,
    O: Serialize,
{
    type Output = Result<Encoded, ToolError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let result = match self.as_mut().project() {
            EncodeProj::Running { future, encoding } => match ready!(future.poll(cx)) {
                Ok(out) => encode(&out, *encoding),
                Err(e) => Err(e),
            },
            EncodeProj::Done => Err(ToolError::new(
                "the handler's future was polled after it finished",
            )),
        };
        // The handler's future (and what it holds: the call's context) is dropped now.
        self.set(Encode::Done);
        Poll::Ready(result)
    }
}

impl<F, O> Handler for Encode<F>
where
    F: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: Serialize,
{
    // Compiled per handler: written without generic helpers (`and_then`, `unwrap_or`, …),
    // each of which would be one more function per handler in a debug build.
    fn restart(mut self: Pin<&mut Self>, next: &mut dyn Any) -> bool {
        if !matches!(*self, Encode::Done) {
            return false;
        }
        if let Some(slot) = next.downcast_mut::<Option<Self>>()
            && let Some(next) = slot.take()
        {
            self.set(next);
            return true;
        }
        false
    }
}

/// A handler's `future`, its output serialized to `out.encoding`: started in `out.spare`
/// when that is a finished future of the same handler, else in a new allocation.
#[inline]
pub(crate) fn start_in<F, O>(out: Out<'_>, future: F) -> HandlerFuture
where
    F: Future<Output = Result<O, ToolError>> + Send + 'static,
    O: Serialize,
{
    let mut next = Some(Encode::new(future, out.encoding));
    if let Some(mut reused) = out.spare.take()
        && reused.as_mut().restart(&mut next)
    {
        return reused;
    }
    // `restart` takes `next` only when it answers `true`: `Done` (an error when polled)
    // cannot happen. (One `Box::pin`, not one per arm: each is inlined.)
    Box::pin(match next {
        Some(next) => next,
        None => Encode::Done,
    })
}

/// A finished handler future (for tests of what keeps one).
#[cfg(test)]
pub(crate) fn finished_future() -> HandlerFuture {
    Box::pin(Encode::<std::future::Ready<Result<(), ToolError>>>::Done)
}

/// A call: what a fallback handler receives, and the request a tower layer around the
/// session's calls sees (`SessionBuilder::layer`).
///
/// `name`, `args` and `call_id` are the call as Core sent it (the args validated when a
/// fallback gets a call of a tool in the skill set; as sent when a layer sees them — the
/// session validates whatever a layer passes on, before any handler runs). The call's
/// [`context`](Self::context) carries its caller, deadline and cancellation; a layer passes
/// the call it received on (changing its fields), so the context goes with it.
#[derive(Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The tool's name, as Core sent it.
    pub name: String,
    /// The args.
    pub args: Value,
    /// The call's id, as Core sent it.
    pub call_id: String,
    #[serde(skip)]
    ctx: Option<ToolCallContext>,
}

impl ToolCall {
    /// A call of `name` with `args` and no context (for tests and hand-made requests).
    #[must_use]
    pub fn new(name: impl Into<String>, args: Value, call_id: impl Into<String>) -> Self {
        ToolCall {
            name: name.into(),
            args,
            call_id: call_id.into(),
            ctx: None,
        }
    }

    /// The call with its context, as a session makes it.
    pub(crate) fn in_context(name: String, args: Value, ctx: ToolCallContext) -> Self {
        ToolCall {
            name,
            args,
            call_id: ctx.call_id_text(),
            ctx: Some(ctx),
        }
    }

    /// The call's context (`None` for a call made with [`new`](Self::new)).
    #[must_use]
    pub fn context(&self) -> Option<&ToolCallContext> {
        self.ctx.as_ref()
    }

    /// Who makes the call, when known.
    #[must_use]
    pub fn caller(&self) -> Option<&Caller> {
        self.ctx.as_ref()?.caller()
    }

    /// When the call times out.
    #[must_use]
    pub fn deadline(&self) -> Option<Instant> {
        self.ctx.as_ref().map(ToolCallContext::deadline)
    }

    /// The call's cancellation: cancelled when Core cancels the call, its timeout passes,
    /// or its caller stops waiting.
    #[must_use]
    pub fn cancellation(&self) -> Option<Cancellation> {
        self.ctx.as_ref().map(ToolCallContext::cancellation)
    }

    /// The context, taken out (the session's endpoint runs the handler in it).
    pub(crate) fn take_context(&mut self) -> Option<ToolCallContext> {
        self.ctx.take()
    }
}

impl PartialEq for ToolCall {
    /// Calls are equal when their name, args and id are (whatever their contexts).
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.args == other.args && self.call_id == other.call_id
    }
}

impl fmt::Debug for ToolCall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolCall")
            .field("name", &self.name)
            .field("args", &self.args)
            .field("call_id", &self.call_id)
            .field("caller", &self.caller())
            .finish_non_exhaustive()
    }
}

type FallbackFn = dyn Fn(ToolCall, ToolCallContext, Encoding) -> HandlerFuture + Send + Sync;

/// The session's fallback handler, type-erased.
#[derive(Clone)]
pub(crate) struct FallbackHandler {
    f: Arc<FallbackFn>,
}

impl FallbackHandler {
    pub(crate) fn new<O, F, Fut>(f: F) -> Self
    where
        O: Serialize + Send + 'static,
        F: Fn(ToolCall, ToolCallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        FallbackHandler {
            f: Arc::new(move |call, ctx, encoding| Box::pin(Encode::new(f(call, ctx), encoding))),
        }
    }

    pub(crate) fn start(
        &self,
        call: ToolCall,
        ctx: ToolCallContext,
        encoding: Encoding,
    ) -> HandlerFuture {
        (self.f)(call, ctx, encoding)
    }
}

/// The `TOOL_HANDLER_ERROR` for a handler that panicked.
pub(crate) fn panic_error(payload: &(dyn Any + Send)) -> ToolError {
    let message = if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic payload that is not a string)".to_owned()
    };
    ToolError::new(format!("the handler panicked: {message}"))
        .with_details(serde_json::json!({ "panic": true }))
}

#[cfg(test)]
mod tests {
    use std::future::{Ready, ready};
    use std::task::Waker;

    use serde_json::json;

    use super::*;

    fn running(n: u32) -> Encode<Ready<Result<u32, ToolError>>> {
        Encode::new(ready(Ok(n)), Encoding::Value)
    }

    fn poll_once(future: &mut HandlerFuture) -> Poll<Result<Encoded, ToolError>> {
        future
            .as_mut()
            .poll(&mut Context::from_waker(Waker::noop()))
    }

    fn value(poll: Poll<Result<Encoded, ToolError>>) -> Value {
        match poll {
            Poll::Ready(Ok(encoded)) => encoded.into_value().unwrap(),
            other => panic!("not a value: {other:?}"),
        }
    }

    fn address(future: &HandlerFuture) -> *const () {
        std::ptr::from_ref::<dyn Handler>(&**future).cast()
    }

    #[test]
    fn a_finished_future_starts_the_next_call_of_its_own_handler_in_place() {
        let mut first = start_in(
            Out {
                encoding: Encoding::Value,
                spare: &mut None,
            },
            ready(Ok::<_, ToolError>(1)),
        );
        // Still running: it cannot take another call.
        assert!(!first.as_mut().restart(&mut Some(running(2))));
        assert_eq!(value(poll_once(&mut first)), json!(1));
        // Finished: a future of another handler is refused (and not taken)…
        let mut other = Some(Encode::new(ready(Ok::<_, ToolError>("x")), Encoding::Value));
        assert!(!first.as_mut().restart(&mut other));
        assert!(other.is_some());
        // …one of its own starts in the same allocation.
        let at = address(&first);
        let mut spare = Some(first);
        let mut second = start_in(
            Out {
                encoding: Encoding::Value,
                spare: &mut spare,
            },
            ready(Ok::<_, ToolError>(3)),
        );
        assert!(spare.is_none());
        assert_eq!(address(&second), at);
        assert_eq!(value(poll_once(&mut second)), json!(3));
        // Polled again after it finished: an error, not a panic.
        match poll_once(&mut second) {
            Poll::Ready(Err(e)) => assert!(e.message().contains("after it finished"), "{e}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_spare_of_another_handler_is_dropped_and_the_call_allocates() {
        let mut spare = Some(finished_future());
        let mut future = start_in(
            Out {
                encoding: Encoding::Value,
                spare: &mut spare,
            },
            ready(Ok::<_, ToolError>(5)),
        );
        assert!(spare.is_none());
        assert_eq!(value(poll_once(&mut future)), json!(5));
    }
}
