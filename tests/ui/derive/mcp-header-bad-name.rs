use pedelec::ToolArgs;

#[derive(ToolArgs)]
struct Args {
    #[arg(mcp_header = "My Region")]
    region: String,
    #[arg(mcp_header = "Region:Primary")]
    primary: String,
    #[arg(mcp_header = "Région")]
    accented: String,
    #[arg(mcp_header = "")]
    empty: String,
}

fn main() {
    let _ = pedelec::schema_for::<Args>();
}
