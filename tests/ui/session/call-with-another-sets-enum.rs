use pedelec::{ToolArgs, skills, tool};
use serde::{Deserialize, Serialize};

#[derive(Deserialize, Serialize, ToolArgs)]
struct Args {
    n: i64,
}

/// Doubles a number.
#[tool]
fn double(args: Args) -> i64 {
    args.n * 2
}

/// Negates a number.
#[tool]
fn negate(args: Args) -> i64 {
    -args.n
}

skills![guidance = "Use them.", tools = [double]];

mod other {
    pedelec::skills![pub enum Other, guidance = "Others.", tools = [super::negate]];
}

fn calls() {
    let session = pedelec::create_session(ToolName::skills()).unwrap();
    // The set's own enum and a wire name are both names here.
    drop(session.call(ToolName::Double, serde_json::json!({"n": 1})));
    drop(session.call("double", serde_json::json!({"n": 1})));
    // Another set's enum is not.
    drop(session.call(other::Other::Negate, serde_json::json!({"n": 1})));
    // Nor is a typed call of a tool outside the set.
    drop(session.call_tool::<negate>(Args { n: 1 }));
}

fn main() {
    calls();
}
