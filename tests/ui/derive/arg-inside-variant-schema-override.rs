use pedelec::ToolArgs;

const POINT: pedelec::SchemaNode = pedelec::SchemaNode::string();

#[derive(ToolArgs)]
enum Place {
    #[arg(schema = POINT)]
    Point {
        #[arg(minimum = 0)]
        x: i32,
    },
    Nowhere,
}

fn main() {
    let _ = pedelec::schema_for::<Place>();
}
