use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[serde(default)]
    #[arg(pattern = "^[a-z]+$", default = "Rust")]
    slug: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
