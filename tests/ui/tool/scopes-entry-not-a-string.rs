use pedelec::{skills, tool};

/// Updates the counter.
#[tool(scopes = ["counter:read", counter_write])]
fn update_counter() {}

skills![guidance = "Use it.", tools = [update_counter]];

fn main() {
    let _ = update_counter::definition();
    let _ = ToolName::UpdateCounter;
}
