use pedelec::{ToolArgs, ToolCallContext, ToolError, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Street {
    /// The street's name.
    name: String,
}

/// An address with a nested street: no form a person fills in can show it.
#[derive(Deserialize, ToolArgs)]
struct Address {
    /// The street.
    street: Street,
}

/// Asks where to ship.
#[tool]
async fn ship(ctx: ToolCallContext) -> Result<String, ToolError> {
    let _answer = ctx.elicit::<Address>("address", "Where to?").await?;
    Ok(String::new())
}

pedelec::skills![guidance = "Use it.", tools = [ship]];

fn main() {
    let _ = ToolName::skills();
}
