use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[serde(default)]
    #[arg(default = 256)]
    level: u8,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
