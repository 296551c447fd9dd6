use pedelec::{skills, tool};
use pedelec::ToolArgs;

/// Opens a page.
#[tool]
fn open_page(args: impl ToolArgs) {
    let _ = args;
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
