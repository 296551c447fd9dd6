use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[serde(tag = "kind")]
enum Event {
    Click { x: i32 },
    #[serde(other)]
    Unknown,
}

fn main() {
    let _ = pedelec::schema_for::<Event>();
}
