use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
#[serde(tag = "kind")]
enum Value {
    Text { text: String },
    Number { number: f64 },
}

#[derive(Deserialize, ToolArgs)]
struct Nine {
    a: Value, b: Value, c: Value, d: Value, e: Value, f: Value, g: Value, h: Value, i: Value,
}

/// Sets values.
#[tool]
fn set(args: Nine) -> bool {
    let _ = args;
    true
}

/// Compares values.
#[tool]
fn compare(args: Nine) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Values.",
    tools = [set, compare],
    targets = [anthropic],
];

fn main() {}
