use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Circle {
    radius: f64,
}

#[derive(ToolArgs)]
#[serde(tag = "kind")]
enum Shape {
    Circle(Circle),
    Empty,
}

fn main() {
    let _ = pedelec::schema_for::<Shape>();
}
