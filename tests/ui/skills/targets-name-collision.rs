use pedelec::{skills, tool};

/// Opens a URL.
#[tool(name = "nav.open")]
fn nav_open() -> bool {
    true
}

/// Opens a URL, another way.
#[tool(name = "nav_open")]
fn nav_open_too() -> bool {
    true
}

skills![
    guidance = "Navigate.",
    tools = [nav_open, nav_open_too],
    targets = [gemini, anthropic],
];

fn main() {}
