//! A `tools/call` as OpenTelemetry's semantic conventions for MCP describe it (DESIGN §13):
//! a server span `tools/call {tool}` with `mcp.method.name`, `gen_ai.tool.name`,
//! `jsonrpc.request.id`, `mcp.protocol.version` and, when the call failed, `error.type` (the
//! error's code); the session's `execute_tool {tool}` span is its child. `tracing` spans:
//! `tracing-opentelemetry` exports them (`otel.name`, `otel.kind` and `otel.status_code`
//! are its names for the span's name, kind and status).
//!
//! With the feature `otel`, the span's parent is the `traceparent` (and `tracestate`) the
//! request carried in `_meta`, read by the global OpenTelemetry propagator, and each call
//! is recorded in the `mcp.server.operation.duration` histogram (seconds) of the global
//! meter provider (set it before serving: instruments are made on first use). Without it,
//! the trace parent is kept as the span's `trace_id`, `parent_span_id` and `traceparent`
//! fields, and a `trace_span` hook can set it.

#![allow(
    clippy::doc_markdown,
    reason = "OpenTelemetry and MCP names are prose here, not code"
)]

use std::time::Instant;

use tracing::Span;
use tracing::field::Empty;

use super::meta::TraceParent;
use crate::error::ErrorCode;

/// The span of one `tools/call`, made in the span `outer` (a `trace_span` hook's) when
/// there is one.
pub(super) fn call_span(
    tool: &str,
    request_id: &str,
    version: &str,
    parent: Option<&TraceParent>,
    outer: Option<Span>,
) -> Span {
    let make = || {
        tracing::info_span!(
            "tools/call",
            otel.name = %format_args!("tools/call {tool}"),
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = "tools/call",
            gen_ai.operation.name = "execute_tool",
            gen_ai.tool.name = %tool,
            jsonrpc.request.id = %request_id,
            mcp.protocol.version = %version,
            error.type = Empty,
            trace_id = Empty,
            parent_span_id = Empty,
            traceparent = Empty,
        )
    };
    let span = match outer {
        Some(outer) => outer.in_scope(make),
        None => make(),
    };
    if let Some(parent) = parent {
        span.record("trace_id", parent.trace_id());
        span.record("parent_span_id", parent.parent_id());
        span.record("traceparent", parent.as_str());
        #[cfg(feature = "otel")]
        otel::set_parent(&span, parent);
    }
    span
}

/// Records how a call ended: `error.type` (the error's code) and an error status when it
/// failed, and (feature `otel`) its duration.
pub(super) fn finished(
    span: &Span,
    tool: &str,
    version: &str,
    error: Option<ErrorCode>,
    started: Instant,
) {
    if let Some(code) = error {
        span.record("error.type", code.as_str());
        span.record("otel.status_code", "ERROR");
    }
    #[cfg(feature = "otel")]
    otel::record_duration(tool, version, error, started.elapsed());
    #[cfg(not(feature = "otel"))]
    let _ = (tool, version, started);
}

#[cfg(feature = "otel")]
mod otel {
    use std::collections::HashMap;
    use std::sync::OnceLock;
    use std::time::Duration;

    use opentelemetry::KeyValue;
    use opentelemetry::metrics::Histogram;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    use super::TraceParent;
    use crate::error::ErrorCode;

    /// Makes the span a child of the caller's, through the global propagator (W3C trace
    /// context when the application set it).
    pub(super) fn set_parent(span: &tracing::Span, parent: &TraceParent) {
        let mut carrier = HashMap::with_capacity(2);
        carrier.insert("traceparent".to_owned(), parent.as_str().to_owned());
        if let Some(state) = parent.tracestate() {
            carrier.insert("tracestate".to_owned(), state.to_owned());
        }
        let context = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract(&carrier)
        });
        let _ = span.set_parent(context);
    }

    /// `mcp.server.operation.duration`, made on first use from the global meter provider.
    fn histogram() -> &'static Histogram<f64> {
        static HISTOGRAM: OnceLock<Histogram<f64>> = OnceLock::new();
        HISTOGRAM.get_or_init(|| {
            opentelemetry::global::meter("pedelec")
                .f64_histogram("mcp.server.operation.duration")
                .with_unit("s")
                .with_description("The duration of an MCP request as the server saw it.")
                .with_boundaries(vec![
                    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
                ])
                .build()
        })
    }

    pub(super) fn record_duration(
        tool: &str,
        version: &str,
        error: Option<ErrorCode>,
        elapsed: Duration,
    ) {
        let mut attributes = vec![
            KeyValue::new("mcp.method.name", "tools/call"),
            KeyValue::new("gen_ai.tool.name", tool.to_owned()),
            KeyValue::new("mcp.protocol.version", version.to_owned()),
        ];
        if let Some(code) = error {
            attributes.push(KeyValue::new("error.type", code.as_str()));
        }
        histogram().record(elapsed.as_secs_f64(), &attributes);
    }
}
