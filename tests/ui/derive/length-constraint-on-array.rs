use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(max_length = 3)]
    tags: Vec<String>,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
