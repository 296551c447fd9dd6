use pedelec::{skills, tool};

/// Opens a page.
#[tool]
fn open_page(urls: Vec<String>) -> usize {
    urls.len()
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
