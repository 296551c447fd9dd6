use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(maximum = 100)]
    name: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
