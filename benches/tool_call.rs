//! What a call costs through the code `#[tool]` generates, and what the `ToolName` enum's
//! conversions cost:
//!
//! - `call/async_fn`: an `async fn` tool, awaited in place;
//! - `call/sync_fn`: the same body as a plain `fn` tool, run on Tokio's blocking pool (the
//!   price of not letting a blocking tool stall the runtime);
//! - `call/async_result`: an `async fn` tool returning a `Result` (its error converted by
//!   the generated code);
//! - `call/direct`: the body alone, the floor for both;
//! - `tool_name/*`: parsing, printing and serializing a `ToolName`; building the skill set.
//!
//! Run with `cargo bench --bench tool_call` (or `cargo xtask bench`).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pedelec::{Tool, ToolArgs, ToolCallContext, skills, tool};
use serde::Deserialize;

#[derive(Clone, Copy, Deserialize, ToolArgs)]
struct Args {
    n: i64,
}

fn work(args: Args) -> i64 {
    black_box(args.n).wrapping_mul(31)
}

/// Multiplies, asynchronously.
#[tool]
async fn multiply_async(args: Args) -> i64 {
    work(args)
}

/// Multiplies, synchronously.
#[tool]
fn multiply_sync(args: Args) -> i64 {
    work(args)
}

/// Multiplies, asynchronously, returning a `Result` (its error converted through
/// `IntoToolError` by the generated `map_output`).
#[tool]
async fn multiply_result(args: Args) -> Result<i64, pedelec::ToolError> {
    Ok(work(args))
}

/// A third tool, so name lookups do not always hit the first entry.
#[tool]
fn noop() {}

skills![
    guidance = "Benchmark tools.",
    tools = [multiply_async, multiply_sync, multiply_result, noop],
];

fn calls(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let ctx = ToolCallContext::detached("bench");
    let args = Args { n: 7 };
    let mut group = c.benchmark_group("call");
    group.bench_function("direct", |b| {
        b.iter(|| rt.block_on(async { work(black_box(args)) }));
    });
    group.bench_function("async_fn", |b| {
        b.iter(|| rt.block_on(<multiply_async as Tool>::call(black_box(args), ctx.clone())));
    });
    group.bench_function("async_result", |b| {
        b.iter(|| {
            rt.block_on(<multiply_result as Tool>::call(
                black_box(args),
                ctx.clone(),
            ))
        });
    });
    group.bench_function("sync_fn", |b| {
        b.iter(|| rt.block_on(<multiply_sync as Tool>::call(black_box(args), ctx.clone())));
    });
    group.finish();
}

fn names(c: &mut Criterion) {
    let mut group = c.benchmark_group("tool_name");
    group.bench_function("parse_last", |b| {
        b.iter(|| black_box("noop").parse::<ToolName>());
    });
    group.bench_function("as_str", |b| b.iter(|| black_box(ToolName::Noop).as_str()));
    group.bench_function("serialize", |b| {
        b.iter(|| serde_json::to_string(&black_box(ToolName::MultiplySync)));
    });
    group.bench_function("deserialize", |b| {
        b.iter(|| serde_json::from_str::<ToolName>(black_box(r#""multiply_sync""#)));
    });
    group.bench_function("skills", |b| b.iter(ToolName::skills));
    group.bench_function("manifest", |b| b.iter(ToolName::manifest));
    group.finish();
}

criterion_group!(benches, calls, names);
criterion_main!(benches);
