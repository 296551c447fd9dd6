use pedelec::tool;

/// Flag given a value.
#[tool(approval = true)]
fn a() -> bool {
    true
}

/// The default, written out.
#[tool(approval = false)]
fn b() -> bool {
    true
}

/// Not a path.
#[tool(approval = "manager")]
fn c() -> bool {
    true
}

/// Arguments in parentheses.
#[tool(approval(always))]
fn d() -> bool {
    true
}

/// Misspelled.
#[tool(aproval)]
fn e() -> bool {
    true
}

fn main() {}
