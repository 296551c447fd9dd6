use pedelec::{Property, SchemaNode, ToolArgs, ToolArgsRoot, skills, tool};
use serde::Deserialize;

#[derive(Deserialize)]
struct Args {
    n: i64,
}

impl ToolArgs for Args {
    const SCHEMA: SchemaNode = SchemaNode::object(const { &[Property::of::<i64>("n")] }).closed();
}
impl ToolArgsRoot for Args {}

/// Opens a page.
#[tool]
fn open_page(args: Args, more: Args) -> i64 {
    args.n + more.n
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
