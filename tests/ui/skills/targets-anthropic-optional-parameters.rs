use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Twelve {
    a: Option<bool>, b: Option<bool>, c: Option<bool>, d: Option<bool>,
    e: Option<bool>, f: Option<bool>, g: Option<bool>, h: Option<bool>,
    i: Option<bool>, j: Option<bool>, k: Option<bool>, l: Option<bool>,
}

/// Filters.
#[tool]
fn filter(args: Twelve) -> bool {
    let _ = args;
    true
}

/// Sorts.
#[tool]
fn sort(args: Twelve) -> bool {
    let _ = args;
    true
}

/// Groups.
#[tool]
fn group(args: Twelve) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Query.",
    tools = [filter, sort, group],
    targets = [openai, anthropic],
];

fn main() {}
