//! The session runtime, in process: creation, resolution order, every error code,
//! timeouts and cancellation, panics, state, events, concurrency.

mod support;

use std::sync::Arc;
use std::time::Duration;

use pedelec_core::call::ToolHandler;
use pedelec_core::session::SessionEvent;
use pedelec_core::skills::SkillSet;
use pedelec_core::{
    CallOptions, ErrorCode, Session, SkillsInput, ToolCall, ToolDefinition, ToolError, ToolResult,
    create_session,
};
use serde_json::{Value, json};
use support::*;

fn session() -> Session<ToolName> {
    Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .expect("the test skill set is valid")
}

fn code(result: &ToolResult) -> Option<ErrorCode> {
    result.error_code()
}

fn message(result: &ToolResult) -> &str {
    result.error().map_or("", ToolError::message)
}

#[tokio::test]
async fn a_valid_call_returns_the_handler_value() {
    let session = session();
    let result = session.call("update_counter", json!({"delta": 2})).await;
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({"ok": true, "value": {"value": 2}})
    );
    let result = session.call("update_counter", json!({"delta": -5})).await;
    assert_eq!(result.value(), Some(&json!({"value": -3})));
}

#[tokio::test]
async fn the_manifest_lists_every_tool_without_handlers() {
    let session = session();
    let manifest = serde_json::to_value(session.manifest()).unwrap();
    assert_eq!(
        manifest["guidance"],
        "Read current state before making changes."
    );
    let names: Vec<&str> = manifest["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, TOOL_NAMES);
    assert_eq!(manifest["tools"][2]["timeoutMs"], 30);
    assert!(manifest["tools"][0].get("timeoutMs").is_none());
    assert_eq!(
        manifest["tools"][0]["argsSchema"],
        json!({"type": "object", "properties": {"delta": {"type": "integer"}}, "required": ["delta"], "additionalProperties": false})
    );
    assert_eq!(
        session.definitions().len(),
        manifest["tools"].as_array().unwrap().len()
    );
    assert_eq!(
        session.definitions()[0].name(),
        manifest["tools"][0]["name"]
    );
}

#[tokio::test]
async fn resolution_is_named_then_inline_then_fallback_then_not_found() {
    let session = session();
    // (2) inline: echo has its function.
    let r = session
        .call("echo", json!({"text": "ab", "repeat": 2}))
        .await;
    assert_eq!(r.value(), Some(&json!("abab")));

    // (1) named beats inline; registering again replaces.
    session.on_tool::<echo>(|args, _ctx| async move { Ok(format!("named:{}", args.text)) });
    let r = session.call("echo", json!({"text": "x"})).await;
    assert_eq!(r.value(), Some(&json!("named:x")));
    session.on_tool_name(ToolName::Echo, |args: Value, _ctx| async move {
        Ok(json!({"json": args}))
    });
    let r = session.call("echo", json!({"text": "y"})).await;
    assert_eq!(r.value(), Some(&json!({"json": {"text": "y"}})));

    // (4) no named, no inline, no fallback.
    let r = session.call("manual", json!({"text": "z"})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerNotFound));
    assert!(message(&r).contains("no handler for `manual`"), "{r:?}");
    let r = session.call("update_countr", json!({})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerNotFound));
    assert_eq!(
        message(&r),
        "there is no tool named `update_countr` in this session (did you mean `update_counter`?), and no fallback handler is set"
    );

    // (3) the fallback serves tools without a handler, and names outside the skill set.
    session.set_fallback(|call: ToolCall, ctx| async move {
        assert_eq!(call.call_id, ctx.call_id());
        Ok(json!({"fallback": call.name, "args": call.args}))
    });
    let r = session
        .call("manual", json!({"text": "z", "repeat": null}))
        .await;
    assert_eq!(
        r.value(),
        Some(&json!({"fallback": "manual", "args": {"text": "z"}}))
    );
    let r = session
        .call("not_in_manifest", json!({"anything": [1]}))
        .await;
    assert_eq!(
        r.value(),
        Some(&json!({"fallback": "not_in_manifest", "args": {"anything": [1]}}))
    );
    // ... but not tools that have a handler.
    let r = session.call("update_counter", json!({"delta": 1})).await;
    assert_eq!(r.value(), Some(&json!({"value": 1})));
}

#[tokio::test]
async fn a_named_handler_overrides_the_inline_one_with_typed_args_and_state() {
    let session = session();
    session.on_tool::<update_counter>(|args, ctx| async move {
        let counter = ctx.state::<Counter>()?;
        Ok(CounterValue {
            value: counter.add(args.delta * 10),
        })
    });
    let r = session.call("update_counter", json!({"delta": 2})).await;
    assert_eq!(r.value(), Some(&json!({"value": 20})));
}

#[tokio::test]
async fn missing_state_is_a_handler_error_naming_the_type() {
    let session = create_session(ToolName::skills()).unwrap();
    let r = session.call("update_counter", json!({"delta": 1})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerError));
    assert!(
        message(&r).starts_with("no state of type `session::support::Counter` is registered"),
        "{r:?}"
    );
}

#[tokio::test]
async fn handler_errors_keep_their_message() {
    let r = session().call("fail", json!({})).await;
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"ok": false, "error": {"code": "TOOL_HANDLER_ERROR", "message": "the disk is full"}})
    );
}

#[tokio::test]
async fn a_handler_may_choose_its_error_code_and_details() {
    let session = session();
    session.on_tool::<echo>(|args, _ctx| async move {
        if args.text.is_empty() {
            return Err(
                ToolError::with_code(ErrorCode::ToolArgsInvalid, "`text` is empty")
                    .with_details(json!({"pointer": "/text"})),
            );
        }
        Ok(args.text)
    });
    let r = session.call("echo", json!({"text": ""})).await;
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"ok": false, "error": {"code": "TOOL_ARGS_INVALID", "message": "`text` is empty", "details": {"pointer": "/text"}}})
    );
}

#[tokio::test]
async fn panics_are_isolated_and_the_session_keeps_serving() {
    quiet_deliberate_panics();
    let session = session();
    let r = session.call("explode", json!({})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerError));
    assert_eq!(
        message(&r),
        "the handler panicked: deliberate panic in explode"
    );
    // A panic while the handler is being created (before its future exists).
    session.on_tool_name(
        ToolName::Fail,
        |_args: Value, _ctx| -> std::future::Ready<Result<(), ToolError>> {
            panic!("deliberate panic while starting")
        },
    );
    let r = session.call("fail", json!({})).await;
    assert_eq!(
        message(&r),
        "the handler panicked: deliberate panic while starting"
    );
    // A panic after the first poll (from a pending future).
    session.on_tool::<echo>(|_args, _ctx| async move {
        tokio::task::yield_now().await;
        let v: Vec<String> = Vec::new();
        Ok(v[0].clone())
    });
    let r = session.call("echo", json!({"text": "x"})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerError));
    assert!(message(&r).contains("index out of bounds"), "{r:?}");
    let r = session.call("update_counter", json!({"delta": 7})).await;
    assert_eq!(r.value(), Some(&json!({"value": 7})));
}

#[tokio::test]
async fn results_that_json_cannot_hold_are_result_invalid() {
    let session = session();
    let r = session.call("nan", json!({})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolResultInvalid));
    assert!(message(&r).contains("`/mean` is NaN"), "{r:?}");
    session.on_tool_name(ToolName::Echo, |_args: Value, _ctx| async move {
        let mut by_id = std::collections::HashMap::new();
        by_id.insert(3_u8, "three");
        Ok(by_id)
    });
    let r = session.call("echo", json!({"text": "x"})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolResultInvalid));
    assert!(
        message(&r).contains("map key that is an integer (`3`)"),
        "{r:?}"
    );
}

#[tokio::test]
async fn typed_args_that_do_not_deserialize_are_args_invalid() {
    let r = session()
        .call("update_counter", json!({"delta": "5"}))
        .await;
    assert_eq!(code(&r), Some(ErrorCode::ToolArgsInvalid));
    assert!(
        message(&r).starts_with("invalid arguments for `update_counter`"),
        "{r:?}"
    );
    assert!(r.error().unwrap().details().is_some());
}

#[tokio::test]
async fn null_for_an_optional_property_counts_as_absent() {
    let session = session();
    let r = session
        .call("echo", json!({"text": "a", "repeat": null}))
        .await;
    assert_eq!(r.value(), Some(&json!("a")));
    session.on_tool_name(ToolName::Echo, |args: Value, _ctx| async move { Ok(args) });
    let r = session
        .call("echo", json!({"text": "a", "repeat": null}))
        .await;
    assert_eq!(r.value(), Some(&json!({"text": "a"})));
    // No args at all counts as `{}`.
    let r = session.call("nan", Value::Null).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolResultInvalid));
}

#[tokio::test(start_paused = true)]
async fn a_timeout_drops_the_handler_and_cancels_its_context() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let session = Session::builder(ToolName::skills())
        .state(CancelProbe(tx))
        .create()
        .unwrap();
    let started = tokio::time::Instant::now();
    let r = session
        .call_with("slow", json!({}), CallOptions::new().call_id("call-7"))
        .await;
    assert_eq!(
        serde_json::to_value(&r).unwrap(),
        json!({"ok": false, "error": {"code": "TOOL_TIMEOUT", "message": "`slow` did not finish within its timeout of 30 ms", "details": {"timeoutMs": 30}}})
    );
    assert_eq!(started.elapsed(), Duration::from_millis(30));
    // The work the handler moved to another task saw the cancellation.
    assert_eq!(rx.recv().await.as_deref(), Some("call-7"));
}

#[tokio::test(start_paused = true)]
async fn the_default_timeout_is_sixty_seconds() {
    let session = session();
    session.on_tool::<echo>(|_args, ctx| async move {
        let left = ctx.remaining();
        assert!(left > Duration::from_secs(59) && left <= Duration::from_mins(1));
        std::future::pending::<()>().await;
        Ok(String::new())
    });
    let started = tokio::time::Instant::now();
    let r = session.call("echo", json!({"text": "x"})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolTimeout));
    assert_eq!(started.elapsed(), Duration::from_mins(1));
}

#[tokio::test]
async fn core_can_cancel_a_call() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let session = Session::builder(ToolName::skills())
        .state(CancelProbe(tx))
        .create()
        .unwrap();
    session.on_tool::<slow>(|_args, ctx| async move {
        let probe = ctx.state::<CancelProbe>()?.0.clone();
        let watcher = ctx.clone();
        tokio::spawn(async move {
            watcher.cancelled().await;
            let _ = probe.send(watcher.call_id().to_owned());
        });
        std::future::pending::<()>().await;
        Ok(())
    });
    let mut events = session.events();
    let pending = session.start_call("slow", json!({}));
    let id = pending.call_id().to_owned();
    // Cancel once the handler is running.
    loop {
        if let Some(SessionEvent::CallStarted { call_id, .. }) = events.recv().await
            && call_id == id
        {
            break;
        }
    }
    pending.cancel();
    let r = pending.await;
    assert_eq!(code(&r), Some(ErrorCode::ToolCancelled));
    assert_eq!(message(&r), "the call was cancelled");
    assert_eq!(rx.recv().await, Some(id));
}

#[tokio::test]
async fn dropping_a_pending_call_cancels_it() {
    let session = session();
    let (started_tx, started_rx) = tokio::sync::oneshot::channel();
    let (saw_tx, saw_rx) = tokio::sync::oneshot::channel();
    let channels = std::sync::Mutex::new(Some((started_tx, saw_tx)));
    session.on_tool::<slow>(move |_args, ctx| {
        let (started, saw) = channels.lock().unwrap().take().expect("called once");
        async move {
            // The future is dropped on cancellation: report from a guard-free task.
            tokio::spawn(async move {
                ctx.cancelled().await;
                let _ = saw.send(ctx.is_cancelled());
            });
            let _ = started.send(());
            std::future::pending::<()>().await;
            Ok(())
        }
    });
    let pending = session.start_call("slow", json!({}));
    started_rx.await.unwrap();
    drop(pending);
    assert_eq!(saw_rx.await, Ok(true));
}

#[tokio::test]
async fn a_call_cancelled_before_it_starts_never_runs_its_handler() {
    let session = session();
    let ran = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = ran.clone();
    session.on_tool::<echo>(move |args, _ctx| {
        flag.store(true, std::sync::atomic::Ordering::SeqCst);
        async move { Ok(args.text) }
    });
    let pending = session.start_call("echo", json!({"text": "x"}));
    pending.cancel();
    let r = pending.await;
    assert_eq!(code(&r), Some(ErrorCode::ToolCancelled));
    assert!(!ran.load(std::sync::atomic::Ordering::SeqCst));
}

#[tokio::test]
async fn events_report_calls_started_and_finished() {
    let session = session();
    let mut events = session.events();
    session
        .call_with(
            "update_counter",
            json!({"delta": 1}),
            CallOptions::new().call_id("c1"),
        )
        .await;
    session
        .call_with("fail", json!({}), CallOptions::new().call_id("c2"))
        .await;
    let mut seen = Vec::new();
    for _ in 0..4 {
        match events.recv().await.unwrap() {
            SessionEvent::CallStarted { call_id, tool } => {
                seen.push(format!("start {call_id} {tool}"));
            }
            SessionEvent::CallFinished {
                call_id,
                tool,
                error,
                ..
            } => seen.push(format!("finish {call_id} {tool} {error:?}")),
            other => panic!("unexpected {other:?}"),
        }
    }
    assert_eq!(
        seen,
        [
            "start c1 update_counter",
            "finish c1 update_counter None",
            "start c2 fail",
            "finish c2 fail Some(ToolHandlerError)",
        ]
    );
    assert!(events.try_recv().is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_are_each_answered_once() {
    let session = session();
    let mut set = tokio::task::JoinSet::new();
    // Positive deltas: the running totals strictly increase, so each is distinct.
    for i in 1..=2000_i64 {
        let session = session.clone();
        set.spawn(async move { session.call("update_counter", json!({"delta": i})).await });
    }
    let mut values = Vec::new();
    while let Some(r) = set.join_next().await {
        values.push(r.unwrap().value().unwrap()["value"].as_i64().unwrap());
    }
    values.sort_unstable();
    values.dedup();
    assert_eq!(values.len(), 2000, "every intermediate total is distinct");
    assert_eq!(*values.last().unwrap(), (1..=2000).sum::<i64>());
}

#[tokio::test]
async fn call_raw_speaks_json_text() {
    let session = session();
    let args = serde_json::value::RawValue::from_string(r#"{"delta": 4}"#.into()).unwrap();
    assert_eq!(
        session.call_raw("update_counter", &args).await,
        r#"{"ok":true,"value":{"value":4}}"#
    );
    let args = serde_json::value::RawValue::from_string("{}".into()).unwrap();
    assert_eq!(
        session.call_raw("fail", &args).await,
        r#"{"ok":false,"error":{"code":"TOOL_HANDLER_ERROR","message":"the disk is full"}}"#
    );
}

#[tokio::test]
async fn inline_handlers_of_run_time_definitions_and_typed_handlers_on_untyped_sessions() {
    let skills = SkillsInput::new(
        "Guidance.",
        vec![
            manual_definition().with_handler(ToolHandler::json(|args: Value, _ctx| async move {
                Ok(json!({"inline": args["text"]}))
            })),
            ToolDefinition::of::<update_counter>().with_timeout_ms(1_000),
        ],
    );
    let session = Session::builder(skills)
        .state(Counter::default())
        .create()
        .unwrap();
    let r = session.call("manual", json!({"text": "t"})).await;
    assert_eq!(r.value(), Some(&json!({"inline": "t"})));
    session.on_tool::<update_counter>(|args, _ctx| async move {
        Ok(CounterValue { value: -args.delta })
    });
    let r = session.call("update_counter", json!({"delta": 3})).await;
    assert_eq!(r.value(), Some(&json!({"value": -3})));
    // A tool the untyped session does not have.
    let panic_text = |payload: Box<dyn std::any::Any + Send>| {
        payload
            .downcast_ref::<String>()
            .cloned()
            .unwrap_or_default()
    };
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        session.on_tool::<echo>(|args, _ctx| async move { Ok(args.text) });
    }))
    .map_err(panic_text)
    .unwrap_err();
    assert!(
        err.contains("cannot register a handler for `echo`: the session has no tool of that name"),
        "{err}"
    );
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        session.on_tool_name("manua", |args: Value, _ctx| async move { Ok(args) });
    }))
    .map_err(panic_text)
    .unwrap_err();
    assert!(err.contains("(did you mean `manual`?)"), "{err}");
    session.on_tool_name(
        "manual".to_owned(),
        |_args: Value, _ctx| async move { Ok(1) },
    );
    assert_eq!(
        session.call("manual", json!({"text": "t"})).await.value(),
        Some(&json!(1))
    );
}

#[test]
fn creation_collects_every_problem_with_its_path() {
    let skills = SkillsInput::new(
        "g",
        vec![
            ToolDefinition::of::<echo>(),
            manual_definition(),
            ToolDefinition::new(
                "2fast",
                "  ",
                pedelec_core::ToolArgsSchema::from_node(
                    <EchoArgs as pedelec_core::ToolArgs>::SCHEMA,
                ),
            )
            .with_timeout_ms(0),
            ToolDefinition::of::<echo>(),
            manual_definition(),
        ],
    );
    let err = create_session(skills).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let problems: Vec<String> = err.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "tools[2].name: tool name \"2fast\" must start with an ASCII letter, not `2`",
            "tools[2].description: tool description is empty; explain what the tool does, its side effects and when to use it",
            "tools[2].timeoutMs: timeout must be a positive integer number of milliseconds, not 0",
            "tools[3].name: duplicate tool name \"echo\": `tools[0]` already has it; tool names must be unique within a skill set",
            "tools[4].name: duplicate tool name \"manual\": `tools[1]` already has it; tool names must be unique within a skill set",
        ]
    );
    assert!(
        err.to_string()
            .starts_with("INVALID_INPUT: invalid input: 5 problems\n  - tools[2].name"),
        "{err}"
    );
}

#[tokio::test]
async fn sessions_are_shared_between_clones_and_handlers_can_come_late() {
    let session = session();
    let clone = session.clone();
    let untyped = session.untyped();
    let r = untyped.call("manual", json!({"text": "a"})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerNotFound));
    clone.on_tool_name(
        ToolName::Manual,
        |_args: Value, _ctx| async move { Ok("late") },
    );
    let r = untyped.call("manual", json!({"text": "a"})).await;
    assert_eq!(r.value(), Some(&json!("late")));
    assert!(format!("{session:?}").contains("update_counter"));
    let _ = Arc::new(session);
}

#[tokio::test]
async fn invalid_args_list_every_validator_error_in_details() {
    let session = session();
    let r = session
        .call("echo", json!({"text": 5, "repeat": -1, "extra": true}))
        .await;
    assert_eq!(code(&r), Some(ErrorCode::ToolArgsInvalid));
    let error = r.error().unwrap();
    assert!(
        error
            .message()
            .starts_with("invalid arguments for `echo`: /text: "),
        "{error}"
    );
    let details = error.details().unwrap();
    let pointers: Vec<&str> = details["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(pointers, ["/text", "/repeat", ""], "{details}");
    assert!(
        details["errors"][2]["message"]
            .as_str()
            .unwrap()
            .contains("\"extra\"")
    );
    assert_eq!(details["truncated"], false);
    // The handler never ran: its args are not `EchoArgs`.
    let r = session.call("update_counter", json!({})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolArgsInvalid));
    assert!(message(&r).contains("delta"), "{r:?}");
}

#[tokio::test]
async fn invalid_args_are_reported_before_a_missing_handler() {
    let session = session();
    let r = session.call("manual", json!({"text": 1})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolArgsInvalid));
    let r = session.call("manual", json!({"text": "ok"})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolHandlerNotFound));
    // ... and before the fallback sees them.
    session.set_fallback(|call: ToolCall, _ctx| async move { Ok(call.args) });
    let r = session.call("manual", json!({"text": 1})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolArgsInvalid));
}

#[test]
fn skills_from_json_report_every_problem() {
    let json = json!({
        "guidance": 7,
        "tools": [
            {"name": "ok_tool", "description": "Fine.", "argsSchema": {"type": "object"}},
            {"name": "legacy", "description": "Uses input.", "input": {"x": "string"}},
            {"name": "bad timeout", "description": " ", "argsSchema": {"type": "object"}, "timeoutMs": 0},
            {"name": "frac", "description": "d", "argsSchema": {"type": "object"}, "timeoutMs": 1.5},
            {"name": "neg", "description": "d", "argsSchema": {"type": "object"}, "timeoutMs": -3},
            {"name": "str", "description": "d", "argsSchema": {"type": "object"}, "timeout_ms": 10},
            {"name": "ok_tool", "description": "Again.", "argsSchema": {"type": "string"}},
            "not an object"
        ]
    });
    let err = SkillsInput::from_json(&json).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    let problems: Vec<String> = err.problems().iter().map(ToString::to_string).collect();
    let expect = [
        "guidance: `guidance` must be a string, not a number (`7`)",
        "tools[1].input: the legacy `input` shorthand is not supported; describe the arguments with `argsSchema` (a JSON Schema object)",
        "tools[1].argsSchema: missing `argsSchema`",
        "tools[2].name: tool name \"bad timeout\" may contain only ASCII letters, digits, `_`, `.` and `-`; found a space",
        "tools[2].description: tool description is empty",
        "tools[2].timeoutMs: timeout must be a positive integer number of milliseconds, not 0 (got 0)",
        "tools[3].timeoutMs: timeout must be a positive integer number of milliseconds, not a fraction (got 1.5)",
        "tools[4].timeoutMs: timeout must be a positive integer number of milliseconds, not a negative number (got -3)",
        "tools[5].timeout_ms: unknown key `timeout_ms`; did you mean `timeoutMs`?",
        "tools[6].argsSchema: the root of an argsSchema must be an object",
        "tools[7]: a tool definition is an object with `name`, `description` and `argsSchema`, not a string",
        "tools[6].name: duplicate tool name \"ok_tool\": `tools[0]` already has it",
    ];
    for (got, want) in problems.iter().zip(expect) {
        assert!(
            got.starts_with(want),
            "got {got:?}, want {want:?}\nall: {problems:#?}"
        );
    }
    assert_eq!(problems.len(), expect.len(), "{problems:#?}");

    let err = SkillsInput::from_json(&json!({
        "tools": [{"argsSchema": {"type": "object"}}, {"name": "t", "description": 1, "argsSchema": {"type": "object"}}]
    }))
    .unwrap_err();
    let problems: Vec<String> = err.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        problems,
        [
            "guidance: missing `guidance`: a string telling the model how to use the tools",
            "tools[0].name: missing `name`: the agent-facing tool name",
            "tools[0].description: missing `description`: explain what the tool does, its side effects and when to use it",
            "tools[1].description: `description` must be a string, not a number (`1`)",
        ]
    );

    let err = SkillsInput::from_json(&json!({"guidance": "g", "tools": {}})).unwrap_err();
    assert_eq!(
        err.problems()[0].to_string(),
        "tools: `tools` must be an array of tool definitions, not an object"
    );
    let err = SkillsInput::from_json_str("{\"guidance\": ").unwrap_err();
    assert!(
        err.problems()[0]
            .message
            .starts_with("the skill set is not valid JSON: EOF"),
        "{err}"
    );
}

#[tokio::test]
async fn a_skill_set_from_json_is_served_by_named_and_fallback_handlers() {
    let skills = SkillsInput::from_json(&json!({
        "guidance": "Two tools.",
        "tools": [
            {"name": "add", "description": "Add two integers.", "timeoutMs": 500,
             "argsSchema": {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"], "additionalProperties": false}},
            {"name": "shout", "description": "Upper-case a text.",
             "argsSchema": {"type": "object", "properties": {"text": {"type": "string", "minLength": 1}}, "required": ["text"]}}
        ]
    }))
    .unwrap();
    let session = create_session(skills).unwrap();
    assert_eq!(session.manifest().tools[0].timeout_ms, Some(500));
    session.on_tool_name("add", |args: Value, _ctx| async move {
        Ok(args["a"].as_i64().unwrap_or(0) + args["b"].as_i64().unwrap_or(0))
    });
    session.set_fallback(|call: ToolCall, _ctx| async move {
        Ok(call.args["text"]
            .as_str()
            .unwrap_or_default()
            .to_uppercase())
    });
    assert_eq!(
        session.call("add", json!({"a": 2, "b": 3})).await.value(),
        Some(&json!(5))
    );
    assert_eq!(
        session.call("shout", json!({"text": "hi"})).await.value(),
        Some(&json!("HI"))
    );
    let r = session.call("shout", json!({"text": ""})).await;
    assert_eq!(code(&r), Some(ErrorCode::ToolArgsInvalid));
    assert!(message(&r).contains("/text"), "{r:?}");
}
