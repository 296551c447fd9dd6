use pedelec::{skills, tool};

/// Reads the current page.
#[tool]
fn get_current_page() -> &'static str {
    "page"
}

/// Opens the settings page of the account of the user who is currently signed in.
#[tool(name = "open_the_settings_page_of_the_account_of_the_user_who_is_signed_in")]
fn open_settings() -> bool {
    true
}

skills![
    guidance = "Read current state before making changes.",
    tools = [get_current_page, open_settings],
    targets = [mcp],
];

fn main() {}
