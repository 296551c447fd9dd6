//! The counter example's MCP server, driven by the official MCP clients: the Python SDK
//! (`mcp`), the TypeScript SDK (v1, `@modelcontextprotocol/sdk`, on 2025-11-25) and its v2
//! (`@modelcontextprotocol/client`, on 2026-07-28, with the tasks extension's client
//! `@modelcontextprotocol/ext-tasks`), over stdio and streamable HTTP. `cargo xtask
//! mcp-clients` installs them into `target/mcp-clients` (CI runs it first); without them
//! these tests print a notice and skip, or fail when `CI` is set.
//!
//! The scripts in `tests/mcp_clients/` make the calls and print what the SDK saw as JSON;
//! the checks are here. The SDKs validate every result against the tool's `outputSchema`
//! themselves (a non-conforming `structuredContent` makes the call raise, which the report
//! records and the checks reject).
//!
//! Over HTTP with OAuth (`--issuer URL --resource URL`), the tokens come from an issuer this
//! binary serves on loopback (RFC 8414 metadata and a JWKS, `pedelec-core`'s test issuer):
//! a token with `counter:write` sees and calls `update_counter`, one without does not see
//! it and gets the `403 insufficient_scope` challenge when it calls it anyway.
//!
//! This binary is also the server: run with `--mcp` or `--mcp-http ADDR`, it does what
//! `cargo run --example counter -- --mcp…` does (the example's own `serve_mcp`), so the
//! clients spawn or reach exactly the example's code.

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/counter.rs"]
mod counter;

#[path = "../pedelec-core/tests/support/issuer.rs"]
mod issuer;

#[allow(dead_code, reason = "the HTTP remote is the core's test's")]
#[path = "../pedelec-core/tests/support/remote.rs"]
mod remote;
#[path = "../pedelec-core/tests/support/summary.rs"]
mod summary;

use std::io::Read as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn main() -> ExitCode {
    // The gateway case's rmcp remote, spawned by the gateway over stdio.
    if std::env::var_os(gateway::REMOTE_ENV).is_some() {
        let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
        runtime.block_on(remote::serve_stdio());
        return ExitCode::SUCCESS;
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--gateway-http") {
        let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
        return match runtime.block_on(gateway::serve(&args[i + 1..])) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    if let Some(i) = args.iter().position(|a| a == "--policy-http") {
        let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
        let addr = args.get(i + 1).cloned().unwrap_or_default();
        return match runtime.block_on(policy::serve(&addr)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    if args.iter().any(|a| a == "--mcp" || a == "--mcp-http") {
        let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
        return match runtime.block_on(counter::serve_mcp(&args)) {
            Ok(_) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{e}");
                ExitCode::FAILURE
            }
        };
    }
    if args.iter().any(|a| a == "--list") {
        for (name, ..) in CASES {
            println!("{name}: test");
        }
        return ExitCode::SUCCESS;
    }
    let filter = args.iter().skip(1).find(|a| !a.starts_with('-'));
    let started = Instant::now();
    let clients = clients_dir();
    let (mut passed, mut failed, mut skipped, mut filtered) = (0, 0, 0, 0);
    println!("\nrunning {} tests", CASES.len());
    for (name, client, case) in CASES {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            filtered += 1;
            continue;
        }
        let runner = client.runner(&clients);
        let missing = match (&runner, case) {
            (None, _) => Some(client.label()),
            (Some(_), Case::Gateway) if !gateway::everything(&clients).is_file() => {
                Some("reference \"everything\"")
            }
            _ => None,
        };
        let (Some(runner), None) = (runner, missing) else {
            let notice = format!(
                "the {} MCP client is not installed in {}: run `cargo xtask mcp-clients`",
                missing.unwrap_or_default(),
                clients.display()
            );
            if std::env::var_os("CI").is_some() {
                println!("test {name} ... FAILED\n  {notice} (required when CI is set)");
                failed += 1;
            } else {
                println!("test {name} ... skipped: {notice}");
                skipped += 1;
            }
            continue;
        };
        let outcome =
            std::panic::catch_unwind(AssertUnwindSafe(|| run_case(client, &runner, case)));
        match outcome {
            Ok(()) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Err(_) => {
                println!("test {name} ... FAILED");
                failed += 1;
            }
        }
    }
    summary::finish(passed, failed, skipped, filtered, started)
}

#[derive(Clone, Copy)]
enum Client {
    Python,
    TypeScript,
    /// v2 of the TypeScript SDK, on 2026-07-28, and the tasks extension's client.
    TypeScriptV2,
}

#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    Http,
}

/// What a case drives.
#[derive(Clone, Copy)]
enum Case {
    /// The counter's tools: listing, calls, errors, progress, cancellation, and what the
    /// HTTP transport refuses.
    Basics(Transport),
    /// Icons in `tools/list`; `reset_counter` asking the user (`ctx.elicit`), answered
    /// accept, decline and cancel; on 2026-07-28 (the Python SDK, and the TypeScript SDK v2
    /// over HTTP), `count_to` as a task (created, polled, its result fetched; another one
    /// cancelled). `legacy`: the Python SDK held to the 2025-11-25 handshake
    /// (`elicitation/create` requests).
    Features { transport: Transport, legacy: bool },
    /// A per-caller rate limit and a tool the caller lacks the scopes for, over HTTP.
    Policy,
    /// HTTP with OAuth access tokens.
    OAuth,
    /// A gateway: the rmcp test remote and the reference "everything" server mounted
    /// behind pedelec, over HTTP with OAuth and a per-caller rate limit.
    Gateway,
}

const CASES: [(&str, Client, Case); 18] = [
    (
        "python_sdk_over_stdio",
        Client::Python,
        Case::Basics(Transport::Stdio),
    ),
    (
        "python_sdk_over_http",
        Client::Python,
        Case::Basics(Transport::Http),
    ),
    (
        "typescript_sdk_over_stdio",
        Client::TypeScript,
        Case::Basics(Transport::Stdio),
    ),
    (
        "typescript_sdk_over_http",
        Client::TypeScript,
        Case::Basics(Transport::Http),
    ),
    (
        "python_sdk_elicitation_tasks_icons_over_stdio",
        Client::Python,
        Case::Features {
            transport: Transport::Stdio,
            legacy: false,
        },
    ),
    (
        "python_sdk_elicitation_tasks_icons_over_http",
        Client::Python,
        Case::Features {
            transport: Transport::Http,
            legacy: false,
        },
    ),
    (
        "python_sdk_2025_elicitation_over_stdio",
        Client::Python,
        Case::Features {
            transport: Transport::Stdio,
            legacy: true,
        },
    ),
    (
        "python_sdk_2025_elicitation_over_stateful_http",
        Client::Python,
        Case::Features {
            transport: Transport::Http,
            legacy: true,
        },
    ),
    (
        "typescript_sdk_elicitation_icons_over_stdio",
        Client::TypeScript,
        Case::Features {
            transport: Transport::Stdio,
            legacy: true,
        },
    ),
    (
        "typescript_sdk_elicitation_icons_over_stateful_http",
        Client::TypeScript,
        Case::Features {
            transport: Transport::Http,
            legacy: true,
        },
    ),
    (
        "typescript_sdk_v2_elicitation_icons_over_stdio",
        Client::TypeScriptV2,
        Case::Features {
            transport: Transport::Stdio,
            legacy: false,
        },
    ),
    (
        "typescript_sdk_v2_elicitation_tasks_icons_over_http",
        Client::TypeScriptV2,
        Case::Features {
            transport: Transport::Http,
            legacy: false,
        },
    ),
    (
        "python_sdk_rate_limit_and_scopes_over_http",
        Client::Python,
        Case::Policy,
    ),
    (
        "typescript_sdk_deferred_tools_rate_limit_and_scopes_over_http",
        Client::TypeScript,
        Case::Policy,
    ),
    ("python_sdk_with_oauth", Client::Python, Case::OAuth),
    ("typescript_sdk_with_oauth", Client::TypeScript, Case::OAuth),
    (
        "python_sdk_gateway_with_oauth_and_rate_limit",
        Client::Python,
        Case::Gateway,
    ),
    (
        "typescript_sdk_gateway_with_oauth_and_rate_limit",
        Client::TypeScript,
        Case::Gateway,
    ),
];

/// `<target dir>/mcp-clients`, as `cargo xtask mcp-clients` fills it.
fn clients_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
            PathBuf::from,
        )
        .join("mcp-clients")
}

fn scripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_clients")
}

impl Client {
    fn label(self) -> &'static str {
        match self {
            Client::Python => "Python (`mcp`)",
            Client::TypeScript => "TypeScript (`@modelcontextprotocol/sdk`)",
            Client::TypeScriptV2 => {
                "TypeScript v2 (`@modelcontextprotocol/client`, `@modelcontextprotocol/ext-tasks`)"
            }
        }
    }

    /// The command that runs this client's script, when the client is installed.
    fn runner(self, clients: &Path) -> Option<Command> {
        match self {
            Client::Python => {
                let python = clients.join("py/bin/python");
                python.exists().then(|| {
                    let mut command = Command::new(python);
                    command.arg(scripts().join("client.py"));
                    command
                })
            }
            Client::TypeScript => node_runner(
                &clients.join("node"),
                &["@modelcontextprotocol/sdk"],
                "client.mjs",
            ),
            Client::TypeScriptV2 => node_runner(
                &clients.join("node-v2"),
                &[
                    "@modelcontextprotocol/client",
                    "@modelcontextprotocol/ext-tasks",
                ],
                "client_v2.mjs",
            ),
        }
    }
}

/// `node SCRIPT` with the packages installed in `dir`, when they and Node.js are there.
fn node_runner(dir: &Path, packages: &[&str], script: &str) -> Option<Command> {
    let installed = packages.iter().all(|p| {
        dir.join("node_modules")
            .join(p)
            .join("package.json")
            .exists()
    }) && Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    installed.then(|| {
        let mut command = Command::new("node");
        command
            .arg(scripts().join(script))
            .env("MCP_CLIENTS_NODE", dir);
        command
    })
}

/// Kills the server when the case ends, passed or not.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> SocketAddr {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free loopback port")
}

fn run_case(client: Client, runner: &Command, case: Case) {
    let me = std::env::current_exe().expect("the test binary's path");
    let mut command = Command::new(runner.get_program());
    command.args(runner.get_args());
    for (key, value) in runner.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    match case {
        Case::Basics(transport) => {
            let token = format!("t-{}-{:?}", std::process::id(), Instant::now());
            let _server;
            match transport {
                Transport::Stdio => {
                    command.arg("stdio").arg(&me).arg("--mcp");
                }
                Transport::Http => {
                    let addr = free_port();
                    _server = start_server(&me, &["--mcp-http", &addr.to_string()], Some(&token));
                    wait_for(addr);
                    command
                        .arg("http")
                        .arg(format!("http://{addr}/mcp"))
                        .env("PEDELEC_MCP_TOKEN", &token);
                }
            }
            let report = run_client(&mut command);
            // The TypeScript SDK handles a notification a microtask after the message that
            // carried it, but a response at once: when the last `notifications/progress`
            // and the result arrive in one read (stdio writes what is queued in one go),
            // the SDK has closed the call before it sees that notification.
            let last_progress_may_be_dropped =
                matches!(transport, Transport::Stdio) && !matches!(client, Client::Python);
            check(&report, transport, last_progress_may_be_dropped);
        }
        Case::Features { transport, legacy } => {
            let _server;
            command.arg("features");
            if legacy {
                command.env("PEDELEC_CLIENT_MODE", "legacy");
            }
            match transport {
                Transport::Stdio => {
                    command.arg("stdio").arg(&me).arg("--mcp");
                }
                Transport::Http => {
                    // 2025-11-25 clients are asked with a request on their session: the
                    // server keeps sessions (`--stateful`); 2026-07-28 ones need none.
                    let addr = free_port();
                    let mut args = vec!["--mcp-http".to_owned(), addr.to_string()];
                    if legacy {
                        args.push("--stateful".to_owned());
                    }
                    let args: Vec<&str> = args.iter().map(String::as_str).collect();
                    // Whoever holds the token may call every tool (`update_counter` too).
                    let token = format!("t-{}-{:?}", std::process::id(), Instant::now());
                    _server = start_server(&me, &args, Some(&token));
                    wait_for(addr);
                    command
                        .arg("http")
                        .arg(format!("http://{addr}/mcp"))
                        .env("PEDELEC_MCP_TOKEN", &token);
                }
            }
            let report = run_client(&mut command);
            // Tasks: on 2026-07-28, from the Python SDK, and from ext-tasks over HTTP (its
            // requests go through a dispatcher the host writes: a POST).
            let tasks = !legacy
                && match client {
                    Client::Python => true,
                    Client::TypeScriptV2 => matches!(transport, Transport::Http),
                    Client::TypeScript => false,
                };
            check_features(&report, tasks);
        }
        Case::Policy => {
            let addr = free_port();
            let _server = start_server(&me, &["--policy-http", &addr.to_string()], None);
            wait_for(addr);
            command.arg("policy").arg(format!("http://{addr}/mcp"));
            let report = run_client(&mut command);
            check_policy(&report);
        }
        Case::OAuth => {
            // The issuer runs on this runtime until the case ends.
            let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
            let issuer = runtime.block_on(issuer::Issuer::start());
            let key = issuer::SigningKey::ec("clients");
            issuer.publish(&key);
            let addr = free_port();
            let resource = format!("http://{addr}/mcp");
            let _server = Server(
                Command::new(&me)
                    .args(["--mcp-http", &addr.to_string()])
                    .args(["--issuer", &issuer.url, "--resource", &resource])
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("the HTTP server starts"),
            );
            let deadline = Instant::now() + Duration::from_secs(20);
            while TcpStream::connect(addr).is_err() {
                assert!(Instant::now() < deadline, "the HTTP server did not listen");
                std::thread::sleep(Duration::from_millis(20));
            }
            let token = |subject: &str, scope: &str| {
                key.sign(&issuer.claims(&resource, subject, scope, json!({})))
            };
            command
                .arg("oauth")
                .arg(&resource)
                .env("PEDELEC_TOKEN_WRITER", token("writer", "counter:write"))
                .env("PEDELEC_TOKEN_READER", token("reader", "counter:read"));
            let report = run_client(&mut command);
            check_oauth(&report, &resource);
        }
        Case::Gateway => {
            let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
            let issuer = runtime.block_on(issuer::Issuer::start());
            let key = issuer::SigningKey::ec("clients");
            issuer.publish(&key);
            let addr = free_port();
            let resource = format!("http://{addr}/mcp");
            let everything = gateway::everything(&clients_dir());
            let _server = Server(
                Command::new(&me)
                    .args(["--gateway-http", &addr.to_string()])
                    .args(["--issuer", &issuer.url, "--resource", &resource])
                    .arg("--everything")
                    .arg(&everything)
                    .stdout(Stdio::null())
                    .spawn()
                    .expect("the gateway starts"),
            );
            // It listens once both remotes listed their tools.
            let deadline = Instant::now() + Duration::from_secs(90);
            while TcpStream::connect(addr).is_err() {
                assert!(Instant::now() < deadline, "the gateway did not listen");
                std::thread::sleep(Duration::from_millis(50));
            }
            let token = |subject: &str, scope: &str| {
                key.sign(&issuer.claims(&resource, subject, scope, json!({})))
            };
            command
                .arg("gateway")
                .arg(&resource)
                .env("PEDELEC_TOKEN_WRITER", token("writer", gateway::SCOPE))
                .env("PEDELEC_TOKEN_READER", token("reader", "counter:read"));
            let report = run_client(&mut command);
            gateway::check(&report);
        }
    }
}

/// This binary as a server, with `args`; killed when the returned guard is dropped.
fn start_server(me: &Path, args: &[&str], token: Option<&str>) -> Server {
    let mut command = Command::new(me);
    command
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(token) = token {
        command.env("PEDELEC_MCP_TOKEN", token);
    } else {
        command.env_remove("PEDELEC_MCP_TOKEN");
    }
    Server(command.spawn().expect("the HTTP server starts"))
}

fn wait_for(addr: SocketAddr) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(addr).is_err() {
        assert!(Instant::now() < deadline, "the HTTP server did not listen");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What each caller saw with OAuth: its own tools, its permitted calls answered, a
/// forbidden call refused with the step-up challenge, no token refused with the 401 one.
fn check_oauth(report: &Value, resource: &str) {
    let metadata = resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp");
    let names = |who: &str| -> Vec<String> {
        report[who]["tools"]
            .as_array()
            .unwrap_or_else(|| panic!("{who} listed no tools: {}", report[who]))
            .iter()
            .map(|n| n.as_str().unwrap().to_owned())
            .collect()
    };
    let writer = &report["writer"];
    assert_eq!(
        names("writer"),
        [
            "count_to",
            "get_current_page",
            "render_page",
            "reset_counter",
            "run_code",
            "search_tools",
            "set_counter",
            "update_counter"
        ],
        "{writer}"
    );
    assert_eq!(writer["update_counter"]["isError"], false, "{writer}");
    assert_eq!(
        writer["update_counter"]["structuredContent"],
        json!({"value": 1}),
        "{writer}"
    );
    // Never refused (a `405` for the optional GET stream is not a refusal).
    assert!(
        writer["responses"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r[0] != 401 && r[0] != 403 && r[1].is_null()),
        "{writer}"
    );

    let reader = &report["reader"];
    assert_eq!(
        names("reader"),
        [
            "count_to",
            "get_current_page",
            "render_page",
            "reset_counter",
            "run_code",
            "search_tools",
            "set_counter"
        ],
        "the reader does not see update_counter: {reader}"
    );
    assert_eq!(reader["get_current_page"]["isError"], false, "{reader}");
    assert!(
        reader["update_counter"].get("raised").is_some(),
        "the forbidden call fails in the SDK: {reader}"
    );
    let refused: Vec<&Value> = reader["responses"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r[0] == 403)
        .collect();
    assert_eq!(refused.len(), 1, "{reader}");
    assert_eq!(
        refused[0][1],
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"this call requires the \
             scopes: counter:write\", scope=\"counter:write\", resource_metadata=\"{metadata}\""
        ),
        "{reader}"
    );

    let nobody = &report["nobody"];
    assert!(nobody.get("tools").is_none(), "{nobody}");
    let first = &nobody["responses"][0];
    assert_eq!(first[0], 401, "{nobody}");
    assert_eq!(
        first[1],
        format!("Bearer resource_metadata=\"{metadata}\""),
        "{nobody}"
    );
}

/// Runs the client script (two minutes at most) and parses its report.
fn run_client(command: &mut Command) -> Value {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + Duration::from_mins(2);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (out.join().unwrap(), err.join().unwrap());
    let Some(status) = status else {
        panic!("the client did not finish within 2 minutes\nstderr:\n{stderr}");
    };
    assert!(
        status.success(),
        "the client failed ({status})\nstderr:\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("the client's report is not JSON ({e}):\n{stdout}\nstderr:\n{stderr}")
    })
}

/// The error of an `isError` result: its text content, parsed.
fn error_of(result: &Value, what: &str) -> Value {
    assert_eq!(result["isError"], true, "{what}: {result}");
    assert!(
        result.get("structuredContent").is_none(),
        "{what}: an error carries no structuredContent: {result}"
    );
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{what}: {result}"));
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"))
}

fn check(report: &Value, transport: Transport, last_progress_may_be_dropped: bool) {
    // The crate that declared the skill set (the example is the `pedelec` package's), the
    // title the example sets, and what the server answers (prompts and resources: empty
    // lists, which the conformance suite requires to be declared; no completions).
    assert_eq!(report["server"], "pedelec", "{report}");
    assert_eq!(
        report["server_version"],
        env!("CARGO_PKG_VERSION"),
        "{report}"
    );
    assert_eq!(report["server_title"], "Counter", "{report}");
    assert_eq!(
        report["capabilities"],
        json!(["logging", "prompts", "resources", "tools"]),
        "capabilities: {report}"
    );
    assert_eq!(
        report["instructions"],
        "Read current state before making changes."
    );

    let tools = report["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools.iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(
        ["get_current_page", "update_counter", "render_page"]
            .iter()
            .all(|n| names.contains(n)),
        "{names:?}"
    );
    for tool in tools {
        let schema = &tool["inputSchema"];
        assert_eq!(schema["type"], "object", "{tool}");
        assert!(schema["properties"].is_object(), "{tool}");
        if let Some(output) = tool.get("outputSchema") {
            assert_eq!(
                output["type"], "object",
                "outputSchema is an object schema: {tool}"
            );
            assert_ne!(
                output,
                &json!({"type": "object"}),
                "never an empty schema: {tool}"
            );
        }
    }

    // MCP-only metadata from `#[tool(title = …, read_only, …)]` and `#[derive(ToolOutput)]`.
    let tool = |name: &str| {
        tools
            .iter()
            .find(|t| t["name"] == name)
            .unwrap_or_else(|| panic!("no {name}: {tools:?}"))
    };
    let page = tool("get_current_page");
    assert_eq!(page["title"], "Read the page", "{page}");
    assert_eq!(page["annotations"]["readOnlyHint"], true, "{page}");
    assert_eq!(
        page["outputSchema"]["properties"]["counter"]["type"], "integer",
        "{page}"
    );
    let update = tool("update_counter");
    assert_eq!(update["title"], "Update the counter", "{update}");
    assert_eq!(update["annotations"]["destructiveHint"], false, "{update}");
    assert_eq!(
        update["outputSchema"]["required"],
        json!(["value"]),
        "{update}"
    );
    if names.contains(&"count_to") {
        // A non-object output is listed wrapped, and returned wrapped.
        let count = tool("count_to");
        assert_eq!(
            count["outputSchema"]["properties"]["result"]["type"], "integer",
            "{count}"
        );
        assert_eq!(
            report["progress"]["result"]["structuredContent"],
            json!({"result": 3}),
            "{report}"
        );
    }

    // Valid calls: passed the SDK's own checks (no `raised`), with structured content.
    let ok = &report["update_counter"];
    assert_eq!(ok["isError"], false, "{ok}");
    assert_eq!(ok["structuredContent"], json!({"value": 2}), "{ok}");
    let page = &report["get_current_page"];
    assert_eq!(
        page["structuredContent"],
        json!({"title": "Counter", "counter": 2}),
        "{page}"
    );

    // Invalid args, an unknown tool, a timeout: `isError` results, never protocol errors.
    let bad = error_of(&report["bad_args"], "bad args");
    assert_eq!(bad["code"], "TOOL_ARGS_INVALID", "{bad}");
    assert_eq!(bad["details"]["errors"][0]["pointer"], "/delta", "{bad}");
    // An unknown tool is a protocol error (`-32602`, the MCP tools page), which the SDKs
    // raise.
    let unknown = report["unknown_tool"]["raised"]
        .as_str()
        .unwrap_or_else(|| panic!("unknown tool: {}", report["unknown_tool"]));
    assert!(
        unknown.contains("Unknown tool") && unknown.contains("update_countr"),
        "unknown tool: {unknown}"
    );
    let timeout = error_of(&report["timeout"], "timeout");
    assert_eq!(timeout["code"], "TOOL_TIMEOUT", "{timeout}");

    // Progress: `notifications/progress` for each `ctx.progress(..)` of `count_to`, when
    // the client gave a progress token (the SDKs give one with a progress callback).
    let progress = &report["progress"];
    let updates: Vec<(f64, f64, &str)> = progress["updates"]
        .as_array()
        .unwrap_or_else(|| panic!("no progress: {report}"))
        .iter()
        .map(|u| {
            (
                u[0].as_f64().unwrap(),
                u[1].as_f64().unwrap(),
                u[2].as_str().unwrap(),
            )
        })
        .collect();
    let expected = [
        (1.0, 3.0, "counted to 1"),
        (2.0, 3.0, "counted to 2"),
        (3.0, 3.0, "counted to 3"),
    ];
    if last_progress_may_be_dropped {
        assert!(
            updates.len() >= 2 && expected.starts_with(&updates),
            "{progress}"
        );
    } else {
        assert_eq!(updates, expected, "{progress}");
    }
    assert_eq!(progress["result"]["isError"], false, "{progress}");
    let quiet = &report["no_progress_token"];
    assert_eq!(quiet["isError"], false, "{quiet}");
    // The client gave up on a long call (it cancels it); the server goes on answering.
    assert!(
        report["cancelled"].get("raised").is_some(),
        "{}",
        report["cancelled"]
    );
    let after = &report["after_cancel"];
    assert_eq!(after["structuredContent"], json!({"value": 3}), "{after}");
    check_code_mode(report);

    if let Transport::Http = transport {
        for (case, status) in [
            ("without_token", 401),
            ("wrong_token", 401),
            ("foreign_origin", 403),
        ] {
            let seen = &report[case];
            assert!(seen.get("connected").is_none(), "{case}: {seen}");
            assert_eq!(seen["statuses"], json!([status]), "{case}: {seen}");
        }
    }
}

/// Code mode through the official client: `search_tools` answers `update_counter`'s
/// TypeScript declaration; one `run_code` program makes three calls through the session
/// and answers once; a program's bad call fails at its line, naming the argument.
fn check_code_mode(report: &Value) {
    let text = |result: &Value| -> Value {
        assert_eq!(result["isError"], false, "{result}");
        let text = result["content"][0]["text"].as_str().expect("text");
        serde_json::from_str(text).expect("JSON")
    };
    let found = text(&report["code_search"]);
    let update = found["tools"]
        .as_array()
        .and_then(|tools| tools.iter().find(|t| t["name"] == "update_counter"))
        .unwrap_or_else(|| panic!("{found}"));
    let declaration = update["declaration"].as_str().expect("declaration");
    assert!(
        declaration.contains("function update_counter(args: {")
            && declaration.contains("delta: number;")
            && declaration.contains("}): Promise<{"),
        "{declaration}"
    );
    let ran = text(&report["code_run"]);
    let values: Vec<i64> = ran["result"]
        .as_array()
        .unwrap_or_else(|| panic!("{ran}"))
        .iter()
        .filter_map(Value::as_i64)
        .collect();
    assert!(
        values.len() == 3 && values[1] == values[0] + 1 && values[2] == values[1],
        "{ran}"
    );
    assert_eq!(ran["output"], format!("counter {}\n", values[2]), "{ran}");
    let failed = error_of(&report["code_error"], "code error");
    assert_eq!(failed["details"]["line"], 2, "{failed}");
    assert_eq!(failed["details"]["code"], "TOOL_ARGS_INVALID", "{failed}");
    assert!(
        failed["message"]
            .as_str()
            .is_some_and(|m| m.contains("/delta")),
        "{failed}"
    );
}

/// What the `features` scenario saw: the icon, the three answers to `reset_counter`'s
/// question, and (`tasks`) `count_to` run as tasks.
fn check_features(report: &Value, tasks: bool) {
    let tools = report["tools"].as_array().expect("tools");
    let reset = tools
        .iter()
        .find(|t| t["name"] == "reset_counter")
        .unwrap_or_else(|| panic!("no reset_counter: {tools:?}"));
    let icon = &reset["icons"][0];
    assert!(
        icon["src"]
            .as_str()
            .is_some_and(|s| s.starts_with("data:image/svg+xml;base64,")),
        "{reset}"
    );
    assert_eq!(icon["mimeType"], "image/svg+xml", "{reset}");
    assert!(
        tools
            .iter()
            .filter(|t| t["name"] != "reset_counter")
            .all(|t| t.get("icons").is_none()),
        "only reset_counter has an icon: {tools:?}"
    );

    // The question, as the client was asked it: the message and the form's schema.
    let asked = report["asked"].as_array().expect("asked");
    assert_eq!(asked.len(), 6, "{report}");
    for question in &asked[..3] {
        assert_eq!(question["message"], "Reset the counter to 0?", "{question}");
        let schema = &question["requestedSchema"];
        assert_eq!(schema["type"], "object", "{question}");
        assert_eq!(
            schema["properties"]["confirm"]["type"], "boolean",
            "{question}"
        );
        assert_eq!(schema["required"], json!(["confirm"]), "{question}");
    }
    let answers: Vec<&str> = report["elicited"]
        .as_array()
        .expect("elicited")
        .iter()
        .map(|r| {
            assert_eq!(r["isError"], false, "{r}");
            r["content"][0]["text"].as_str().unwrap_or("")
        })
        .collect();
    assert_eq!(
        answers,
        ["reset to 0", "kept: declined", "kept: cancelled"],
        "{report}"
    );
    // Accepted with `confirm: true`, the counter (5 before) is 0.
    assert_eq!(
        report["before_reset"]["structuredContent"]["value"], 5,
        "{report}"
    );
    assert_eq!(
        report["after_reset"]["structuredContent"]["counter"], 0,
        "{report}"
    );
    // `set_counter` waits for approval: the person is shown the tool and its args, and
    // the handler runs exactly for the approval (the counter is 7, not 8 or 9).
    for (question, value) in asked[3..].iter().zip(7..) {
        let message = question["message"].as_str().unwrap_or("");
        assert!(
            message.contains("`set_counter`") && message.contains(&format!("\"value\": {value}")),
            "{question}"
        );
        assert_eq!(
            question["requestedSchema"]["properties"]["approve"]["type"], "boolean",
            "{question}"
        );
    }
    let approved = report["approved"].as_array().expect("approved");
    assert_eq!(approved[0]["isError"], false, "{report}");
    assert_eq!(approved[0]["content"][0]["text"], "set to 7", "{report}");
    for denied in &approved[1..] {
        let error = error_of(denied, "a call not approved");
        assert_eq!(error["code"], "TOOL_APPROVAL_DENIED", "{denied}");
    }
    assert_eq!(
        report["after_set"]["structuredContent"]["counter"], 7,
        "{report}"
    );

    if !tasks {
        return;
    }
    assert_eq!(report["protocol"], "2026-07-28", "{report}");
    let log = report["tasks"].as_array().expect("tasks");
    assert_eq!(log.len(), 2, "two calls answered with a task: {report}");
    // Started, polled until completed, its result fetched with `tasks/get`.
    let done = &log[0];
    assert_eq!(done["created"], "working", "{done}");
    assert_eq!(done["final"]["status"], "completed", "{done}");
    assert!(
        done["polled"]
            .as_array()
            .is_some_and(|p| p.len() >= 2 && p[..p.len() - 1].iter().all(|s| s == "working")),
        "polled while working, then completed: {done}"
    );
    assert_eq!(
        report["task"]["structuredContent"],
        json!({"result": 60}),
        "{report}"
    );
    // Cancelled after its first poll: `tasks/cancel` acknowledged, then `cancelled`.
    let cancelled = &log[1];
    assert!(cancelled["cancel"].is_object(), "{cancelled}");
    assert_eq!(cancelled["final"]["status"], "cancelled", "{cancelled}");
    assert!(
        cancelled["final"].get("result").is_none(),
        "a cancelled task has no result: {cancelled}"
    );
}

/// The `policy` scenario: a deferred tool found and called (one call of four), three calls
/// of `hello` within the limit, the fourth refused with
/// `TOOL_RATE_LIMITED` and how long to wait; a tool needing scopes the anonymous caller
/// lacks refused with `TOOL_FORBIDDEN`.
fn check_policy(report: &Value) {
    // The deferred tool: not listed, found by `search_tools`, called by `call_tool` (the
    // first of the caller's four calls).
    let listed = report["tools"].as_array().expect("tools");
    assert!(
        listed.contains(&json!("search_tools")) && listed.contains(&json!("call_tool")),
        "{report}"
    );
    assert!(!listed.contains(&json!("refund_last_invoice")), "{report}");
    assert_eq!(report["found"][0], "refund_last_invoice", "{report}");
    assert_eq!(report["deferred"]["isError"], false, "{report}");
    assert_eq!(
        report["deferred"]["content"][0]["text"], "refunded",
        "{report}"
    );
    let calls = report["calls"].as_array().expect("calls");
    assert_eq!(calls.len(), 4, "{report}");
    for (i, call) in calls[..3].iter().enumerate() {
        assert_eq!(call["isError"], false, "call {i}: {call}");
    }
    let limited = error_of(&calls[3], "the fourth call");
    assert_eq!(limited["code"], "TOOL_RATE_LIMITED", "{limited}");
    let retry = limited["details"]["retryAfterMs"]
        .as_u64()
        .unwrap_or_else(|| panic!("an integer retryAfterMs: {limited}"));
    assert!(
        retry > 0 && retry <= 3_600_000,
        "within the bucket's refill period: {limited}"
    );
    let forbidden = error_of(&report["forbidden"], "a tool with scopes");
    assert_eq!(forbidden["code"], "TOOL_FORBIDDEN", "{forbidden}");
    assert!(
        forbidden["message"]
            .as_str()
            .is_some_and(|m| m.contains("counter:admin")),
        "the message names the missing scope: {forbidden}"
    );
}

/// `--policy-http ADDR`: a session with a per-caller rate limit (four calls an hour), a
/// tool that needs the `counter:admin` scope and a deferred tool, over MCP HTTP without authentication (every
/// call is anonymous: one bucket, no scopes).
mod policy {
    use std::time::Duration;

    use pedelec::session::RateLimit;
    use pedelec::{ToolCallContext, ToolError, tool};

    /// Say hello.
    #[tool]
    async fn hello() -> Result<String, ToolError> {
        Ok("hello".to_owned())
    }

    /// Reset the counter (administrators only).
    #[tool(scopes = ["counter:admin"])]
    async fn reset_counter(_ctx: ToolCallContext) -> Result<String, ToolError> {
        Ok("reset".to_owned())
    }

    /// Refund the customer's last invoice.
    #[tool(defer)]
    async fn refund_last_invoice() -> Result<String, ToolError> {
        Ok("refunded".to_owned())
    }

    pedelec::skills![
        pub enum PolicyTools,
        guidance = "Say hello.",
        tools = [hello, reset_counter, refund_last_invoice],
    ];

    pub async fn serve(addr: &str) -> Result<(), Box<dyn std::error::Error>> {
        let session = pedelec::Session::builder(PolicyTools::skills())
            .rate_limit(RateLimit::per_caller(4, Duration::from_hours(1)))
            .create()?;
        session.serve(pedelec::bridge::McpHttp::bind(addr)).await?;
        Ok(())
    }
}

/// `--gateway-http ADDR --issuer URL --resource URL --everything ENTRY`: a session with no
/// tools of its own that mounts the rmcp test remote (this binary again, over stdio) as
/// `rs` (its tools need the scope `gateway:use`) and the reference "everything" server
/// (`node ENTRY stdio`) as `everything`, limited to five calls per caller, served over MCP
/// HTTP as an OAuth resource server; it listens once both remotes listed their tools.
mod gateway {
    use std::path::{Path, PathBuf};
    use std::time::Duration;

    use pedelec::bridge::{McpHttp, McpRemote, OAuth};
    use pedelec::session::RateLimit;
    use serde_json::{Value, json};

    pub const REMOTE_ENV: &str = "GATEWAY_REMOTE_STDIO";
    pub const SCOPE: &str = "gateway:use";

    /// The everything server's entry, where `cargo xtask mcp-clients` installs it.
    pub fn everything(clients: &Path) -> PathBuf {
        clients
            .join("everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
    }

    pub async fn serve(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
        let option = |name: &str| {
            args.iter()
                .position(|a| a == name)
                .and_then(|i| args.get(i + 1).cloned())
                .ok_or_else(|| format!("`{name}` is needed"))
        };
        let addr = args.first().cloned().ok_or("an address is needed")?;
        let (issuer, resource, everything) = (
            option("--issuer")?,
            option("--resource")?,
            option("--everything")?,
        );
        let me = std::env::current_exe()?;
        let session = pedelec::Session::builder(pedelec::SkillsInput::<String>::new(
            "Remote servers behind pedelec.",
            vec![],
        ))
        .rate_limit(RateLimit::per_caller(5, Duration::from_hours(1)))
        .mount(
            "rs",
            McpRemote::stdio(me.to_string_lossy())
                .env(REMOTE_ENV, "1")
                .scopes([SCOPE]),
        )
        .mount(
            "everything",
            McpRemote::stdio("node").arg(everything).arg("stdio"),
        )
        .create()?;
        for namespace in ["rs", "everything"] {
            tokio::time::timeout(Duration::from_mins(1), session.mount_ready(namespace))
                .await
                .map_err(|_| format!("`{namespace}` did not list its tools within 60 s"))??;
        }
        let bridge = McpHttp::bind(&addr).oauth(OAuth::new(resource).issuer(issuer));
        session.serve(bridge).await?;
        Ok(())
    }

    fn text(result: &Value) -> &str {
        result["content"][0]["text"].as_str().unwrap_or_default()
    }

    pub fn check(report: &Value) {
        let writer = &report["writer"];
        assert_eq!(writer["listChanged"], true, "{writer}");
        let tools = writer["tools"].as_array().expect("tools");
        for name in [
            "rs.add",
            "rs.echo",
            "rs.fail",
            "everything.echo",
            "everything.get-sum",
        ] {
            assert!(tools.contains(&json!(name)), "{name}: {writer}");
        }
        // Listed as the remote wrote it.
        let add = &writer["listed"][0];
        assert_eq!(add["title"], "Add two numbers", "{add}");
        assert_eq!(add["outputSchema"]["required"], json!(["sum"]), "{add}");
        assert_eq!(add["annotations"]["readOnlyHint"], true, "{add}");
        assert_eq!(
            add["inputSchema"]["dependentRequired"],
            json!({"a": ["b"]}),
            "{add}"
        );
        // Six calls under a limit of five: the remotes' answers, verbatim, then refused.
        let calls = writer["calls"].as_array().expect("calls");
        assert_eq!(calls.len(), 6, "{writer}");
        assert_eq!(
            calls[0]["structuredContent"],
            json!({"sum": 5}),
            "{}",
            calls[0]
        );
        assert!(text(&calls[1]).contains("through pedelec"), "{}", calls[1]);
        assert_eq!(calls[2]["isError"], true, "{}", calls[2]);
        assert_eq!(text(&calls[2]), "it failed, as asked", "{}", calls[2]);
        assert!(text(&calls[3]).contains('3'), "{}", calls[3]);
        assert_eq!(text(&calls[4]), "fifth", "{}", calls[4]);
        let limited = super::error_of(&calls[5], "the sixth call");
        assert_eq!(limited["code"], "TOOL_RATE_LIMITED", "{limited}");
        // Without `gateway:use`, `rs`'s tools are not listed; everything's are, and calls
        // count against this caller's own budget.
        let reader = &report["reader"];
        let tools = reader["tools"].as_array().expect("tools");
        assert!(
            !tools
                .iter()
                .any(|t| t.as_str().is_some_and(|t| t.starts_with("rs."))),
            "{reader}"
        );
        assert!(tools.contains(&json!("everything.echo")), "{reader}");
        let calls = reader["calls"].as_array().expect("calls");
        assert_eq!(calls.len(), 2, "{reader}");
        assert!(text(&calls[0]).contains("through pedelec"), "{}", calls[0]);
        // Without a token: 401 with the resource's metadata.
        let nobody = &report["nobody"];
        let statuses = nobody["responses"].as_array().expect("responses");
        assert!(statuses.iter().any(|r| r[0] == 401), "{nobody}");
    }
}
