use pedelec::{ToolArgs, ToolCallContext, ToolError, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
enum Speed {
    Standard,
    Express,
}

/// A form: strings, numbers, booleans and multiple choices, nothing nested.
#[derive(Deserialize, ToolArgs)]
struct Address {
    /// The street.
    street: String,
    /// The house number.
    number: u32,
    /// Leave it at the door?
    #[serde(default)]
    door: bool,
    /// How fast.
    speeds: Vec<Speed>,
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
