//! A started handler behind a check that must pass first (an approval, a shared rate
//! limit): the check is awaited, and the handler is polled only once it passes (dropped
//! unpolled otherwise: nothing of it has run). A leaf: the session's steps wrap with it.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use crate::call::encode::Encoded;
use crate::call::handler::{Handler, HandlerFuture};
use crate::error::ToolError;

/// The check a handler waits for.
pub(super) type Check = Pin<Box<dyn Future<Output = Result<(), ToolError>> + Send>>;

/// `inner` once `check` passed.
pub(super) struct Behind {
    check: Option<Check>,
    inner: HandlerFuture,
}

impl Behind {
    /// `inner`, behind `check`.
    pub(super) fn wrap(
        check: impl Future<Output = Result<(), ToolError>> + Send + 'static,
        inner: HandlerFuture,
    ) -> HandlerFuture {
        Box::pin(Behind {
            check: Some(Box::pin(check)),
            inner,
        })
    }
}

impl Future for Behind {
    type Output = Result<Encoded, ToolError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        if let Some(check) = &mut self.check {
            ready!(check.as_mut().poll(cx))?;
            self.check = None;
        }
        self.inner.as_mut().poll(cx)
    }
}

impl Handler for Behind {
    fn restart(self: Pin<&mut Self>, _next: &mut dyn Any) -> bool {
        false
    }
}
