use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(max_length = 2, min_length = 5)]
    code: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
