//! `#[tool]` at run time: every accepted signature (async and plain, with and without an
//! argument struct and a context, plain and `Result` results, error aliases), the
//! constants of the generated `Tool` impl, `definition()`, and calling the inline handler.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicI64, Ordering};

use pedelec::schema::NoArgs;
use pedelec::{ErrorCode, Tool, ToolArgs, ToolCallContext, ToolError, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Deserialize, PartialEq, ToolArgs)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(Debug, Serialize, PartialEq)]
struct Sum {
    sum: i64,
}

/// Adds two numbers.
///
/// Pure: no side effects,
/// safe to call at any time.
#[tool]
fn add(AddArgs { a, b }: AddArgs) -> i64 {
    a + b
}

/// Adds two numbers, asynchronously.
#[tool(name = "math.add-async", timeout_ms = 1_500_u32)]
async fn add_async(args: AddArgs, ctx: ToolCallContext) -> Result<Sum, ToolError> {
    if ctx.is_cancelled() {
        return Err(ToolError::new("cancelled"));
    }
    Ok(Sum {
        sum: args.a + args.b,
    })
}

#[tool(description = "Answers pong.")]
async fn ping() -> &'static str {
    "pong"
}

const WHOAMI: &str = "Tells the call's tool name.";

#[tool(description = WHOAMI)]
fn whoami(ctx: ToolCallContext) -> String {
    ctx.tool_name().to_owned()
}

#[tool(description = concat!("Fails ", "with an I/O error."))]
fn read_missing(args: AddArgs) -> std::io::Result<i64> {
    let _ = args;
    Err(std::io::Error::new(
        std::io::ErrorKind::NotFound,
        "no such file",
    ))
}

/// Fails with an `anyhow` error.
#[tool]
async fn fail_anyhow(ctx: ToolCallContext) -> anyhow::Result<Sum> {
    let _ = ctx;
    Err(anyhow::anyhow!("root cause").context("while adding"))
}

/// Our own error type.
#[derive(Debug)]
struct Overflow;

impl std::fmt::Display for Overflow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the sum overflows")
    }
}

impl std::error::Error for Overflow {}

/// Adds, checked.
#[tool]
fn checked_add(args: AddArgs) -> Result<i64, Overflow> {
    args.a.checked_add(args.b).ok_or(Overflow)
}

static CALLS: AtomicI64 = AtomicI64::new(0);

/// Counts calls; returns nothing.
#[tool]
fn count() {
    CALLS.fetch_add(1, Ordering::SeqCst);
}

/// Returns unit explicitly, and a `Result` with a unit value.
#[tool]
async fn unit_result(args: AddArgs) -> Result<(), ToolError> {
    let _ = args;
    Ok(())
}

/// Written with a raw identifier.
#[tool]
fn r#match() -> bool {
    true
}

/// The doc comment loses to the key.
#[tool(name = r"raw.name", description = "From the key.", timeout_ms = 0x10)]
fn raw_strings_and_trailing_commas() {}

fn same_type<A: 'static, B: 'static>(_: PhantomData<(A, B)>) -> bool {
    std::any::TypeId::of::<A>() == std::any::TypeId::of::<B>()
}

macro_rules! assert_types {
    ($tool:ty: $args:ty => $output:ty) => {
        assert!(
            same_type(PhantomData::<(<$tool as Tool>::Args, $args)>),
            "Args of {}",
            stringify!($tool)
        );
        assert!(
            same_type(PhantomData::<(<$tool as Tool>::Output, $output)>),
            "Output of {}",
            stringify!($tool)
        );
    };
}

#[test]
fn args_and_output_types_follow_the_signature() {
    assert_types!(add: AddArgs => i64);
    assert_types!(add_async: AddArgs => Sum);
    assert_types!(ping: NoArgs => &'static str);
    assert_types!(whoami: NoArgs => String);
    assert_types!(read_missing: AddArgs => i64);
    assert_types!(fail_anyhow: NoArgs => Sum);
    assert_types!(checked_add: AddArgs => i64);
    assert_types!(count: NoArgs => ());
    assert_types!(unit_result: AddArgs => ());
}

#[test]
fn constants_come_from_the_attribute_and_the_doc_comment() {
    assert_eq!(add::NAME, "add");
    assert_eq!(
        add::DESCRIPTION,
        "Adds two numbers.\n\nPure: no side effects, safe to call at any time."
    );
    assert_eq!(add::TIMEOUT_MS, None);
    assert_eq!(add_async::NAME, "math.add-async");
    assert_eq!(add_async::TIMEOUT_MS, Some(1_500));
    assert_eq!(ping::DESCRIPTION, "Answers pong.");
    assert_eq!(whoami::DESCRIPTION, WHOAMI);
    assert_eq!(read_missing::DESCRIPTION, "Fails with an I/O error.");
    assert_eq!(r#match::NAME, "match");
    assert_eq!(raw_strings_and_trailing_commas::NAME, "raw.name");
    assert_eq!(
        raw_strings_and_trailing_commas::DESCRIPTION,
        "From the key."
    );
    assert_eq!(raw_strings_and_trailing_commas::TIMEOUT_MS, Some(16));
}

#[tokio::test]
async fn the_functions_stay_callable_as_written() {
    assert_eq!(add(AddArgs { a: 1, b: 2 }), 3);
    let ctx = ToolCallContext::detached("math.add-async");
    assert_eq!(
        add_async(AddArgs { a: 2, b: 3 }, ctx).await.unwrap(),
        Sum { sum: 5 }
    );
    assert_eq!(ping().await, "pong");
    assert!(r#match());
}

#[test]
fn definitions_carry_everything_and_an_inline_handler() {
    let def = add_async::definition();
    assert_eq!(def.name(), "math.add-async");
    assert_eq!(def.description(), "Adds two numbers, asynchronously.");
    assert_eq!(def.timeout_ms(), Some(1_500));
    assert!(def.handler().is_some());
    assert_eq!(
        def.args_schema().to_json(),
        json!({
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
            "additionalProperties": false
        })
    );
    assert!(def.problems().is_empty(), "{:?}", def.problems());
    assert_eq!(
        serde_json::to_value(def.manifest()).unwrap(),
        json!({
            "name": "math.add-async",
            "description": "Adds two numbers, asynchronously.",
            "argsSchema": def.args_schema().to_json(),
            "timeoutMs": 1500
        })
    );
    let no_args = ping::definition();
    assert_eq!(
        no_args.args_schema().to_json(),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
    assert!(no_args.manifest().timeout_ms.is_none());
}

/// Calls `T`'s inline handler (what `T::definition()` carries) with JSON args.
async fn call<T: Tool>(args: Value) -> Result<Value, ToolError> {
    let def = pedelec::ToolDefinition::of::<T>();
    let handler = def.handler().expect("an inline handler").clone();
    handler
        .call(args, ToolCallContext::detached(def.name()))
        .await
}

#[tokio::test]
async fn inline_handlers_call_the_function() {
    assert_eq!(
        call::<add>(json!({"a": 2, "b": 40})).await.unwrap(),
        json!(42)
    );
    assert_eq!(
        call::<add_async>(json!({"a": 2, "b": 40})).await.unwrap(),
        json!({"sum": 42})
    );
    assert_eq!(call::<ping>(json!({})).await.unwrap(), json!("pong"));
    assert_eq!(call::<ping>(Value::Null).await.unwrap(), json!("pong"));
    assert_eq!(call::<whoami>(json!({})).await.unwrap(), json!("whoami"));
    assert_eq!(
        call::<unit_result>(json!({"a": 0, "b": 0})).await.unwrap(),
        Value::Null
    );
    let before = CALLS.load(Ordering::SeqCst);
    assert_eq!(call::<count>(json!({})).await.unwrap(), Value::Null);
    assert_eq!(CALLS.load(Ordering::SeqCst), before + 1);
}

#[tokio::test]
async fn errors_of_every_kind_become_handler_errors() {
    let io = call::<read_missing>(json!({"a": 1, "b": 1}))
        .await
        .unwrap_err();
    assert_eq!(io.code(), ErrorCode::ToolHandlerError);
    assert_eq!(io.message(), "no such file");

    let anyhow = call::<fail_anyhow>(json!({})).await.unwrap_err();
    assert_eq!(anyhow.code(), ErrorCode::ToolHandlerError);
    assert_eq!(anyhow.message(), "while adding: root cause");

    let overflow = call::<checked_add>(json!({"a": i64::MAX, "b": 1}))
        .await
        .unwrap_err();
    assert_eq!(overflow.message(), "the sum overflows");
    assert_eq!(
        call::<checked_add>(json!({"a": 1, "b": 1})).await.unwrap(),
        json!(2)
    );
}

/// Blocks until a value arrives on the channel in the state.
#[tool]
fn wait_for_value(ctx: ToolCallContext) -> Result<i64, ToolError> {
    let rx = ctx.state::<std::sync::Mutex<std::sync::mpsc::Receiver<i64>>>()?;
    let rx = rx.lock().map_err(|_| ToolError::new("poisoned"))?;
    rx.recv_timeout(std::time::Duration::from_secs(10))
        .map_err(|e| ToolError::new(e.to_string()))
}

#[tokio::test(flavor = "current_thread")]
async fn sync_tools_do_not_block_the_runtime() {
    // One runtime thread: if the blocking tool ran on it, the task that sends the value
    // could never run, and the call would time out after 10 s with an error.
    let (tx, rx) = std::sync::mpsc::channel::<i64>();
    let mut state = pedelec::context::StateMap::default();
    state.insert(std::sync::Mutex::new(rx));
    let ctx = ToolCallContext::new(
        "c1",
        "wait_for_value",
        std::time::Duration::from_mins(1),
        pedelec::context::Cancellation::new(),
        std::sync::Arc::new(state),
    );
    let call = tokio::spawn(<wait_for_value as Tool>::call(NoArgs, ctx));
    tokio::task::yield_now().await;
    tx.send(7).unwrap();
    assert_eq!(call.await.unwrap().unwrap(), 7);
}

/// Adds, with every key beyond name, description and timeout.
#[tool(
    scopes = ["math:read", "math:write"],
    max_concurrency = 4,
    icon = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=",
    task = optional,
    example = r#"{"a": 1, "b": 2}"#,
    example = r#"{"a": -1, "b": 1}"#,
    version = 3,
)]
fn add_with_policy(args: AddArgs) -> i64 {
    args.a + args.b
}

/// Adds; the default task support spelled out.
#[tool(task = forbidden, icon = "https://example.com/add.svg")]
fn add_forbidden_task(args: AddArgs) -> i64 {
    args.a + args.b
}

/// Adds; its example does not match the argsSchema, which only a session can tell.
#[tool(example = r#"{"a": "1"}"#)]
fn add_bad_example(args: AddArgs) -> i64 {
    args.a + args.b
}

#[test]
fn policy_and_mcp_keys_become_constants_and_definition_fields() {
    use pedelec::tool::TaskSupport;
    assert_eq!(add_with_policy::SCOPES, ["math:read", "math:write"]);
    assert_eq!(add_with_policy::MAX_CONCURRENCY, Some(4));
    assert!(
        add_with_policy::ICON
            .unwrap()
            .starts_with("data:image/svg+xml;base64,")
    );
    assert_eq!(add_with_policy::TASK, TaskSupport::Optional);
    assert_eq!(
        add_with_policy::EXAMPLES,
        [r#"{"a": 1, "b": 2}"#, r#"{"a": -1, "b": 1}"#]
    );
    let def = add_with_policy::definition();
    assert_eq!(def.scopes(), ["math:read", "math:write"]);
    assert_eq!(def.max_concurrency(), Some(4));
    assert_eq!(def.icon(), add_with_policy::ICON);
    assert_eq!(def.icon_mime_type(), Some("image/svg+xml"));
    assert_eq!(def.task_support(), TaskSupport::Optional);
    assert_eq!(def.examples().len(), 2);
    assert_eq!(add_with_policy::VERSION, 3);
    assert_eq!(def.version(), 3);
    assert!(def.problems().is_empty(), "{:?}", def.problems());
    // Core's manifest is the seed's, whatever the tool declares.
    assert_eq!(
        serde_json::to_value(def.manifest()).unwrap(),
        json!({
            "name": "add_with_policy",
            "description": "Adds, with every key beyond name, description and timeout.",
            "argsSchema": def.args_schema().to_json()
        })
    );

    // Unset: the trait's defaults.
    assert!(add::SCOPES.is_empty());
    assert_eq!(add::MAX_CONCURRENCY, None);
    assert_eq!(add::ICON, None);
    assert_eq!(add::TASK, TaskSupport::Forbidden);
    assert!(add::EXAMPLES.is_empty());
    assert_eq!(add::VERSION, 1);
    assert_eq!(add::definition().version(), 1);
    assert_eq!(add_forbidden_task::TASK, TaskSupport::Forbidden);
    assert_eq!(
        add_forbidden_task::ICON,
        Some("https://example.com/add.svg")
    );
    assert_eq!(add_forbidden_task::definition().icon_mime_type(), None);
}

#[test]
fn examples_are_checked_against_the_args_schema_when_a_session_is_created() {
    let skills = pedelec::SkillsInput::new(
        "Add.",
        vec![add_with_policy::definition(), add_bad_example::definition()],
    );
    let error = pedelec::Session::builder(skills).create().unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidInput);
    assert_eq!(
        error
            .problems()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        [
            "tools[1].examples[0]: /a: expected integer, got string \"1\"",
            "tools[1].examples[0]: /: missing required property \"b\"",
        ]
    );
}
