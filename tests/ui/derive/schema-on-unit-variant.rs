use pedelec::ToolArgs;

const ANY: pedelec::schema::SchemaNode = pedelec::schema::SchemaNode::string();

#[derive(ToolArgs)]
enum Mode {
    #[arg(schema = ANY)]
    Fast,
    Slow,
}

fn main() {
    let _ = pedelec::schema_for::<Mode>();
}
