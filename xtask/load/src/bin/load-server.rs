//! One server of `cargo xtask load`, on loopback, in its own process so that its memory and
//! CPU time are its own:
//!
//! ```text
//! load-server --kind pedelec|rmcp|floor|api [--addr 127.0.0.1:0] [--workload counter|tmdevlab]
//!             [--redis redis://127.0.0.1:6379] [--api http://127.0.0.1:8100] [--journal PATH]
//!             [--store redis://127.0.0.1:6379] [--rate-limit CALLS/SECS]
//! ```
//!
//! - `pedelec`: a session served by `pedelec::bridge::McpHttp` (stateless, its defaults);
//! - `rmcp`: rmcp's own `StreamableHttpService`, configured as `McpHttp` configures it
//!   (stateless, JSON answers, loopback hosts), with the same tools written with rmcp's
//!   `#[tool]`;
//! - `floor` (counter workload only): the transport floor, a bare axum handler that parses
//!   the JSON-RPC `tools/call` with `serde_json` and builds the same result JSON;
//! - `api`: the TM Dev Lab v2 catalog the tools of the `tmdevlab` workload call.
//!
//! `--journal PATH` (pedelec's counter): every `update_counter` appends its `delta` to
//! `PATH`, one line per call, before it answers (`cargo xtask replicas` reads the journals of
//! replicas it killed to check that no call ran twice).
//!
//! The `counter` workload serves `update_counter(delta) -> {value}`; `tmdevlab` serves the
//! benchmark's three tools (`pedelec_load::tmdevlab`), which need `--redis` and `--api`;
//! `replicas` (pedelec only) serves `update_counter` and `charge(id, ms)`, an
//! `exactly_once` tool that journals `charge ID` as it starts and answers after `ms`
//! milliseconds (`cargo xtask replicas` checks retries and duplicates across replicas with
//! it), and `confirm(id, ms)`, a `task = optional` tool that journals `task ID`, works `ms`
//! milliseconds, then asks the user (tasks started on one replica, polled, answered and
//! cancelled through the others). `--store URL` shares the session's store in Redis (`pedelec::store::Redis`), and
//! `--rate-limit CALLS/SECS` sets `RateLimit::per_caller(CALLS, SECS s)`.
//! The first line printed is `listening <address>`. All run on tokio's multi-thread runtime
//! with its defaults (one worker per core).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use axum::body::Bytes;
use axum::http::header;
use axum::response::IntoResponse;
use pedelec::bridge::McpHttp;
use pedelec::{Session, ToolArgs, ToolCallContext, ToolError, ToolOutput, skills, tool};
use pedelec_load::tmdevlab::{self, CheckoutArgs, Deps, GetUserCartArgs, SearchProductsArgs};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler, schemars, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// The counter every `update_counter` call moves, and its journal (`--journal`).
#[derive(Debug, Default)]
struct Counter(AtomicI64, Option<std::sync::Mutex<std::fs::File>>);

impl Counter {
    fn add(&self, delta: i64) -> i64 {
        self.journal(&format!("{delta}\n"));
        self.0.fetch_add(delta, Ordering::Relaxed) + delta
    }

    /// Appends `line` to the journal, if there is one: one `write`, in the kernel before
    /// the answer leaves, so it survives a kill of this process.
    fn journal(&self, line: &str) {
        if let Some(journal) = &self.1 {
            use std::io::Write as _;
            let mut file = journal
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let _ = file.write_all(line.as_bytes());
        }
    }
}

#[derive(Debug, Deserialize, ToolArgs)]
struct TaskArgs {
    /// The call's number (journaled as `task ID`).
    id: u64,
    /// How long it works before it asks, in milliseconds.
    #[serde(default)]
    ms: u64,
}

/// What `confirm` asks the user.
#[derive(Debug, Deserialize, ToolArgs)]
struct Yes {
    ok: bool,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct ChargeArgs {
    /// The charge's number (journaled as `charge ID`).
    id: u64,
    /// How long the charge takes, in milliseconds.
    #[serde(default)]
    ms: u64,
}

#[derive(Debug, Deserialize, ToolArgs, schemars::JsonSchema)]
struct UpdateCounterArgs {
    /// How much to add to the counter.
    delta: i64,
}

/// The counter's value after a change.
#[derive(Debug, Serialize, ToolOutput, schemars::JsonSchema)]
struct CounterValue {
    /// The new value.
    value: i64,
}

mod pedelec_tools {
    use pedelec::context::Elicited;

    use super::{
        ChargeArgs, CheckoutArgs, Counter, CounterValue, Deps, GetUserCartArgs, SearchProductsArgs,
        TaskArgs, ToolCallContext, ToolError, UpdateCounterArgs, Value, Yes, skills, tmdevlab,
        tool,
    };

    /// Update the visible counter by delta.
    #[tool]
    async fn update_counter(
        args: UpdateCounterArgs,
        ctx: ToolCallContext,
    ) -> Result<CounterValue, ToolError> {
        Ok(CounterValue {
            value: ctx.state::<Counter>()?.add(args.delta),
        })
    }

    skills![
        pub enum CounterTools,
        guidance = "Move the counter.",
        tools = [update_counter],
    ];

    /// Charge once, however often the call is retried (journaled as it starts).
    #[tool(exactly_once, timeout_ms = 2_000)]
    async fn charge(args: ChargeArgs, ctx: ToolCallContext) -> Result<String, ToolError> {
        ctx.state::<Counter>()?
            .journal(&format!("charge {}\n", args.id));
        tokio::time::sleep(std::time::Duration::from_millis(args.ms)).await;
        Ok(format!("charged {}", args.id))
    }

    /// Work a while, then ask for a confirmation (a task when the client can).
    #[tool(task = optional, timeout_ms = 600_000)]
    async fn confirm(args: TaskArgs, ctx: ToolCallContext) -> Result<String, ToolError> {
        ctx.state::<Counter>()?
            .journal(&format!("task {}\n", args.id));
        tokio::time::sleep(std::time::Duration::from_millis(args.ms)).await;
        Ok(match ctx.elicit::<Yes>("confirm", "Go ahead?").await? {
            Elicited::Accepted(Yes { ok }) => format!("ok={ok}"),
            other => other.action().to_owned(),
        })
    }

    skills![
        pub enum ReplicaTools,
        guidance = "Move the counter; charge exactly once; confirm.",
        tools = [update_counter, charge, confirm],
    ];

    /// Search products by category and price range, merged with popularity data
    #[tool]
    async fn search_products(
        args: SearchProductsArgs,
        ctx: ToolCallContext,
    ) -> Result<Value, ToolError> {
        tmdevlab::search_products(ctx.state::<Deps>()?, &args)
            .await
            .map_err(ToolError::new)
    }

    /// Get user cart details with recent order history
    #[tool]
    async fn get_user_cart(
        args: GetUserCartArgs,
        ctx: ToolCallContext,
    ) -> Result<Value, ToolError> {
        tmdevlab::get_user_cart(ctx.state::<Deps>()?, &args)
            .await
            .map_err(ToolError::new)
    }

    /// Process checkout: calculate total, update rate limit, record history
    #[tool]
    async fn checkout(args: CheckoutArgs, ctx: ToolCallContext) -> Result<Value, ToolError> {
        tmdevlab::checkout(ctx.state::<Deps>()?, &args)
            .await
            .map_err(ToolError::new)
    }

    skills![
        pub enum TmDevLabTools,
        guidance = "Search products, read carts, check out.",
        tools = [search_products, get_user_cart, checkout],
    ];
}

/// The counter in plain rmcp.
#[derive(Clone)]
struct RmcpCounter {
    counter: Arc<Counter>,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpCounter {
    /// Update the visible counter by delta.
    #[rmcp::tool]
    async fn update_counter(
        &self,
        Parameters(args): Parameters<UpdateCounterArgs>,
    ) -> Json<CounterValue> {
        Json(CounterValue {
            value: self.counter.add(args.delta),
        })
    }
}

// The stored router (the default, `Self::tool_router()`, would build one per call).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpCounter {}

/// The TM Dev Lab v2 tools in plain rmcp: the same functions, rmcp's `#[tool]` around them.
#[derive(Clone)]
struct RmcpTmDevLab {
    deps: Deps,
    tool_router: ToolRouter<Self>,
}

/// A tool's answer as rmcp sends it: the object as text and as `structuredContent` (what
/// pedelec sends too), or a tool error.
#[allow(clippy::unnecessary_wraps, reason = "rmcp's tool signature")]
fn rmcp_result(result: Result<Value, String>) -> Result<CallToolResult, ErrorData> {
    Ok(match result {
        Ok(value) => CallToolResult::structured(value),
        Err(message) => CallToolResult::error(vec![ContentBlock::text(message)]),
    })
}

#[tool_router]
impl RmcpTmDevLab {
    /// Search products by category and price range, merged with popularity data
    #[rmcp::tool]
    async fn search_products(
        &self,
        Parameters(args): Parameters<SearchProductsArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        rmcp_result(tmdevlab::search_products(&self.deps, &args).await)
    }

    /// Get user cart details with recent order history
    #[rmcp::tool]
    async fn get_user_cart(
        &self,
        Parameters(args): Parameters<GetUserCartArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        rmcp_result(tmdevlab::get_user_cart(&self.deps, &args).await)
    }

    /// Process checkout: calculate total, update rate limit, record history
    #[rmcp::tool]
    async fn checkout(
        &self,
        Parameters(args): Parameters<CheckoutArgs>,
    ) -> Result<CallToolResult, ErrorData> {
        rmcp_result(tmdevlab::checkout(&self.deps, &args).await)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpTmDevLab {}

/// rmcp's service as `McpHttp` configures it: stateless, JSON answers, loopback hosts (the
/// defaults of `StreamableHttpServerConfig`).
fn rmcp_router<S: ServerHandler + Clone + Send + Sync + 'static>(server: S) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    axum::Router::new().route_service("/mcp", service)
}

#[derive(Deserialize)]
struct FloorRequest {
    id: Value,
    params: FloorParams,
}

#[derive(Deserialize)]
struct FloorParams {
    arguments: FloorArgs,
}

#[derive(Deserialize)]
struct FloorArgs {
    delta: i64,
}

/// The transport floor: what any server must do for this call over HTTP with JSON-RPC
/// (parse the request, run the tool, write the result) and nothing more.
fn floor_router() -> axum::Router {
    let counter = Arc::new(Counter::default());
    axum::Router::new().route(
        "/mcp",
        axum::routing::post(move |body: Bytes| {
            let counter = counter.clone();
            async move {
                let Ok(request) = serde_json::from_slice::<FloorRequest>(&body) else {
                    return (axum::http::StatusCode::BAD_REQUEST, "bad request").into_response();
                };
                let value = json!({"value": counter.add(request.params.arguments.delta)});
                let answer = json!({
                    "jsonrpc": "2.0",
                    "id": request.id,
                    "result": {
                        "content": [{"type": "text", "text": value.to_string()}],
                        "structuredContent": value,
                        "isError": false,
                    },
                });
                (
                    [(header::CONTENT_TYPE, "application/json")],
                    serde_json::to_vec(&answer).expect("JSON values serialize"),
                )
                    .into_response()
            }
        }),
    )
}

struct Args {
    kind: String,
    addr: String,
    workload: String,
    redis: Option<String>,
    api: Option<String>,
    journal: Option<String>,
    store: Option<String>,
    rate_limit: Option<(u32, u64)>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        kind: String::new(),
        addr: "127.0.0.1:0".into(),
        workload: "counter".into(),
        redis: None,
        api: None,
        journal: None,
        store: None,
        rate_limit: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("`{flag}` takes a value"));
        match flag.as_str() {
            "--kind" => args.kind = value()?,
            "--addr" => args.addr = value()?,
            "--workload" => args.workload = value()?,
            "--redis" => args.redis = Some(value()?),
            "--api" => args.api = Some(value()?),
            "--journal" => args.journal = Some(value()?),
            "--store" => args.store = Some(value()?),
            "--rate-limit" => {
                let v = value()?;
                let parsed = v
                    .split_once('/')
                    .and_then(|(n, secs)| Some((n.parse().ok()?, secs.parse().ok()?)));
                args.rate_limit = Some(parsed.ok_or_else(|| {
                    format!("`--rate-limit` takes CALLS/SECS (`100/60`), not `{v}`")
                })?);
            }
            _ => return Err(format!("unknown flag `{flag}`")),
        }
    }
    Ok(args)
}

async fn deps(args: &Args, server_type: &'static str) -> Result<Deps, String> {
    let (Some(redis), Some(api)) = (&args.redis, &args.api) else {
        return Err("the tmdevlab workload needs --redis URL and --api URL".into());
    };
    Deps::connect(redis, api, server_type).await
}

async fn serve(args: Args) -> Result<(), String> {
    let listener = TcpListener::bind(&args.addr)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.addr))?;
    let addr: SocketAddr = listener.local_addr().map_err(|e| e.to_string())?;
    let app = match (args.kind.as_str(), args.workload.as_str()) {
        ("pedelec", workload) => {
            let journal = match &args.journal {
                Some(path) => Some(std::sync::Mutex::new(
                    std::fs::OpenOptions::new()
                        .create(true)
                        .append(true)
                        .open(path)
                        .map_err(|e| format!("cannot open the journal {path}: {e}"))?,
                )),
                None => None,
            };
            let mut builder = match workload {
                "counter" => Session::builder(pedelec_tools::CounterTools::skills().untyped())
                    .state(Counter(AtomicI64::new(0), journal)),
                "replicas" => Session::builder(pedelec_tools::ReplicaTools::skills().untyped())
                    .state(Counter(AtomicI64::new(0), journal)),
                "tmdevlab" => Session::builder(pedelec_tools::TmDevLabTools::skills().untyped())
                    .state(deps(&args, "pedelec").await?),
                other => return Err(format!("unknown workload `{other}`")),
            };
            if let Some(url) = &args.store {
                let store = pedelec::store::Redis::connect(url)
                    .await
                    .map_err(|e| e.to_string())?;
                builder = builder.store(store);
            }
            if let Some((calls, secs)) = args.rate_limit {
                builder = builder.rate_limit(pedelec::session::RateLimit::per_caller(
                    calls,
                    std::time::Duration::from_secs(secs),
                ));
            }
            let session = builder.create().map_err(|e| e.to_string())?;
            println!("listening {addr}");
            return session
                .serve(McpHttp::from_listener(listener))
                .await
                .map_err(|e| e.to_string());
        }
        ("rmcp", "counter") => rmcp_router(RmcpCounter {
            counter: Arc::default(),
            tool_router: RmcpCounter::tool_router(),
        }),
        ("rmcp", "tmdevlab") => rmcp_router(RmcpTmDevLab {
            deps: deps(&args, "rmcp").await?,
            tool_router: RmcpTmDevLab::tool_router(),
        }),
        ("floor", "counter") => floor_router(),
        ("api", _) => pedelec_load::catalog::router(Arc::default()),
        (kind, workload) => {
            return Err(format!(
                "no `{kind}` server for the `{workload}` workload (kinds: pedelec, rmcp, \
                 floor (counter only), api; workloads: counter, tmdevlab)"
            ));
        }
    };
    println!("listening {addr}");
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let result = match parse_args() {
        Ok(args) => serve(args).await,
        Err(e) => Err(e),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("load-server: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
