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

skills![
    guidance = ,
    tools = [get_current_page, update_counter],
];

fn main() {
    let _ = ToolName::ALL;
    let _ = ToolName::GetCurrentPage;
    let _ = ToolName::skills();
    let _ = ToolName::UpdateCounter;
}
