//! Bridges: how Core reaches a session.
//!
//! - [`JsonLines`]: one JSON message per line over any async reader/writer (stdio, TCP);
//!   the protocol is specified in `docs/protocol.md`.
//! - `Mcp` and `McpHttp` (cargo feature `mcp`): the Model Context Protocol over stdio and
//!   streamable HTTP (revisions 2025-11-25 and 2026-07-28, on `rmcp`'s model types), so
//!   that any MCP client can use the tools.
//! - `OAuth` (cargo feature `oauth`): `McpHttp` as an OAuth 2.1 resource server, so that
//!   each call knows its caller and each tool's scopes are enforced.
//!
//! Core embedded in the process needs no bridge: call the session directly
//! ([`Session::call`](crate::Session::call), [`call_with`](crate::Session::call_with)).
//!
//! A bridge implements [`Bridge`]; [`Session::serve`](crate::Session::serve) runs it. Every
//! bridge here is built on the session's public call API only, so a bridge of your own can
//! do whatever these do, as fast: [`Session::call_raw_with`](crate::Session::call_raw_with)
//! takes the args as JSON text and returns the result as JSON text, with the call id, a
//! cancellation handle and a progress callback in [`CallOptions`](crate::CallOptions).

mod accept;
mod json_lines;
#[cfg(feature = "mcp")]
mod mcp;
#[cfg(feature = "mcp")]
pub mod mcp_http;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub mod oauth;
#[cfg(feature = "gateway")]
#[cfg_attr(docsrs, doc(cfg(feature = "gateway")))]
pub mod remote;

pub use json_lines::{JsonLines, JsonLinesListener, PROTOCOL_VERSION};
#[cfg(feature = "mcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "mcp")))]
pub use mcp::{Mcp, TraceParent};
#[cfg(feature = "mcp")]
pub use mcp_http::McpHttp;
#[cfg(feature = "oauth")]
#[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
pub use oauth::OAuth;

#[cfg(feature = "gateway")]
#[cfg_attr(docsrs, doc(cfg(feature = "gateway")))]
pub use remote::McpRemote;

pub use crate::session::Bridge;
