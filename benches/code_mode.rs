//! What code mode costs and saves (DESIGN §15), against the same calls made one by one:
//!
//! - `code_mode/start`: `run_code` of `return 1`: the program's thread, a QuickJS runtime
//!   and context, the prelude, the answer;
//! - `code_mode/direct/N`: N calls of `crm.lookup`, one after another, in process (what a
//!   model's N tool calls cost the server, without the N model round trips);
//! - `code_mode/run_code/N`: one `run_code` whose program makes the same N calls and
//!   returns the customers it keeps.
//!
//! Before timing, it prints the bytes that cross between the model and the server for the
//! same work, as Anthropic messages built by `call_provider`: N `tool_use` blocks and their
//! N `tool_result`s, against one `run_code` `tool_use` and its one `tool_result`.
//!
//! Run with `cargo bench --bench code_mode`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pedelec::code::CodeMode;
use pedelec::export::{ExportOptions, Target};
use pedelec::{Session, ToolArgs, ToolOutput, skills, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Deserialize, ToolArgs)]
struct LookupArgs {
    /// The customer's id.
    id: u32,
}

#[derive(Serialize, ToolOutput)]
struct Customer {
    id: u32,
    name: String,
    email: String,
    /// Spent this year, in cents.
    spent: u64,
}

/// Look up a customer by id.
#[tool(name = "crm.lookup", read_only)]
async fn lookup(args: LookupArgs) -> Customer {
    Customer {
        id: args.id,
        name: format!("Customer number {}", args.id),
        email: format!("customer{}@example.com", args.id),
        spent: u64::from(args.id) * 1_000,
    }
}

skills![guidance = "CRM.", tools = [lookup]];

/// The program for N lookups: the customers who spent the most (the last quarter of them).
fn program(n: u32) -> String {
    format!(
        "const keep = [];\nfor (let id = 1; id <= {n}; id++) {{\n  const c = await crm.lookup({{ id }});\n  \
         if (c.spent > {cut}) keep.push(c.name);\n}}\nreturn keep;",
        cut = u64::from(n) * 750
    )
}

fn bytes(session: &Session<ToolName>, rt: &tokio::runtime::Runtime) {
    let export = ToolName::export(Target::Anthropic, ExportOptions::default().code_mode(true))
        .expect("export");
    println!("bytes between model and server (Anthropic messages), same work:");
    println!(
        "{:>4}  {:>10}  {:>10}  {:>6}",
        "N", "direct", "run_code", "ratio"
    );
    for n in [1u32, 5, 20, 50] {
        let direct: usize = (1..=n)
            .map(|id| {
                let call = json!({"type": "tool_use", "id": format!("toolu_{id}"), "name": "crm.lookup", "input": {"id": id}});
                let answer: Value = rt.block_on(session.call_provider(&export, &call));
                call.to_string().len() + answer.to_string().len()
            })
            .sum();
        let call = json!({"type": "tool_use", "id": "toolu_0", "name": "run_code", "input": {"code": program(n)}});
        let answer: Value = rt.block_on(session.call_provider(&export, &call));
        assert_eq!(answer.get("is_error"), None, "{answer}");
        let code = call.to_string().len() + answer.to_string().len();
        #[allow(clippy::cast_precision_loss, reason = "a ratio of small counts")]
        let ratio = direct as f64 / code as f64;
        println!("{n:>4}  {direct:>10}  {code:>10}  {ratio:>5.2}x");
    }
}

fn code_mode(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let session = Session::builder(ToolName::skills())
        .code_mode(CodeMode::new().max_calls(100))
        .create()
        .expect("session");
    bytes(&session, &rt);

    let mut group = c.benchmark_group("code_mode");
    group.bench_function("start", |b| {
        b.iter(|| {
            let r = rt.block_on(session.call("run_code", json!({"code": "return 1;"})));
            black_box(r.is_ok())
        });
    });
    for n in [1u32, 5, 20] {
        group.bench_function(format!("direct/{n}"), |b| {
            b.iter(|| {
                rt.block_on(async {
                    for id in 1..=n {
                        let r = session.call("crm.lookup", json!({ "id": id })).await;
                        black_box(r.is_ok());
                    }
                });
            });
        });
        let code = json!({ "code": program(n) });
        group.bench_function(format!("run_code/{n}"), |b| {
            b.iter(|| {
                let r = rt.block_on(session.call("run_code", code.clone()));
                assert!(r.is_ok());
            });
        });
    }
    group.finish();
}

criterion_group!(benches, code_mode);
criterion_main!(benches);
