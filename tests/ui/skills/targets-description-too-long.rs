use pedelec::{skills, tool};

const LONG: &str = concat!(
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page. ",
    "Reads the current page. ", "Reads the current page. ", "Reads the current page.",
);

#[tool(description = LONG)]
fn get_current_page() -> &'static str {
    "page"
}

skills![
    guidance = "Read current state before making changes.",
    tools = [get_current_page],
    targets = [openai],
];

fn main() {}
