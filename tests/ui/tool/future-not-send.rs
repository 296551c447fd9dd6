use pedelec::{skills, tool};
use std::rc::Rc;

/// Opens a page.
#[tool]
async fn open_page() -> usize {
    let shared = Rc::new(1);
    std::future::ready(()).await;
    *shared
}

skills![guidance = "Use it.", tools = [open_page]];

fn main() {
    let _ = open_page::definition();
    let _ = ToolName::OpenPage;
}
