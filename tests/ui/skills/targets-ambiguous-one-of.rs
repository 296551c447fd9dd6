use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

/// An amount: whole or fractional (`1` matches both).
#[derive(Deserialize, ToolArgs)]
#[serde(untagged)]
enum Amount {
    Whole(i64),
    Fraction(f64),
}

#[derive(Deserialize, ToolArgs)]
struct Args {
    amount: Amount,
}

/// Pays an amount.
#[tool]
fn pay(args: Args) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Pay.",
    tools = [pay],
    targets = [mcp, gemini],
];

fn main() {}
