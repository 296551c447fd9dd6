use pedelec::{tool};

/// A page.
#[tool]
struct Page {
    title: String,
}

fn main() {
    let page = Page { title: String::new() };
    let _ = page.title;
}
