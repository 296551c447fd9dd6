use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(max_items = 3)]
    name: Option<String>,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
