//! Telemetry as OpenTelemetry's semantic conventions for MCP describe it (DESIGN §13,
//! feature `otel`), read from the OpenTelemetry SDK's in-memory exporters behind
//! `tracing-opentelemetry`: each `tools/call` is a server span `tools/call {tool}` with
//! `mcp.method.name`, `gen_ai.tool.name`, `jsonrpc.request.id`, `mcp.protocol.version` and
//! `error.type` when it failed (an `isError` result, a timeout, a cancellation), the
//! session's `execute_tool {tool}` span its child, its parent the `_meta.traceparent`; and
//! each is one point of the `mcp.server.operation.duration` histogram.

#![cfg(feature = "otel")]

mod support;

use std::collections::HashMap;
use std::time::Duration;

use opentelemetry::trace::{SpanKind, Status, TracerProvider as _};
use opentelemetry::{KeyValue, Value as OtelValue};
use opentelemetry_sdk::metrics::data::{AggregatedMetrics, MetricData};
use opentelemetry_sdk::metrics::{InMemoryMetricExporter, PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use pedelec_core::bridge::Mcp;
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tracing_subscriber::layer::SubscriberExt;

const PARENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_SPAN: &str = "00f067aa0ba902b7";

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .map(|kv| &kv.value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(OtelValue::to_string)
}

#[tokio::test]
async fn tool_calls_are_server_spans_and_histogram_points_by_the_conventions() {
    let spans = InMemorySpanExporter::default();
    let tracer_provider = SdkTracerProvider::builder()
        .with_simple_exporter(spans.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(tracer_provider.tracer("test")));
    let _guard = tracing::subscriber::set_default(subscriber);
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let metrics = InMemoryMetricExporter::default();
    let meter_provider = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics.clone()).build())
        .build();
    opentelemetry::global::set_meter_provider(meter_provider.clone());

    let session = session_with_sleeping_manual();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    let _serving = tokio::spawn(session.serve(Mcp::from_parts(r, w)));
    let (r, mut w) = tokio::io::split(client_end);
    let mut lines = BufReader::new(r).lines();
    let meta = |traceparent: Option<&str>| {
        let mut meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        });
        if let Some(t) = traceparent {
            meta["traceparent"] = json!(t);
        }
        meta
    };
    let parent = format!("00-{PARENT_TRACE}-{PARENT_SPAN}-01");
    let calls = [
        (
            1,
            "update_counter",
            json!({"delta": 1}),
            Some(parent.as_str()),
        ),
        (2, "fail", json!({}), None),
        (3, "slow", json!({}), None),
    ];
    for (id, name, args, traceparent) in &calls {
        let call = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
            "name": name, "arguments": args, "_meta": meta(*traceparent)}});
        w.write_all(format!("{call}\n").as_bytes()).await.unwrap();
        let answer: Value =
            serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
        assert_eq!(answer["id"], *id, "{answer}");
    }
    // A call the client cancels.
    let call = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {
        "name": "manual", "arguments": {"text": "t", "repeat": 20_000}, "_meta": meta(None)}});
    w.write_all(format!("{call}\n").as_bytes()).await.unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 4, "reason": "the user gave up"}});
    w.write_all(format!("{cancel}\n").as_bytes()).await.unwrap();
    // The server keeps answering; give the cancelled call time to end.
    let ping = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
        "name": "update_counter", "arguments": {"delta": 1}, "_meta": meta(None)}});
    tokio::time::sleep(Duration::from_millis(100)).await;
    w.write_all(format!("{ping}\n").as_bytes()).await.unwrap();
    loop {
        let line = lines.next_line().await.unwrap().unwrap();
        let answer: Value = serde_json::from_str(&line).unwrap();
        if answer["id"] == 5 {
            break;
        }
    }

    let finished = spans.get_finished_spans().unwrap();
    let server: HashMap<String, &SpanData> = finished
        .iter()
        .filter(|s| s.span_kind == SpanKind::Server)
        .map(|s| (text(s, "jsonrpc.request.id").unwrap_or_default(), s))
        .collect();
    let span = |id: &str| {
        *server
            .get(id)
            .unwrap_or_else(|| panic!("no server span for request {id}: {finished:#?}"))
    };

    // A success: the conventions' name and attributes, no error, the caller's parent.
    let ok = span("1");
    assert_eq!(ok.name, "tools/call update_counter");
    assert_eq!(text(ok, "mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(
        text(ok, "gen_ai.tool.name").as_deref(),
        Some("update_counter")
    );
    assert_eq!(
        text(ok, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        text(ok, "mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );
    assert_eq!(attribute(ok, "error.type"), None);
    assert_eq!(ok.span_context.trace_id().to_string(), PARENT_TRACE);
    assert_eq!(ok.parent_span_id.to_string(), PARENT_SPAN);
    // The session's span is its child, named by the conventions too.
    let inner = finished
        .iter()
        .find(|s| s.parent_span_id == ok.span_context.span_id())
        .expect("the execute_tool span");
    assert_eq!(inner.name, "execute_tool update_counter");
    assert_eq!(text(inner, "gen_ai.tool.call.id").as_deref(), Some("1"));

    // An `isError` result, a timeout, a cancellation: `error.type` is the error's code.
    for (id, name, code) in [
        ("2", "fail", "TOOL_HANDLER_ERROR"),
        ("3", "slow", "TOOL_TIMEOUT"),
        ("4", "manual", "TOOL_CANCELLED"),
    ] {
        let s = span(id);
        assert_eq!(s.name, format!("tools/call {name}"), "{s:#?}");
        assert_eq!(text(s, "error.type").as_deref(), Some(code), "{s:#?}");
        assert!(matches!(s.status, Status::Error { .. }), "{s:#?}");
        // Without a `traceparent`, a trace of its own.
        assert_ne!(s.span_context.trace_id().to_string(), PARENT_TRACE);
    }

    // The histogram: one point per call, by tool and error.
    meter_provider.force_flush().unwrap();
    let exported = metrics.get_finished_metrics().unwrap();
    let histogram = exported
        .iter()
        .flat_map(opentelemetry_sdk::metrics::data::ResourceMetrics::scope_metrics)
        .flat_map(opentelemetry_sdk::metrics::data::ScopeMetrics::metrics)
        .find(|m| m.name() == "mcp.server.operation.duration")
        .expect("the duration histogram");
    assert_eq!(histogram.unit(), "s");
    let AggregatedMetrics::F64(MetricData::Histogram(data)) = histogram.data() else {
        panic!("a histogram of seconds: {histogram:?}");
    };
    let mut counts: HashMap<(String, Option<String>), u64> = HashMap::new();
    for point in data.data_points() {
        let get = |key: &str| {
            point
                .attributes()
                .find(|kv: &&KeyValue| kv.key.as_str() == key)
                .map(|kv| kv.value.to_string())
        };
        assert_eq!(get("mcp.method.name").as_deref(), Some("tools/call"));
        *counts
            .entry((get("gen_ai.tool.name").unwrap(), get("error.type")))
            .or_default() += point.count();
    }
    let expect = |tool: &str, error: Option<&str>| {
        counts
            .get(&(tool.to_owned(), error.map(str::to_owned)))
            .copied()
    };
    assert_eq!(expect("update_counter", None), Some(2), "{counts:?}");
    assert_eq!(
        expect("fail", Some("TOOL_HANDLER_ERROR")),
        Some(1),
        "{counts:?}"
    );
    assert_eq!(expect("slow", Some("TOOL_TIMEOUT")), Some(1), "{counts:?}");
    assert_eq!(
        expect("manual", Some("TOOL_CANCELLED")),
        Some(1),
        "{counts:?}"
    );
}
