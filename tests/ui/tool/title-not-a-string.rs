use pedelec::{skills, tool};

/// Opens a page.
#[tool(title = open_page)]
fn open_page() {}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
