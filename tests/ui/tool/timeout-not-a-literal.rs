use pedelec::{skills, tool};

const TIMEOUT: u64 = 5_000;

/// Opens a page.
#[tool(timeout_ms = TIMEOUT)]
fn open_page() {}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
