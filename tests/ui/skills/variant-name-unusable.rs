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

/// A tool whose name makes a keyword in `PascalCase`.
#[tool]
fn self_() {}

skills![
    guidance = "Read current state before making changes.",
    tools = [get_current_page, update_counter, self_],
];

fn main() {
    let _ = ToolName::ALL;
    let _ = ToolName::GetCurrentPage;
    let _ = ToolName::skills();
    let _ = ToolName::UpdateCounter;
    let _ = self_::definition();
}
