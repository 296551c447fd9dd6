use pedelec::ToolArgs;

#[derive(ToolArgs)]
enum Action {
    Stop(),
}

fn main() {
    let _ = pedelec::schema_for::<Action>();
}
