use pedelec::{skills, tool};

/// Opens a page.
#[tool]
fn open_page() -> bool
where
    u8: Copy,
{
    true
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
