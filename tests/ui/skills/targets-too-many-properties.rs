use pedelec::{ToolArgs, skills, tool};
use pedelec::schema::{Property, SchemaNode};
use serde::Deserialize;

const PROPERTIES: &[Property; 5001] =
    &[const { Property::new("p", SchemaNode::boolean(), false) }; 5001];
const WIDE: SchemaNode = SchemaNode::object(PROPERTIES).closed();

#[derive(Deserialize, ToolArgs)]
struct Args {
    #[arg(schema = WIDE)]
    wide: serde_json::Value,
}

/// Takes very many arguments.
#[tool]
fn wide(args: Args) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Go wide.",
    tools = [wide],
    targets = [openai],
];

fn main() {}
