use pedelec::ToolArgs;

const ANY: pedelec::SchemaNode = pedelec::SchemaNode::string();

#[derive(ToolArgs)]
enum Mode {
    #[arg(schema = ANY)]
    Fast,
    Slow,
}

fn main() {
    let _ = pedelec::schema_for::<Mode>();
}
