use pedelec::ToolArgs;

#[derive(ToolArgs, serde::Deserialize)]
#[serde(rename_all = "camelcase")]
struct Args {
    first_name: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
