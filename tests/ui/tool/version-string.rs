use pedelec::{skills, tool, Tool};

/// Updates the counter.
#[tool(version = "2")]
fn update_counter() {}

skills![guidance = "Use it.", tools = [update_counter]];

fn main() {
    let _ = update_counter::definition();
    let _: u32 = update_counter::VERSION;
    let _ = ToolName::UpdateCounter;
}
