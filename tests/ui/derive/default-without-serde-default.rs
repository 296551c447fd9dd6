use pedelec::ToolArgs;

#[derive(ToolArgs, serde::Deserialize)]
struct Args {
    #[arg(default = 5)]
    retries: u32,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
