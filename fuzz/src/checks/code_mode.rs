//! Hostile program fragments through code mode's `run_code` (worker processes): the
//! fuzzer's bytes are a JavaScript fragment, run as is, inside a loop, inside a promise job,
//! and after a tool call (the first byte picks).
//!
//! Invariants:
//! - the answer is `{"result", "output"}` or an error with a known code and a message, and
//!   an error answer is bounded by `max_output` (its parts cut with a marker);
//! - the session answers the next program and the next call;
//! - no worker is left behind: within a few seconds every child process of this one sleeps
//!   and uses no CPU, and none is a zombie (read from `/proc`).

use std::time::Duration;

use pedelec_core::code::CodeMode;
use pedelec_core::{Session, SkillsInput, ToolError};
use serde_json::{Value, json};

use super::RESULT_CODES;

/// The answer limit the session runs programs under.
const MAX_OUTPUT: usize = 2 << 10;

fn session() -> Session {
    thread_local! {
        static SESSION: std::cell::OnceCell<Session> = const { std::cell::OnceCell::new() };
    }
    SESSION.with(|s| {
        s.get_or_init(|| {
            let skills = SkillsInput::from_json(&json!({
                "guidance": "Fuzzing.",
                "tools": [{"name": "echo", "description": "Echo the text.", "argsSchema": {
                    "type": "object", "properties": {"text": {"type": "string"}},
                    "required": ["text"]}}]
            }))
            .expect("the skill set");
            let session = Session::builder(skills)
                .code_mode(
                    CodeMode::new()
                        .time_limit(Duration::from_millis(200))
                        .memory_limit(8 << 20)
                        .max_calls(20)
                        .max_output(MAX_OUTPUT),
                )
                .create()
                .expect("the session");
            session.on_tool_name("echo", |args: Value, _ctx| async move {
                Ok::<_, ToolError>(args["text"].clone())
            });
            session
        })
        .clone()
    })
}

/// The program `data` makes.
pub fn program(data: &[u8]) -> String {
    let Some((&how, rest)) = data.split_first() else {
        return String::new();
    };
    let fragment = String::from_utf8_lossy(rest);
    match how % 4 {
        0 => fragment.into_owned(),
        1 => format!("for (let i = 0; i < 1e9; i++) {{ {fragment}\n}}"),
        2 => format!("await null;\nawait Promise.resolve().then(async () => {{ {fragment}\n}});"),
        _ => format!("await echo({{ text: 'x' }});\n{fragment}"),
    }
}

pub fn check(data: &[u8]) {
    let session = session();
    let program = program(data);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    runtime.block_on(async {
        let result = session.call("run_code", json!({ "code": program })).await;
        match result {
            pedelec_core::ToolResult::Ok(answer) => {
                assert!(answer["output"].is_string(), "{answer}\n{program}");
                assert!(answer.get("result").is_some(), "{answer}\n{program}");
            }
            pedelec_core::ToolResult::Err(e) => {
                let text = serde_json::to_string(&e).expect("an error serializes");
                let code = serde_json::to_value(e.code()).expect("a code");
                assert!(
                    RESULT_CODES.contains(&code.as_str().unwrap_or_default()),
                    "{text}\n{program}"
                );
                assert!(!e.message().is_empty(), "{program}");
                assert!(
                    text.len() <= MAX_OUTPUT + 1024,
                    "an error answer of {} bytes\n{program}",
                    text.len()
                );
            }
        }
        let next = session
            .call(
                "run_code",
                json!({ "code": "return (await echo({ text: 'ok' })) + 1;" }),
            )
            .await;
        let next = match next {
            pedelec_core::ToolResult::Ok(answer) => answer["result"].clone(),
            pedelec_core::ToolResult::Err(e) => json!(e.message()),
        };
        assert_eq!(next, json!("ok1"), "the next program after\n{program}");
    });
    nothing_left_behind(&program);
}

fn nothing_left_behind(program: &str) {
    let mut busy = Vec::new();
    for _ in 0..30 {
        let before = super::children::children();
        std::thread::sleep(Duration::from_millis(100));
        let after = super::children::children();
        busy = super::children::busy(&before, &after);
        if busy.is_empty() {
            return;
        }
    }
    panic!("workers left busy or unreaped (pid, state, ticks): {busy:?}\n{program}");
}
