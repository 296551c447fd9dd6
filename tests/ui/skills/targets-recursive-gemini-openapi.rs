use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

/// An arithmetic expression.
#[derive(Deserialize, ToolArgs)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Expr {
    /// A number.
    Num { value: f64 },
    /// The sum of two expressions.
    Add { left: Box<Expr>, right: Box<Expr> },
}

#[derive(Deserialize, ToolArgs)]
struct Args {
    /// The expression.
    expr: Expr,
}

/// Evaluates an expression.
#[tool]
fn evaluate(args: Args) -> f64 {
    let _ = args;
    0.0
}

skills![
    guidance = "Compute.",
    tools = [evaluate],
    targets = [mcp, gemini_openapi],
];

fn main() {}
