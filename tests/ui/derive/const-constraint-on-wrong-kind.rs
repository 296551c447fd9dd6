use pedelec::ToolArgs;

type Count = u32;

#[derive(ToolArgs)]
struct Args {
    #[arg(description = "How many.", min_length = 1)]
    count: Count,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
