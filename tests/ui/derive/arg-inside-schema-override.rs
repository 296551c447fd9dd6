use pedelec::ToolArgs;

const RGB: pedelec::schema::SchemaNode = pedelec::schema::SchemaNode::string().with_pattern("^#[0-9a-f]{6}$");

#[derive(ToolArgs)]
#[arg(schema = RGB)]
struct Colour {
    #[arg(maximum = 255)]
    r: u8,
    g: u8,
    b: u8,
}

fn main() {
    let _ = pedelec::schema_for::<Colour>();
}
