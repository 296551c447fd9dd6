//! The fixture server of the official MCP conformance suite: the tools its server scenarios
//! call, by the names and with the behaviour the suite's source gives them, served over
//! streamable HTTP at `http://127.0.0.1:8080/mcp` (or the address given; port 0 picks a free
//! one, and the first line printed names it). `--stateful` keeps `Mcp-Session-Id` sessions
//! for clients of the revisions before 2026-07-28 (whose requests are served statelessly
//! either way). `cargo xtask conformance` builds it, starts it and runs the suite.
//!
//! Served here: `test_simple_text`, `test_error_handling`, `test_tool_with_progress`,
//! `test_reconnection` (SSE polling, 2025-11-25) and `greet` (the tasks extension's
//! synchronous tool). Not expressible with pedelec's public API yet, so not served (see
//! `cargo xtask conformance` for what fails without them):
//!
//! - image, audio, embedded-resource and mixed content (`test_image_content`,
//!   `test_audio_content`, `test_embedded_resource`, `test_multiple_content_types`): a
//!   tool's value always becomes one JSON text block;
//! - log messages from a tool (`test_tool_with_logging`, and `logging/setLevel`);
//! - requests to the client from a tool: elicitation (`test_elicitation`,
//!   `test_elicitation_sep1034_defaults`, `test_elicitation_sep1330_enums`), sampling
//!   (`test_sampling`), and their 2026-07-28 form as input-required results
//!   (`test_input_required_result_*`);
//! - a protocol error from a tool: `test_missing_capability` (`-32021` when the client did
//!   not declare `sampling`);
//! - a schema with `$schema`, `$defs`/`$anchor`, `allOf`/`anyOf`, `if`/`then`/`else`
//!   (`json_schema_2020_12_tool`), and `x-mcp-header` parameters (`test_custom_header`):
//!   the argsSchema's wire form does not take those keywords;
//! - task support (the tasks extension): `slow_compute`, `failing_job`,
//!   `protocol_error_job`, `confirm_delete`, `multi_input`, `test_tool_with_task`.

use std::time::Duration;

use pedelec::{ToolArgs, ToolCallContext, ToolError, skills, tool};
use serde::Deserialize;

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

/// Answers after 100 ms: the suite watches its SSE stream for a priming event and a
/// reconnection (`server-sse-polling`).
#[tool]
async fn test_reconnection() -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(100)).await;
    Ok("Reconnection test completed".into())
}

#[derive(Deserialize, ToolArgs)]
struct GreetArgs {
    /// Who to greet.
    name: String,
}

/// Greets by name (the tasks extension's synchronous tool).
#[tool]
async fn greet(args: GreetArgs) -> Result<String, ToolError> {
    Ok(format!("Hello, {}!", args.name))
}

skills![
    guidance = "Tools of the MCP conformance suite.",
    tools = [
        test_simple_text,
        test_error_handling,
        test_tool_with_progress,
        test_reconnection,
        greet
    ],
];

#[tokio::main]
async fn main() -> Result<(), pedelec::Error> {
    let mut addr = "127.0.0.1:8080".to_owned();
    let mut stateful = false;
    for arg in std::env::args().skip(1) {
        match arg.as_str() {
            "--stateful" => stateful = true,
            _ => addr = arg,
        }
    }
    // Bound here so that port 0 works: the line below names the port it got
    // (`cargo xtask conformance` reads it).
    let listener = tokio::net::TcpListener::bind(&addr).await.map_err(|e| {
        pedelec::Error::new(
            pedelec::ErrorCode::InvalidInput,
            format!("cannot listen on `{addr}`: {e}"),
        )
    })?;
    let bound = listener.local_addr().map_or(addr, |a| a.to_string());
    let mode = if stateful { "stateful" } else { "stateless" };
    eprintln!("serving the conformance tools at http://{bound}/mcp ({mode}; Ctrl-C to stop)");
    pedelec::Session::builder(ToolName::skills())
        .create()?
        .serve(pedelec::bridge::McpHttp::from_listener(listener).stateful(stateful))
        .await
}
