use pedelec::{skills, tool};

/// Reads the current page.
#[tool]
fn get_current_page() -> &'static str {
    "page"
}

skills![
    guidance = "Read current state before making changes.",
    tools = [get_current_page],
    targets = [opnai, claude, anthropic, anthropic, "gemini"],
];

fn main() {
    let _ = ToolName::GetCurrentPage;
}
