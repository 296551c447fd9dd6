//! A skill set defined outside Rust: read from `examples/dynamic_tools.json` (or the file
//! given as the first argument), checked, and served by one fallback handler that
//! dispatches on the tool's name.
//!
//! - `cargo run --example dynamic_tools` prints a few calls against the in-process Core.
//! - `cargo run --example dynamic_tools -- --stdio` serves the tools over JSON Lines.
//! - `cargo run --example dynamic_tools -- broken.json` shows how a bad skill set is
//!   reported: every problem at once, each with its path.

use pedelec::{Session, SkillsInput, ToolCall, ToolError};
use serde_json::{Value, json};

/// The one handler of every tool: the args are already validated against the tool's
/// argsSchema when it runs.
fn dispatch(call: &ToolCall) -> Result<Value, ToolError> {
    let args = &call.args;
    match call.name.as_str() {
        "add" => {
            let (a, b) = (args["a"].as_i64(), args["b"].as_i64());
            let sum = a
                .zip(b)
                .and_then(|(a, b)| a.checked_add(b))
                .ok_or_else(|| ToolError::new("the sum does not fit in 64 bits"))?;
            Ok(json!(sum))
        }
        "shout" => {
            let text = args["text"].as_str().unwrap_or_default().to_uppercase();
            let bangs = args["bangs"].as_u64().unwrap_or(1);
            Ok(json!(format!(
                "{text}{}",
                "!".repeat(usize::try_from(bangs).unwrap_or(0))
            )))
        }
        other => Err(ToolError::new(format!(
            "`{other}` has no implementation here"
        ))),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .unwrap_or_else(|| {
            concat!(env!("CARGO_MANIFEST_DIR"), "/examples/dynamic_tools.json").to_owned()
        });
    let text = std::fs::read_to_string(&path)?;
    let skills = match SkillsInput::from_json_str(&text) {
        Ok(skills) => skills,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    let session = Session::builder(skills).create()?;
    session.set_fallback(|call: ToolCall, _ctx| std::future::ready(dispatch(&call)));

    if std::env::args().any(|a| a == "--stdio") {
        session.serve(pedelec::bridge::JsonLines::stdio()).await?;
        return Ok(());
    }
    for (name, args) in [
        ("add", json!({"a": 2, "b": 40})),
        ("shout", json!({"text": "hello", "bangs": 3})),
        ("shout", json!({"text": "", "bangs": 11})),
        ("add", json!({"a": i64::MAX, "b": 1})),
        ("divide", json!({"a": 1, "b": 0})),
    ] {
        let result = session.call(name, args.clone()).await;
        println!("-> {name} {args}\n<- {}\n", serde_json::to_string(&result)?);
    }
    Ok(())
}
