use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[serde(transparent)]
struct Pair {
    a: u8,
    b: u8,
}

fn main() {
    let _ = pedelec::schema_for::<Pair>();
}
