use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
#[serde(rename_all(serialize = "UPPERCASE"))]
struct Page {
    id: u32,
    #[serde(rename(serialize = "ID"))]
    other_id: u32,
}

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Page>();
}
