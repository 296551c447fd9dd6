use pedelec::ToolArgs;

const POINT: pedelec::schema::SchemaNode = pedelec::schema::SchemaNode::string();

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
