use pedelec::{ToolArgs, skills, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Args {
    n: i64,
}

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
