use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
struct Done;

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Done>();
}
