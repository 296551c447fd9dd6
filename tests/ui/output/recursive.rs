use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Tree>();
}
