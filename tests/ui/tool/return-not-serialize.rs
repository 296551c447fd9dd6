use pedelec::{skills, tool};

struct Page {
    title: String,
}

/// Opens a page.
#[tool]
fn open_page() -> Page {
    Page { title: String::new() }
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
