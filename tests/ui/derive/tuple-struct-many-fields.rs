use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Point(i32, i32);

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Point>();
    root::<Point>();
}
