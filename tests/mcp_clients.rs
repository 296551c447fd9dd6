//! The counter example's MCP server, driven by the official MCP clients: the Python SDK
//! (`mcp`) and the TypeScript SDK (`@modelcontextprotocol/sdk`), over stdio and streamable
//! HTTP. `cargo xtask mcp-clients` installs them into `target/mcp-clients` (CI runs it
//! first); without them these tests print a notice and skip, or fail when `CI` is set.
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

use std::io::Read as _;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
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
    for (name, client, transport) in CASES {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            filtered += 1;
            continue;
        }
        let Some(runner) = client.runner(&clients) else {
            let notice = format!(
                "the {} MCP client is not installed in {}: run `cargo xtask mcp-clients`",
                client.label(),
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
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| run_case(&runner, transport)));
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
    let status = if failed == 0 { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {status}. {passed} passed; {failed} failed; {skipped} ignored; 0 measured; {filtered} filtered out; finished in {:.2}s\n",
        started.elapsed().as_secs_f64()
    );
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

#[derive(Clone, Copy)]
enum Client {
    Python,
    TypeScript,
}

#[derive(Clone, Copy)]
enum Transport {
    Stdio,
    Http,
    /// HTTP with OAuth access tokens.
    OAuth,
}

const CASES: [(&str, Client, Transport); 6] = [
    ("python_sdk_over_stdio", Client::Python, Transport::Stdio),
    ("python_sdk_over_http", Client::Python, Transport::Http),
    (
        "typescript_sdk_over_stdio",
        Client::TypeScript,
        Transport::Stdio,
    ),
    (
        "typescript_sdk_over_http",
        Client::TypeScript,
        Transport::Http,
    ),
    ("python_sdk_with_oauth", Client::Python, Transport::OAuth),
    (
        "typescript_sdk_with_oauth",
        Client::TypeScript,
        Transport::OAuth,
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
            Client::TypeScript => {
                let node_modules = clients.join("node");
                let installed = node_modules
                    .join("node_modules/@modelcontextprotocol/sdk/package.json")
                    .exists()
                    && Command::new("node")
                        .arg("--version")
                        .output()
                        .is_ok_and(|o| o.status.success());
                installed.then(|| {
                    let mut command = Command::new("node");
                    command
                        .arg(scripts().join("client.mjs"))
                        .env("MCP_CLIENTS_NODE", node_modules);
                    command
                })
            }
        }
    }
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

fn run_case(runner: &Command, transport: Transport) {
    let me = std::env::current_exe().expect("the test binary's path");
    let mut command = Command::new(runner.get_program());
    command.args(runner.get_args());
    for (key, value) in runner.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    let token = format!("t-{}-{:?}", std::process::id(), Instant::now());
    let _server;
    // The issuer of the OAuth case runs on this runtime until the case ends.
    let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
    match transport {
        Transport::Stdio => {
            command.arg("stdio").arg(&me).arg("--mcp");
        }
        Transport::Http => {
            let addr = free_port();
            _server = Server(
                Command::new(&me)
                    .args(["--mcp-http", &addr.to_string()])
                    .env("PEDELEC_MCP_TOKEN", &token)
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
            command
                .arg("http")
                .arg(format!("http://{addr}/mcp"))
                .env("PEDELEC_MCP_TOKEN", &token);
        }
        Transport::OAuth => {
            let issuer = runtime.block_on(issuer::Issuer::start());
            let key = issuer::SigningKey::ec("clients");
            issuer.publish(&key);
            let addr = free_port();
            let resource = format!("http://{addr}/mcp");
            _server = Server(
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
            return;
        }
    }
    let report = run_client(&mut command);
    check(&report, transport);
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
        ["count_to", "get_current_page", "render_page"],
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

fn check(report: &Value, transport: Transport) {
    assert_eq!(report["server"], "pedelec", "{report}");
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
    let unknown = error_of(&report["unknown_tool"], "unknown tool");
    assert_eq!(unknown["code"], "TOOL_HANDLER_NOT_FOUND", "{unknown}");
    assert!(
        unknown["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `update_counter`")
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
    assert_eq!(
        updates,
        [
            (1.0, 3.0, "counted to 1"),
            (2.0, 3.0, "counted to 2"),
            (3.0, 3.0, "counted to 3")
        ],
        "{progress}"
    );
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
