// A tool whose output has no schema compiles and lists none; asking for the schema of
// such a type directly is the error.
use pedelec::ToolOutput;

fn main() {
    let _ = pedelec::output::OutputSchema::of::<serde_json::Value>();
    let _ = <() as ToolOutput>::OUTPUT_SCHEMA;
}
