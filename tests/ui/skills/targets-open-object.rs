use std::collections::HashMap;

use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Args {
    /// Any labels.
    labels: HashMap<String, String>,
}

/// Labels the page.
#[tool]
fn label(args: Args) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Label.",
    tools = [label],
    targets = [gemini, openai],
];

fn main() {}
