use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[serde(default)]
    #[arg(max_items = 1, default = ["a", "b"])]
    tags: Vec<String>,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
