use pedelec::ToolArgs;
use serde::Deserialize;

#[derive(ToolArgs, Deserialize)]
enum Choice {
    First,
    Second,
}

#[derive(ToolArgs, Deserialize)]
struct Args {
    #[arg(enum_names)]
    choice: Choice,
}

fn main() {
    let _ = pedelec::schema_for::<Args>();
}
