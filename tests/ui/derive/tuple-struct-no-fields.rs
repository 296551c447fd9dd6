use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Nothing();

fn main() {
    let _ = pedelec::schema_for::<Nothing>();
}
