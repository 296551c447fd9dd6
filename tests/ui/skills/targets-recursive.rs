use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

/// A filter over records.
#[derive(Deserialize, ToolArgs)]
struct Filter {
    /// The field to compare.
    field: Option<String>,
    /// Every one of these must hold.
    and: Option<Vec<Filter>>,
}

/// Finds records.
#[tool]
fn find(args: Filter) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Find.",
    tools = [find],
    targets = [openai, gemini, anthropic],
];

fn main() {}
