use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
struct Point(f64, f64);

fn main() {
    let _ = pedelec::output::OutputSchema::of::<Point>();
}
