use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[serde(default)]
    #[arg(default = [0, 0])]
    rgb: [u8; 3],
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
