//! What the shared store adds to a call (DESIGN §13), Redis against the in-process store,
//! in one run:
//!
//! - `store/plain`: a call that needs no store (the floor);
//! - `store/rate_limited/{memory,redis}`: a call under a per-caller rate limit (one budget
//!   check);
//! - `store/exactly_once/{memory,redis}`: an `#[tool(exactly_once)]` call with a new
//!   idempotency key (claim the key, run, keep the answer);
//! - `store/exactly_once_retry/{memory,redis}`: the retry of a finished key (the kept answer).
//!
//! Before timing, it counts what each kind of call asks of Redis over 1,000 calls, from
//! Redis's own statistics: round trips (`EVALSHA`, `DEL`), and commands run.
//!
//! Needs Debian's Redis, which `cargo xtask redis` installs under `target/debs/`. Run with
//! `cargo bench --bench store --features redis`.

use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::Child;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use pedelec::context::Caller;
use pedelec::session::RateLimit;
use pedelec::store::{Memory, Redis, Store};
use pedelec::{CallOptions, Session, ToolArgs, skills, tool};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, ToolArgs)]
struct ChargeArgs {
    /// Cents to charge.
    cents: u64,
}

/// Charge a card.
#[tool(exactly_once)]
async fn charge(args: ChargeArgs) -> u64 {
    args.cents
}

/// Say hello.
#[tool]
async fn hello() -> &'static str {
    "hello"
}

skills![guidance = "Payments.", tools = [charge, hello]];

/// A Redis of the benchmark's own, stopped when dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[path = "../tests/support/redis_server.rs"]
mod redis_server;

fn redis_server() -> Option<Server> {
    let port = redis_server::free_port();
    let child = redis_server::spawn(port)?;
    Some(Server { child, port })
}

/// Redis's `INFO` section `section`, over a connection of its own.
fn info(port: u16, section: &str) -> String {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).expect("Redis answers");
    stream
        .write_all(format!("INFO {section}\r\n").as_bytes())
        .expect("INFO is sent");
    let mut reader = BufReader::new(stream);
    let mut header = String::new();
    reader.read_line(&mut header).expect("a bulk string");
    let len: usize = header
        .trim()
        .trim_start_matches('$')
        .parse()
        .expect("its length");
    let mut body = vec![0; len];
    reader.read_exact(&mut body).expect("the section");
    String::from_utf8(body).expect("text")
}

/// What Redis counted: the round trips pedelec made (its scripts are `EVALSHA`s; a key is
/// released with `DEL`), and every command run, the scripts' own included.
fn counts(port: u16) -> (u64, u64) {
    let stats = info(port, "commandstats");
    let calls = |command: &str| -> u64 {
        stats
            .lines()
            .find_map(|l| l.strip_prefix(&format!("cmdstat_{command}:calls=")))
            .and_then(|rest| rest.split(',').next())
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    };
    let trips = calls("evalsha") + calls("eval") + calls("script|load") + calls("del");
    let total = info(port, "stats")
        .lines()
        .find_map(|l| l.strip_prefix("total_commands_processed:"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    (trips, total)
}

fn session(store: Arc<dyn Store>, limited: bool) -> Session<ToolName> {
    let mut builder = Session::builder(ToolName::skills()).store(store);
    if limited {
        builder = builder.rate_limit(RateLimit::per_caller(u32::MAX, Duration::from_secs(1)));
    }
    builder.create().expect("session")
}

fn keyed(key: String) -> CallOptions {
    CallOptions::new()
        .caller(Caller::new("alice"))
        .idempotency_key(key)
}

fn store(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let Some(server) = redis_server() else {
        return;
    };
    let redis: Arc<dyn Store> = Arc::new(
        rt.block_on(Redis::connect(&format!(
            "redis://127.0.0.1:{}",
            server.port
        )))
        .expect("Redis answers")
        .prefix("bench:"),
    );
    let memory: Arc<dyn Store> = Arc::new(Memory::new());
    let alice = || CallOptions::new().caller(Caller::new("alice"));
    let next = AtomicU64::new(0);
    let fresh_key = || format!("k{}", next.fetch_add(1, Ordering::Relaxed));

    // Round trips per call, counted by Redis itself.
    let limited = session(redis.clone(), true);
    let once = session(redis.clone(), false);
    let count = |what: &str, f: &dyn Fn()| {
        let (trips, commands) = counts(server.port);
        for _ in 0..1_000 {
            f();
        }
        let (trips_after, commands_after) = counts(server.port);
        // The INFO commands that read the counts count too (two per reading).
        #[allow(clippy::cast_precision_loss, reason = "counts over 1,000 calls")]
        let per_call = |n: u64| n as f64 / 1_000.0;
        println!(
            "Redis per call, {what}: {:.2} round trips, {:.2} commands run (scripts' own included)",
            per_call(trips_after - trips),
            per_call(commands_after - commands - 2),
        );
    };
    count("rate limited", &|| {
        let r = rt.block_on(limited.call_with("hello", json!({}), alice()));
        assert!(r.is_ok());
    });
    count("exactly once, new key", &|| {
        let r = rt.block_on(once.call_with("charge", json!({"cents": 1}), keyed(fresh_key())));
        assert!(r.is_ok());
    });
    let kept = fresh_key();
    let _ = rt.block_on(once.call_with("charge", json!({"cents": 1}), keyed(kept.clone())));
    count("exactly once, a retry", &|| {
        let r = rt.block_on(once.call_with("charge", json!({"cents": 1}), keyed(kept.clone())));
        assert!(r.is_ok());
    });

    let mut group = c.benchmark_group("store");
    let plain = session(memory.clone(), false);
    group.bench_function("plain", |b| {
        b.iter(|| {
            black_box(
                rt.block_on(plain.call_with("hello", json!({}), alice()))
                    .is_ok(),
            )
        });
    });
    for (name, store) in [("memory", &memory), ("redis", &redis)] {
        let limited = session(store.clone(), true);
        group.bench_function(format!("rate_limited/{name}"), |b| {
            b.iter(|| {
                black_box(
                    rt.block_on(limited.call_with("hello", json!({}), alice()))
                        .is_ok(),
                )
            });
        });
        let once = session(store.clone(), false);
        group.bench_function(format!("exactly_once/{name}"), |b| {
            b.iter(|| {
                let options = keyed(fresh_key());
                black_box(
                    rt.block_on(once.call_with("charge", json!({"cents": 1}), options))
                        .is_ok(),
                )
            });
        });
        let kept = fresh_key();
        let _ = rt.block_on(once.call_with("charge", json!({"cents": 1}), keyed(kept.clone())));
        group.bench_function(format!("exactly_once_retry/{name}"), |b| {
            b.iter(|| {
                let options = keyed(kept.clone());
                black_box(
                    rt.block_on(once.call_with("charge", json!({"cents": 1}), options))
                        .is_ok(),
                )
            });
        });
    }
    group.finish();
    drop(server);
}

criterion_group!(benches, store);
criterion_main!(benches);
