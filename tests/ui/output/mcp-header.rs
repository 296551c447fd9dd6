use pedelec::ToolOutput;
use serde::Serialize;

#[derive(Serialize, ToolOutput)]
struct Reply {
    #[arg(mcp_header = "Region")]
    region: String,
}

fn main() {}
