use pedelec::{ToolArgs, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Place {
    /// The region.
    #[arg(mcp_header = "region")]
    region: String,
}

#[derive(Deserialize, ToolArgs)]
struct Args {
    /// Where from.
    #[arg(mcp_header = "Region")]
    region: String,
    /// Where to.
    to: Place,
}

/// Moves a thing.
#[tool]
async fn relocate(args: Args) -> String {
    format!("{} {}", args.region, args.to.region)
}

pedelec::skills![guidance = "Use it.", tools = [relocate]];

fn main() {}
