//! The Model Context Protocol (cargo feature `mcp`): a session served to any MCP client,
//! over stdio ([`Mcp`]) or streamable HTTP ([`McpHttp`](super::McpHttp)), revisions
//! 2025-11-25 (and before) and 2026-07-28 side by side, chosen per request.
//!
//! The protocol is written once, over `rmcp`'s model types: [`server`] answers one parsed
//! message with what its transport knows of it; the transports only move bytes.
//!
//! - `wire`: a JSON-RPC message read once (fields kept as ranges of its text), answers
//!   written in place;
//! - `meta`: a request's `_meta`, the revisions, [`TraceParent`];
//! - `settings`: what a user sets on both transports;
//! - `shared`: what the other files share (the [`Server`](shared::Server) handle and its
//!   state, what a transport knows of a request, a reply); a leaf;
//! - `server`: the dispatcher (`initialize`, `server/discover`, `ping`, lists with their
//!   caching hints, `logging/setLevel`, `tasks/*`);
//! - `call`: `tools/call` (results, input-required rounds with a sealed `requestState`,
//!   calls that become tasks);
//! - `channel`: one call's channel to its client (progress, logs, requests for input);
//! - `result`: how a call's answer is framed (also for tasks);
//! - `tasks`: the tasks extension's store;
//! - `stdio`: the [`Mcp`] transport.
//!
//! What a client sees:
//!
//! - `tools/list` lists the session's tools in skill-set order: `inputSchema` is the
//!   argsSchema, with `title`, `annotations`, `outputSchema` and `icons` when the
//!   definition has them; on 2026-07-28 with `ttlMs` and `cacheScope: "public"` (the list
//!   is the same for every caller). The guidance is the server's `instructions`.
//! - `tools/call` runs the call through the session — validation, resolution, timeout,
//!   panic isolation, strict results. A string result is its own text; any other value is
//!   its JSON text, and its `structuredContent` when it is an object or the tool lists an
//!   `outputSchema` (a non-object output wrapped as `{"result": …}`); `Content` gives its
//!   blocks. A failed call (bad args included, SEP-1303) is an `isError` result with the
//!   error `{"code", "message", "details"?}` as text. An unknown tool is the protocol
//!   error `-32602`.
//! - `ctx.progress(..)` sends `notifications/progress` when the request carried a
//!   `progressToken`; `ctx.log(..)` sends `notifications/message` at the level the client
//!   asked for; `ctx.elicit`, `ctx.sample` and `ctx.roots` ask the client.
//! - Empty `prompts` and `resources` capabilities are declared, and their lists answered
//!   empty, so that clients that list them (and caches) get an answer rather than an
//!   error.

mod call;
mod channel;
pub(crate) mod meta;
mod result;
mod search;
pub(crate) mod server;
mod settings;
pub(crate) mod shared;
mod stdio;
mod tasks;
mod telemetry;
pub(crate) mod wire;

pub use meta::TraceParent;
pub use stdio::Mcp;
