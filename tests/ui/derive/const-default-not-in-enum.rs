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
    #[arg(default = "medium")]
    speed: Speed,
}

#[derive(ToolArgs)]
struct Outer {
    args: Args,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Outer>();
    root::<Outer>();
}
