//! Gateways (`SessionBuilder::mount(namespace, McpRemote::..)`), against real remotes: an
//! rmcp server (`support/remote.rs`) spawned over stdio (this binary, run again with
//! `GATEWAY_REMOTE_STDIO=1`) and served over streamable HTTP; and the reference MCP
//! "everything" server from npm, which `cargo xtask mcp-clients` installs into
//! `target/mcp-clients` (without it that case prints a notice and skips, or fails when `CI`
//! is set).
//!
//! Its own `main` (no libtest): the stdio remote must own stdout.

#[path = "support/remote.rs"]
mod remote;
#[path = "support/summary.rs"]
mod summary;
mod support;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pedelec_core::bridge::McpRemote;
use pedelec_core::context::ProgressUpdate;
use pedelec_core::session::SessionEvent;
use pedelec_core::{CallOptions, ErrorCode, Session, SkillsInput, ToolResult};
use serde_json::{Value, json};

const STDIO_ENV: &str = "GATEWAY_REMOTE_STDIO";

type Case = fn() -> Pin<Box<dyn Future<Output = Outcome>>>;

/// What a case came to: passed, or skipped with a notice (a missing installed part).
enum Outcome {
    Passed,
    Skipped(String),
}

const CASES: &[(&str, Case)] = &[
    ("stdio_remote", || Box::pin(remote_case(Via::Stdio))),
    ("http_remote", || Box::pin(remote_case(Via::Http))),
    ("down_remote_fails_clearly_while_native_tools_work", || {
        Box::pin(down_remote())
    }),
    (
        "a_silent_remote_times_out_and_ends_with_the_session",
        || Box::pin(silent_remote()),
    ),
    ("served_over_mcp", || Box::pin(served_over_mcp())),
    ("policy_applies_to_mounted_tools", || Box::pin(policy())),
    ("everything_server", || Box::pin(everything())),
];

fn main() -> ExitCode {
    if std::env::var_os(STDIO_ENV).is_some() {
        let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
        runtime.block_on(remote::serve_stdio());
        return ExitCode::SUCCESS;
    }
    let args: Vec<String> = std::env::args().collect();
    if args.iter().any(|a| a == "--list") {
        for (name, _) in CASES {
            println!("{name}: test");
        }
        return ExitCode::SUCCESS;
    }
    let filter = args.iter().skip(1).find(|a| !a.starts_with('-'));
    let started = Instant::now();
    let (mut passed, mut failed, mut skipped, mut filtered) = (0, 0, 0, 0);
    println!("\nrunning {} tests", CASES.len());
    for (name, case) in CASES {
        if filter.is_some_and(|f| !name.contains(f.as_str())) {
            filtered += 1;
            continue;
        }
        let outcome = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let runtime = tokio::runtime::Runtime::new().expect("a tokio runtime");
            runtime.block_on(async {
                tokio::time::timeout(Duration::from_mins(2), case())
                    .await
                    .expect("the case finished within 2 minutes")
            })
        }));
        match outcome {
            Ok(Outcome::Passed) => {
                println!("test {name} ... ok");
                passed += 1;
            }
            Ok(Outcome::Skipped(notice)) if std::env::var_os("CI").is_some() => {
                println!("test {name} ... FAILED\n  {notice} (required when CI is set)");
                failed += 1;
            }
            Ok(Outcome::Skipped(notice)) => {
                println!("test {name} ... skipped: {notice}");
                skipped += 1;
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
enum Via {
    Stdio,
    Http,
}

/// This binary as the stdio remote.
fn stdio_remote() -> McpRemote {
    let exe = std::env::current_exe().expect("the test binary");
    McpRemote::stdio(exe.to_string_lossy()).env(STDIO_ENV, "1")
}

/// A skill set of one native tool, `manual`, whose handler answers its args.
fn native(
    builder: impl FnOnce(
        pedelec_core::session::SessionBuilder<String>,
    ) -> pedelec_core::session::SessionBuilder<String>,
) -> Session {
    let skills = SkillsInput::new(
        "Native and mounted tools.",
        vec![support::manual_definition()],
    );
    let session = builder(Session::builder(skills))
        .create()
        .expect("a session");
    session.on_tool_name("manual", |args: Value, _ctx| async move { Ok(args) });
    session
}

/// The native tool answers while remotes are mounted (up or down).
async fn native_works(session: &Session) {
    let answer = session.call("manual", json!({"text": "x"})).await;
    assert_eq!(value(&answer), &json!({"text": "x"}));
}

fn value(result: &ToolResult) -> &Value {
    match result {
        ToolResult::Ok(value) => value,
        ToolResult::Err(e) => panic!("expected a value, got {e:?}"),
    }
}

fn error_code(result: &ToolResult) -> ErrorCode {
    match result {
        ToolResult::Err(e) => e.code(),
        ToolResult::Ok(v) => panic!("expected an error, got {v}"),
    }
}

/// Waits (up to 10 s) until `check` holds.
async fn eventually(what: &str, mut check: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn remote_case(via: Via) -> Outcome {
    let remote = match via {
        Via::Stdio => stdio_remote(),
        Via::Http => McpRemote::http(remote::serve_http().await).bearer("the-gateway's-own"),
    };
    let session = native(|b| b.mount("rs", remote.timeout(Duration::from_millis(500))));
    let mut events = session.events();
    tokio::time::timeout(Duration::from_secs(30), session.mount_ready("rs"))
        .await
        .expect("the remote listed its tools")
        .expect("`rs` is mounted");

    // Listed under the namespace, the name outside the rule mapped, reported.
    let names: Vec<String> = session
        .definitions()
        .iter()
        .map(|d| d.name().to_owned())
        .collect();
    for name in [
        "rs.echo",
        "rs.add",
        "rs.slow",
        "rs.wait",
        "rs.page_3a_read",
        "rs.grow",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    assert!(!names.iter().any(|n| n == "rs.extra"));
    let report = session.mount_report("rs").expect("a report");
    assert!(
        report
            .iter()
            .any(|p| p.message.contains("`page:read`") && p.message.contains("rs.page_3a_read")),
        "{report:?}"
    );
    let add = session
        .definitions()
        .iter()
        .find(|d| d.name() == "rs.add")
        .cloned()
        .expect("rs.add");
    assert_eq!(add.title(), Some("Add two numbers"));
    assert!(session.manifest().tools.iter().any(|t| t.name == "rs.echo"));

    // Calls: forwarded with validated args; the remote's result kept.
    let echoed = session.call("rs.echo", json!({"text": "hi"})).await;
    assert_eq!(
        value(&echoed)["content"],
        json!([{"type": "text", "text": "hi"}])
    );
    let sum = session.call("rs.add", json!({"a": 2, "b": 3})).await;
    assert_eq!(value(&sum)["structuredContent"], json!({"sum": 5}));
    // pedelec validates before the remote sees anything (the 2020-12 schema read leniently:
    // `a` stays an integer when strict reading holds it).
    let bad = session.call("rs.echo", json!({"text": 3})).await;
    assert_eq!(error_code(&bad), ErrorCode::ToolArgsInvalid);
    // `add`'s schema is full 2020-12 (`$schema`, `dependentRequired`): a raw schema.
    assert!(add.args_schema().is_raw());
    for args in [json!({"a": 1}), json!({"a": "x", "b": 2})] {
        let bad = session.call("rs.add", args.clone()).await;
        assert_eq!(error_code(&bad), ErrorCode::ToolArgsInvalid, "{args}");
    }
    assert_eq!(
        value(&session.call("rs.page_3a_read", json!({})).await)["content"][0]["text"],
        "page"
    );
    let failed = session.call("rs.fail", json!({})).await;
    assert_eq!(error_code(&failed), ErrorCode::ToolHandlerError);
    let ToolResult::Err(e) = &failed else {
        unreachable!()
    };
    assert!(
        e.message().contains("it failed, as asked"),
        "{}",
        e.message()
    );
    assert_eq!(
        e.details().expect("details")["result"]["content"][0]["text"],
        "it failed, as asked"
    );

    // Progress relayed to the pedelec call.
    let seen = Arc::new(Mutex::new(Vec::<ProgressUpdate>::new()));
    let sink = seen.clone();
    let slow = session
        .call_with(
            "rs.slow",
            json!({"steps": 3, "delay_ms": 30}),
            CallOptions::new().on_progress(move |u| sink.lock().unwrap().push(u)),
        )
        .await;
    assert_eq!(value(&slow)["content"][0]["text"], "done after 3 steps");
    // rmcp hands notifications to the client off the read loop: the last one may arrive
    // after the answer, when the call no longer listens (progress after the result means
    // nothing). The ones before it arrive, in order.
    let seen = seen.lock().unwrap().clone();
    let steps: Vec<_> = seen.iter().map(|u| (u.done, u.total)).collect();
    assert!(
        steps.starts_with(&[(1, Some(3)), (2, Some(3))]),
        "{steps:?}"
    );
    assert!(steps.len() <= 3, "{steps:?}");
    assert_eq!(seen[0].message, "step 1");

    // Cancellation reaches the remote: on a timeout, and on the caller's cancel.
    let timed_out = session.call("rs.wait", json!({})).await;
    assert_eq!(error_code(&timed_out), ErrorCode::ToolTimeout);
    let pending = session.start_call("rs.wait", json!({}));
    tokio::time::sleep(Duration::from_millis(100)).await;
    pending.cancel();
    assert_eq!(error_code(&pending.await), ErrorCode::ToolCancelled);
    for _ in 0..100 {
        let count = session.call("rs.cancelled", json!({})).await;
        if value(&count)["content"][0]["text"] == "2" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let count = session.call("rs.cancelled", json!({})).await;
    assert_eq!(
        value(&count)["content"][0]["text"],
        "2",
        "both calls cancelled at the remote"
    );

    // `list_changed`: re-listed; the session's list changes and says so.
    let revision = session.tools_revision();
    assert_eq!(
        value(&session.call("rs.grow", json!({})).await)["content"][0]["text"],
        "grown"
    );
    eventually("`rs.extra` is listed", || {
        session.definitions().iter().any(|d| d.name() == "rs.extra")
    })
    .await;
    assert!(session.tools_revision() > revision);
    assert_eq!(
        value(&session.call("rs.extra", json!({})).await)["content"][0]["text"],
        "extra"
    );
    let mut changed = false;
    while let Ok(Some(event)) = tokio::time::timeout(
        Duration::from_millis(100),
        futures::StreamExt::next(&mut events),
    )
    .await
    {
        changed |= matches!(event, SessionEvent::ToolsChanged { namespace } if namespace == "rs");
    }
    assert!(changed, "a ToolsChanged event");

    native_works(&session).await;

    if let Via::Stdio = via {
        // A crash: its tools fail clearly, then the remote is restarted and re-listed.
        let crashed = session.call("rs.crash", json!({})).await;
        assert_eq!(error_code(&crashed), ErrorCode::IoFailed);
        let ToolResult::Err(e) = &crashed else {
            unreachable!()
        };
        assert!(e.message().contains("`rs`"), "{}", e.message());
        native_works(&session).await;
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let echoed = session.call("rs.echo", json!({"text": "again"})).await;
            if let ToolResult::Ok(v) = &echoed {
                assert_eq!(v["content"][0]["text"], "again");
                break;
            }
            assert_eq!(error_code(&echoed), ErrorCode::IoFailed);
            assert!(Instant::now() < deadline, "the remote was not restarted");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    Outcome::Passed
}

/// The session with a mounted remote, served over MCP (streamable HTTP) to rmcp's client:
/// the remote's tools listed as it wrote them, answered verbatim, the list following it.
async fn served_over_mcp() -> Outcome {
    use rmcp::ServiceExt as _;
    use rmcp::model::CallToolRequestParams;
    let remote_url = remote::serve_http().await;
    let session = native(|b| b.mount("rs", McpRemote::http(remote_url)));
    session.mount_ready("rs").await.expect("mounted");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(session.serve(pedelec_core::bridge::McpHttp::from_listener(listener)));
    let config =
        rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
            format!("http://{addr}/mcp"),
        );
    let client = ()
        .serve(rmcp::transport::StreamableHttpClientTransport::from_config(
            config,
        ))
        .await
        .expect("connected");
    let info = client.peer_info().expect("initialized");
    assert_eq!(
        info.capabilities
            .tools
            .as_ref()
            .and_then(|t| t.list_changed),
        Some(true)
    );
    let tools = client.list_all_tools().await.expect("listed");
    let add = tools.iter().find(|t| t.name == "rs.add").expect("rs.add");
    let add = serde_json::to_value(add).unwrap();
    assert_eq!(add["title"], "Add two numbers");
    assert_eq!(
        add["annotations"],
        json!({"readOnlyHint": true, "idempotentHint": true})
    );
    assert_eq!(add["outputSchema"]["required"], json!(["sum"]));
    assert_eq!(add["inputSchema"]["dependentRequired"], json!({"a": ["b"]}));
    assert!(tools.iter().any(|t| t.name == "manual"));
    let args = |v: Value| v.as_object().cloned().unwrap();
    let sum = client
        .call_tool(
            CallToolRequestParams::new("rs.add").with_arguments(args(json!({"a": 2, "b": 3}))),
        )
        .await
        .expect("called");
    assert_eq!(sum.structured_content, Some(json!({"sum": 5})));
    assert_eq!(sum.is_error, Some(false));
    let failed = client
        .call_tool(CallToolRequestParams::new("rs.fail").with_arguments(args(json!({}))))
        .await
        .expect("called");
    assert_eq!(failed.is_error, Some(true));
    let failed = serde_json::to_value(&failed).unwrap();
    assert_eq!(
        failed["content"],
        json!([{"type": "text", "text": "it failed, as asked"}])
    );
    // pedelec's own refusal (invalid args) is pedelec's error, as for any tool.
    let bad = client
        .call_tool(CallToolRequestParams::new("rs.add").with_arguments(args(json!({"a": 1}))))
        .await
        .expect("called");
    assert_eq!(bad.is_error, Some(true));
    assert!(
        serde_json::to_string(&bad)
            .unwrap()
            .contains("TOOL_ARGS_INVALID")
    );
    // The remote's list grows; the next `tools/list` shows it.
    client
        .call_tool(CallToolRequestParams::new("rs.grow").with_arguments(args(json!({}))))
        .await
        .expect("called");
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let tools = client.list_all_tools().await.expect("listed");
        if tools.iter().any(|t| t.name == "rs.extra") {
            break;
        }
        assert!(Instant::now() < deadline, "rs.extra never listed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Outcome::Passed
}

/// The session's policy in front of a remote's tools, as in front of its own: its layers
/// see the calls, the rate limit counts them, scopes hide and refuse them, approval gates
/// them (a denied call never reaches the remote).
async fn policy() -> Outcome {
    use pedelec_core::context::{Approval, ApprovalRequest, Caller};
    use pedelec_core::session::{RateLimit, from_fn};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let seen = Arc::new(AtomicUsize::new(0));
    let counted = seen.clone();
    let url = remote::serve_http().await;
    let session = native(|b| {
        b.layer(from_fn(move |call, mut next| {
            let counted = counted.clone();
            async move {
                if call.name.starts_with("rs.") {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                tower_service::Service::call(&mut next, call)
                    .await
                    .unwrap_or_else(|never| match never {})
            }
        }))
        .rate_limit(RateLimit::per_caller(4, Duration::from_hours(1)))
        .approver(|request: ApprovalRequest| async move {
            if request.args()["text"] == "approve me" {
                Approval::Approve
            } else {
                Approval::Deny("not this text".to_owned())
            }
        })
        // A layer of one mounted tool: it refuses `blocked` before approval or the remote.
        .layer_for_mounted(
            "rs.echo",
            from_fn(|call: pedelec_core::ToolCall, mut next| async move {
                if call.args["text"] == "blocked" {
                    return ToolResult::Err(pedelec_core::ToolError::new("blocked by a layer"));
                }
                tower_service::Service::call(&mut next, call)
                    .await
                    .unwrap_or_else(|never| match never {})
            }),
        )
        .mount(
            "rs",
            McpRemote::http(url).scopes(["remote:use"]).approval(true),
        )
    });
    session.mount_ready("rs").await.expect("mounted");
    let with = |subject: &str, scopes: &[&str]| {
        CallOptions::new().caller(Caller::new(subject).with_scopes(scopes.iter().copied()))
    };
    // Scopes: a caller without `remote:use` may not call it.
    let forbidden = session
        .call_with("rs.echo", json!({"text": "approve me"}), with("a", &[]))
        .await;
    assert_eq!(error_code(&forbidden), ErrorCode::ToolForbidden);
    // Approval: denied calls never reach the remote; approved ones do.
    let denied = session
        .call_with("rs.echo", json!({"text": "no"}), with("b", &["remote:use"]))
        .await;
    assert_eq!(error_code(&denied), ErrorCode::ToolApprovalDenied);
    let approved = session
        .call_with(
            "rs.echo",
            json!({"text": "approve me"}),
            with("b", &["remote:use"]),
        )
        .await;
    assert_eq!(value(&approved)["content"][0]["text"], "approve me");
    let blocked = session
        .call_with(
            "rs.echo",
            json!({"text": "blocked"}),
            with("c", &["remote:use"]),
        )
        .await;
    let ToolResult::Err(e) = &blocked else {
        panic!("{blocked:?}")
    };
    assert_eq!(e.message(), "blocked by a layer");
    // The rate limit: b's fourth and fifth calls (four an hour).
    let third = session
        .call_with(
            "rs.echo",
            json!({"text": "approve me"}),
            with("b", &["remote:use"]),
        )
        .await;
    value(&third);
    let fourth = session
        .call_with(
            "rs.echo",
            json!({"text": "approve me"}),
            with("b", &["remote:use"]),
        )
        .await;
    value(&fourth);
    let fifth = session
        .call_with(
            "rs.echo",
            json!({"text": "approve me"}),
            with("b", &["remote:use"]),
        )
        .await;
    assert_eq!(error_code(&fifth), ErrorCode::ToolRateLimited);
    // The session's layer saw every call the scopes and the rate limit let through (it sits
    // after them): b's four and c's one.
    assert_eq!(seen.load(Ordering::SeqCst), 5);
    Outcome::Passed
}

async fn down_remote() -> Outcome {
    let session = native(|b| {
        b.mount(
            "gone",
            McpRemote::stdio("/nonexistent/pedelec-remote")
                .backoff(Duration::from_millis(10), Duration::from_millis(50)),
        )
        .mount("far", McpRemote::http("http://127.0.0.1:9/mcp"))
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    for (name, remote) in [("gone.anything", "`gone`"), ("far.anything", "`far`")] {
        let result = session.call(name, json!({})).await;
        assert_eq!(error_code(&result), ErrorCode::IoFailed, "{name}");
        let ToolResult::Err(e) = &result else {
            unreachable!()
        };
        assert!(e.message().contains(remote), "{}", e.message());
    }
    native_works(&session).await;
    // What cannot be mounted is said at creation, with every other problem.
    let error = Session::builder(SkillsInput::<String>::new("g", vec![]))
        .mount("tls", McpRemote::http("https://example.com/mcp"))
        .mount("not.a.namespace", McpRemote::http("http://127.0.0.1:9/mcp"))
        // What does not apply to the kind of remote is refused, not ignored.
        .mount(
            "web",
            McpRemote::http("http://127.0.0.1:9/mcp")
                .arg("--verbose")
                .env("KEY", "v"),
        )
        .mount("local", McpRemote::stdio("server").bearer("t"))
        .layer_for_mounted(
            "nowhere.tool",
            pedelec_core::session::from_fn(|_call, _next| async { ToolResult::Ok(Value::Null) }),
        )
        .create()
        .expect_err("refused");
    assert_eq!(error.code(), ErrorCode::InvalidInput);
    let problems: Vec<String> = error
        .problems()
        .iter()
        .map(|p| format!("{}: {}", p.place, p.message))
        .collect();
    assert!(
        problems
            .iter()
            .any(|p| p.contains("mount(\"tls\")") && p.contains("no TLS")),
        "{problems:?}"
    );
    assert!(
        problems
            .iter()
            .any(|p| p.contains("not.a.namespace") && p.contains('.')),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("nowhere.tool")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("mount(\"web\")")
            && p.contains("`.arg(…)`, `.env(…)` do not apply to an HTTP remote")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("mount(\"local\")")
            && p.contains("`.bearer(…)` does not apply to a stdio remote")),
        "{problems:?}"
    );
    Outcome::Passed
}

/// A remote that starts and never answers `initialize`: a shell that writes its pid to
/// `pidfile`, then becomes `sleep`.
fn silent_remote_at(pidfile: &std::path::Path) -> McpRemote {
    McpRemote::stdio("sh")
        .arg("-c")
        .arg("echo $$ > \"$PIDFILE\"; exec sleep 600")
        .env("PIDFILE", pidfile.to_string_lossy())
}

/// The pid a silent remote wrote, once it has.
async fn pid_in(pidfile: &std::path::Path) -> u32 {
    for _ in 0..500 {
        if let Ok(text) = std::fs::read_to_string(pidfile)
            && let Ok(pid) = text.trim().parse()
        {
            return pid;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the remote never started");
}

/// Whether process `pid` still runs (a zombie has ended).
fn running(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.rsplit(") ").next().unwrap_or("").starts_with('Z'))
}

/// Every step of reaching a remote has a deadline (a remote that never answers
/// `initialize` is down, and says why); dropping the session ends its remote's process at
/// once, even while the gateway waits for it.
async fn silent_remote() -> Outcome {
    let dir = std::env::temp_dir().join(format!("pedelec-gateway-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // A deadline: the remote is down with the reason, not "not connected yet" for ever.
    let pidfile = dir.join("timed.pid");
    let session = native(|b| {
        b.mount(
            "timed",
            silent_remote_at(&pidfile)
                .connect_timeout(Duration::from_millis(200))
                .backoff(Duration::from_mins(1), Duration::from_mins(1)),
        )
    });
    let first = pid_in(&pidfile).await;
    let mut message = String::new();
    for _ in 0..250 {
        let ToolResult::Err(e) = session.call("timed.anything", json!({})).await else {
            panic!("a silent remote's tool answered");
        };
        assert_eq!(e.code(), ErrorCode::IoFailed);
        message = e.message().to_owned();
        if message.contains("did not initialize within 200ms") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        message.contains("did not initialize within 200ms"),
        "{message}"
    );
    // The silent process was ended when its step timed out.
    for _ in 0..250 {
        if !running(first) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!running(first), "the timed-out remote {first} still runs");
    drop(session);

    // No deadline in sight: dropping the session ends the waiting and the process.
    let pidfile = dir.join("dropped.pid");
    let session = native(|b| b.mount("silent", silent_remote_at(&pidfile)));
    let pid = pid_in(&pidfile).await;
    assert!(running(pid));
    drop(session);
    for _ in 0..250 {
        if !running(pid) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!running(pid), "the remote {pid} outlived its session");
    let _ = std::fs::remove_dir_all(&dir);
    Outcome::Passed
}

/// `target/mcp-clients`, where `cargo xtask mcp-clients` installs the npm packages.
fn clients_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target"),
        PathBuf::from,
    );
    target.join("mcp-clients")
}

async fn everything() -> Outcome {
    let dir = clients_dir();
    let entry =
        dir.join("everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !entry.is_file() {
        return Outcome::Skipped(format!(
            "the reference MCP server `@modelcontextprotocol/server-everything` is not installed in {}: run `cargo xtask mcp-clients`",
            dir.display()
        ));
    }
    let session = native(|b| {
        b.mount(
            "everything",
            McpRemote::stdio("node")
                .arg(entry.to_string_lossy())
                .arg("stdio"),
        )
    });
    tokio::time::timeout(Duration::from_mins(1), session.mount_ready("everything"))
        .await
        .expect("the everything server listed its tools")
        .expect("mounted");
    let names: Vec<String> = session
        .definitions()
        .iter()
        .map(|d| d.name().to_owned())
        .collect();
    for name in [
        "everything.echo",
        "everything.get-sum",
        "everything.get-structured-content",
        "everything.trigger-long-running-operation",
    ] {
        assert!(names.iter().any(|n| n == name), "{name} in {names:?}");
    }
    let report = session.mount_report("everything").expect("a report");
    println!(
        "  everything: {} tools, {} warnings",
        names.len() - 1,
        report.len()
    );
    let echoed = session
        .call("everything.echo", json!({"message": "hello"}))
        .await;
    let text = value(&echoed)["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(text.contains("hello"), "{text}");
    let sum = session
        .call("everything.get-sum", json!({"a": 2, "b": 3}))
        .await;
    assert!(
        value(&sum)["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .contains('5'),
        "{sum:?}"
    );
    let weather = session
        .call(
            "everything.get-structured-content",
            json!({"location": "New York"}),
        )
        .await;
    assert_eq!(value(&weather)["structuredContent"]["temperature"], 33);
    // pedelec validates against the schema the remote wrote (`location` is an enum).
    let bad = session
        .call("everything.get-structured-content", json!({"location": 7}))
        .await;
    assert_eq!(error_code(&bad), ErrorCode::ToolArgsInvalid);
    // Its long-running operation reports progress, relayed to the call.
    let seen = Arc::new(Mutex::new(0usize));
    let sink = seen.clone();
    let result = session
        .call_with(
            "everything.trigger-long-running-operation",
            json!({"duration": 1, "steps": 4}),
            CallOptions::new().on_progress(move |_| *sink.lock().unwrap() += 1),
        )
        .await;
    value(&result);
    assert!(*seen.lock().unwrap() >= 2, "progress relayed");
    native_works(&session).await;
    Outcome::Passed
}
