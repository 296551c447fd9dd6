use pedelec::{skills, tool};

/// Reads the current page.
#[tool]
fn get_current_page() -> &'static str {
    "page"
}

/// Updates the counter.
#[tool]
fn update_counter() -> i64 {
    1
}

mod v2 {
    use pedelec::tool;

    /// Updates the counter, version 2.
    #[tool(name = "update_counter_v2")]
    pub fn update_counter() -> i64 {
        2
    }
}

skills![
    guidance = "Read current state before making changes.",
    tools = [get_current_page, update_counter, v2::update_counter],
];

fn main() {
    let _ = ToolName::ALL;
    let _ = ToolName::GetCurrentPage;
    let _ = ToolName::skills();
    let _ = ToolName::UpdateCounter;
}
