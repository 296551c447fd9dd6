use pedelec::{skills, tool};
use pedelec::ToolCallContext;

/// Opens a page.
#[tool]
fn open_page(ctx: &ToolCallContext) {
    let _ = ctx;
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
