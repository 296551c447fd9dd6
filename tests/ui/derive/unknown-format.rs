use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(format = "date_time")]
    since: String,
}

fn root<T: pedelec::schema::ToolArgsRoot>() {}

fn main() {
    let _ = pedelec::schema_for::<Args>();
    root::<Args>();
}
