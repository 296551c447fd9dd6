//! One check per fuzz target. Each `check(data)` takes arbitrary bytes, drives pedelec through
//! its public API, and panics when one of the invariants it states does not hold. A panic
//! that pedelec itself catches (a tool handler's) is a bug too unless the handler panicked on
//! purpose: [`install_panic_filter`] lets only the deliberate ones through.
//!
//! This directory is compiled twice: by the fuzz crate (`fuzz/`, libFuzzer) and by
//! `pedelec-core/tests/fuzz_corpus.rs` (stable Rust, in CI), which replays `fuzz/corpus/`.

#![allow(dead_code, reason = "each user compiles what its targets need")]

#[cfg(feature = "code-mode")]
pub mod children;
#[cfg(feature = "code-mode")]
pub mod code_mode;
pub mod ecma;
pub mod fast_path;
pub mod json_lines;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod schema_from_json;
pub mod skills_from_json;
pub mod strict_result;

use std::future::Future;
use std::sync::Once;
use std::time::Duration;

use pedelec_core::{Session, SkillsInput, ToolError};
use serde_json::{Value, json};

/// What every deliberate panic says, so the panic hook can tell it from a bug.
pub const DELIBERATE_PANIC: &str = "pedelec-fuzz: deliberate panic";

/// Installs (once) a panic hook that stays silent for [`DELIBERATE_PANIC`] and hands every
/// other panic to the previous hook (libFuzzer's aborts the process: a finding).
pub fn install_panic_filter() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .copied()
                .or_else(|| payload.downcast_ref::<String>().map(String::as_str));
            if message.is_some_and(|m| m.contains(DELIBERATE_PANIC)) {
                return;
            }
            previous(info);
        }));
    });
}

/// Runs `future` on a fresh single-threaded runtime whose clock is paused: timers fire as
/// soon as nothing else can run, so tool timeouts cost no real time, and a session that
/// stops making progress is caught by [`HANG_AFTER`] at once instead of hanging the fuzzer.
pub fn block_on<F: Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .start_paused(true)
        .build()
        .expect("a tokio runtime")
        .block_on(future)
}

/// Virtual time after which a conversation that has not ended counts as a hang (every tool
/// of [`test_session`] ends within its 50 ms timeout, so anything near this is stuck).
pub const HANG_AFTER: Duration = Duration::from_hours(1);

/// The tools of the bridge targets (JSON Lines and MCP), as a skill set read from JSON.
pub fn test_skills() -> Value {
    json!({
        "guidance": "Fuzzing.",
        "tools": [
            {"name": "echo", "description": "Echo the text.", "argsSchema": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "maxLength": 64},
                    "repeat": {"type": "integer", "minimum": 0, "maximum": 3}
                },
                "required": ["text"], "additionalProperties": false}},
            {"name": "add", "description": "Add two integers.", "argsSchema": {
                "type": "object",
                "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                "required": ["a", "b"]}},
            {"name": "fail", "description": "Fail.", "argsSchema": {"type": "object"}},
            {"name": "boom", "description": "Panic.", "argsSchema": {"type": "object"}},
            {"name": "nan", "description": "Return NaN.", "argsSchema": {"type": "object"}},
            {"name": "sleep", "description": "Sleep `ms` milliseconds.", "timeoutMs": 50,
             "argsSchema": {"type": "object",
                "properties": {"ms": {"type": "integer", "minimum": 0, "maximum": 1000}}}},
            {"name": "inline", "description": "No named handler: the fallback (if any) serves it.",
             "argsSchema": {"type": "object", "properties": {
                 "x": {"oneOf": [{"type": "string", "pattern": "^[a-z]+$"}, {"type": "number"}]}}}}
        ]
    })
}

/// A session over [`test_skills`] with a handler for each tool; `fallback` also serves
/// `inline` and names outside the skill set. Built once per thread (each conversation is a
/// new connection to it), so that a run costs what the conversation costs.
pub fn test_session(fallback: bool) -> Session {
    thread_local! {
        static SESSIONS: [std::cell::OnceCell<Session>; 2] = const {
            [std::cell::OnceCell::new(), std::cell::OnceCell::new()]
        };
    }
    SESSIONS.with(|s| {
        s[usize::from(fallback)]
            .get_or_init(|| new_test_session(fallback))
            .clone()
    })
}

fn new_test_session(fallback: bool) -> Session {
    let skills = SkillsInput::from_json(&test_skills()).expect("the test skill set is valid");
    let session = Session::builder(skills).create().expect("the test session");
    session.on_tool_name("echo", |args: Value, _ctx| async move {
        let text = args["text"].as_str().unwrap_or_default().to_owned();
        let repeat = args["repeat"].as_u64().unwrap_or(1);
        Ok::<_, ToolError>(text.repeat(usize::try_from(repeat).unwrap_or(0)))
    });
    session.on_tool_name("add", |args: Value, _ctx| async move {
        let (a, b) = (args["a"].as_i64(), args["b"].as_i64());
        a.zip(b)
            .and_then(|(a, b)| a.checked_add(b))
            .ok_or_else(|| ToolError::new("the sum does not fit in 64 bits"))
    });
    session.on_tool_name("fail", |_args: Value, _ctx| async move {
        Err::<(), _>(ToolError::new("deliberate failure"))
    });
    session.on_tool_name("boom", |_args: Value, _ctx| async move { boom() });
    session.on_tool_name("nan", |_args: Value, _ctx| async move {
        Ok::<_, ToolError>(vec![1.0, f64::NAN])
    });
    session.on_tool_name("sleep", |args: Value, _ctx| async move {
        let ms = args["ms"].as_u64().unwrap_or(0);
        tokio::time::sleep(Duration::from_millis(ms)).await;
        Ok::<_, ToolError>(ms)
    });
    if fallback {
        session.set_fallback(|call: pedelec_core::ToolCall, _ctx| async move {
            Ok::<_, ToolError>(json!({"name": call.name, "args": call.args}))
        });
    }
    session
}

fn boom() -> Result<(), ToolError> {
    panic!("{DELIBERATE_PANIC}")
}

/// A tiny deterministic generator (xorshift) for choices derived from one input byte.
pub struct Rng(u64);

impl Rng {
    /// Seeded (never zero).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap_or(0)
    }
}

/// Splits `input` into chunks of random sizes (1 to 64 bytes; some runs of single bytes),
/// so every message is also read across buffer boundaries.
pub fn chunks(input: &[u8], rng: &mut Rng) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut rest = input;
    while !rest.is_empty() {
        let n = match rng.below(4) {
            0 => 1,
            1 => 1 + rng.below(8),
            _ => 1 + rng.below(64),
        }
        .min(rest.len());
        out.push(rest[..n].to_vec());
        rest = &rest[n..];
    }
    out
}

/// How deep arrays and objects nest in `v` (a scalar is 0, `{}` is 1).
pub fn depth(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// The error codes a call's result may carry.
pub const RESULT_CODES: &[&str] = &[
    "TOOL_ARGS_INVALID",
    "TOOL_HANDLER_NOT_FOUND",
    "TOOL_HANDLER_ERROR",
    "TOOL_TIMEOUT",
    "TOOL_CANCELLED",
    "TOOL_RESULT_INVALID",
];

/// Checks the shape of a call's result (`{"ok":true,"value":…}` or `{"ok":false,"error":…}`).
pub fn check_result_shape(result: &Value, context: &dyn std::fmt::Display) {
    match result["ok"] {
        Value::Bool(true) => assert!(
            result.get("value").is_some(),
            "a successful result without `value`: {result}\n{context}"
        ),
        Value::Bool(false) => {
            let code = result["error"]["code"].as_str().unwrap_or_default();
            assert!(
                RESULT_CODES.contains(&code),
                "unknown result code in {result}\n{context}"
            );
            assert!(
                result["error"]["message"].is_string(),
                "an error without a message: {result}\n{context}"
            );
        }
        _ => panic!("a result without a boolean `ok`: {result}\n{context}"),
    }
}

/// Whether `value` is valid for the schema node `node` (any kind, as JSON), through the
/// public API: `node` becomes the one required property of an object schema. `None` when
/// that schema is refused.
pub fn node_accepts(
    node: &Value,
    value: &Value,
    options: pedelec_core::schema::ValidationOptions,
) -> Option<bool> {
    let wrapper = json!({"type": "object", "properties": {"v": node}, "required": ["v"]});
    let schema = pedelec_core::ToolArgsSchema::from_json(&wrapper).ok()?;
    let compiled = schema.compiled()?;
    Some(compiled.is_valid_with(&json!({ "v": value }), options))
}

/// The three option sets the session and users validate with.
pub const OPTIONS: [pedelec_core::schema::ValidationOptions; 3] = [
    pedelec_core::schema::ValidationOptions::new(),
    pedelec_core::schema::ValidationOptions::new().null_as_absent(true),
    pedelec_core::schema::ValidationOptions::new()
        .null_as_absent(true)
        .assert_formats(true),
];

/// Every schema node in a schema's JSON form, with its pointer.
pub fn schema_nodes<'a>(schema: &'a Value, pointer: String, out: &mut Vec<(String, &'a Value)>) {
    let Some(map) = schema.as_object() else {
        return;
    };
    out.push((pointer.clone(), schema));
    let escape = |s: &str| s.replace('~', "~0").replace('/', "~1");
    if let Some(items) = map.get("items") {
        schema_nodes(items, format!("{pointer}/items"), out);
    }
    if let Some(Value::Object(props)) = map.get("properties") {
        for (k, v) in props {
            schema_nodes(v, format!("{pointer}/properties/{}", escape(k)), out);
        }
    }
    if let Some(extra @ Value::Object(_)) = map.get("additionalProperties") {
        schema_nodes(extra, format!("{pointer}/additionalProperties"), out);
    }
    if let Some(Value::Array(branches)) = map.get("oneOf") {
        for (i, b) in branches.iter().enumerate() {
            schema_nodes(b, format!("{pointer}/oneOf/{i}"), out);
        }
    }
}
