use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(mcp_header = "MyField")]
    first: String,
    #[arg(mcp_header = "myfield")]
    second: String,
}

fn main() {
    let _ = pedelec::schema_for::<Args>();
}
