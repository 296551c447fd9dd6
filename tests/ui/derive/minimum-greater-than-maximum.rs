use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(minimum = 10, maximum = 5)]
    count: i32,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
