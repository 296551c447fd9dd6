use pedelec::schema::{Property, SchemaNode};
use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

/// Attributes: named ones, and any others (an open object, unlike a map).
#[derive(Deserialize)]
struct Attributes {}

impl ToolArgs for Attributes {
    const SCHEMA: SchemaNode =
        SchemaNode::object(const { &[Property::new("id", SchemaNode::string(), false)] });
}

#[derive(Deserialize, ToolArgs)]
struct Args {
    /// The attributes.
    attributes: Attributes,
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
