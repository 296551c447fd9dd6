use pedelec::ToolArgs;
use serde::Deserialize;

#[derive(ToolArgs, Deserialize)]
enum Shape {
    #[arg(title = "A circle")]
    Circle { radius: f64 },
    #[arg(title = "Nothing")]
    Empty,
}

#[derive(ToolArgs, Deserialize)]
#[serde(tag = "kind")]
enum Tagged {
    #[arg(title = "First")]
    First,
    Second,
}

#[derive(ToolArgs, Deserialize)]
enum Blank {
    #[arg(title = " ")]
    Only,
}

#[derive(ToolArgs, Deserialize)]
struct Args {
    #[arg(title = "Size")]
    size: u32,
}

fn main() {}
