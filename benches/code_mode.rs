//! What code mode costs and saves (DESIGN §15), against the same calls made one by one:
//!
//! - `code_mode/start/<sandbox>`: `run_code` of `return 1`: a worker (or the program's
//!   thread), a QuickJS runtime and context, the prelude, the answer;
//! - `code_mode/direct/N`: N calls of `crm.lookup`, one after another, in process (what a
//!   model's N tool calls cost the server, without the N model round trips);
//! - `code_mode/run_code/<sandbox>/N`: one `run_code` whose program makes the same N calls
//!   and returns the customers it keeps.
//!
//! `<sandbox>` is each of: `in_process` (`Isolation::InProcess`, the sandbox before worker
//! processes), `warm` (worker processes, the pool refilled between programs: the time of
//! each program alone, the pool's refill excluded, as a server between requests sees it)
//! and `cold` (worker processes, `pool_size(0)`: a new process per program).
//!
//! Before timing, it prints the bytes that cross between the model and the server for the
//! same work, as Anthropic messages built by `call_provider`: N `tool_use` blocks and their
//! N `tool_result`s, against one `run_code` `tool_use` and its one `tool_result`; then the
//! median (p50) start-up of each sandbox over 200 programs.
//!
//! Run with `cargo bench --bench code_mode`. With `PEDELEC_BENCH_COUNT` set it only runs a
//! number of programs, for `perf stat` to count what they cost (see `count`).

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use pedelec::code::{CodeMode, Isolation};
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

/// The sandboxes compared: name, settings, and whether the pool refills between programs.
fn sandboxes() -> [(&'static str, CodeMode, bool); 3] {
    let mode = CodeMode::new().max_calls(100);
    [
        (
            "in_process",
            mode.clone().isolation(Isolation::InProcess),
            false,
        ),
        ("warm", mode.clone().pool_size(2), true),
        ("cold", mode.pool_size(0), false),
    ]
}

/// How long the pool gets to start the next worker between two programs (`warm`).
const REFILL: Duration = Duration::from_millis(4);

/// Runs `code` `iters` times; the time of the runs alone (with `refill`, a pause before
/// each, untimed).
fn timed(
    session: &Session<ToolName>,
    rt: &tokio::runtime::Runtime,
    code: &Value,
    iters: u64,
    refill: bool,
) -> Duration {
    let mut total = Duration::ZERO;
    for _ in 0..iters {
        if refill {
            std::thread::sleep(REFILL);
        }
        let started = Instant::now();
        let r = rt.block_on(session.call("run_code", code.clone()));
        total += started.elapsed();
        assert!(r.is_ok(), "{r:?}");
    }
    total
}

fn code_mode(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sessions: Vec<_> = sandboxes()
        .into_iter()
        .map(|(name, mode, refill)| {
            let session = Session::builder(ToolName::skills())
                .code_mode(mode)
                .create()
                .expect("session");
            (name, session, refill)
        })
        .collect();
    bytes(&sessions[0].1, &rt);

    println!("run_code start-up (`return 1`), median of 200:");
    let one = json!({"code": "return 1;"});
    for (name, session, refill) in &sessions {
        std::thread::sleep(Duration::from_millis(50));
        let mut times: Vec<Duration> = (0..200)
            .map(|_| timed(session, &rt, &one, 1, *refill))
            .collect();
        times.sort();
        println!("{name:>12}: p50 {:?}, p90 {:?}", times[100], times[180]);
    }

    let mut group = c.benchmark_group("code_mode");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(800));
    for (name, session, refill) in &sessions {
        group.bench_function(format!("start/{name}"), |b| {
            b.iter_custom(|iters| timed(session, &rt, &one, iters, *refill));
        });
    }
    let direct = &sessions[0].1;
    for n in [1u32, 5, 20] {
        group.bench_function(format!("direct/{n}"), |b| {
            b.iter(|| {
                rt.block_on(async {
                    for id in 1..=n {
                        let r = direct.call("crm.lookup", json!({ "id": id })).await;
                        black_box(r.is_ok());
                    }
                });
            });
        });
        let code = json!({ "code": program(n) });
        for (name, session, refill) in &sessions {
            group.bench_function(format!("run_code/{name}/{n}"), |b| {
                b.iter_custom(|iters| timed(session, &rt, &code, iters, *refill));
            });
        }
    }
    group.finish();
}

/// With `PEDELEC_BENCH_COUNT=<sandbox>:<N>:<programs>` set, runs only that many programs
/// of N lookups in that sandbox (`in_process`, `warm`, `cold`), untimed, and exits: for
/// counting what they cost under `perf stat -e context-switches,raw_syscalls:sys_enter`
/// (the counts do not depend on the machine's load as times do): the difference between
/// N = 20 and N = 0, over the calls, is what an inner call costs.
fn count(spec: &str) {
    let mut parts = spec.split(':');
    let (Some(which), Some(n), Some(programs)) = (parts.next(), parts.next(), parts.next()) else {
        panic!("PEDELEC_BENCH_COUNT is <sandbox>:<N>:<programs>, not {spec}");
    };
    let n: u32 = n.parse().expect("N");
    let programs: u64 = programs.parse().expect("programs");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (_, mode, refill) = sandboxes()
        .into_iter()
        .find(|(name, _, _)| *name == which)
        .expect("a sandbox: in_process, warm or cold");
    let session = Session::builder(ToolName::skills())
        .code_mode(mode)
        .create()
        .expect("session");
    let code = if n == 0 {
        json!({"code": "return 1;"})
    } else {
        json!({ "code": program(n) })
    };
    std::thread::sleep(Duration::from_millis(50));
    let took = timed(&session, &rt, &code, programs, refill);
    println!("{which} N={n}: {programs} programs, {took:?}");
}

criterion_group!(benches, code_mode);

fn main() {
    if let Ok(spec) = std::env::var("PEDELEC_BENCH_COUNT") {
        count(&spec);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
