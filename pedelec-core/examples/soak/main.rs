//! The soak test: `cargo xtask soak [--calls N]` runs this example in release mode.
//!
//! It starts itself again as the server (`--server`: a session over JSON Lines on a loopback
//! TCP port, printed on its first line of output), drives N calls at it (1,000,000 by
//! default) with a mix of valid calls, bad args, handler errors, panics, timeouts,
//! cancellations and clients that disconnect mid-call, prints calls/s, p50/p99 latency, the
//! server's RSS at start, after the warm-up (the first 10% of the calls) and at the end,
//! and the count per result code. It exits with an error when a call of a client that
//! stayed connected was not answered exactly once with the right code, or when the
//! server's RSS grew more than 10% after the warm-up.
//!
//! ```text
//! cargo run --release -p pedelec-core --features mcp --example soak -- [--calls N] [--connections C] [--window W] [--mcp-http]
//! ```
//!
//! With `--mcp-http` the server is the same session over MCP's streamable HTTP transport
//! (`McpHttp`), and the mix adds unknown tools and bodies that are not JSON or not
//! JSON-RPC; a client that gives up closes its connection mid-call (`mcp_http.rs`).

mod driver;
mod mcp_http;

use std::io::{BufRead, BufReader};
use std::process::{Command, ExitCode, Stdio};

fn flag(args: &[String], name: &str) -> Option<u64> {
    let i = args.iter().position(|a| a == name)?;
    let value = args.get(i + 1).map(|v| v.replace('_', ""));
    match value.as_deref().map(str::parse) {
        Some(Ok(n)) => Some(n),
        _ => {
            eprintln!("soak: `{name}` takes a number");
            std::process::exit(2);
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let over_http = args.iter().any(|a| a == "--mcp-http");
    if args.iter().any(|a| a == "--server") {
        server(over_http);
        return ExitCode::SUCCESS;
    }
    let mut config = driver::Config::new(flag(&args, "--calls").unwrap_or(1_000_000));
    if let Some(c) = flag(&args, "--connections") {
        config.connections = usize::try_from(c).unwrap_or(1).max(1);
    }
    if let Some(w) = flag(&args, "--window") {
        config.window = usize::try_from(w).unwrap_or(1).max(1);
    }

    let exe = std::env::current_exe().expect("the soak executable");
    let mut child = Command::new(exe)
        .arg("--server")
        .args(over_http.then_some("--mcp-http"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cannot start the soak server");
    let mut first = String::new();
    BufReader::new(child.stdout.take().expect("the server's stdout"))
        .read_line(&mut first)
        .expect("the server's address");
    let addr: std::net::SocketAddr = first
        .trim()
        .parse()
        .unwrap_or_else(|e| panic!("the server printed {first:?}: {e}"));
    if over_http {
        println!(
            "soak: {} calls over MCP HTTP, {} kept-alive connections (one request in flight each), to pid {} at {addr}",
            config.calls,
            config.connections * config.window.min(4),
            child.id()
        );
    } else {
        println!(
            "soak: {} calls over {} connections ({} in flight each) to pid {} at {addr}",
            config.calls,
            config.connections,
            config.window,
            child.id()
        );
    }

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let report = if over_http {
        runtime.block_on(mcp_http::run(addr, config))
    } else {
        runtime.block_on(driver::run(addr, config))
    };
    drop(child.stdin.take()); // the server exits at the end of its input
    let _ = child.wait();
    let report = match report {
        Ok(report) => report,
        Err(e) => {
            eprintln!("soak: {e}");
            return ExitCode::FAILURE;
        }
    };
    print!("{report}");
    let mut failed = false;
    if !report.problems.is_empty() {
        eprintln!(
            "soak: FAILED: {} broken guarantee(s)",
            report.problems.len()
        );
        failed = true;
    }
    if report.rss_growth() > 0.10 {
        eprintln!(
            "soak: FAILED: the server's RSS grew {:.1}% after the warm-up (limit 10%)",
            report.rss_growth() * 100.0
        );
        failed = true;
    }
    if failed {
        ExitCode::FAILURE
    } else {
        println!("soak: OK");
        ExitCode::SUCCESS
    }
}

/// The server: prints its address, serves until its standard input ends.
fn server(over_http: bool) {
    driver::quiet_deliberate_panics();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a loopback port");
        println!("{}", listener.local_addr().expect("the address"));
        // The driver closes our stdin when it is done (or dies).
        let input_closed = tokio::task::spawn_blocking(|| {
            let mut sink = String::new();
            while std::io::stdin().read_line(&mut sink).is_ok_and(|n| n > 0) {}
        });
        if over_http {
            let stop = async {
                let _ = input_closed.await;
            };
            mcp_http::serve(listener, driver::session(), stop).await;
        } else {
            let serving = tokio::spawn(driver::serve(listener, driver::session()));
            let _ = input_closed.await;
            serving.abort();
        }
    });
    runtime.shutdown_background();
}
