use pedelec::ToolArgs;

mod text {
    pub fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        serde::Deserialize::deserialize(d)
    }
}

#[derive(ToolArgs, serde::Deserialize)]
enum Note {
    #[serde(with = "text")]
    Text(String),
    Empty,
}

fn main() {
    let _ = pedelec::schema_for::<Note>();
}
