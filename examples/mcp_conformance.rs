//! The tools the official MCP conformance suite calls (`test_simple_text`,
//! `test_error_handling`, `test_tool_with_progress`), served over streamable HTTP at
//! `http://127.0.0.1:8080/mcp` (or the address given) for the suite's tools-server
//! scenarios (`server-initialize`, `ping`, `tools-list`, `tools-call-simple-text`,
//! `tools-call-error`, `tools-call-with-progress`, `dns-rebinding-protection`), run by hand
//! with `@modelcontextprotocol/conformance` from npm:
//!
//! ```sh
//! cargo run --example mcp_conformance -- 127.0.0.1:8080 &
//! node --import "$dir/register.mjs" "$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js" \
//!     server --url http://localhost:8080/mcp --scenario tools-call-with-progress
//! ```

use std::time::Duration;

use pedelec::{ToolCallContext, ToolError, skills, tool};

/// Returns a simple text.
#[tool]
async fn test_simple_text() -> Result<String, ToolError> {
    Ok("This is a simple text response for testing.".into())
}

/// Always fails.
#[tool]
async fn test_error_handling() -> Result<(), ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Reports progress 0/100, 50/100 and 100/100, 50 ms apart.
#[tool]
async fn test_tool_with_progress(ctx: ToolCallContext) -> Result<String, ToolError> {
    ctx.progress(0, Some(100), "started");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(50, Some(100), "halfway");
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.progress(100, Some(100), "done");
    Ok("Progress test completed".into())
}

skills![
    guidance = "Tools of the MCP conformance suite.",
    tools = [
        test_simple_text,
        test_error_handling,
        test_tool_with_progress
    ],
];

#[tokio::main]
async fn main() -> Result<(), pedelec::Error> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8080".into());
    eprintln!("serving the conformance tools at http://{addr}/mcp (Ctrl-C to stop)");
    pedelec::Session::builder(ToolName::skills())
        .create()?
        .serve(pedelec::bridge::McpHttp::bind(addr))
        .await
}
