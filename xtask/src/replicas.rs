//! `cargo xtask replicas [--calls N]`: the groundwork of the replica benchmark. Installs
//! nginx from Debian's packages under `target/debs/` (it runs from the extracted tree; no
//! root install), starts three `McpHttp` replicas of the counter example
//! (`counter --mcp-http ADDR`, release build), writes nginx's configuration (round robin,
//! no stickiness, the three upstreams, kept-alive upstream connections) under
//! `target/replicas/`, starts nginx in front of them, sends N `update_counter` calls through
//! it, and checks on each replica that the calls were spread over all three. Everything it
//! started is stopped at the end.
//!
//! (`HAProxy` runs from an extracted tree too, but needs three more libraries extracted with
//! it: `liblua5.3-0`, `libopentracing-c-wrapper0`, `libopentracing1`.)

use std::ffi::OsString;
use std::fmt::Write as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::debs;
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

fn target_dir(root: &Path) -> PathBuf {
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
    let calls = parse_calls(args)?;
    let nginx = debs::install(root, debs::NGINX)?;
    println!("replicas: building the counter example (release)");
    super::run(super::cargo(root).args(["build", "--release", "--quiet", "--example", "counter"]))?;
    let counter = target_dir(root).join("release/examples/counter");
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
    let listen = SocketAddr::from(([127, 0, 0, 1], free_port()?));
    let config = dir.join("nginx.conf");
    std::fs::write(&config, nginx_config(&dir, listen, &upstreams))
        .map_err(|e| format!("cannot write {}: {e}", config.display()))?;
    let mut balancer = Service::spawn(
        "nginx",
        Command::new(nginx.bin("usr/sbin/nginx"))
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&config)
            .arg("-e")
            .arg(dir.join("error.log"))
            .env("LD_LIBRARY_PATH", nginx.library_path()),
    )?
    .stop_with("TERM");
    wait_for_port(listen, &mut balancer)?;
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
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
