use pedelec::ToolOutput;
use serde::{Serialize, Serializer};

fn as_text<S: Serializer>(n: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&n.to_string())
}

#[derive(Serialize, ToolOutput)]
struct Big {
    #[serde(serialize_with = "as_text")]
    value: u64,
}

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Big>();
}
