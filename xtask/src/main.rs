//! `cargo xtask <task>`: project chores, with std alone (and `analyzeme` to read rustc profiles,
//! `serde_json` to read the MCP conformance suite's results); the load benchmarks' servers and
//! generator are a crate of their own (`xtask/load`).
//!
//! - `ci`: what CI runs (`bash .ci/run`).
//! - `bless`: refresh the UI (`TRYBUILD=overwrite`) and snapshot/golden (`UPDATE_EXPECT=1`)
//!   expectations by running the whole test suite; review the diff afterwards.
//! - `expand [FILTER]`: print the expansion snapshots (`pedelec-macros/src/tests/snapshots`),
//!   those whose name contains `FILTER` when given.
//! - `manifest`: print the counter example's manifest (`cargo run --example counter -- --manifest`).
//! - `bench [ARGS]`: `cargo bench --workspace [ARGS]`.
//! - `soak [--calls N] [--mcp-http]`: the soak test, over JSON Lines or MCP HTTP (`soak.rs`).
//! - `compile-bench [N]`: compile time of N tools with pedelec against plain serde
//!   (`compile_bench.rs`); with `--profile`, rustc's self-profile of both, query by query
//!   (`compile_profile.rs`); with `--guard`, CI's check of the 100-tool `cargo check` against
//!   its budget, counted in instructions (callgrind).
//! - `mcp-clients`: install the official MCP clients the tests drive, and the OAuth
//!   authorization server of the end-to-end test (`mcp_clients.rs`).
//! - `conformance [--scenario NAME]… [--spec-version V]… [--stateless] [--list]`: the official
//!   MCP conformance suite against `examples/mcp_conformance.rs` over streamable HTTP, every
//!   server scenario that applies to a tools server at each revision (`conformance.rs`).
//! - `layers`: check that `pedelec-core`'s modules form layers, with no cycle (`layers.rs`),
//!   and that no files inside a module of any crate name each other in a cycle (`cycles.rs`).
//! - `load [FLAGS]`: MCP over HTTP under load, pedelec beside rmcp and the transport floor,
//!   or the TM Dev Lab v2 workload against Redis (`load.rs`; the servers and the generator
//!   are the `xtask/load` crate).
//! - `replicas [--calls N] [--failover N]`: three `McpHttp` counters behind nginx, calls
//!   spread over them, and the failover property with one killed (`replicas.rs`); then three
//!   replicas sharing one Redis: one rate budget, retries and duplicates run once, a replica
//!   and Redis killed mid-run (`shared_store.rs`).

mod compile_bench;
mod compile_profile;
mod conformance;
mod cycles;
mod debs;
mod layers;
mod load;
mod mcp_clients;
mod replicas;
mod services;
mod shared_store;
mod soak;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

const USAGE: &str = "usage: cargo xtask <task>

tasks:
  ci               run what CI runs (bash .ci/run)
  bless            refresh UI, snapshot and golden expectations (then review the diff)
  expand [FILTER]  print the expansion snapshots (names containing FILTER)
  manifest         print the counter example's manifest
  bench [ARGS]     cargo bench --workspace [ARGS]
  soak [--calls N] [--mcp-http]
                   N calls (default 1,000,000) over loopback TCP, JSON Lines or MCP HTTP:
                   each answered exactly once, RSS flat, latency
  compile-bench [N] [--runs R] [--profile | --guard]
                   compile time of N tools (default 100): pedelec against plain serde;
                   --profile: rustc's self-profile of a cargo check of both, query by query
  mcp-clients      install the official MCP clients (Python, TypeScript) and the OAuth
                   authorization server (oidc-provider) the tests drive into target/
  conformance [--scenario NAME]... [--spec-version 2025-11-25|2026-07-28|extension]...
              [--stateless] [--list]
                   the official MCP conformance suite (npm, pinned, into target/) against
                   examples/mcp_conformance.rs over HTTP (stateful sessions for 2025-11-25
                   clients unless --stateless): every scenario that applies to a
                   tools server, one table; --list: the plan and why scenarios do not apply
  layers           check that pedelec-core's modules form layers (no cycle)
  load [--workload counter|tmdevlab] [--rounds N] [--clients 1,16,64]
       [--kinds pedelec,rmcp,floor] [--warmup SECS] [--secs SECS]
       [--protocol 2025-11-25|2026-07-28] [--threads N] [--profile] [--baseline PATH]
                   MCP over HTTP under load: pedelec's McpHttp, rmcp's own server and
                   a bare axum floor (counter), or the TM Dev Lab v2 tools against Redis
                   (tmdevlab); interleaved rounds, medians, ratios; --profile: perf
  redis            Redis 7 (Debian's, pinned) under target/debs/, and the script the
                   store tests start it with (target/debs/redis-server)
  replicas [--calls N] [--failover N]
                   three McpHttp counters behind nginx (Debian's, under target/debs/):
                   calls spread over all three; then one replica killed mid-run: every
                   call answered once or failed visibly, none run twice; then three
                   replicas sharing one Redis: one rate budget, retries and duplicates
                   run once, a replica and Redis killed mid-run";

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let Some(task) = args.next() else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    let rest: Vec<OsString> = args.collect();
    let root = workspace_root();
    let result = match task.to_str() {
        Some("ci") => run(Command::new("bash").arg(".ci/run").current_dir(&root)),
        Some("bless") => run(cargo(&root)
            .args(["test", "--workspace", "--all-features"])
            .env("TRYBUILD", "overwrite")
            .env("UPDATE_EXPECT", "1")),
        Some("expand") => expand(&root, rest.first().and_then(|f| f.to_str())),
        Some("manifest") => {
            run(cargo(&root).args(["run", "--quiet", "--example", "counter", "--", "--manifest"]))
        }
        Some("bench") => run(cargo(&root).args(["bench", "--workspace"]).args(&rest)),
        Some("soak") => soak::run(&root, &rest),
        Some("compile-bench") => compile_bench::run(&root, &rest),
        Some("mcp-clients") => mcp_clients::install(&root),
        Some("layers") => layers::run(&root),
        Some("conformance") => conformance::run(&root, &rest),
        Some("load") => load::run(&root, &rest),
        Some("replicas") => {
            replicas::run(&root, &rest).and_then(|()| shared_store::run(&root, &rest))
        }
        Some("redis") => debs::install_redis(&root).map(|script| {
            println!("redis: {}", script.display());
        }),
        Some("help" | "-h" | "--help") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => Err(format!(
            "unknown task `{}`\n\n{USAGE}",
            task.to_string_lossy()
        )),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace root: the parent of this crate's directory.
fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives inside the workspace")
        .to_path_buf()
}

/// `cargo` (the one running this task, when known), in the workspace root.
fn cargo(root: &Path) -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(root);
    command
}

fn run(command: &mut Command) -> Result<(), String> {
    let status = command
        .status()
        .map_err(|e| format!("cannot run {command:?}: {e}"))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!("{command:?} failed ({status})"))
    }
}

fn expand(root: &Path, filter: Option<&str>) -> Result<(), String> {
    let dir = root.join("pedelec-macros/src/tests/snapshots");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "rs"))
        .filter(|path| {
            filter.is_none_or(|f| {
                path.file_stem()
                    .is_some_and(|stem| stem.to_string_lossy().contains(f))
            })
        })
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(match filter {
            Some(f) => format!("no snapshot in {} matches `{f}`", dir.display()),
            None => format!("no snapshot in {}", dir.display()),
        });
    }
    for (i, path) in files.iter().enumerate() {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        if i > 0 {
            println!();
        }
        let name = path.strip_prefix(root).unwrap_or(path);
        println!("// ===== {} =====", name.display());
        print!("{text}");
    }
    Ok(())
}
