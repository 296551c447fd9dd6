use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(example = "x")]
    query: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
