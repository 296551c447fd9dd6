use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize)]
struct Opaque {
    bytes: Vec<u8>,
}

#[derive(Serialize, ToolOutput)]
struct Page {
    title: String,
    raw: Opaque,
}

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Page>();
}
