use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(max_length = 100_000_000_000_000_000_000)]
    query: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
