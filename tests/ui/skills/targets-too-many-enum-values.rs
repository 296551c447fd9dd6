use pedelec::{ToolArgs, skills, tool};
use pedelec::schema::{Literal, SchemaNode};
use serde::Deserialize;

const VALUES: &[Literal; 1001] = &[const { Literal::str("x") }; 1001];
const CHOICE: SchemaNode = SchemaNode::string().with_enum_values(VALUES);

#[derive(Deserialize, ToolArgs)]
struct Args {
    #[arg(schema = CHOICE)]
    choice: String,
}

/// Picks one of very many values.
#[tool]
fn pick(args: Args) -> bool {
    let _ = args;
    true
}

skills![
    guidance = "Pick.",
    tools = [pick],
    targets = [openai],
];

fn main() {}
