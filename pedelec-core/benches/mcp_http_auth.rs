//! What authentication costs per tool call over MCP's streamable HTTP transport, on
//! loopback, in one run: the same `update_counter` call (scope `counter:write`) through
//! `McpHttp` with no authentication, with a static bearer token (`bearer_token`), and with
//! OAuth access tokens (`oauth`: a JWT checked against the issuer's keys, fetched once; RS256
//! and ES256, each remembered once verified, as by default, and RS256 checked in full on
//! every call, `verified_tokens(0)`), called one at a time by the same rmcp client.
//!
//! `cargo bench -p pedelec-core --features oauth --bench mcp_http_auth`

#[path = "../tests/support/mod.rs"]
mod support;

#[path = "../tests/support/issuer.rs"]
mod issuer;

use std::hint::black_box;
use std::net::SocketAddr;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use pedelec_core::Session;
use pedelec_core::bridge::{McpHttp, OAuth};
use pedelec_core::skills::SkillSet;
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::{StreamableHttpClientTransport, streamable_http_client};
use serde_json::json;
use tokio::net::TcpListener;

/// The session, `update_counter` requiring `counter:write`.
fn session() -> Session {
    let mut skills = support::ToolName::skills().untyped();
    for tool in skills.tools_mut() {
        if tool.name() == "update_counter" {
            *tool = tool.clone().with_scopes(["counter:write"]);
        }
    }
    Session::builder(skills)
        .state(support::Counter::default())
        .create()
        .unwrap()
}

/// `McpHttp` on a free loopback port, configured by `configure` (given its resource URL).
async fn serve(configure: impl FnOnce(McpHttp, String) -> McpHttp) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let bridge = configure(
        McpHttp::from_listener(listener),
        format!("http://{addr}/mcp"),
    );
    tokio::spawn(session().serve(bridge));
    addr
}

async fn client(
    addr: SocketAddr,
    token: Option<String>,
) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
    let mut config = streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
        format!("http://{addr}/mcp"),
    );
    if let Some(token) = token {
        config = config.auth_header(token);
    }
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
    let clients = rt.block_on(async {
        let issuer = issuer::Issuer::start().await;
        let rsa = issuer::SigningKey::rsa("rsa");
        let ec = issuer::SigningKey::ec("ec");
        issuer.publish(&rsa);
        issuer.publish(&ec);
        let oauth = |bridge: McpHttp, resource: String| {
            bridge.oauth(OAuth::new(resource).issuer(issuer.url.clone()))
        };
        let rs256 = serve(oauth).await;
        let es256 = serve(oauth).await;
        let rs256_full = serve(|bridge: McpHttp, resource: String| {
            bridge.oauth(
                OAuth::new(resource)
                    .issuer(issuer.url.clone())
                    .verified_tokens(0),
            )
        })
        .await;
        let token = |key: &issuer::SigningKey, addr: SocketAddr| {
            let claims = issuer.claims(
                &format!("http://{addr}/mcp"),
                "bench",
                "counter:write",
                json!({"exp": issuer::now() + 3600}),
            );
            key.sign(&claims)
        };
        let clients = [
            ("none", client(serve(|b, _| b).await, None).await),
            (
                "static_token",
                client(
                    serve(|b, _| b.bearer_token("bench-token")).await,
                    Some("bench-token".to_owned()),
                )
                .await,
            ),
            ("jwt_rs256", client(rs256, Some(token(&rsa, rs256))).await),
            ("jwt_es256", client(es256, Some(token(&ec, es256))).await),
            (
                "jwt_rs256_every_call",
                client(rs256_full, Some(token(&rsa, rs256_full))).await,
            ),
        ];
        // The issuer lives as long as the benchmark.
        std::mem::forget(issuer);
        clients
    });
    // Each answers the call (and the JWT servers have their keys cached).
    for (name, client) in &clients {
        let r = rt.block_on(client.call_tool(request())).unwrap();
        let expected = if *name == "none" {
            Some(true)
        } else {
            Some(false)
        };
        assert_eq!(r.is_error, expected, "{name}: {r:?}");
    }

    let mut group = c.benchmark_group("mcp_http_auth");
    group.throughput(Throughput::Elements(1));
    for (name, client) in &clients {
        group.bench_function(BenchmarkId::new("sequential", name), |b| {
            b.to_async(&rt)
                .iter(|| async { black_box(client.call_tool(request()).await.unwrap()) });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30);
    targets = bench
}
criterion_main!(benches);
