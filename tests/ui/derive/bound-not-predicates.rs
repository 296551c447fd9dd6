use pedelec::ToolArgs;

#[derive(ToolArgs)]
#[arg(bound = "T ToolArgs")]
struct Args<T> {
    value: T,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args<u8>>();
    root::<Args<u8>>();
}
