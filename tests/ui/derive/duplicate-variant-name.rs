use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Fast,
    #[serde(rename = "fast")]
    Quick,
}

fn main() {
    let _ = pedelec::schema_for::<Mode>();
}
