//! `cargo xtask replicas [--calls N] [--failover N]`: MCP replicas behind a real load
//! balancer. Installs
//! nginx from Debian's packages under `target/debs/` (it runs from the extracted tree; no
//! root install), starts three `McpHttp` replicas of the counter example
//! (`counter --mcp-http ADDR`, release build), writes nginx's configuration (round robin,
//! no stickiness, the three upstreams, kept-alive upstream connections) under
//! `target/replicas/`, starts nginx in front of them, sends N `update_counter` calls through
//! it, and checks on each replica that the calls were spread over all three. Everything it
//! started is stopped at the end.
//!
//! Then the failover property (`--failover N`, 3,000 calls by default; 0 skips it): three
//! `load-server` replicas (pedelec's counter, each writing the delta of every call it runs
//! to a journal before answering) behind the same nginx; 8 clients send N calls whose
//! deltas are all distinct; a third of the way through, one replica is killed (SIGKILL).
//! Every call must be answered once or fail visibly to its client (an HTTP error, never a
//! silent loss), and no call may run twice: each delta appears at most once in the
//! journals, exactly once for an answered call. nginx's `proxy_next_upstream` (default
//! `error timeout`) passes a request to the next replica only when it could not be sent
//! (the killed replica refused the connection); a `POST` already sent is not retried
//! (non-idempotent: `non_idempotent` is not set), so the client sees `502` instead of a
//! second run.
//!
//! (`HAProxy` runs from an extracted tree too, but needs three more libraries extracted with
//! it: `liblua5.3-0`, `libopentracing-c-wrapper0`, `libopentracing1`.)

use std::ffi::OsString;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::debs;
use std::time::Duration;

use super::services::{Service, free_port, post_json, wait_for_port};

/// nginx's configuration for `listen` in front of `upstreams`, its files under `dir`.
pub fn nginx_config(dir: &Path, listen: SocketAddr, upstreams: &[SocketAddr]) -> String {
    let dir = dir.display();
    let mut servers = String::new();
    for upstream in upstreams {
        let _ = writeln!(servers, "        server {upstream};");
    }
    format!(
        "# Written by `cargo xtask replicas`: nginx in front of {n} MCP replicas.
daemon off;
master_process on;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;

events {{
    worker_connections 4096;
}}

http {{
    access_log off;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;

    # Round robin (nginx's default balancing), no stickiness: any replica answers any
    # request, as stateless MCP servers allow.
    upstream mcp_replicas {{
{servers}        keepalive 64;
    }}

    server {{
        listen {listen};
        location / {{
            proxy_pass http://mcp_replicas;
            # HTTP/1.1 with kept-alive connections to the replicas.
            proxy_http_version 1.1;
            proxy_set_header Connection \"\";
            # The replicas check Host against their allow-list: pass the client's.
            proxy_set_header Host $http_host;
            # Server-sent events (progress) pass through as they come.
            proxy_buffering off;
        }}
    }}
}}
",
        n = upstreams.len()
    )
}

/// `--calls N` (300 by default), `--failover N` (3,000 by default; 0 skips it) and
/// `--debug` (debug builds of the replicas: what CI runs, whose test run built them
/// already; the properties checked do not depend on speed).
fn parse_args(args: &[OsString]) -> Result<(usize, usize, bool), String> {
    let (mut calls, mut failover) = (300, 3000);
    let debug = args.iter().any(|a| a == "--debug");
    let args: Vec<OsString> = args.iter().filter(|a| *a != "--debug").cloned().collect();
    for pair in args.chunks(2) {
        match pair {
            [flag, n] if flag == "--calls" || flag == "--failover" => {
                let n: usize = n
                    .to_str()
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(|| format!("`{}` takes a count", flag.to_string_lossy()))?;
                if flag == "--calls" {
                    if n == 0 {
                        return Err("`--calls` takes a count above 0".into());
                    }
                    calls = n;
                } else {
                    failover = n;
                }
            }
            _ => {
                return Err(format!(
                    "unknown arguments for replicas: {args:?} (expected --calls N, --failover N, --debug)"
                ));
            }
        }
    }
    Ok((calls, failover, debug))
}

#[allow(dead_code, reason = "the flags' first form, kept for its tests")]
fn parse_calls(args: &[OsString]) -> Result<usize, String> {
    match args {
        [] => Ok(300),
        [flag, n] if flag == "--calls" => n
            .to_str()
            .and_then(|n| n.parse().ok())
            .filter(|&n: &usize| n > 0)
            .ok_or_else(|| "`--calls` takes a count above 0".into()),
        _ => Err("usage: cargo xtask replicas [--calls N]".into()),
    }
}

pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_counter","arguments":{"delta":1}}}"#;
const READ: &str = r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_current_page","arguments":{}}}"#;
const HEADERS: [(&str, &str); 2] = [
    ("MCP-Protocol-Version", "2025-11-25"),
    // `update_counter` requires a scope: the replicas' static token holds every one.
    ("Authorization", "Bearer replicas"),
];

/// The counter a replica shows (`get_current_page`).
fn counter_of(addr: SocketAddr) -> Result<i64, String> {
    let answer = post_json(addr, "/mcp", &HEADERS, READ)?;
    let find = "\\\"counter\\\":";
    let at = answer
        .body
        .find(find)
        .ok_or_else(|| format!("{addr}: no counter in {}", answer.body))?;
    let digits: String = answer.body[at + find.len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '-')
        .collect();
    digits
        .parse()
        .map_err(|_| format!("{addr}: a bad counter in {}", answer.body))
}

/// Runs `cargo xtask replicas`.
pub fn run(root: &Path, args: &[OsString]) -> Result<(), String> {
    let (calls, failover_calls, debug) = parse_args(args)?;
    let nginx = debs::install(root, debs::NGINX)?;
    let (profile, flags): (&str, &[&str]) = if debug {
        ("debug", &["build", "--quiet"])
    } else {
        ("release", &["build", "--release", "--quiet"])
    };
    println!("replicas: building the counter example ({profile})");
    super::run(
        super::cargo(root)
            .args(flags)
            .args(["--all-features", "--example", "counter"]),
    )?;
    let counter = target_dir(root).join(profile).join("examples/counter");
    let dir = target_dir(root).join("replicas");
    for sub in [
        "tmp/body",
        "tmp/proxy",
        "tmp/fastcgi",
        "tmp/uwsgi",
        "tmp/scgi",
    ] {
        std::fs::create_dir_all(dir.join(sub))
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }

    let mut replicas = Vec::new();
    for i in 0..3 {
        let addr = SocketAddr::from(([127, 0, 0, 1], free_port()?));
        let mut replica = Service::spawn(
            &format!("replica {i} (counter --mcp-http {addr})"),
            Command::new(&counter)
                .args(["--mcp-http", &addr.to_string()])
                .env("PEDELEC_MCP_TOKEN", "replicas")
                .stdout(Stdio::null()),
        )?;
        wait_for_port(addr, &mut replica)?;
        replicas.push((replica, addr));
    }
    let upstreams: Vec<SocketAddr> = replicas.iter().map(|(_, a)| *a).collect();
    let config = dir.join("nginx.conf");
    let (balancer, listen) = start_nginx(&nginx, &dir, &config, &upstreams)?;
    println!(
        "replicas: nginx on {listen} -> {} ({})",
        upstreams
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", "),
        config.display()
    );

    let mut failures = 0;
    for _ in 0..calls {
        let answer = post_json(listen, "/mcp", &HEADERS, CALL)?;
        if answer.status != 200 || !answer.body.contains("\"isError\":false") {
            failures += 1;
            if failures == 1 {
                println!(
                    "replicas: a failed call: HTTP {} {}",
                    answer.status, answer.body
                );
            }
        }
    }
    let counts = upstreams
        .iter()
        .map(|&a| counter_of(a))
        .collect::<Result<Vec<_>, _>>()?;
    drop(balancer);
    drop(replicas);
    let total: i64 = counts.iter().sum();
    println!(
        "replicas: {calls} calls through nginx, {failures} failed; calls per replica: {counts:?}"
    );
    if failures > 0 || usize::try_from(total).ok() != Some(calls) {
        return Err(format!(
            "{failures} calls failed, and the replicas counted {total} of {calls}"
        ));
    }
    if counts.contains(&0) {
        return Err(format!("a replica got no call: {counts:?}"));
    }
    println!("replicas: ok: every call answered, spread over all three replicas");
    if failover_calls > 0 {
        failover(root, &nginx, &dir, failover_calls, (profile, flags))?;
    }
    Ok(())
}

/// Builds `load-server` (`pedelec-load`) and returns its path.
pub fn build_load_server(
    root: &Path,
    (profile, flags): (&str, &[&str]),
) -> Result<PathBuf, String> {
    println!("replicas: building pedelec-load ({profile})");
    super::run(super::cargo(root).args(flags).args(["-p", "pedelec-load"]))?;
    Ok(target_dir(root).join(profile).join("load-server"))
}

/// Starts replica `i`, `load-server --kind pedelec` writing `journal` (emptied first), with
/// `extra` flags; returns it and its address.
pub fn start_load_server(
    server: &Path,
    i: usize,
    journal: &Path,
    extra: &[&str],
) -> Result<(Service, SocketAddr), String> {
    let _ = std::fs::remove_file(journal);
    let mut replica = Service::spawn(
        &format!(
            "replica {i} (load-server --kind pedelec {})",
            extra.join(" ")
        ),
        Command::new(server)
            .args(["--kind", "pedelec", "--addr", "127.0.0.1:0", "--journal"])
            .arg(journal)
            .args(extra)
            .stdout(Stdio::piped()),
    )?;
    let line = replica.first_line()?;
    let addr: SocketAddr = line
        .trim()
        .strip_prefix("listening ")
        .and_then(|a| a.parse().ok())
        .ok_or_else(|| format!("replica {i} printed {line:?}"))?;
    Ok((replica, addr))
}

/// Starts nginx from `tree` in front of `upstreams` (its configuration written to
/// `config`, its files under `dir`); returns it and the address it listens on.
pub fn start_nginx(
    tree: &debs::Tree,
    dir: &Path,
    config: &Path,
    upstreams: &[SocketAddr],
) -> Result<(Service, SocketAddr), String> {
    let listen = SocketAddr::from(([127, 0, 0, 1], free_port()?));
    std::fs::write(config, nginx_config(dir, listen, upstreams))
        .map_err(|e| format!("cannot write {}: {e}", config.display()))?;
    let mut balancer = Service::spawn(
        "nginx",
        Command::new(tree.bin("usr/sbin/nginx"))
            .arg("-p")
            .arg(dir)
            .arg("-c")
            .arg(config)
            .arg("-e")
            .arg(dir.join("error.log"))
            .env("LD_LIBRARY_PATH", tree.library_path()),
    )?
    .stop_with("TERM");
    wait_for_port(listen, &mut balancer)?;
    Ok((balancer, listen))
}

/// What a client saw of one call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen {
    /// `200` with the call's result.
    Answered,
    /// An HTTP error or a broken connection: the client knows the call failed.
    Failed,
}

/// What the failover run came to.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct FailoverSummary {
    /// Calls answered (each ran exactly once).
    pub answered: usize,
    /// Calls that failed visibly and did not run.
    pub failed_not_run: usize,
    /// Calls that failed visibly but ran (the replica died before its answer left).
    pub failed_ran: usize,
}

/// Checks the failover property: every call was seen by its client (answered or failed),
/// no call ran twice (its delta appears at most once in all the journals), an answered
/// call ran exactly once, and nothing ran that no client sent.
pub fn check_failover(
    seen: &std::collections::BTreeMap<i64, Seen>,
    journals: &[Vec<i64>],
    sent: usize,
) -> Result<FailoverSummary, Vec<String>> {
    let mut runs: std::collections::BTreeMap<i64, usize> = std::collections::BTreeMap::new();
    for journal in journals {
        for delta in journal {
            *runs.entry(*delta).or_default() += 1;
        }
    }
    let mut problems = Vec::new();
    if seen.len() != sent {
        problems.push(format!(
            "{} call(s) sent but neither answered nor failed",
            sent.saturating_sub(seen.len())
        ));
    }
    let mut summary = FailoverSummary::default();
    for (&delta, &outcome) in seen {
        let ran = runs.get(&delta).copied().unwrap_or(0);
        match (outcome, ran) {
            (_, 2..) => problems.push(format!("call {delta} ran {ran} times")),
            (Seen::Answered, 1) => summary.answered += 1,
            (Seen::Answered, _) => problems.push(format!(
                "call {delta} was answered but no replica's journal has it"
            )),
            (Seen::Failed, 0) => summary.failed_not_run += 1,
            (Seen::Failed, _) => summary.failed_ran += 1,
        }
    }
    for delta in runs.keys() {
        if !seen.contains_key(delta) {
            problems.push(format!("call {delta} ran, but no client sent it"));
        }
    }
    if problems.is_empty() {
        Ok(summary)
    } else {
        Err(problems)
    }
}

fn journal_of(path: &Path) -> Result<Vec<i64>, String> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .map(|l| {
            l.trim()
                .parse()
                .map_err(|_| format!("{}: a bad line {l:?}", path.display()))
        })
        .collect()
}

/// The failover run (see the module docs).
fn failover(
    root: &Path,
    nginx: &debs::Tree,
    dir: &Path,
    calls: usize,
    (profile, flags): (&str, &[&str]),
) -> Result<(), String> {
    use std::collections::BTreeMap;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};

    let server = build_load_server(root, (profile, flags))?;
    let mut replicas = Vec::new();
    let mut journals = Vec::new();
    for i in 0..3 {
        let journal = dir.join(format!("journal-{i}"));
        let (replica, addr) = start_load_server(&server, i, &journal, &[])?;
        replicas.push((Some(replica), addr));
        journals.push(journal);
    }
    let upstreams: Vec<SocketAddr> = replicas.iter().map(|(_, a)| *a).collect();
    let (balancer, listen) = start_nginx(nginx, dir, &dir.join("nginx-failover.conf"), &upstreams)?;

    let next = Arc::new(AtomicUsize::new(1));
    let done = Arc::new(AtomicUsize::new(0));
    let seen: Arc<Mutex<BTreeMap<i64, Seen>>> = Arc::default();
    let first_failure: Arc<Mutex<Option<String>>> = Arc::default();
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let (next, done, seen, first_failure) =
                (next.clone(), done.clone(), seen.clone(), first_failure.clone());
            std::thread::spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i > calls {
                        return;
                    }
                    let body = format!(
                        r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"update_counter","arguments":{{"delta":{i}}}}}}}"#
                    );
                    let answer = post_json(listen, "/mcp", &HEADERS, &body);
                    let outcome = match &answer {
                        Ok(a) if a.status == 200 && a.body.contains("\"isError\":false") => {
                            Seen::Answered
                        }
                        other => {
                            let mut first = first_failure.lock().unwrap();
                            if first.is_none() {
                                *first = Some(match other {
                                    Ok(a) => format!("HTTP {} {}", a.status, a.body.trim()),
                                    Err(e) => e.clone(),
                                });
                            }
                            Seen::Failed
                        }
                    };
                    #[allow(clippy::cast_possible_wrap, reason = "a call number")]
                    seen.lock().unwrap().insert(i as i64, outcome);
                    done.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    // A third of the way through, kill a replica in the middle of its calls.
    while done.load(Ordering::Relaxed) < calls / 3 {
        std::thread::sleep(Duration::from_millis(2));
    }
    let (victim, victim_addr) = &mut replicas[0];
    if let Some(victim) = victim.take() {
        let _ = Command::new("kill")
            .args(["-KILL", &victim.pid().to_string()])
            .status();
        drop(victim);
    }
    println!(
        "replicas: failover: killed the replica at {victim_addr} after {} of {calls} calls",
        done.load(Ordering::Relaxed)
    );
    for worker in workers {
        worker
            .join()
            .map_err(|_| "a client thread panicked".to_owned())?;
    }
    drop(balancer);
    drop(replicas);
    let journals = journals
        .iter()
        .map(|j| journal_of(j))
        .collect::<Result<Vec<_>, _>>()?;
    let per_replica: Vec<usize> = journals.iter().map(Vec::len).collect();
    let seen = seen.lock().unwrap();
    match check_failover(&seen, &journals, calls) {
        Ok(summary) => {
            println!(
                "replicas: failover: {calls} calls: {} answered (each ran once), {} failed visibly without running, {} failed visibly after running on the killed replica; none ran twice; runs per replica: {per_replica:?}",
                summary.answered, summary.failed_not_run, summary.failed_ran
            );
            if let Some(first) = first_failure.lock().unwrap().as_deref() {
                println!("replicas: failover: the first failure a client saw: {first}");
            }
            println!("replicas: failover: ok");
            Ok(())
        }
        Err(problems) => Err(format!(
            "the failover property does not hold ({} problem(s)): {}",
            problems.len(),
            problems
                .iter()
                .take(10)
                .cloned()
                .collect::<Vec<_>>()
                .join("; ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_failover_property_is_checked_call_by_call() {
        use std::collections::BTreeMap;
        let seen: BTreeMap<i64, Seen> = [
            (1, Seen::Answered),
            (2, Seen::Answered),
            (3, Seen::Failed),
            (4, Seen::Failed),
        ]
        .into();
        // 1 and 2 ran once each, 3 ran on the killed replica, 4 never ran.
        let summary = check_failover(&seen, &[vec![1, 3], vec![2]], 4).unwrap();
        assert_eq!(
            summary,
            FailoverSummary {
                answered: 2,
                failed_not_run: 1,
                failed_ran: 1
            }
        );
        // Twice (retried after it ran), answered without running, run unsent, lost.
        let problems = check_failover(&seen, &[vec![1, 3], vec![2, 3, 9]], 5).unwrap_err();
        assert!(
            problems.iter().any(|p| p == "call 3 ran 2 times"),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("call 9 ran, but no client")),
            "{problems:?}"
        );
        assert!(
            problems
                .iter()
                .any(|p| p.contains("1 call(s) sent but neither")),
            "{problems:?}"
        );
        let problems = check_failover(&seen, &[vec![1, 3]], 4).unwrap_err();
        assert!(
            problems
                .iter()
                .any(|p| p.contains("call 2 was answered but no")),
            "{problems:?}"
        );
    }

    #[test]
    fn nginx_never_retries_a_post_it_sent() {
        // `non_idempotent` would let nginx pass a POST it already sent to another replica:
        // a call that ran on the first could run again. Not set, so never.
        let config = nginx_config(
            Path::new("/tmp/x"),
            SocketAddr::from(([127, 0, 0, 1], 9)),
            &[SocketAddr::from(([127, 0, 0, 1], 10))],
        );
        assert!(!config.contains("non_idempotent"), "{config}");
    }

    #[test]
    fn nginx_configuration() {
        let upstreams = [
            SocketAddr::from(([127, 0, 0, 1], 9001)),
            SocketAddr::from(([127, 0, 0, 1], 9002)),
            SocketAddr::from(([127, 0, 0, 1], 9003)),
        ];
        let config = nginx_config(
            Path::new("/t/replicas"),
            SocketAddr::from(([127, 0, 0, 1], 8080)),
            &upstreams,
        );
        let upstream_block: Vec<&str> = config
            .lines()
            .skip_while(|l| !l.contains("upstream mcp_replicas {"))
            .take_while(|l| l.trim() != "}")
            .collect();
        let servers: Vec<&str> = upstream_block
            .iter()
            .filter_map(|l| l.trim().strip_prefix("server "))
            .collect();
        assert_eq!(
            servers,
            ["127.0.0.1:9001;", "127.0.0.1:9002;", "127.0.0.1:9003;"]
        );
        // Round robin: no balancing method, no stickiness (hash, ip_hash, sticky).
        for method in ["hash", "ip_hash", "least_conn", "random", "sticky"] {
            assert!(
                !upstream_block.iter().any(|l| l.trim().starts_with(method)),
                "{method}"
            );
        }
        assert!(config.contains("listen 127.0.0.1:8080;"));
        assert!(config.contains("pid /t/replicas/nginx.pid;"));
        assert!(config.contains("proxy_set_header Host $http_host;"));
        assert!(config.contains("daemon off;"));
        // Every temp path under the tree, none in /var/lib/nginx.
        assert!(!config.contains("/var/"));
        assert_eq!(config.matches('{').count(), config.matches('}').count());
    }

    #[test]
    fn calls_flag() {
        assert_eq!(parse_calls(&[]), Ok(300));
        assert_eq!(parse_calls(&["--calls".into(), "30".into()]), Ok(30));
        assert!(parse_calls(&["--calls".into(), "0".into()]).is_err());
        assert!(parse_calls(&["--other".into()]).is_err());
    }
}
