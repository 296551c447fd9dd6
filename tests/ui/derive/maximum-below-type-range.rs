use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(maximum = -5)]
    count: u16,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
