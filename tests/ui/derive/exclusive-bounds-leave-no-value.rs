use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(exclusive_minimum = 1.5, maximum = 1.5)]
    ratio: f64,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
