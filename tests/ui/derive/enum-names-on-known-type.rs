use pedelec::ToolArgs;
use serde::Deserialize;

#[derive(ToolArgs, Deserialize)]
enum Choice {
    #[arg(title = "First")]
    First,
    Second,
}

#[derive(ToolArgs, Deserialize)]
struct Args {
    #[arg(enum_names)]
    name: String,
    #[arg(enum_names)]
    choices: Vec<Choice>,
    #[arg(enum_names = false)]
    choice: Choice,
}

fn main() {}
