use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    query: String,
    #[serde(skip)]
    #[arg(max_length = 10)]
    cache: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
