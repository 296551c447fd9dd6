use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    point: (i32, i32),
    value: serde_json::Value,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
