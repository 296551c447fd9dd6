use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(minimum = -1)]
    count: u8,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
