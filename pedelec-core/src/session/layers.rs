//! What wraps a call (steps 3 and 5 of the call policy): tower layers around the session's
//! call service, [`ToolService`], and [`from_fn`] for a layer written as a function.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use tower::util::BoxCloneSyncService;
use tower_layer::Layer;
use tower_service::Service;

use crate::call::ToolCall;
use crate::error::ToolResult;

/// The service a layer wraps: a call in, its result out, never an error (a failure is a
/// [`ToolResult`] like any other). What [`SessionBuilder::layer`](super::SessionBuilder::layer)
/// and [`layer_for`](super::SessionBuilder::layer_for) hand to a `tower::Layer`: tower's
/// boxed, cloneable, `Sync` service (`ToolService::new(service)` boxes one), which the
/// session's calls share without a lock.
pub type ToolService = BoxCloneSyncService<ToolCall, ToolResult, Infallible>;

/// A layer made of an `async` function over the call and the service it wraps (as axum's
/// `middleware::from_fn`): the function decides whether and how to pass the call on
/// (`next.call(call)`), and what to answer.
///
/// ```
/// # use pedelec_core::{ToolError, ToolResult};
/// # use pedelec_core::session::from_fn;
/// use tower_service::Service as _;
///
/// // Refuses `wipe` unless its args say `confirmed: true`.
/// let guardrail = from_fn(|call, mut next| async move {
///     if call.name == "wipe" && call.args["confirmed"] != true {
///         return ToolResult::Err(ToolError::new("`wipe` needs `confirmed: true`"));
///     }
///     next.call(call).await.unwrap_or_else(|never| match never {})
/// });
/// # let _ = guardrail;
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFn<F>
where
    F: Fn(ToolCall, ToolService) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    FromFn { f }
}

/// The layer of [`from_fn`].
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
}

impl<F> fmt::Debug for FromFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFn")
    }
}

impl<F: Clone> Layer<ToolService> for FromFn<F> {
    type Service = FromFnService<F>;

    fn layer(&self, next: ToolService) -> FromFnService<F> {
        FromFnService {
            f: self.f.clone(),
            next,
        }
    }
}

/// The service of [`from_fn`].
#[derive(Clone)]
pub struct FromFnService<F> {
    f: F,
    next: ToolService,
}

impl<F> fmt::Debug for FromFnService<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FromFnService")
    }
}

impl<F, Fut> Service<ToolCall> for FromFnService<F>
where
    F: Fn(ToolCall, ToolService) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = ToolResult> + Send + 'static,
{
    type Response = ToolResult;
    type Error = Infallible;
    type Future = FromFnFuture<Fut>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Service::poll_ready(&mut self.next, cx)
    }

    fn call(&mut self, call: ToolCall) -> FromFnFuture<Fut> {
        // The service that was made ready goes to this call; its clone stays for the next.
        let clone = self.next.clone();
        let next = std::mem::replace(&mut self.next, clone);
        FromFnFuture {
            future: (self.f)(call, next),
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`FromFnService`]: the function's future, unboxed (the
    /// [`ToolService`] around the layer boxes it once).
    pub struct FromFnFuture<Fut> {
        #[pin]
        future: Fut,
    }
}

impl<Fut: Future<Output = ToolResult>> Future for FromFnFuture<Fut> {
    type Output = Result<ToolResult, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.project().future.poll(cx).map(Ok)
    }
}

/// A layer, kept until the session is created (a `tower::Layer` applied to the service it
/// wraps then).
pub(super) type LayerFn = Box<dyn FnOnce(ToolService) -> ToolService + Send>;

/// A `tower::Layer` a session accepts ([`SessionBuilder::layer`](super::SessionBuilder::layer),
/// [`layer_for`](super::SessionBuilder::layer_for)): it wraps a [`ToolService`] in a
/// service of the same shape that can be cloned and shared between threads. Every such
/// layer is one (a blanket impl): `tower::limit::ConcurrencyLimitLayer`, [`from_fn`], a
/// layer of your own.
pub trait ToolLayer: Layer<ToolService, Service: LayeredService> + Send + 'static {}

impl<L: Layer<ToolService, Service: LayeredService> + Send + 'static> ToolLayer for L {}

/// The service a [`ToolLayer`] makes: a call in, its result out, cloneable and shareable
/// (every such service is one).
pub trait LayeredService:
    Service<ToolCall, Response = ToolResult, Error = Infallible, Future: Send + 'static>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<S> LayeredService for S where
    S: Service<ToolCall, Response = ToolResult, Error = Infallible, Future: Send + 'static>
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// Wraps `layer` for [`LayerFn`].
pub(super) fn layer_fn(layer: impl ToolLayer) -> LayerFn {
    Box::new(move |inner| ToolService::new(layer.layer(inner)))
}

/// Applies layers to `inner`, the first of the list outermost (as `tower::ServiceBuilder`).
pub(super) fn stack(inner: ToolService, layers: Vec<LayerFn>) -> ToolService {
    layers
        .into_iter()
        .rev()
        .fold(inner, |service, layer| layer(service))
}
