use pedelec::ToolArgs;

type Level = u8;

#[derive(ToolArgs)]
struct Args {
    #[arg(minimum = 300)]
    level: Level,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
