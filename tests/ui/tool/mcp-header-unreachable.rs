use pedelec::{ToolArgs, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Target {
    /// The region.
    #[arg(mcp_header = "Region")]
    region: String,
}

#[derive(Deserialize, ToolArgs)]
struct Args {
    /// Every target: an array, whose items a client cannot mirror into one header.
    targets: Vec<Target>,
}

/// Deploys to every target.
#[tool]
async fn deploy(args: Args) -> String {
    format!("{}", args.targets.len())
}

pedelec::skills![guidance = "Use it.", tools = [deploy]];

fn main() {}
