use pedelec::ToolArgs;

#[derive(ToolArgs)]
enum Never {
    #[serde(skip)]
    Hidden,
}

fn main() {
    let _ = pedelec::schema_for::<Never>();
}
