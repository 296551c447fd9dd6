use pedelec::{skills, tool};
use serde::Serialize;

/// Opens a page.
#[tool]
fn open_page() -> impl Serialize {
    1
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
