use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg]
    count: u32,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
