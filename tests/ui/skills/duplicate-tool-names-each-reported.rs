// Every reuse of a name is reported at its entry, naming the first tool that uses it; a
// name used three times gives two errors.
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

mod again {
    use pedelec::tool;

    /// Reads the current page, again.
    #[tool(name = "get_current_page")]
    pub fn page() -> &'static str {
        "page"
    }

    /// Updates the counter, again.
    #[tool(name = "update_counter")]
    pub fn update() -> i64 {
        2
    }

    /// Updates the counter, a third time.
    #[tool(name = "update_counter")]
    pub fn update_more() -> i64 {
        3
    }
}

skills![
    guidance = "Read current state before making changes.",
    tools = [
        get_current_page,
        update_counter,
        again::page,
        again::update,
        again::update_more,
    ],
];

fn main() {}
