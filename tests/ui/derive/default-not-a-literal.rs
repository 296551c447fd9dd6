use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[allow(dead_code)]
enum Speed {
    Slow,
    Fast,
}

#[derive(ToolArgs)]
struct Args {
    #[serde(default)]
    #[arg(default = Speed::Fast)]
    speed: Option<Speed>,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
