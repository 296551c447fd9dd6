//! `cargo xtask soak [--calls N] [--connections C] [--window W] [--mcp-http]`: the soak test.
//!
//! Builds and runs `pedelec-core`'s `soak` example in release mode (it needs tokio, which
//! this crate does without): N calls (1,000,000 by default) over loopback TCP JSON Lines,
//! with valid calls, bad args, handler errors, panics, timeouts, cancellations and clients
//! that disconnect mid-call. It prints calls/s, p50/p99 latency, the server's RSS and the
//! count per result code, and fails when a call is not answered exactly once or the
//! server's RSS grows more than 10% after the warm-up. `--mcp-http` runs the same over MCP's
//! streamable HTTP transport (`McpHttp`): kept-alive connections, unknown tools, bodies that
//! are not JSON or not JSON-RPC, clients that give up mid-call.

use std::ffi::OsString;
use std::path::Path;

/// Runs the soak example with `args` (its flags, passed through).
pub fn run(root: &Path, args: &[OsString]) -> Result<(), String> {
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let flag = flag.to_string_lossy();
        if flag == "--mcp-http" {
            continue;
        }
        if !matches!(&*flag, "--calls" | "--connections" | "--window") {
            return Err(format!(
                "unknown flag `{flag}` for soak (expected --calls N, --connections C, --window W, --mcp-http)"
            ));
        }
        if it.next().is_none() {
            return Err(format!("`{flag}` takes a number"));
        }
    }
    super::run(
        super::cargo(root)
            .args([
                "run",
                "--release",
                "--quiet",
                "-p",
                "pedelec-core",
                "--features",
                "mcp",
                "--example",
                "soak",
                "--",
            ])
            .args(args),
    )
}
