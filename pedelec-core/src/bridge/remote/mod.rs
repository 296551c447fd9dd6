//! Gateways (feature `gateway`, DESIGN §16): a remote MCP server's tools served through a
//! session, behind its policy.
//!
//! ```no_run
//! # async fn run() -> Result<(), pedelec_core::Error> {
//! use pedelec_core::{Session, SkillsInput, bridge::McpRemote};
//! let session = Session::builder(SkillsInput::<String>::new("Back office.", vec![]))
//!     .mount("weather", McpRemote::http("http://weather.internal/mcp").bearer("gateway-token"))
//!     .mount("files", McpRemote::stdio("npx").arg("@modelcontextprotocol/server-filesystem"))
//!     .create()?;                               // inside a Tokio runtime
//! session.mount_ready("weather").await?;        // optional: wait for its first listing
//! # Ok(()) }
//! ```
//!
//! - **Names.** The remote's tools are listed as `namespace.tool`; a remote name that
//!   breaks pedelec's tool name rule is mapped reversibly (`page:read` →
//!   `namespace.page_3a_read`; the mapping is documented in `names.rs` and reported).
//! - **Listing.** Each tool keeps what the remote wrote: MCP clients of the session see its
//!   `inputSchema`, `outputSchema`, `title`, `annotations`, `icons` and `_meta` verbatim.
//!   pedelec validates calls with the input schema read leniently (a schema its strict
//!   reader refuses is an open object, with a warning); warnings are logged
//!   (`tracing::warn!`) and kept in [`Session::mount_report`](crate::Session::mount_report).
//! - **Calls** run through the session like any other (OAuth when served over `McpHttp`,
//!   scopes, the rate limit, layers, approval, timeouts), then go to the remote with the
//!   validated args. Progress the remote reports reaches the call's progress; a call that
//!   is cancelled, times out or whose caller goes away is cancelled at the remote
//!   (`notifications/cancelled`). The remote's `content`, `structuredContent` and `_meta`
//!   are the call's value (answered verbatim over MCP); a result with `isError` is the
//!   call's `TOOL_HANDLER_ERROR` whose `details.result` is the remote's result (answered
//!   verbatim over MCP, `isError: true`).
//! - **Credentials.** The gateway authenticates with its own ([`McpRemote::bearer`],
//!   [`McpRemote::header`]); the caller's token never leaves pedelec.
//! - **Connecting.** `create()` starts a task per mount (so it must run inside a Tokio
//!   runtime) that connects, lists and follows `notifications/tools/list_changed`
//!   (re-listing; the session's list changes, see
//!   [`Session::tools_revision`](crate::Session::tools_revision)). Until the first listing
//!   the namespace has no tools;
//!   [`Session::mount_ready`](crate::Session::mount_ready) waits for it.
//! - **Down.** A remote that fails to start, crashes or cannot be reached makes its tools
//!   fail at once with `IO_FAILED` and a message naming it; the other tools keep working.
//!   The task reconnects with exponential backoff ([`McpRemote::backoff`]) and re-lists.
//!   Each step of reaching a remote has a deadline ([`McpRemote::connect_timeout`]): a
//!   remote that never answers `initialize` is down, not waited for.
//! - **Ending.** The task ends with the session: the session's table holds the drop guard
//!   of the task's cancellation token, and the task holds the table only between waits, so
//!   dropping the session ends the task wherever it waits, and a stdio remote's process
//!   is killed at once.
//! - **Kinds.** A builder method that does not apply to the remote's kind (`arg`, `args`,
//!   `env` on an HTTP remote; `bearer`, `header` on a stdio one) is refused at creation.

mod connection;
mod listing;
mod names;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::error::Problem;
use crate::session::{Mount, SessionLink};
use crate::tool::ToolDefinition;

/// A remote MCP server to mount on a session (`SessionBuilder::mount(namespace, remote)`):
/// a program spoken to over stdio, or a streamable HTTP endpoint.
#[derive(Clone, Debug)]
pub struct McpRemote {
    target: Target,
    policy: Policy,
    backoff: (Duration, Duration),
    /// The deadline of each step of connecting: starting or reaching the remote and
    /// `initialize`, then `tools/list`.
    step_timeout: Duration,
    /// Builder methods called that do not apply to this kind of remote (`.arg(…)` on an
    /// HTTP one, `.bearer(…)` on a stdio one): refused at creation.
    misapplied: Vec<&'static str>,
}

#[derive(Clone, Debug)]
enum Target {
    Stdio {
        program: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
    },
    Http {
        url: String,
        bearer: Option<String>,
        headers: BTreeMap<String, String>,
    },
}

/// What the session's policy adds to every tool of a remote.
#[derive(Clone, Debug, Default)]
struct Policy {
    scopes: Vec<String>,
    approval: bool,
    timeout_ms: Option<u64>,
}

impl McpRemote {
    /// A server run as a child process (`program`, found on `PATH`), spoken to over its
    /// stdin and stdout; restarted with backoff when it exits.
    #[must_use]
    pub fn stdio(program: impl Into<String>) -> Self {
        Self::new(Target::Stdio {
            program: program.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
        })
    }

    /// A server at a streamable HTTP endpoint (`http://`; `https://` is refused at
    /// creation for now: the gateway's HTTP client has no TLS).
    #[must_use]
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(Target::Http {
            url: url.into(),
            bearer: None,
            headers: BTreeMap::new(),
        })
    }

    fn new(target: Target) -> Self {
        McpRemote {
            target,
            policy: Policy::default(),
            backoff: (Duration::from_millis(100), Duration::from_secs(30)),
            step_timeout: Duration::from_secs(30),
            misapplied: Vec::new(),
        }
    }

    /// Notes a builder method that does not apply to this kind of remote.
    fn misapplied(mut self, method: &'static str) -> Self {
        if !self.misapplied.contains(&method) {
            self.misapplied.push(method);
        }
        self
    }

    /// An argument of the program (stdio only: on an HTTP remote, refused at creation).
    #[must_use]
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        if let Target::Stdio { args, .. } = &mut self.target {
            args.push(arg.into());
            return self;
        }
        self.misapplied("`.arg(…)`")
    }

    /// Arguments of the program (stdio only: on an HTTP remote, refused at creation).
    #[must_use]
    pub fn args<S: Into<String>>(mut self, more: impl IntoIterator<Item = S>) -> Self {
        if let Target::Stdio { args, .. } = &mut self.target {
            args.extend(more.into_iter().map(Into::into));
            return self;
        }
        self.misapplied("`.args(…)`")
    }

    /// An environment variable of the program (stdio only: on an HTTP remote, refused at
    /// creation).
    #[must_use]
    pub fn env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        if let Target::Stdio { env, .. } = &mut self.target {
            env.insert(key.into(), value.into());
            return self;
        }
        self.misapplied("`.env(…)`")
    }

    /// The gateway's own bearer token for the remote (HTTP): `Authorization: Bearer …`.
    /// The session's callers' tokens are never forwarded. (HTTP only: on a stdio remote,
    /// refused at creation.)
    #[must_use]
    pub fn bearer(mut self, token: impl Into<String>) -> Self {
        if let Target::Http { bearer, .. } = &mut self.target {
            *bearer = Some(token.into());
            return self;
        }
        self.misapplied("`.bearer(…)`")
    }

    /// A header sent with every request to the remote (HTTP only: on a stdio remote, refused
    /// at creation), e.g. an API key.
    #[must_use]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Target::Http { headers, .. } = &mut self.target {
            headers.insert(name.into(), value.into());
            return self;
        }
        self.misapplied("`.header(…)`")
    }

    /// Scopes a caller must hold to see and call the remote's tools (as
    /// `#[tool(scopes = [...])]` on each).
    #[must_use]
    pub fn scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.policy.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// Whether every call of the remote's tools needs approval (as `#[tool(approval)]`).
    #[must_use]
    pub fn approval(mut self, approval: bool) -> Self {
        self.policy.approval = approval;
        self
    }

    /// The timeout of each call of the remote's tools (default: the session's 60 s; at
    /// least 1 ms).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        let ms = u64::try_from(timeout.as_millis())
            .unwrap_or(u64::MAX)
            .max(1);
        self.policy.timeout_ms = Some(ms);
        self
    }

    /// The deadline of each step of reaching the remote (default 30 s): starting the
    /// program or connecting and `initialize`, then `tools/list`. A remote past it counts
    /// as down (its tools fail with `IO_FAILED`) and is retried with backoff.
    #[must_use]
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.step_timeout = timeout;
        self
    }

    /// The delay before reconnecting after a failure: `min` at first, doubled after each
    /// failure up to `max` (default 100 ms to 30 s), back to `min` once connected.
    #[must_use]
    pub fn backoff(mut self, min: Duration, max: Duration) -> Self {
        self.backoff = (min, max.max(min));
        self
    }

    /// What names the remote in messages: its program or URL.
    fn describe(&self) -> String {
        match &self.target {
            Target::Stdio { program, .. } => format!("`{program}` (stdio)"),
            Target::Http { url, .. } => format!("`{url}`"),
        }
    }
}

impl Mount for McpRemote {
    fn tools(
        self: Box<Self>,
        namespace: &str,
        _skills: &[ToolDefinition],
        link: &SessionLink,
    ) -> Result<Vec<ToolDefinition>, Vec<Problem>> {
        let place = format!("mount(\"{namespace}\")");
        if !self.misapplied.is_empty() {
            let (kind, applies) = match &self.target {
                Target::Stdio { .. } => (
                    "a stdio remote",
                    "`.bearer`/`.header` apply to HTTP remotes",
                ),
                Target::Http { .. } => (
                    "an HTTP remote",
                    "`.arg`/`.args`/`.env` apply to stdio remotes",
                ),
            };
            return Err(vec![Problem::at(
                place,
                format!(
                    "{} {} not apply to {kind} ({}): {applies}",
                    self.misapplied.join(", "),
                    if self.misapplied.len() == 1 {
                        "does"
                    } else {
                        "do"
                    },
                    self.describe()
                ),
            )]);
        }
        if let Target::Http { url, .. } = &self.target {
            if url.starts_with("https://") {
                return Err(vec![Problem::at(
                    place,
                    format!(
                        "`{url}`: the gateway's HTTP client has no TLS yet; reach the remote over http:// (a private network, or a local TLS-terminating proxy)"
                    ),
                )]);
            }
            if !url.starts_with("http://") {
                return Err(vec![Problem::at(
                    place,
                    format!("`{url}` is not an http:// URL"),
                )]);
            }
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return Err(vec![Problem::at(
                place,
                "a remote server is connected from a Tokio task: create the session inside a Tokio runtime",
            )]);
        };
        let live = link.live(namespace);
        connection::start(&runtime, namespace, *self, live);
        Ok(Vec::new())
    }
}
