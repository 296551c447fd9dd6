use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(pattern = "^(a|b$")]
    code: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
