//! The counter skills of the Pedelec Tools API, in Rust: `get_current_page` and
//! `update_counter` over a shared counter, listed in `skills![]`, served by a session.
//!
//! - `cargo run --example counter` prints the manifest (what is sent to Core), then a
//!   transcript of calls against the in-process Core: a valid call, bad args, an unknown
//!   tool, a handler error, a timeout, and a named handler overriding the inline one.
//! - `cargo run --example counter -- --manifest` prints the manifest alone.
//! - `cargo run --example counter -- --stdio` serves the same session over JSON Lines on
//!   stdin/stdout (`docs/protocol.md`):
//!
//!   ```sh
//!   printf '%s\n' '{"type":"tool_call","callId":"1","name":"update_counter","args":{"delta":2}}' \
//!     | cargo run -q --example counter -- --stdio
//!   ```
//! - `cargo run --example counter -- --mcp` serves it to an MCP client over stdio, and
//!   `cargo run --example counter -- --mcp-http 127.0.0.1:8080` over streamable HTTP at
//!   `http://127.0.0.1:8080/mcp`. Ctrl-C stops it once every call in flight is answered.
//!
//! `update_counter` requires the OAuth scope `counter:write` (`#[tool(scopes = [...])]`):
//! the caller must hold it. In process the transcript's caller holds it; over JSON Lines
//! and MCP over stdio the local client is trusted with every scope; over HTTP:
//!
//! - with `PEDELEC_MCP_TOKEN` set, clients send `Authorization: Bearer $PEDELEC_MCP_TOKEN`,
//!   and whoever holds that token holds every scope;
//! - with `--issuer URL --resource URL` (or `PEDELEC_OAUTH_ISSUER` and
//!   `PEDELEC_OAUTH_RESOURCE`), the server is an OAuth 2.1 resource server: clients bring
//!   access tokens from that issuer, issued for that resource (the URL they reach the
//!   server at, `https://…/mcp`), and only a token with `counter:write` sees and calls
//!   `update_counter` (others get `403 insufficient_scope`);
//! - with neither, calls are anonymous: `update_counter` is not listed, and calling it
//!   answers `TOOL_FORBIDDEN`.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, Ordering};

use pedelec::context::Caller;
use pedelec::{CallOptions, ToolArgs, ToolCallContext, ToolError, ToolOutput, skills, tool};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The counter shown on the page, shared by every call (registered as session state).
#[derive(Debug, Default)]
pub struct Counter {
    value: AtomicI64,
}

impl Counter {
    /// Adds `delta` and returns the new value.
    pub fn add(&self, delta: i64) -> i64 {
        self.value.fetch_add(delta, Ordering::SeqCst) + delta
    }

    /// Adds `delta` unless the counter would overflow.
    pub fn checked_add(&self, delta: i64) -> Result<i64, ToolError> {
        let mut current = self.value.load(Ordering::SeqCst);
        loop {
            let next = current.checked_add(delta).ok_or_else(|| {
                ToolError::new(format!(
                    "the counter ({current}) cannot move by {delta}: it would overflow"
                ))
            })?;
            match self
                .value
                .compare_exchange(current, next, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return Ok(next),
                Err(actual) => current = actual,
            }
        }
    }

    /// The current value.
    pub fn get(&self) -> i64 {
        self.value.load(Ordering::SeqCst)
    }
}

// The arguments of `update_counter`. A `///` comment here would become the argsSchema's
// root description; the seed's schema has none.
#[derive(Debug, Deserialize, ToolArgs)]
struct UpdateCounterArgs {
    /// How much to add to the counter (negative to subtract).
    delta: i64,
}

/// The counter's value after a change.
#[derive(Debug, Serialize, ToolOutput)]
struct CounterValue {
    /// The new value.
    value: i64,
}

/// What the page shows.
#[derive(Debug, Serialize, ToolOutput)]
struct Page {
    /// The page's title.
    title: &'static str,
    /// The visible counter.
    counter: i64,
}

/// Read the current page: its title and the visible counter.
#[tool(title = "Read the page", read_only)]
fn get_current_page(ctx: ToolCallContext) -> Result<Page, ToolError> {
    Ok(Page {
        title: "Counter",
        counter: ctx.state::<Counter>()?.get(),
    })
}

/// Update the visible counter by delta.
#[tool(
    name = "update_counter",
    timeout_ms = 5_000,
    title = "Update the counter",
    destructive = false,
    scopes = ["counter:write"]
)]
async fn update_counter(
    args: UpdateCounterArgs,
    ctx: ToolCallContext,
) -> Result<CounterValue, ToolError> {
    Ok(CounterValue {
        value: ctx.state::<Counter>()?.checked_add(args.delta)?,
    })
}

/// Re-render the page (slow: it waits for a renderer that never answers in this demo).
#[tool(timeout_ms = 100)]
async fn render_page(ctx: ToolCallContext) -> Result<(), ToolError> {
    // Stands for a renderer that hangs. The session gives up after 100 ms, drops this
    // future and cancels `ctx` (which a handler that spawned work would watch).
    ctx.cancelled().await;
    Ok(())
}

skills![
    pub enum ToolName,
    guidance = "Read current state before making changes.",
    tools = [get_current_page, update_counter],
];

/// The skill set's manifest as pretty JSON, with a final newline.
#[must_use]
pub fn manifest_json() -> String {
    let mut json =
        serde_json::to_string_pretty(&ToolName::manifest()).expect("a manifest always serializes");
    json.push('\n');
    json
}

/// The session of the demo: the counter skills, plus `render_page` (a tool that times out).
/// The session's names are strings, since `render_page` is not in `ToolName`.
///
/// # Errors
/// When the skill set is invalid (it is not).
pub fn demo_session() -> Result<pedelec::Session, pedelec::Error> {
    let mut skills = ToolName::skills().untyped();
    skills
        .tools_mut()
        .push(pedelec::ToolDefinition::of::<render_page>());
    pedelec::Session::builder(skills)
        .state(Counter::default())
        .create()
}

// The MCP server (`--mcp`, `--mcp-http`) also serves `count_to`: a long call that reports
// its progress (`notifications/progress`, when the client asked for it), can be cancelled,
// and runs as a task for clients of the tasks extension; `reset_counter`, which asks the
// user first (`ctx.elicit`) and has an icon; and `set_counter`, which runs only once the
// user approves the call (`#[tool(approval)]`).

/// The arguments of `count_to`.
#[derive(Debug, Deserialize, ToolArgs)]
struct CountToArgs {
    /// How far to count (one step every 10 ms).
    #[arg(minimum = 1, maximum = 100_000)]
    n: u64,
}

/// Count to n, one step every 10 ms, reporting progress at each step.
#[tool(timeout_ms = 60_000, title = "Count", read_only, task = optional)]
async fn count_to(args: CountToArgs, ctx: ToolCallContext) -> Result<u64, ToolError> {
    for i in 1..=args.n {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        ctx.progress(i, Some(args.n), format!("counted to {i}"));
    }
    Ok(args.n)
}

/// The answer `reset_counter` asks the user for.
#[derive(Debug, Deserialize, ToolArgs)]
struct ResetConfirm {
    /// Reset the counter to 0?
    confirm: bool,
}

/// Reset the counter to 0, once the user confirms.
#[tool(
    title = "Reset the counter",
    icon = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PGNpcmNsZSBjeD0iOCIgY3k9IjgiIHI9IjciLz48L3N2Zz4="
)]
async fn reset_counter(ctx: ToolCallContext) -> Result<String, ToolError> {
    let answer = ctx
        .elicit::<ResetConfirm>("confirm", "Reset the counter to 0?")
        .await?;
    Ok(match answer {
        pedelec::context::Elicited::Accepted(ResetConfirm { confirm: true }) => {
            let counter = ctx.state::<Counter>()?;
            counter.add(-counter.get());
            "reset to 0".to_owned()
        }
        pedelec::context::Elicited::Accepted(_) => "kept: not confirmed".to_owned(),
        pedelec::context::Elicited::Declined => "kept: declined".to_owned(),
        pedelec::context::Elicited::Cancelled => "kept: cancelled".to_owned(),
    })
}

/// The arguments of `set_counter`.
#[derive(Debug, Deserialize, ToolArgs)]
struct SetCounterArgs {
    /// The counter's new value.
    value: i64,
}

/// Set the counter to a value, once the user approves the call.
#[tool(approval)]
async fn set_counter(args: SetCounterArgs, ctx: ToolCallContext) -> Result<String, ToolError> {
    let counter = ctx.state::<Counter>()?;
    counter.add(args.value - counter.get());
    Ok(format!("set to {}", args.value))
}

/// The session served over MCP: the demo session's tools, plus `count_to`,
/// `reset_counter` and `set_counter`, in code mode (`search_tools` finds a tool's
/// TypeScript declaration, `run_code` runs a program that calls several: DESIGN §15).
///
/// # Errors
/// When the skill set is invalid (it is not).
pub fn mcp_session() -> Result<pedelec::Session, pedelec::Error> {
    let mut skills = ToolName::skills().untyped();
    let tools = skills.tools_mut();
    tools.push(pedelec::ToolDefinition::of::<render_page>());
    tools.push(pedelec::ToolDefinition::of::<count_to>());
    tools.push(pedelec::ToolDefinition::of::<reset_counter>());
    tools.push(pedelec::ToolDefinition::of::<set_counter>());
    pedelec::Session::builder(skills)
        .state(Counter::default())
        .code_mode(pedelec::code::CodeMode::new().time_limit(std::time::Duration::from_secs(10)))
        .create()
}

/// The transcript's caller: it may update the counter.
#[must_use]
pub fn editor() -> Caller {
    Caller::new("editor").with_scopes(["counter:write"])
}

/// Makes one call as [`editor`] and appends it to the transcript.
async fn show(
    out: &mut String,
    session: &pedelec::Session,
    title: &str,
    name: &str,
    args: serde_json::Value,
) {
    show_as(out, session, editor(), title, name, args).await;
}

/// Makes one call as `caller` and appends it to the transcript.
async fn show_as(
    out: &mut String,
    session: &pedelec::Session,
    caller: Caller,
    title: &str,
    name: &str,
    args: serde_json::Value,
) {
    let options = CallOptions::new().caller(caller);
    let result = session.call_with(name, args.clone(), options).await;
    let result = serde_json::to_string(&result).expect("results always serialize");
    // Writing to a `String` cannot fail.
    let _ = write!(out, "# {title}\n-> {name} {args}\n<- {result}\n\n");
}

/// What `cargo run --example counter` prints: the manifest, then a call of each kind
/// against the in-process Core.
///
/// # Errors
/// When the session cannot be created (it can).
pub async fn transcript() -> Result<String, pedelec::Error> {
    let session = demo_session()?;
    let mut out = format!("# manifest (sent to Core)\n{}\n", manifest_json());
    let out = &mut out;
    show(
        out,
        &session,
        "a valid call",
        "update_counter",
        json!({"delta": 2}),
    )
    .await;
    show(
        out,
        &session,
        "bad args: every problem, with its JSON pointer",
        "update_counter",
        json!({"delta": "5", "step": 1}),
    )
    .await;
    show_as(
        out,
        &session,
        Caller::new("reader").with_scopes(["counter:read"]),
        "a caller without `counter:write`: forbidden, before its args are even read",
        "update_counter",
        json!({"delta": 1}),
    )
    .await;
    show(
        out,
        &session,
        "an unknown tool",
        "update_countr",
        json!({"delta": 1}),
    )
    .await;
    show(
        out,
        &session,
        "a handler error",
        "update_counter",
        json!({"delta": i64::MAX}),
    )
    .await;
    show(
        out,
        &session,
        "a timeout (`render_page` has timeout_ms = 100)",
        "render_page",
        json!({}),
    )
    .await;
    // A named handler replaces the inline one (resolution: named, inline, fallback).
    session.on_tool::<update_counter>(|args, ctx| async move {
        let value = ctx.state::<Counter>()?.checked_add(args.delta * 10)?;
        Ok(CounterValue { value })
    });
    show(
        out,
        &session,
        "a named handler overriding the inline one (it multiplies by 10)",
        "update_counter",
        json!({"delta": 2}),
    )
    .await;
    show(out, &session, "the page", "get_current_page", json!({})).await;
    Ok(std::mem::take(out))
}

/// The value of `--flag VALUE` in `args`, or else of the environment variable `var`.
fn option(args: &[String], flag: &str, var: &str) -> Option<String> {
    let given = args
        .iter()
        .position(|a| a == flag)
        .and_then(|i| args.get(i + 1).cloned());
    given.or_else(|| std::env::var(var).ok().filter(|v| !v.is_empty()))
}

/// `--mcp`: serves [`mcp_session`] to an MCP client over stdio (the client that started
/// the process is trusted with every scope); `--mcp-http ADDR`: over streamable HTTP at
/// `http://ADDR/mcp`, as an OAuth resource server with `--issuer URL --resource URL` (or
/// `PEDELEC_OAUTH_ISSUER`, `PEDELEC_OAUTH_RESOURCE`), with a static bearer token when
/// `PEDELEC_MCP_TOKEN` is set, anonymous otherwise; with sessions for 2025-11-25 clients
/// with `--stateful`; until Ctrl-C. `Ok(false)` when `args` asks for neither.
///
/// # Errors
/// When the session cannot be created, the options are wrong, or the transport fails.
pub async fn serve_mcp(args: &[String]) -> Result<bool, Box<dyn std::error::Error>> {
    if args.iter().any(|a| a == "--mcp") {
        // Standard output is the protocol channel: nothing else may be printed on it.
        let local = Caller::new("local").with_every_scope();
        mcp_session()?
            .serve(
                pedelec::bridge::Mcp::stdio()
                    .caller(local)
                    .server_title("Counter"),
            )
            .await?;
        return Ok(true);
    }
    let Some(i) = args.iter().position(|a| a == "--mcp-http") else {
        return Ok(false);
    };
    let addr = args.get(i + 1).map_or("127.0.0.1:8080", String::as_str);
    let stateful = args.iter().any(|a| a == "--stateful");
    let mut bridge = pedelec::bridge::McpHttp::bind(addr)
        .stateful(stateful)
        .server_title("Counter");
    let issuer = option(args, "--issuer", "PEDELEC_OAUTH_ISSUER");
    let resource = option(args, "--resource", "PEDELEC_OAUTH_RESOURCE");
    let token = std::env::var("PEDELEC_MCP_TOKEN").unwrap_or_default();
    match (issuer, resource) {
        (Some(issuer), Some(resource)) => {
            eprintln!("access tokens from {issuer}, for {resource}");
            bridge = bridge.oauth(pedelec::bridge::OAuth::new(resource).issuer(issuer));
        }
        (None, None) if !token.is_empty() => bridge = bridge.bearer_token(token),
        (None, None) => eprintln!(
            "no PEDELEC_MCP_TOKEN nor --issuer: calls are anonymous, and `update_counter` \
             (scope `counter:write`) is not served"
        ),
        _ => {
            return Err(
                "give both `--issuer URL` and `--resource URL` (the server's URL, \
                         `https://host/mcp`), or neither"
                    .into(),
            );
        }
    }
    eprintln!("serving MCP at http://{addr}/mcp (Ctrl-C to stop)");
    mcp_session()?.serve(bridge).await?;
    Ok(true)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if std::env::args().any(|a| a == "--manifest") {
        print!("{}", manifest_json());
        return Ok(());
    }
    let args: Vec<String> = std::env::args().collect();
    if serve_mcp(&args).await? {
        return Ok(());
    }
    if std::env::args().any(|a| a == "--stdio") {
        // Standard output is the protocol channel: nothing else may be printed on it.
        // Core is local and trusted: it may call every tool.
        let core = Caller::new("core").with_every_scope();
        demo_session()?
            .serve(pedelec::bridge::JsonLines::stdio().caller(core))
            .await?;
        return Ok(());
    }
    print!("{}", transcript().await?);
    Ok(())
}
