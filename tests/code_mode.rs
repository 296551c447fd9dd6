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

#[path = "../fuzz/src/checks/children.rs"]
mod children;
use children::{busy, children};

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
        declare namespace crm {
          /** Look up a customer by id. */
          function lookup(args: {
            /** The customer's id. */
            id: number;
          }): Promise<{
            id: number;
            name: string;
            /** Spent this year, in cents. */
            spent: number;
          }>;
        }"]]
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
    // `read_secret` needs a scope the clerk lacks: to the clerk's program it is not there
    // at all (not a global, not under `tools`, not suggested), as `search_tools` hides it.
    let answer = ok(run(
        &session,
        "const hidden = typeof read_secret;\n\
         try { await tools['read_secret'](); return 'read'; }\n\
         catch (e) { return [hidden, e.name, e.code, e.message.includes('read_secret')]; }",
    )
    .await);
    assert_eq!(
        answer["result"],
        json!(["undefined", "ToolError", "TOOL_HANDLER_NOT_FOUND", true])
    );
    let e = error(run(&session, "return await tools.read_secre();").await);
    assert!(
        !e.message().contains("did you mean `read_secret`"),
        "{}",
        e.message()
    );
    assert_eq!(SECRETS_READ.load(Ordering::SeqCst), 0);
    // A call the session refuses throws where the program made it: caught, or failing the
    // program with its code and line.
    let answer = ok(run(
        &session,
        "try { await send_money({ cents: 1 }); return 'sent'; }\n\
         catch (e) { return [e.name, e.code]; }",
    )
    .await);
    assert_eq!(
        answer["result"],
        json!(["ToolError", "TOOL_APPROVAL_REQUIRED"])
    );
    let e = error(run(&session, "\n\nawait send_money({ cents: 1 });").await);
    assert!(e.message().contains("at line 3"), "{}", e.message());
    assert_eq!(e.details().unwrap()["code"], "TOOL_APPROVAL_REQUIRED");
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

/// A program that throws `null` itself (before or after an `await`) is answered with what
/// it threw: only a `null` from the engine (a job, a settled call) means out of memory.
#[tokio::test]
async fn a_program_that_throws_null_is_not_out_of_memory() {
    let session = session(CodeMode::new());
    for code in [
        "throw null;",
        "await null; throw null;",
        "await crm.lookup({ id: 2 }); throw null;",
    ] {
        let e = error(run(&session, code).await);
        assert!(
            e.message().contains("null") && !e.message().contains("memory"),
            "{code}: {}",
            e.message()
        );
    }
}

/// After an attack, the session still answers an ordinary program and an ordinary call.
async fn unharmed(session: &Session<ToolName>) {
    let answer = ok(run(session, "return (await crm.lookup({ id: 2 })).spent;").await);
    assert_eq!(answer["result"], 2000);
    assert!(session.call("crm.lookup", json!({"id": 1})).await.is_ok());
}

#[tokio::test]
async fn attacks_are_stopped_with_a_clear_error_and_the_session_is_unharmed() {
    // 2 s: a memory bomb reaches its limit in time even on a loaded machine (the other
    // tests' workers run beside it).
    let session = session(
        CodeMode::new()
            .time_limit(Duration::from_secs(2))
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
            "ran out of time (2000 ms",
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
        (
            "no scope",
            "return await read_secret();",
            "read_secret is not defined",
        ),
        (
            "no scope, by name",
            "return await tools['read_secret']();",
            "no tool named `read_secret`",
        ),
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

/// No worker is left running or unreaped: within 10 s, every child of this process (idle
/// workers of the sessions' pools) sleeps and uses no CPU. Other tests' programs may run
/// meanwhile; theirs end within their own limits (or, the killed worker's, at 1 s of CPU,
/// which takes seconds on a loaded machine), a pinned one never would.
async fn nothing_left_behind(attack: &str) {
    let mut last = Vec::new();
    for _ in 0..50 {
        let before = children();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let after = children();
        // The state is the main thread's (a worker's waits for its program's thread); the
        // ticks are the whole process's.
        let busy = busy(&before, &after);
        if busy.is_empty() {
            return;
        }
        last = busy;
    }
    panic!("{attack}: workers left busy or unreaped (pid, state, ticks): {last:?}");
}

#[tokio::test]
async fn builtins_that_loop_in_c_are_killed_with_their_worker_and_nothing_is_left() {
    let session = session(
        CodeMode::new()
            .time_limit(Duration::from_millis(300))
            .memory_limit(16 << 20)
            .max_output(1 << 10),
    );
    let huge = "{length: 2**53 - 1}";
    let mut cases: Vec<(String, String, &str)> = Vec::new();
    // Every generic method over a huge array-like: QuickJS loops in C, never seeing its
    // interrupt; the host kills the worker. Memory or a RangeError may come first for some.
    for method in [
        "reverse",
        "copyWithin",
        "join",
        "fill",
        "indexOf",
        "lastIndexOf",
        "includes",
        "toString",
        "toLocaleString",
        "every",
        "some",
        "forEach",
        "map",
        "filter",
        "reduce",
        "reduceRight",
        "find",
        "findIndex",
        "findLast",
        "flat",
        "slice",
        "splice",
        "sort",
        "keys",
        "at",
        "with",
        "toReversed",
        "toSorted",
        "toSpliced",
        "concat",
        "push",
        "unshift",
        "shift",
        "pop",
    ] {
        cases.push((
            format!("Array.prototype.{method}"),
            format!("return Array.prototype.{method}.call({huge}, (a, b) => 0, 0, 2**52);"),
            "",
        ));
    }
    for method in [
        "join", "sort", "fill", "indexOf", "reverse", "map", "subarray", "set",
    ] {
        cases.push((
            format!("TypedArray {method}"),
            format!("const t = new Float64Array(1 << 20); for (;;) t.{method}(0, 0); return 1;"),
            "",
        ));
    }
    for code in [
        "return 'x'.repeat(2**28).padStart(2**29);",
        "return 'ab'.repeat(2**27).split('').join('-');",
        "let s = 'x'; for (;;) s = s.concat(s, s); return s;",
        "return 'x'.repeat(2**20).replaceAll('x', 'xx'.repeat(2**10));",
        "return String.prototype.normalize.call('\\u1E9B\\u0323'.repeat(2**22));",
        "return JSON.stringify(new Array(1e7).fill('x'.repeat(64)));",
        "return JSON.parse('['.repeat(1e7));",
        "return JSON.parse('[' + '1,'.repeat(1e8) + '1]');",
        "return Math.max.apply(null, new Array(1e8));",
        "return Reflect.apply(Math.max, null, { length: 2**32 - 1 });",
        "const a = []; for (;;) a.push({ a: a.length });",
        "const m = new Map(); for (let i = 0; ; i++) m.set(i, [i]);",
        "await Promise.resolve(); const a = []; for (;;) a.push(new Map([[a.length, {}]]));",
        "for (;;) await Promise.resolve().then(() => new Array(1e5).fill({}));",
    ] {
        cases.push((code.to_owned(), code.to_owned(), ""));
    }
    cases.push((
        "sort with a comparator that throws late".to_owned(),
        "const a = Array.from({ length: 1e5 }, (_, i) => i); let n = 0;\n\
         a.sort((x, y) => { if (++n > 2e5) throw new Error('late ' + n); return y - x; });"
            .to_owned(),
        "late 200001",
    ));
    // Out of memory while QuickJS cannot even allocate the error: it throws `null`, and
    // what the program built is freed (reference counting) before the exception is read.
    // The answer still names a limit, never "a value: null".
    cases.push((
        "a deep object bomb".to_owned(),
        "let o = {}; for (let i = 0; i < 1e7; i++) o = { o }; return JSON.stringify(o);".to_owned(),
        "ran out of",
    ));
    cases.push((
        "a huge exception".to_owned(),
        "throw new Error('x'.repeat(4e6));".to_owned(),
        "message cut",
    ));
    cases.push((
        "a memory bomb of objects".to_owned(),
        "const a = []; for (;;) a.push({ a: a.length, b: [a.length] });".to_owned(),
        "ran out of memory",
    ));
    cases.push((
        "out of memory inside a promise job".to_owned(),
        "await null; const a = []; for (;;) a.push(new Map([[a.length, [a]]]));".to_owned(),
        "ran out of memory",
    ));
    cases.push((
        "Array.prototype.reverse over 2**53 - 1".to_owned(),
        format!("Array.prototype.reverse.call({huge}); return 1;"),
        "ran out of time (300 ms",
    ));
    let limits = [
        "ran out of time",
        "ran out of memory",
        "ran out of stack",
        "RangeError",
        "InternalError",
        "TypeError",
    ];
    // The answer is bounded by `max_output` (with its marker), and says what stopped it (a
    // generic method QuickJS finishes quickly, with a fast path, may answer).
    let check = |attack: &str, expected: &str, result: ToolResult| {
        if expected.is_empty() && result.is_ok() {
            return;
        }
        let e = error(result);
        let text = format!(
            "{} {}",
            e.message(),
            e.details().map(Value::to_string).unwrap_or_default()
        );
        assert!(text.len() < 3 << 10, "{attack}: {} bytes", text.len());
        if expected.is_empty() {
            assert!(limits.iter().any(|l| text.contains(l)), "{attack}: {text}");
        } else {
            assert!(text.contains(expected), "{attack}: {text}");
        }
    };
    // The generic ones ten at a time (each in its own worker), the named ones alone.
    let (generic, named): (Vec<_>, Vec<_>) = cases.into_iter().partition(|c| c.2.is_empty());
    for batch in generic.chunks(10) {
        let mut running = tokio::task::JoinSet::new();
        for (attack, code, _) in batch {
            let session = session.clone();
            let (attack, code) = (attack.clone(), code.clone());
            running.spawn(async move { (attack, run(&session, &code).await) });
        }
        while let Some(done) = running.join_next().await {
            let (attack, result) = done.unwrap();
            check(&attack, "", result);
        }
        unharmed(&session).await;
        nothing_left_behind(&batch[0].0).await;
    }
    // The ones that must reach another limit first get time for it on a loaded machine.
    let roomy = self::session(
        CodeMode::new()
            .time_limit(Duration::from_secs(3))
            .memory_limit(16 << 20)
            .max_output(1 << 10),
    );
    for (attack, code, expected) in &named {
        let session = if expected.contains("ran out of time") {
            &session
        } else {
            &roomy
        };
        check(attack, expected, run(session, code).await);
        unharmed(session).await;
        nothing_left_behind(attack).await;
    }
}

#[tokio::test]
async fn a_worker_killed_mid_program_is_an_error_that_says_so_and_the_next_program_runs() {
    let session = session(CodeMode::new().time_limit(Duration::from_secs(20)));
    let killer = tokio::spawn(async {
        // The program's worker: the child that has run a whole second (other tests' programs
        // stop well before).
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if let Some((pid, _, _)) = children().into_iter().find(|(_, _, ticks)| *ticks >= 100) {
                let status = std::process::Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status()
                    .unwrap();
                assert!(status.success());
                return;
            }
        }
    });
    let e = error(run(&session, "for (;;) {}").await);
    killer.await.unwrap();
    assert!(
        e.message()
            .contains("worker ended: killed by signal 9 (SIGKILL)"),
        "{}",
        e.message()
    );
    unharmed(&session).await;
    nothing_left_behind("a killed worker").await;
}

#[tokio::test]
async fn settings_that_cannot_be_honoured_are_refused_naming_the_setting_and_its_range() {
    for (mode, setting) in [
        (CodeMode::new().stack_limit(0), "stack_limit"),
        (CodeMode::new().memory_limit(0), "memory_limit"),
        (CodeMode::new().memory_limit(1 << 40), "memory_limit"),
        (CodeMode::new().stack_limit(1 << 30), "stack_limit"),
        (CodeMode::new().max_output(0), "max_output"),
    ] {
        let e = Session::builder(ToolName::skills())
            .code_mode(mode)
            .create()
            .unwrap_err();
        let text = e.to_string();
        assert!(text.contains(&format!("`CodeMode::{setting}`")), "{text}");
        assert!(text.contains("it must be from"), "{text}");
    }
}

#[tokio::test]
async fn in_process_programs_still_run_as_a_setting() {
    let session = session(CodeMode::new().isolation(pedelec::code::Isolation::InProcess));
    let answer = ok(run(
        &session,
        "console.log('hi'); return (await crm.lookup({ id: 3 })).spent;",
    )
    .await);
    assert_eq!(answer, json!({ "result": 3000, "output": "hi\n" }));
    let e = error(run(&session, "const f = (n) => f(n + 1) + 1; return f(0);").await);
    assert!(e.message().contains("ran out of stack"), "{}", e.message());
}

mod collide {
    //! Tool names that collide with a global (`Math`) or with another tool (`report`).
    use pedelec::{skills, tool};

    /// Solve it.
    #[tool(name = "Math.solve")]
    pub fn solve() -> u32 {
        1
    }

    /// Report.
    #[tool(name = "report")]
    pub fn report() -> u32 {
        2
    }

    /// The daily report.
    #[tool(name = "report.daily")]
    pub fn daily() -> u32 {
        3
    }

    /// The weekly report, by another namespace.
    #[tool(name = "weekly.report")]
    pub fn weekly() -> u32 {
        4
    }

    skills![
        guidance = "Reports.",
        tools = [solve, report, daily, weekly]
    ];
}

/// How a declaration says a program calls its tool: `declare function f`, `declare
/// namespace a.b { function f }`, or a member of `interface Tools` (`tools["…"]`).
fn call_path(declaration: &str) -> String {
    let name = |s: &str| s[..s.find('(').unwrap()].to_owned();
    if let Some(i) = declaration.find("declare function ") {
        return name(&declaration[i + "declare function ".len()..]);
    }
    if let Some(i) = declaration.find("declare namespace ") {
        let rest = &declaration[i + "declare namespace ".len()..];
        let namespace = &rest[..rest.find(" {").unwrap()];
        let j = rest.find("\n  function ").unwrap() + "\n  function ".len();
        return format!("{namespace}.{}", name(&rest[j..]));
    }
    let rest = &declaration[declaration.find("interface Tools {").unwrap()..];
    let j = rest.find("\n  \"").unwrap() + "\n  ".len();
    format!("tools[{}]", name(&rest[j..]))
}

/// Every declaration `search_tools` gives a session's programs, together, is valid
/// TypeScript: the TypeScript compiler (`cargo xtask mcp-clients` installs it under
/// `target/`) checks them as one declaration file, in strict mode.
#[tokio::test]
async fn the_declarations_are_valid_typescript() {
    let tsc = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(
            || std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
            std::path::PathBuf::from,
        )
        .join("mcp-clients/tsc/node_modules/.bin/tsc");
    if !tsc.exists() {
        let notice = format!(
            "the TypeScript compiler is not installed at {}: run `cargo xtask mcp-clients`",
            tsc.display()
        );
        assert!(std::env::var_os("CI").is_none(), "{notice}");
        println!("skipped: {notice}");
        return;
    }
    let dir = std::env::temp_dir().join(format!("pedelec-tsc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let sessions = [
        ("main", session(CodeMode::new()).untyped()),
        (
            "collide",
            Session::builder(collide::ToolName::skills().untyped())
                .code_mode(CodeMode::new())
                .create()
                .unwrap(),
        ),
    ];
    for (set, session) in sessions {
        let found = ok(session
            .call_with(
                "search_tools",
                json!({ "query": "customer lookup send money solve report daily weekly vault secret", "limit": 20 }),
                CallOptions::new().caller(Caller::new("all").with_every_scope()),
            )
            .await);
        let declarations: Vec<&str> = found["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["declaration"].as_str().unwrap())
            .collect();
        assert!(declarations.len() >= 3, "{set}: {found}");
        let file = dir.join(format!("{set}.d.ts"));
        std::fs::write(&file, declarations.join("\n\n")).unwrap();
        let out = std::process::Command::new(&tsc)
            .args(["--noEmit", "--strict", "--pretty", "false"])
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{set}: tsc refused the declarations:\n{}{}\n--- {}:\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            file.display(),
            declarations.join("\n\n")
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn every_declaration_is_callable_by_the_path_it_declares() {
    let session = Session::builder(collide::ToolName::skills())
        .code_mode(CodeMode::new())
        .create()
        .unwrap();
    let found = ok(session
        .call(
            "search_tools",
            json!({ "query": "solve report daily weekly", "limit": 10 }),
        )
        .await);
    let tools = found["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 4, "{found}");
    for tool in tools {
        let path = &call_path(tool["declaration"].as_str().unwrap());
        let answer = ok(session
            .call(
                "run_code",
                json!({ "code": format!("return await {path}();") }),
            )
            .await);
        let expected = match tool["name"].as_str().unwrap() {
            "Math.solve" => {
                assert_eq!(path, r#"tools["Math.solve"]"#);
                1
            }
            "report" => {
                assert_eq!(path, "report");
                2
            }
            "report.daily" => {
                assert_eq!(path, r#"tools["report.daily"]"#);
                3
            }
            _ => {
                assert_eq!(path, "weekly.report");
                4
            }
        };
        assert_eq!(answer["result"], expected, "{path}");
    }
    // `Math` is still the builtin.
    let answer = ok(session
        .call("run_code", json!({ "code": "return Math.max(1, 2);" }))
        .await);
    assert_eq!(answer["result"], 2);
}

/// The pool directories of this process's sessions.
fn pool_dirs() -> Vec<String> {
    let prefix = format!("pedelec-code-{}-", std::process::id());
    std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path().to_string_lossy().into_owned())
        .collect()
}

#[tokio::test]
async fn a_dropped_session_takes_its_idle_workers_with_it() {
    let cwd = |pid: u32| {
        std::fs::read_link(format!("/proc/{pid}/cwd"))
            .map(|d| {
                d.to_string_lossy()
                    .trim_end_matches(" (deleted)")
                    .to_owned()
            })
            .unwrap_or_default()
    };
    let before = pool_dirs();
    let session = session(CodeMode::new().pool_size(3));
    unharmed(&session).await;
    // Its workers: the children in its pool's directory (the one that appeared with it),
    // once the pool is full again.
    let mut ours = Vec::new();
    for _ in 0..40 {
        // Other tests' sessions come and go meanwhile: ours is the one new pool of 3.
        let pools: Vec<Vec<u32>> = pool_dirs()
            .into_iter()
            .filter(|d| !before.contains(d))
            .map(|dir| {
                children()
                    .into_iter()
                    .map(|(pid, _, _)| pid)
                    .filter(|&pid| cwd(pid) == dir)
                    .collect::<Vec<u32>>()
            })
            .filter(|pids| pids.len() == 3)
            .collect();
        if let [pids] = pools.as_slice() {
            ours.clone_from(pids);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(ours.len() >= 3, "the pool's workers: {ours:?}");
    drop(session);
    for _ in 0..40 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let alive: Vec<_> = children()
            .into_iter()
            .filter(|(pid, state, _)| *state != 'Z' && ours.contains(pid))
            .collect();
        if alive.is_empty() {
            return;
        }
    }
    panic!("idle workers outlived their session: {ours:?}");
}
