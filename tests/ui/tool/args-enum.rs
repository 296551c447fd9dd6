use pedelec::{skills, tool};
use pedelec::ToolArgs;
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
enum Mode {
    Fast,
}

/// Opens a page.
#[tool]
fn open_page(args: Mode) -> bool {
    matches!(args, Mode::Fast)
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
