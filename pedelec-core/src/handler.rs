//! [`ToolHandler`]: a type-erased handler the runtime can call.
//!
//! First version: decodes JSON `Value` args with `serde_json`, serializes the output with
//! `serde_json`. The session work replaces the internals with the validating fast path and
//! the strict result serializer.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::ToolCallContext;
use crate::error::ToolError;
use crate::tool::Tool;

/// A boxed, `Send`, `'static` future.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

type ErasedFn = dyn Fn(Value, ToolCallContext) -> BoxFuture<Result<Value, ToolError>> + Send + Sync;

/// A handler with its types erased: takes the call's JSON args and context, returns the
/// result's JSON value.
#[derive(Clone)]
pub struct ToolHandler {
    inner: Arc<ErasedFn>,
}

impl ToolHandler {
    /// The inline handler of a compile-time tool (its function).
    #[must_use]
    pub fn of_tool<T: Tool>() -> Self {
        ToolHandler::typed(T::call)
    }

    /// A handler taking typed args and returning a typed result.
    pub fn typed<A, O, F, Fut>(f: F) -> Self
    where
        A: DeserializeOwned + Send + 'static,
        O: Serialize + Send + 'static,
        F: Fn(A, ToolCallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<O, ToolError>> + Send + 'static,
    {
        ToolHandler {
            inner: Arc::new(move |args: Value, ctx| {
                let decoded = serde_json::from_value::<A>(args);
                match decoded {
                    Ok(args) => {
                        let fut = f(args, ctx);
                        Box::pin(async move {
                            let out = fut.await?;
                            serde_json::to_value(out).map_err(ToolError::from)
                        })
                    }
                    Err(e) => Box::pin(async move { Err(ToolError::from(e)) }),
                }
            }),
        }
    }

    /// A handler taking and returning JSON values.
    pub fn json<F, Fut>(f: F) -> Self
    where
        F: Fn(Value, ToolCallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        ToolHandler {
            inner: Arc::new(move |args, ctx| Box::pin(f(args, ctx))),
        }
    }

    /// Calls the handler.
    #[must_use]
    pub fn call(&self, args: Value, ctx: ToolCallContext) -> BoxFuture<Result<Value, ToolError>> {
        (self.inner)(args, ctx)
    }
}

impl fmt::Debug for ToolHandler {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolHandler")
    }
}
