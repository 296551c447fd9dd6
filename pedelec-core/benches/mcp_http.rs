//! Tool calls over MCP's streamable HTTP transport, on loopback: pedelec's `McpHttp` (the
//! session: validation, resolution, timeout, panic isolation, strict results) against
//! rmcp's own server (a plain `#[tool]` server behind the same `StreamableHttpService`,
//! stateless, JSON responses), serving the same tool, called by the same rmcp client.
//!
//! `sequential`: one call at a time (latency). `concurrent_64`: 64 calls in flight from
//! one client (throughput; criterion's "elements" are calls, so it reports calls/s).
//!
//! `cargo bench -p pedelec-core --features mcp --bench mcp_http`

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pedelec_core::Session;
use pedelec_core::bridge::McpHttp;
use pedelec_core::skills::SkillSet;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::{Json, Parameters};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::transport::{StreamableHttpClientTransport, streamable_http_client};
use rmcp::{ServerHandler, ServiceExt, schemars, tool, tool_handler, tool_router};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tokio::net::TcpListener;

/// The same tool in plain rmcp: `update_counter(delta) -> {value}`.
#[derive(Clone)]
struct RmcpCounter {
    value: Arc<AtomicI64>,
    tool_router: ToolRouter<Self>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct UpdateCounterArgs {
    delta: i64,
}

#[derive(Serialize, schemars::JsonSchema)]
struct CounterValue {
    value: i64,
}

#[tool_router]
impl RmcpCounter {
    /// Update the visible counter by delta.
    #[tool]
    async fn update_counter(
        &self,
        Parameters(args): Parameters<UpdateCounterArgs>,
    ) -> Json<CounterValue> {
        Json(CounterValue {
            value: self.value.fetch_add(args.delta, Ordering::SeqCst) + args.delta,
        })
    }
}

// The stored router (the default, `Self::tool_router()`, would build one per call).
#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpCounter {}

async fn serve_pedelec() -> SocketAddr {
    let session = Session::builder(support::ToolName::skills())
        .state(support::Counter::default())
        .create()
        .unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(session.serve(McpHttp::from_listener(listener)));
    addr
}

async fn serve_rmcp() -> SocketAddr {
    let server = RmcpCounter {
        value: Arc::default(),
        tool_router: RmcpCounter::tool_router(),
    };
    // What `McpHttp` configures: stateless, JSON responses, loopback hosts.
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(NeverSessionManager::default()),
        config,
    );
    let app = axum::Router::new().route_service("/mcp", service);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

async fn client(addr: SocketAddr) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let config = streamable_http_client::StreamableHttpClientTransportConfig::with_uri(format!(
        "http://{addr}/mcp"
    ))
    .max_concurrent_requests(64);
    ().serve(StreamableHttpClientTransport::from_config(config))
        .await
        .unwrap()
}

fn request() -> CallToolRequestParams {
    CallToolRequestParams::new("update_counter")
        .with_arguments(json!({"delta": 1}).as_object().unwrap().clone())
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let servers = rt.block_on(async {
        [
            ("pedelec_McpHttp", client(serve_pedelec().await).await),
            (
                "rmcp_StreamableHttpService",
                client(serve_rmcp().await).await,
            ),
        ]
    });
    // Both answer the same thing.
    for (name, client) in &servers {
        let r = rt.block_on(client.call_tool(request())).unwrap();
        assert_eq!(r.is_error, Some(false), "{name}");
        assert!(r.structured_content.unwrap()["value"].is_i64(), "{name}");
    }

    let mut group = c.benchmark_group("mcp_http");
    group.throughput(Throughput::Elements(1));
    for (name, client) in &servers {
        group.bench_function(BenchmarkId::new("sequential", name), |b| {
            b.to_async(&rt)
                .iter(|| async { black_box(client.call_tool(request()).await.unwrap()) });
        });
    }
    const IN_FLIGHT: u64 = 64;
    group.throughput(Throughput::Elements(IN_FLIGHT));
    for (name, client) in &servers {
        group.bench_function(BenchmarkId::new("concurrent_64", name), |b| {
            b.to_async(&rt).iter(|| async {
                let calls = (0..IN_FLIGHT).map(|_| client.call_tool(request()));
                for r in futures::future::join_all(calls).await {
                    black_box(r.unwrap());
                }
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = bench
}
criterion_main!(benches);
