use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(maximum = 100_000_000_000_000_000_000)]
    count: u64,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
