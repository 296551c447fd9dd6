use pedelec::{skills, tool};

/// Opens a page.
#[tool]
fn _open_page() {}

skills![guidance = "Use it.", tools = [_open_page]];

fn main() {
    let _ = _open_page::definition();
    let _ = ToolName::OpenPage;
}
