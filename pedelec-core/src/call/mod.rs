//! The call pipeline, below the session: what turns one call's args into a handler's input
//! and its output into a result, with nothing about tools, handlers resolution, timeouts
//! or transports (that is the session's job, and the bridges').
//!
//! - `args`: the args as they arrive (JSON text or a value), decoded through the tool's
//!   compiled schema; the one `ArgsError → ToolError` conversion (`TOOL_ARGS_INVALID`,
//!   naming the tool and the first errors).
//! - `handler`: the type-erased handlers ([`ToolHandler`], the fallback), started with
//!   decoded args, producing an encoded result.
//! - `encode`: results in the form the caller needs (a `Value`, or JSON text), and the
//!   `{"ok":…}` wire form.
//! - `strict`: the serializer that refuses what JSON cannot represent (NaN, infinities,
//!   non-string map keys): `TOOL_RESULT_INVALID` instead of a silent `null`.
//!
//! It imports neither the session nor the bridges.

pub(crate) mod args;
pub(crate) mod encode;
pub(crate) mod handler;
pub(crate) mod strict;

pub use handler::{BoxFuture, ToolCall, ToolHandler};
