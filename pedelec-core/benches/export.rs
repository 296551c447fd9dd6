//! What provider exports and call adapters cost.
//!
//! (a) Exporting a skill set of 100 tools (each with nested objects, optional fields, a
//!     tagged union, bounds and formats) for every target.
//! (b) One tool call through `session.call_provider` (decode the provider's payload, map the
//!     name, restore the args, call, encode the provider's result message) against
//!     `session.call_raw` on the same call (args as JSON text, result as JSON text): the
//!     adapter's overhead, target ≤ 1.2×.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]
#![allow(missing_docs)]

#[path = "../tests/support/mod.rs"]
mod support;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use pedelec_core::Session;
use pedelec_core::SkillsInput;
use pedelec_core::export::{ExportOptions, Target};
use pedelec_core::skills::SkillSet;
use serde_json::json;
use serde_json::value::RawValue;
use support::{Counter, ToolName};

fn hundred_tools() -> SkillsInput {
    let schema = json!({
        "type": "object",
        "properties": {
            "address": {
                "type": "object",
                "properties": {
                    "street": {"type": "string", "minLength": 1, "maxLength": 200},
                    "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
                    "floor": {"type": "integer", "minimum": -5, "maximum": 200}
                },
                "required": ["street", "country"],
                "additionalProperties": false
            },
            "shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "enum": ["box"]}, "width": {"type": "number", "exclusiveMinimum": 0}}, "required": ["kind", "width"], "additionalProperties": false},
                {"type": "object", "properties": {"kind": {"type": "string", "enum": ["tube"]}, "length": {"type": "integer", "multipleOf": 5}}, "required": ["kind", "length"], "additionalProperties": false}
            ]},
            "labels": {"type": "array", "items": {"type": "string"}, "maxItems": 4, "uniqueItems": true},
            "pickup_at": {"type": "string", "format": "date-time"},
            "insured": {"type": "integer", "default": 0, "minimum": 0}
        },
        "required": ["address", "shape", "labels"],
        "additionalProperties": false
    });
    let tools: Vec<_> = (0..100)
        .map(|i| json!({"name": format!("shipping.tool_{i}"), "description": "Ship a parcel.", "argsSchema": schema}))
        .collect();
    SkillsInput::from_json(&json!({"guidance": "g", "tools": tools})).unwrap()
}

fn export(c: &mut Criterion) {
    let manifest = hundred_tools();
    let mut group = c.benchmark_group("export_100_tools");
    group.throughput(Throughput::Elements(100));
    for target in Target::ALL {
        // Anthropic's strict mode accepts at most 20 strict tools per request (and 24
        // optional, 16 union parameters across them): 100 tools export without it.
        let options = ExportOptions::default().strict(target != Target::Anthropic);
        group.bench_function(target.as_str(), |b| {
            b.iter(|| black_box(&manifest).export(target, options).unwrap());
        });
    }
    group.finish();
}

fn call(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    let manifest = ToolName::skills().untyped();
    let mut group = c.benchmark_group("provider_call");
    group.throughput(Throughput::Elements(1));
    let args = RawValue::from_string(r#"{"delta":1}"#.to_owned()).unwrap();
    group.bench_function("session_call_raw", |b| {
        b.to_async(&rt)
            .iter(|| async { session.call_raw(black_box("update_counter"), &args).await });
    });
    let openai = manifest
        .export(Target::OpenAiChat, ExportOptions::default())
        .unwrap();
    let payload = json!({"id": "call_1", "type": "function", "function": {"name": "update_counter", "arguments": "{\"delta\":1}"}});
    group.bench_function("call_provider_openai", |b| {
        b.to_async(&rt)
            .iter(|| async { session.call_provider(&openai, black_box(&payload)).await });
    });
    let anthropic = manifest
        .export(Target::Anthropic, ExportOptions::default())
        .unwrap();
    let payload = json!({"type": "tool_use", "id": "toolu_1", "name": "update_counter", "input": {"delta": 1}});
    group.bench_function("call_provider_anthropic", |b| {
        b.to_async(&rt)
            .iter(|| async { session.call_provider(&anthropic, black_box(&payload)).await });
    });
    group.finish();
}

criterion_group!(benches, export, call);
criterion_main!(benches);
