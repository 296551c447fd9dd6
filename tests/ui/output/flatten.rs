use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
struct Paging {
    page: u32,
}

#[derive(Serialize, ToolOutput)]
struct Results {
    hits: Vec<String>,
    #[serde(flatten)]
    paging: Paging,
}

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Results>();
}
