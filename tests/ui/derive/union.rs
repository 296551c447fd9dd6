use pedelec::ToolArgs;

#[derive(ToolArgs)]
union Bits {
    int: u32,
    float: f32,
}

fn main() {
    let _ = pedelec::schema_for::<Bits>();
}
