use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
#[serde(untagged)]
enum Lookup {
    Missing,
    Found(u8),
    Unknown,
}

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Lookup>();
}
