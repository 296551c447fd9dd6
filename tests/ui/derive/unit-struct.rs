use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct NoArgs;

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<NoArgs>();
    root::<NoArgs>();
}
