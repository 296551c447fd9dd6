use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
#[serde(tag = "kind")]
enum Event {
    Moved {
        #[serde(rename(serialize = "kind"))]
        to: String,
    },
}

fn main() {
    let _ = pedelec::OutputSchema::of::<Event>();
}
