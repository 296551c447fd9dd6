use pedelec::{ToolArgs, ToolCallContext, ToolError, skills, tool};
use serde::Deserialize;

#[derive(Deserialize, ToolArgs)]
struct Args {
    n: i64,
}

/// Doubles a number.
#[tool]
async fn double(args: Args) -> Result<i64, ToolError> {
    Ok(args.n * 2)
}

/// Negates a number.
#[tool]
async fn negate(args: Args) -> Result<i64, ToolError> {
    Ok(-args.n)
}

skills![guidance = "Use them.", tools = [double]];

fn main() {
    let session = pedelec::create_session(ToolName::skills()).unwrap();
    session.on_tool::<negate>(|args, _ctx: ToolCallContext| async move { Ok(-args.n) });
    session.on_tool::<double>(|args, _ctx| async move { Ok(args.n * 2) });
}
