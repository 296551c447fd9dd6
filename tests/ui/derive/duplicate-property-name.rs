use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    name: String,
    #[serde(rename = "name")]
    label: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
