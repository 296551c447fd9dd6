//! The counter skills driven by a scripted model through each provider's API shapes, with
//! no network: what an agent loop that calls OpenAI, Anthropic or Gemini directly does.
//!
//! ```sh
//! cargo run --example agent_loop -- --provider anthropic   # or openai, openai-responses, gemini
//! ```
//!
//! It prints the request's `tools` (what [`Export::tools`] gives), then takes a recorded
//! model response (the JSON each provider sends back, tool calls included: a valid call,
//! arguments the session rejects, a tool that does not exist, a change larger than the
//! approver allows), hands every tool call to [`Session::call_provider_with`] (as the
//! counter's editor; every `update_counter` waits for the session's approver), and prints
//! the messages to send back on the next turn.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt::Write as _;

use pedelec::context::{Approval, ApprovalRequest};
use pedelec::export::{Export, ExportOptions, Target};
use pedelec::{CallOptions, Session};
use serde_json::{Value, json};

#[allow(dead_code, reason = "only the skills and the counter are used here")]
#[path = "counter.rs"]
mod counter;

/// A recorded model response that asks for tool calls, as `provider` sends it.
fn recorded_response(target: Target) -> Value {
    match target {
        Target::OpenAiChat => json!({
            "id": "chatcmpl-BfX2pQ7Yx1kq9VtR3nM8",
            "object": "chat.completion",
            "created": 1_764_738_000,
            "model": "gpt-4.1-2025-04-14",
            "choices": [{
                "index": 0,
                "message": {
                    "role": "assistant",
                    "content": null,
                    "tool_calls": [
                        {"id": "call_Wb1JdU8ZpX3mQ2tL7cVn4sRk", "type": "function",
                         "function": {"name": "get_current_page", "arguments": "{}"}},
                        {"id": "call_9hKq2LmN4pR7sT1vX3zB6cDf", "type": "function",
                         "function": {"name": "update_counter", "arguments": "{\"delta\":2}"}},
                        {"id": "call_3xYz8WvU5tS2rQ9pO6nM1lKj", "type": "function",
                         "function": {"name": "update_counter", "arguments": "{\"delta\":\"two\"}"}},
                        {"id": "call_7aBc4DeF1gHi8JkL5mNo2PqR", "type": "function",
                         "function": {"name": "reset_counter", "arguments": "{}"}},
                        {"id": "call_5sTu2VwX9yZa6BcD3eFg8HiJ", "type": "function",
                         "function": {"name": "update_counter", "arguments": "{\"delta\":50}"}}
                    ],
                    "refusal": null
                },
                "finish_reason": "tool_calls"
            }],
            "usage": {"prompt_tokens": 151, "completion_tokens": 88, "total_tokens": 239}
        }),
        Target::OpenAiResponses => json!({
            "id": "resp_68b9f1c2a4e08190b5e3d7f6a1c2b3d4",
            "object": "response",
            "status": "completed",
            "model": "gpt-4.1-2025-04-14",
            "output": [
                {"type": "function_call", "id": "fc_68b9f1c3e5a88190a1b2c3d4e5f6a7b8",
                 "call_id": "call_Wb1JdU8ZpX3mQ2tL7cVn4sRk", "name": "get_current_page",
                 "arguments": "{}", "status": "completed"},
                {"type": "function_call", "id": "fc_68b9f1c3e5c48190b2c3d4e5f6a7b8c9",
                 "call_id": "call_9hKq2LmN4pR7sT1vX3zB6cDf", "name": "update_counter",
                 "arguments": "{\"delta\":2}", "status": "completed"},
                {"type": "function_call", "id": "fc_68b9f1c3e5d08190c3d4e5f6a7b8c9d0",
                 "call_id": "call_3xYz8WvU5tS2rQ9pO6nM1lKj", "name": "update_counter",
                 "arguments": "{\"delta\":\"two\"}", "status": "completed"},
                {"type": "function_call", "id": "fc_68b9f1c3e5e48190d4e5f6a7b8c9d0e1",
                 "call_id": "call_7aBc4DeF1gHi8JkL5mNo2PqR", "name": "reset_counter",
                 "arguments": "{}", "status": "completed"},
                {"type": "function_call", "id": "fc_68b9f1c3e5f88190e5f6a7b8c9d0e1f2",
                 "call_id": "call_5sTu2VwX9yZa6BcD3eFg8HiJ", "name": "update_counter",
                 "arguments": "{\"delta\":50}", "status": "completed"}
            ]
        }),
        Target::Anthropic => json!({
            "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [
                {"type": "text", "text": "I'll read the page, then update the counter."},
                {"type": "tool_use", "id": "toolu_01A09q90qw90lq917835lq9",
                 "name": "get_current_page", "input": {}},
                {"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
                 "name": "update_counter", "input": {"delta": 2}},
                {"type": "tool_use", "id": "toolu_01Bq3v2mWc8kLp5sR9tY4uXz",
                 "name": "update_counter", "input": {"delta": "two"}},
                {"type": "tool_use", "id": "toolu_01Hn6gFd2sAq9wEr4tYu7iOp",
                 "name": "reset_counter", "input": {}},
                {"type": "tool_use", "id": "toolu_01Kp8sDf3gHj5kLm2nBv9cXz",
                 "name": "update_counter", "input": {"delta": 50}}
            ],
            "stop_reason": "tool_use",
            "stop_sequence": null,
            "usage": {"input_tokens": 472, "output_tokens": 131}
        }),
        Target::Gemini | Target::GeminiOpenApi | Target::Mcp => json!({
            "candidates": [{
                "content": {
                    "role": "model",
                    "parts": [
                        {"functionCall": {"name": "get_current_page", "args": {}}},
                        {"functionCall": {"name": "update_counter", "args": {"delta": 2}}},
                        {"functionCall": {"name": "update_counter", "args": {"delta": "two"}}},
                        {"functionCall": {"name": "reset_counter", "args": {}}},
                        {"functionCall": {"name": "update_counter", "args": {"delta": 50}}}
                    ]
                },
                "finishReason": "STOP",
                "index": 0
            }],
            "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 48, "totalTokenCount": 168},
            "modelVersion": "gemini-2.5-flash"
        }),
    }
}

/// The tool calls of a response, found where each provider puts them.
fn tool_calls(target: Target, response: &Value) -> Vec<Value> {
    let list = |pointer: &str| {
        response
            .pointer(pointer)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    match target {
        Target::OpenAiChat => list("/choices/0/message/tool_calls"),
        Target::OpenAiResponses => list("/output")
            .into_iter()
            .filter(|item| item["type"] == "function_call")
            .collect(),
        Target::Anthropic => list("/content")
            .into_iter()
            .filter(|block| block["type"] == "tool_use")
            .collect(),
        Target::Gemini | Target::GeminiOpenApi | Target::Mcp => list("/candidates/0/content/parts")
            .into_iter()
            .filter(|part| part.get("functionCall").is_some())
            .collect(),
    }
}

/// What the agent sends back on the next turn: the result messages in their envelope.
fn next_turn(target: Target, results: Vec<Value>) -> Value {
    match target {
        // One `role: "tool"` message per call, appended to `messages`.
        Target::OpenAiChat => Value::Array(results),
        // `function_call_output` items, appended to `input`.
        Target::OpenAiResponses => json!({"input": results}),
        Target::Anthropic => json!({"role": "user", "content": results}),
        Target::Gemini | Target::GeminiOpenApi | Target::Mcp => {
            json!({"role": "user", "parts": results})
        }
    }
}

/// The person in the loop, scripted: a step of the counter of at most 5 is approved, a
/// larger one is not.
async fn approver(request: ApprovalRequest) -> Approval {
    match request.args()["delta"].as_i64() {
        Some(delta) if delta.abs() <= 5 => Approval::Approve,
        _ => Approval::Deny("steps larger than 5 need a second look".to_owned()),
    }
}

/// The whole scripted exchange for one provider, as printed.
pub async fn transcript(target: Target) -> Result<String, Box<dyn std::error::Error>> {
    let mut skills = counter::ToolName::skills();
    // Here every change of the counter waits for approval (`#[tool(approval)]` on a tool
    // says the same at compile time).
    for tool in skills.tools_mut() {
        if tool.name() == counter::ToolName::UpdateCounter.as_str() {
            *tool = tool.clone().with_approval(true);
        }
    }
    let export: Export = counter::ToolName::skills()
        .untyped()
        .export(target, ExportOptions::default())?;
    let session: Session<counter::ToolName> = Session::builder(skills)
        .state(counter::Counter::default())
        .approver(approver)
        .create()?;
    let mut out = String::new();
    writeln!(out, "# {} ({target})", target.title())?;
    writeln!(
        out,
        "\n## request `tools`\n{}",
        serde_json::to_string_pretty(export.tools())?
    )?;
    let response = recorded_response(target);
    let mut results = Vec::new();
    for (i, call) in tool_calls(target, &response).iter().enumerate() {
        writeln!(
            out,
            "\n## tool call {}\n{}",
            i + 1,
            serde_json::to_string(call)?
        )?;
        // The agent acts for the counter's editor (`update_counter` requires `counter:write`).
        let options = CallOptions::new().caller(counter::editor());
        let message = session.call_provider_with(&export, call, options).await;
        writeln!(out, "-> {}", serde_json::to_string(&message)?)?;
        results.push(message);
    }
    writeln!(
        out,
        "\n## next turn\n{}",
        serde_json::to_string_pretty(&next_turn(target, results))?
    )?;
    Ok(out)
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut target = Target::Anthropic;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--provider" => {
                let name = args
                    .next()
                    .ok_or("`--provider` needs a value, like `anthropic`")?;
                target = name.parse()?;
            }
            other => {
                return Err(format!(
                    "unknown argument `{other}`; usage: agent_loop --provider \
                     <openai|openai-responses|anthropic|gemini|gemini-openapi>"
                )
                .into());
            }
        }
    }
    print!("{}", transcript(target).await?);
    Ok(())
}
