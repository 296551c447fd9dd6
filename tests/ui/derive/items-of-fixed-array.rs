use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(min_items = 1)]
    rgb: [u8; 3],
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
