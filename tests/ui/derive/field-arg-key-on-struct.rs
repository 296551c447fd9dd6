use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[arg(max_length = 10)]
struct Args {
    query: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
