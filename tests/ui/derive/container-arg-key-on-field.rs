use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args<T> {
    #[arg(bound = "T: pedelec::ToolArgs")]
    value: T,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args<u8>>();
    root::<Args<u8>>();
}
