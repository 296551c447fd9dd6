use pedelec::{skills, tool};
use pedelec::ToolError;
use serde::Serialize;

/// Opens a page.
#[tool]
fn open_page() -> Result<impl Serialize, ToolError> {
    Ok(1)
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
