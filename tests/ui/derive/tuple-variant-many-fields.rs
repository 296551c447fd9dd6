use pedelec::ToolArgs;

#[derive(ToolArgs)]
enum Action {
    Stop,
    Move(i32, i32),
}

fn main() {
    let _ = pedelec::schema_for::<Action>();
}
