use pedelec::{skills, tool};

const ICON: &str = "https://example.com/counter.svg";

/// Updates the counter.
#[tool(icon = ICON)]
fn update_counter() {}

skills![guidance = "Use it.", tools = [update_counter]];

fn main() {
    let _ = update_counter::definition();
    let _ = ToolName::UpdateCounter;
}
