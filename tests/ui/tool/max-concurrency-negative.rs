use pedelec::{skills, tool};

/// Updates the counter.
#[tool(max_concurrency = -2)]
fn update_counter() {}

skills![guidance = "Use it.", tools = [update_counter]];

fn main() {
    let _ = update_counter::definition();
    let _ = ToolName::UpdateCounter;
}
