use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[serde(default)]
    #[arg(max_length = 3, default = "rust")]
    code: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
