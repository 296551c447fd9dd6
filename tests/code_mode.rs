//! Code mode (DESIGN §15): `run_code` runs a model's program in QuickJS, every tool call it
//! makes goes through the session (validation, scopes, approval, events), and every limit
//! and attack stops the program with a clear error while the session keeps serving.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use pedelec::code::CodeMode;
use pedelec::context::{Approval, ApprovalRequest, Caller};
use pedelec::session::SessionEvent;
use pedelec::{CallOptions, ErrorCode, Session, ToolArgs, ToolOutput, ToolResult, skills, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

static SECRETS_READ: AtomicUsize = AtomicUsize::new(0);
static SENT: AtomicUsize = AtomicUsize::new(0);

#[derive(Debug, Deserialize, ToolArgs)]
/// `crm.lookup`'s arguments.
struct LookupArgs {
    /// The customer's id.
    #[arg(minimum = 1)]
    id: u32,
}

/// A customer.
#[derive(Serialize, ToolOutput)]
struct Customer {
    id: u32,
    name: String,
    /// Spent this year, in cents.
    spent: u64,
}

/// Look up a customer by id.
#[tool(name = "crm.lookup", read_only)]
async fn lookup(args: LookupArgs) -> Customer {
    Customer {
        id: args.id,
        name: format!("customer {}", args.id),
        spent: u64::from(args.id) * 1_000,
    }
}

/// Read the vault (needs the `vault:read` scope).
#[tool(scopes = ["vault:read"])]
fn read_secret() -> String {
    SECRETS_READ.fetch_add(1, Ordering::SeqCst);
    "hunter2".to_owned()
}

#[derive(Debug, Deserialize, ToolArgs)]
/// `send_money`'s arguments.
struct SendArgs {
    /// Cents to send.
    cents: u64,
}

/// Send money (a person approves each call).
#[tool(approval, callers = [direct, program])]
fn send_money(args: SendArgs) -> u64 {
    SENT.fetch_add(1, Ordering::SeqCst);
    args.cents
}

/// Delete everything (the model calls it directly, never a program).
#[tool(approval)]
fn wipe() -> bool {
    true
}

/// Wait a while (cancellable).
#[tool(timeout_ms = 60_000)]
async fn nap() -> bool {
    tokio::time::sleep(Duration::from_secs(30)).await;
    true
}

skills![
    guidance = "Back office.",
    tools = [lookup, read_secret, send_money, wipe, nap]
];

fn session(mode: CodeMode) -> Session<ToolName> {
    Session::builder(ToolName::skills())
        .code_mode(mode)
        .create()
        .unwrap()
}

fn clerk() -> Caller {
    Caller::new("clerk")
}

async fn run(session: &Session<ToolName>, code: &str) -> ToolResult {
    session
        .call_with(
            "run_code",
            json!({ "code": code }),
            CallOptions::new().caller(clerk()),
        )
        .await
}

fn error(result: ToolResult) -> pedelec::ToolError {
    match result {
        ToolResult::Err(e) => e,
        ToolResult::Ok(v) => panic!("expected an error, got {v}"),
    }
}

fn ok(result: ToolResult) -> Value {
    match result {
        ToolResult::Ok(v) => v,
        ToolResult::Err(e) => panic!("expected success, got {e:?}"),
    }
}

#[tokio::test]
async fn twenty_lookups_are_twenty_validated_calls_and_one_answer() {
    let session = session(CodeMode::new());
    let mut events = session.events();
    let answer = ok(run(
        &session,
        r"
        const big = [];
        for (let id = 1; id <= 20; id++) {
            const c = await crm.lookup({ id });
            if (c.spent >= 15000) big.push(c.name);
        }
        console.log('found', big.length);
        return big;
        ",
    )
    .await);
    let names: Vec<String> = (15..=20).map(|i| format!("customer {i}")).collect();
    assert_eq!(answer["result"], json!(names));
    assert_eq!(answer["output"], "found 6\n");

    let mut inner = Vec::new();
    let mut outer = 0;
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(100), events.recv()).await
    {
        if let SessionEvent::CallFinished {
            call_id,
            tool,
            error,
            ..
        } = event
        {
            match tool.as_str() {
                "crm.lookup" => inner.push((call_id, error)),
                "run_code" => outer += 1,
                other => panic!("unexpected call of {other}"),
            }
        }
    }
    assert_eq!(inner.len(), 20, "{inner:?}");
    assert!(inner.iter().all(|(id, e)| e.is_none() && id.contains('/')));
    assert_eq!(outer, 1);
}

#[tokio::test]
async fn calls_run_concurrently_with_promise_all() {
    let session = session(CodeMode::new());
    let answer = ok(run(
        &session,
        "const all = await Promise.all([1, 2, 3].map((id) => crm.lookup({ id })));\n\
         return all.map((c) => c.spent);",
    )
    .await);
    assert_eq!(answer["result"], json!([1000, 2000, 3000]));
}

#[tokio::test]
async fn search_tools_answers_the_declarations_a_program_may_call() {
    let session = session(CodeMode::new());
    let found = ok(session
        .call_with(
            "search_tools",
            json!({ "query": "find a customer", "limit": 2 }),
            CallOptions::new().caller(clerk()),
        )
        .await);
    let first = &found["tools"][0];
    assert_eq!(first["name"], "crm.lookup");
    expect_test::expect![[r"
        /** Look up a customer by id. */
        function crm.lookup(args: {
          /** The customer's id. */
          id: number;
        }): Promise<{
          id: number;
          name: string;
          /** Spent this year, in cents. */
          spent: number;
        }>;"]]
    .assert_eq(first["declaration"].as_str().unwrap());

    // `read_secret` needs a scope the clerk lacks: a search does not show it.
    let found = ok(session
        .call_with(
            "search_tools",
            json!({ "query": "read the vault secret" }),
            CallOptions::new().caller(clerk()),
        )
        .await);
    let names: Vec<&str> = found["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(!names.contains(&"read_secret"), "{names:?}");
    // Nor are the tools a program cannot call (`wipe`: approval, direct only).
    assert!(!names.contains(&"wipe"), "{names:?}");
}

#[tokio::test]
async fn a_skill_set_read_at_run_time_gets_the_same_declarations() {
    let typed = session(CodeMode::new());
    let untyped = Session::builder(ToolName::skills().untyped())
        .code_mode(CodeMode::new())
        .create()
        .unwrap();
    let search = json!({ "query": "customer lookup send money", "limit": 10 });
    let a = ok(typed.call("search_tools", search.clone()).await);
    let b = ok(untyped.call("search_tools", search).await);
    assert_eq!(a, b);
}

#[tokio::test]
async fn wrong_args_fail_at_the_call_naming_the_argument_before_any_tool_runs() {
    let session = session(CodeMode::new());
    let mut events = session.events();
    let e = error(
        run(
            &session,
            "const a = 1;\nawait crm.lookup({ id: 0 });\nreturn a;",
        )
        .await,
    );
    assert_eq!(e.code(), ErrorCode::ToolHandlerError);
    assert!(e.message().contains("at line 2"), "{}", e.message());
    assert!(e.message().contains("TOOL_ARGS_INVALID"), "{}", e.message());
    assert!(e.message().contains("/id"), "{}", e.message());
    let details = e.details().unwrap();
    assert_eq!(details["line"], 2);
    assert_eq!(details["code"], "TOOL_ARGS_INVALID");
    // Only `run_code` started: the lookup never did.
    let mut tools = Vec::new();
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(100), events.recv()).await
    {
        if let SessionEvent::CallStarted { tool, .. } = event {
            tools.push(tool);
        }
    }
    assert_eq!(tools, ["run_code"]);

    let e = error(run(&session, "return await crm.lookup({ id: 'seven' });").await);
    assert!(e.message().contains("/id"), "{}", e.message());
    let e = error(run(&session, "await crm.lookup({ id: 1, extra: true });").await);
    assert!(e.message().contains("extra"), "{}", e.message());
    let e = error(run(&session, "await crm.lokup({ id: 1 });").await);
    assert!(e.message().contains("line 1"), "{}", e.message());
    assert!(
        e.message().contains("did you mean `crm.lookup`"),
        "{}",
        e.message()
    );
    let e = error(run(&session, "await tools['crm.lokup']({ id: 1 });").await);
    assert!(
        e.message().contains("did you mean `crm.lookup`"),
        "{}",
        e.message()
    );
}

#[tokio::test]
async fn a_refused_call_is_an_exception_the_program_may_catch() {
    let session = session(CodeMode::new());
    let answer = ok(run(
        &session,
        "try { await read_secret(); return 'read'; }\n\
         catch (e) { return [e.name, e.code, e.message.includes('vault:read')]; }",
    )
    .await);
    assert_eq!(
        answer["result"],
        json!(["ToolError", "TOOL_FORBIDDEN", true])
    );
    assert_eq!(SECRETS_READ.load(Ordering::SeqCst), 0);
    // Uncaught, it fails the program with its code and line.
    let e = error(run(&session, "\n\nawait read_secret();").await);
    assert!(e.message().contains("at line 3"), "{}", e.message());
    assert_eq!(e.details().unwrap()["code"], "TOOL_FORBIDDEN");
    // The caller holding the scope reads it.
    let reader = Caller::new("auditor").with_scopes(["vault:read"]);
    let answer = ok(session
        .call_with(
            "run_code",
            json!({ "code": "return await read_secret();" }),
            CallOptions::new().caller(reader),
        )
        .await);
    assert_eq!(answer["result"], "hunter2");
}

#[tokio::test]
async fn approval_inside_a_program_comes_from_the_approver_or_fails() {
    let session = session(CodeMode::new());
    let e = error(run(&session, "return await send_money({ cents: 5 });").await);
    assert_eq!(e.details().unwrap()["code"], "TOOL_APPROVAL_REQUIRED");
    assert_eq!(SENT.load(Ordering::SeqCst), 0);
    // `wipe` needs approval and declares no callers: the model calls it, a program cannot.
    let e = error(run(&session, "return await tools.wipe();").await);
    assert_eq!(e.details().unwrap()["code"], "TOOL_FORBIDDEN");
    assert!(
        e.message().contains("cannot be called from a program"),
        "{}",
        e.message()
    );

    let approving = Session::builder(ToolName::skills())
        .code_mode(CodeMode::new())
        .approver(|request: ApprovalRequest| async move {
            if request.args()["cents"].as_u64() < Some(100) {
                Approval::Approve
            } else {
                Approval::Deny("too much".into())
            }
        })
        .create()
        .unwrap();
    let answer = ok(run_on(&approving, "return await send_money({ cents: 5 });").await);
    assert_eq!(answer["result"], 5);
    let e = error(run_on(&approving, "return await send_money({ cents: 500 });").await);
    assert_eq!(e.details().unwrap()["code"], "TOOL_APPROVAL_DENIED");
    assert_eq!(SENT.load(Ordering::SeqCst), 1);
}

async fn run_on(session: &Session<ToolName>, code: &str) -> ToolResult {
    session.call("run_code", json!({ "code": code })).await
}

/// After an attack, the session still answers an ordinary program and an ordinary call.
async fn unharmed(session: &Session<ToolName>) {
    let answer = ok(run(session, "return (await crm.lookup({ id: 2 })).spent;").await);
    assert_eq!(answer["result"], 2000);
    assert!(session.call("crm.lookup", json!({"id": 1})).await.is_ok());
}

#[tokio::test]
async fn attacks_are_stopped_with_a_clear_error_and_the_session_is_unharmed() {
    let session = session(
        CodeMode::new()
            .time_limit(Duration::from_millis(500))
            .max_calls(5)
            .memory_limit(16 << 20)
            .max_output(1 << 10),
    );
    let cases: &[(&str, &str, &str)] = &[
        // Files, sockets, modules, the environment, the clock: not there.
        (
            "read a file",
            "return require('fs').readFileSync('/etc/passwd', 'utf8');",
            "require is not defined",
        ),
        (
            "QuickJS's std",
            "return std.loadFile('/etc/passwd');",
            "std is not defined",
        ),
        (
            "QuickJS's os",
            "return os.open('/etc/passwd');",
            "os is not defined",
        ),
        (
            "import a module",
            "const fs = await import('fs'); return fs;",
            "fs",
        ),
        (
            "open a socket",
            "return await fetch('http://example.com');",
            "fetch is not defined",
        ),
        (
            "XMLHttpRequest",
            "return new XMLHttpRequest();",
            "XMLHttpRequest is not defined",
        ),
        (
            "the environment",
            "return process.env.HOME;",
            "process is not defined",
        ),
        ("the clock", "return Date.now();", "Date is not defined"),
        (
            "a timer",
            "return performance.now();",
            "performance is not defined",
        ),
        (
            "a timeout",
            "setTimeout(() => {}, 1); return 1;",
            "setTimeout is not defined",
        ),
        // Resources.
        (
            "an endless loop",
            "while (true) {}",
            "ran out of time (500 ms",
        ),
        (
            "an endless loop that catches",
            "for (;;) { try { while (true) {} } catch (e) {} }",
            "ran out of time",
        ),
        (
            "a memory bomb",
            "const a = []; for (;;) a.push('x'.repeat(1 << 16));",
            "out of memory",
        ),
        (
            "deep recursion",
            "const f = (n) => f(n + 1) + 1; return f(0);",
            "Maximum call stack size exceeded",
        ),
        (
            "a huge output",
            "for (;;) console.log('spam'.repeat(100));",
            "printed more than 1024 bytes",
        ),
        (
            "a huge answer",
            "return 'x'.repeat(1 << 12);",
            "over its limit of 1024",
        ),
        (
            "too many calls",
            "for (let i = 1; i < 100; i++) await crm.lookup({ id: i });",
            "more than 5 tool calls",
        ),
        (
            "too many calls, caught",
            "for (let i = 1; i < 100; i++) { try { await crm.lookup({ id: i }); } catch (e) {} }",
            "more than 5 tool calls",
        ),
        (
            "a promise nothing resolves",
            "await new Promise(() => {});",
            "never happens",
        ),
        ("a syntax error", "return 1 +;", "SyntaxError"),
        ("a thrown value", "throw {secret: 1};", "{\"secret\":1}"),
        // Tools the caller may not use.
        ("no scope", "return await read_secret();", "TOOL_FORBIDDEN"),
        (
            "needs approval",
            "return await send_money({ cents: 1 });",
            "TOOL_APPROVAL_REQUIRED",
        ),
        (
            "run_code itself",
            "return await tools['run_code']({ code: '1' });",
            "`run_code` cannot be called from a program",
        ),
    ];
    for (attack, code, expected) in cases {
        let e = error(run(&session, code).await);
        let text = format!(
            "{} {}",
            e.message(),
            e.details().map(Value::to_string).unwrap_or_default()
        );
        assert!(text.contains(expected), "{attack}: {text}");
        unharmed(&session).await;
    }
}

#[tokio::test]
async fn an_endless_loop_is_a_timeout_and_the_line_of_an_exception_is_the_programs() {
    let session = session(CodeMode::new().time_limit(Duration::from_millis(200)));
    let e = error(run(&session, "while (true) {}").await);
    assert_eq!(e.code(), ErrorCode::ToolTimeout);
    let e = error(run(&session, "const a = 1;\nconst b = 2;\nnull.x;").await);
    assert_eq!(e.details().unwrap()["line"], 3, "{e:?}");
    assert!(e.message().contains("TypeError"), "{}", e.message());
}

#[tokio::test]
async fn cancelling_the_outer_call_stops_the_program_and_its_calls() {
    let session = session(CodeMode::new());
    let mut events = session.events();
    let cancellation = pedelec::context::Cancellation::new();
    let call = session.call_with(
        "run_code",
        json!({ "code": "await nap(); return 1;" }),
        CallOptions::new().cancellation(cancellation.clone()),
    );
    let cancel = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        cancellation.cancel();
    };
    let (result, ()) = tokio::join!(call, cancel);
    assert_eq!(error(result).code(), ErrorCode::ToolCancelled);
    // The nap was cancelled too, not left running.
    let mut nap = None;
    while let Ok(Some(event)) =
        tokio::time::timeout(Duration::from_millis(500), events.recv()).await
    {
        if let SessionEvent::CallFinished { tool, error, .. } = event
            && tool == "nap"
        {
            nap = Some(error);
        }
    }
    assert_eq!(nap, Some(Some(ErrorCode::ToolCancelled)));
}

#[tokio::test]
async fn reserved_names_and_bad_limits_are_refused_when_the_session_is_created() {
    let e = Session::builder(ToolName::skills())
        .code_mode(CodeMode::new().max_calls(0).time_limit(Duration::ZERO))
        .create()
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("max_calls"), "{text}");
    assert!(text.contains("time_limit"), "{text}");
}

#[tokio::test]
async fn provider_exports_declare_the_two_functions_and_the_loop_runs_programs() {
    use pedelec::export::{ExportOptions, Target};
    let session = session(CodeMode::new());
    for target in [
        Target::OpenAiChat,
        Target::OpenAiResponses,
        Target::Anthropic,
        Target::Gemini,
        Target::Mcp,
    ] {
        let export = ToolName::export(target, ExportOptions::default().code_mode(true))
            .unwrap_or_else(|e| panic!("{target:?}: {e}"));
        let names: Vec<&str> = ["search_tools", "run_code", "crm.lookup"]
            .into_iter()
            .filter(|n| export.provider_name(n).is_some())
            .collect();
        assert_eq!(
            names,
            ["search_tools", "run_code", "crm.lookup"],
            "{target:?}"
        );
    }
    let export =
        ToolName::export(Target::Anthropic, ExportOptions::default().code_mode(true)).unwrap();
    let program = "const c = await crm.lookup({ id: 3 }); return c.name;";
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "run_code", "input": {"code": program}});
    let answer = session.call_provider(&export, &call).await;
    let text: Value = serde_json::from_str(answer["content"].as_str().unwrap()).unwrap();
    assert_eq!(text["value"]["result"], "customer 3", "{answer}");
    let search = json!({"type": "tool_use", "id": "toolu_2", "name": "search_tools", "input": {"query": "customer"}});
    let answer = session.call_provider(&export, &search).await;
    let text: Value = serde_json::from_str(answer["content"].as_str().unwrap()).unwrap();
    assert_eq!(text["value"]["tools"][0]["name"], "crm.lookup", "{answer}");
}

/// Archive a customer (deferred: a program reaches it, `search_tools` finds it).
#[tool(name = "crm.archive", defer)]
async fn archive(args: LookupArgs) -> u32 {
    args.id
}

#[tokio::test]
async fn deferred_tools_are_found_and_called_by_programs_and_left_out_of_exports() {
    use pedelec::export::{ExportOptions, Target};
    let mut skills = ToolName::skills().untyped();
    skills
        .tools_mut()
        .push(pedelec::ToolDefinition::of::<archive>());
    let session = Session::builder(skills)
        .code_mode(CodeMode::new())
        .create()
        .unwrap();
    let found = ok(session
        .call(
            "search_tools",
            json!({"query": "archive a customer", "limit": 1}),
        )
        .await);
    assert_eq!(found["tools"][0]["name"], "crm.archive", "{found}");
    let answer = ok(session
        .call(
            "run_code",
            json!({"code": "return await crm.archive({ id: 9 });"}),
        )
        .await);
    assert_eq!(answer["result"], 9);
    let export = session_skills_export();
    assert!(export.provider_name("crm.archive").is_none());
    assert!(export.provider_name("crm.lookup").is_some());
    assert!(export.provider_name("run_code").is_some());

    fn session_skills_export() -> pedelec::export::Export<String> {
        let mut skills = ToolName::skills().untyped();
        skills
            .tools_mut()
            .push(pedelec::ToolDefinition::of::<archive>());
        skills
            .export(Target::OpenAiChat, ExportOptions::default().code_mode(true))
            .unwrap()
    }
}
