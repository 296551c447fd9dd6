use pedelec::tool;

/// Flag given a value.
#[tool(exactly_once = true)]
fn a() -> bool {
    true
}

/// Arguments in parentheses.
#[tool(exactly_once(24h))]
fn b() -> bool {
    true
}

/// Misspelled.
#[tool(exactlyonce)]
fn c() -> bool {
    true
}

fn main() {}
