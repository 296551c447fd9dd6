use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Name(String);

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Name>();
    root::<Name>();
}
