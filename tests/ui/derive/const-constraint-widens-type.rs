use pedelec::ToolArgs;

type Percent = u8;

#[derive(ToolArgs)]
struct Args {
    #[arg(maximum = 1000)]
    level: Percent,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
