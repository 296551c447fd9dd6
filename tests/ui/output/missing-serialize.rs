use pedelec::ToolOutput;

#[derive(ToolOutput)]
struct Page {
    title: String,
}

fn main() {
    let _ = pedelec::OutputSchema::of::<Page>();
}
