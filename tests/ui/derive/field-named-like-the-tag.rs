use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[serde(tag = "kind")]
enum Shape {
    Circle { kind: String, radius: f64 },
}

fn main() {
    let _ = pedelec::schema_for::<Shape>();
}
