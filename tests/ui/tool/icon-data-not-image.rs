use pedelec::{skills, tool};

/// Updates the counter.
#[tool(icon = "data:text/html;base64,PGI+MTwvYj4=")]
fn update_counter() {}

skills![guidance = "Use it.", tools = [update_counter]];

fn main() {
    let _ = update_counter::definition();
    let _ = ToolName::UpdateCounter;
}
