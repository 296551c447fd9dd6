use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[serde(untagged)]
enum Target {
    Id(u64),
    Nobody,
}

fn main() {
    let _ = pedelec::schema_for::<Target>();
}
