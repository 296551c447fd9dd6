use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;
use pedelec::ToolCallContext;

#[derive(Deserialize, ToolArgs)]
struct Args {
    n: i64,
}

/// Opens a page.
#[tool]
fn open_page(ctx: ToolCallContext, args: Args) -> i64 {
    let _ = ctx;
    args.n
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
