use pedelec::{skills, tool};

const LIMIT: u32 = 4;

/// Updates the counter.
#[tool(max_concurrency = LIMIT)]
fn update_counter() {}

skills![guidance = "Use it.", tools = [update_counter]];

fn main() {
    let _ = update_counter::definition();
    let _ = ToolName::UpdateCounter;
}
