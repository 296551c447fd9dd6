//! A W3C `traceparent` in a request's `_meta` is kept on the call's `tools/call` span (the
//! parent of the session's `execute_tool` span): read from the spans themselves, with a
//! subscriber that records each span's name, fields and parent. (With the feature `otel`,
//! it becomes the OpenTelemetry parent: `tests/telemetry.rs`.)

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use pedelec_core::Session;
use pedelec_core::bridge::Mcp;
use pedelec_core::skills::SkillSet;
use serde_json::{Value, json};
use support::*;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

#[derive(Debug, Clone)]
struct SpanSeen {
    name: &'static str,
    parent: Option<u64>,
    fields: HashMap<&'static str, String>,
}

/// Records every span; keeps the stack of entered spans (this test runs on one thread).
#[derive(Default, Clone)]
struct Recorder {
    spans: Arc<Mutex<HashMap<u64, SpanSeen>>>,
    stack: Arc<Mutex<Vec<u64>>>,
    next: Arc<Mutex<u64>>,
}

struct Fields<'a>(&'a mut HashMap<&'static str, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name(), value.to_owned());
    }
}

impl Subscriber for Recorder {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }

    fn new_span(&self, attrs: &Attributes<'_>) -> Id {
        let mut next = self.next.lock().unwrap();
        *next += 1;
        let id = *next;
        let parent = if let Some(parent) = attrs.parent() {
            Some(parent.into_u64())
        } else if attrs.is_contextual() {
            self.stack.lock().unwrap().last().copied()
        } else {
            None
        };
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        self.spans.lock().unwrap().insert(
            id,
            SpanSeen {
                name: attrs.metadata().name(),
                parent,
                fields,
            },
        );
        Id::from_u64(id)
    }

    fn record(&self, span: &Id, values: &Record<'_>) {
        if let Some(seen) = self.spans.lock().unwrap().get_mut(&span.into_u64()) {
            values.record(&mut Fields(&mut seen.fields));
        }
    }

    fn record_follows_from(&self, _: &Id, _: &Id) {}

    fn event(&self, _: &Event<'_>) {}

    fn enter(&self, span: &Id) {
        self.stack.lock().unwrap().push(span.into_u64());
    }

    fn exit(&self, span: &Id) {
        let mut stack = self.stack.lock().unwrap();
        if let Some(i) = stack.iter().rposition(|s| *s == span.into_u64()) {
            stack.remove(i);
        }
    }
}

const PARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

#[tokio::test]
async fn a_traceparent_becomes_the_parent_of_the_call_span() {
    let recorder = Recorder::default();
    let _guard = tracing::subscriber::set_default(recorder.clone());
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    let _serving = tokio::spawn(session.serve(Mcp::from_parts(r, w)));
    let (r, mut w) = tokio::io::split(client_end);
    let mut lines = BufReader::new(r).lines();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
    "name": "update_counter", "arguments": {"delta": 1},
    "_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "traceparent": PARENT,
    }}});
    w.write_all(format!("{call}\n").as_bytes()).await.unwrap();
    let answer: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    assert_eq!(answer["result"]["isError"], false, "{answer}");

    let spans = recorder.spans.lock().unwrap().clone();
    let call_span = spans
        .values()
        .find(|s| s.name == "execute_tool")
        .expect("the call's span");
    let parent = call_span
        .parent
        .and_then(|p| spans.get(&p))
        .expect("the call's span has a parent");
    assert_eq!(parent.name, "tools/call");
    assert_eq!(parent.fields["mcp.method.name"], "tools/call");
    assert_eq!(parent.fields["gen_ai.tool.name"], "update_counter");
    assert_eq!(call_span.fields["gen_ai.tool.name"], "update_counter");
    assert_eq!(parent.fields["traceparent"], PARENT);
    assert_eq!(
        parent.fields["trace_id"],
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    assert_eq!(parent.fields["parent_span_id"], "00f067aa0ba902b7");
}
