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

mod counter {
    use pedelec::tool;

    /// Updates the counter, again.
    #[tool(name = "update_counter")]
    pub fn update() -> i64 {
        2
    }
}

skills![
    guidance = "Read current state before making changes.",
    tools = [get_current_page, update_counter, counter::update],
];

fn main() {
    let _ = ToolName::ALL;
    let _ = ToolName::GetCurrentPage;
    let _ = ToolName::skills();
    let _ = ToolName::Update;
}
