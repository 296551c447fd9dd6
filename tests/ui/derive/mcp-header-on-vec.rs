use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(mcp_header = "Items")]
    items: Vec<String>,
}

fn main() {
    let _ = pedelec::schema_for::<Args>();
}
