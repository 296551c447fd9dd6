use pedelec::ToolArgs;

fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    serde::Deserialize::deserialize(d)
}

#[derive(ToolArgs, serde::Deserialize)]
struct Args {
    #[serde(deserialize_with = "lenient")]
    count: u32,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
