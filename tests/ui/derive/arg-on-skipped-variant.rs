use pedelec::ToolArgs;

#[derive(ToolArgs)]
enum Mode {
    Fast,
    #[serde(skip_deserializing)]
    #[arg(description = "Never sent.")]
    Internal,
}

fn main() {
    let _ = pedelec::schema_for::<Mode>();
}
