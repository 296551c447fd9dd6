use pedelec::ToolArgs;

#[derive(ToolArgs, serde::Deserialize)]
#[serde(from = "String")]
struct Name {
    #[arg(min_length = 1)]
    text: String,
}

impl From<String> for Name {
    fn from(text: String) -> Self {
        Name { text }
    }
}

fn main() {
    let _ = pedelec::schema_for::<Name>();
}
