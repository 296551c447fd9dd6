use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(max_length = 2)]
    initial: char,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
