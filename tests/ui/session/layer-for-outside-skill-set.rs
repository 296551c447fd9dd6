use pedelec::{ToolError, skills, tool};

/// Reads a number.
#[tool]
async fn read() -> Result<i64, ToolError> {
    Ok(1)
}

/// Writes a number.
#[tool]
async fn write() -> Result<i64, ToolError> {
    Ok(2)
}

skills![pub enum ToolName, guidance = "Read.", tools = [read]];

mod other {
    use super::write;
    pedelec::skills![pub enum Other, guidance = "Write.", tools = [write]];
}

fn main() {
    let identity = tower::layer::util::Identity::new();
    // A tool of another skill set, and a name as a string: `layer_for` takes this set's enum.
    let _ = pedelec::Session::builder(ToolName::skills())
        .layer_for(other::Other::Write, identity.clone())
        .layer_for("write", identity.clone())
        .layer_for(ToolName::Read, identity);
}
