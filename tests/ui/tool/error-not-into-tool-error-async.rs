use pedelec::{skills, tool};

struct PageError;

/// Opens a page.
#[tool]
async fn open_page() -> Result<u8, PageError> {
    Err(PageError)
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
