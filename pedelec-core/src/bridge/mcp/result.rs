//! How a `tools/call` answer is framed: the `CallToolResult` written from the value's
//! JSON text, an input request, the error of a capability the client did not declare.
//! Shared by calls answered on their request and by tasks.

use rmcp::model::ErrorData;
use serde_json::{Map, Value};

use super::wire;
use crate::context::{InputKind, InputRequest};
use crate::error::ToolError;
use crate::output::OutputSchema;

/// An input request on the wire: `{"method", "params"}`.
pub(super) fn input_request(request: &InputRequest) -> Value {
    serde_json::json!({ "method": request.method(), "params": request.params() })
}

/// `-32021` for input the client did not declare, naming the capability.
pub(super) fn missing_capability(kind: InputKind) -> ErrorData {
    let mut required = Map::new();
    required.insert(kind.capability().to_owned(), Value::Object(Map::new()));
    ErrorData::new(
        rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "Missing required client capability: the tool asked for `{}`, which the client did not declare",
            kind.capability()
        ),
        Some(serde_json::json!({ "requiredCapabilities": required })),
    )
}

/// How a tool's value becomes a `CallToolResult`.
#[derive(Clone, Copy)]
pub(super) struct Frame {
    /// The tool's output schema.
    pub(super) output: Option<OutputSchema>,
    /// A gateway's tool: its value is the remote's result, and its error's
    /// `details.result` the remote's error result, each answered as is.
    pub(super) remote: bool,
}

impl Frame {
    /// A value without an output schema.
    pub(super) const PLAIN: Frame = Frame {
        output: None,
        remote: false,
    };
}

/// A `CallToolResult`, written from the value's JSON text.
pub(super) fn write_call_result(
    out: &mut Vec<u8>,
    result: &Result<String, ToolError>,
    frame: Frame,
    current: bool,
) {
    if frame.remote && write_remote_result(out, result) {
        if current {
            out.extend_from_slice(b",\"resultType\":\"complete\"");
        }
        out.push(b'}');
        return;
    }
    let output = frame.output;
    match result {
        Ok(value) => {
            if output.is_some_and(|o| o.is_content()) {
                out.extend_from_slice(b"{\"content\":");
                out.extend_from_slice(value.as_bytes());
            } else {
                out.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
                if value.starts_with('"') {
                    // A string is its own text: its JSON form is already the JSON string.
                    out.extend_from_slice(value.as_bytes());
                } else {
                    wire::write_str(out, value);
                }
                out.extend_from_slice(b"}]");
                match output {
                    Some(schema) if schema.is_wrapped() => {
                        out.extend_from_slice(b",\"structuredContent\":{\"result\":");
                        out.extend_from_slice(value.as_bytes());
                        out.push(b'}');
                    }
                    Some(_) => {
                        out.extend_from_slice(b",\"structuredContent\":");
                        out.extend_from_slice(value.as_bytes());
                    }
                    None if value.starts_with('{') => {
                        out.extend_from_slice(b",\"structuredContent\":");
                        out.extend_from_slice(value.as_bytes());
                    }
                    None => {}
                }
            }
            out.extend_from_slice(b",\"isError\":false");
        }
        Err(error) => {
            out.extend_from_slice(b"{\"content\":[{\"type\":\"text\",\"text\":");
            let text = serde_json::to_string(error).unwrap_or_else(|_| error.to_string());
            wire::write_str(out, &text);
            out.extend_from_slice(b"}],\"isError\":true");
        }
    }
    if current {
        out.extend_from_slice(b",\"resultType\":\"complete\"");
    }
    out.push(b'}');
}

/// A gateway tool's answer as its remote gave it: the result object (without its closing
/// brace) with `isError`. `false` when the answer is not the remote's (pedelec's own error:
/// invalid args, a timeout, the remote down), which is framed as any other.
fn write_remote_result(out: &mut Vec<u8>, result: &Result<String, ToolError>) -> bool {
    let (object, is_error) = match result {
        Ok(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => (object, false),
            _ => return false,
        },
        Err(error) => match error.details().and_then(|d| d.get("result")) {
            Some(Value::Object(object)) => (object.clone(), true),
            _ => return false,
        },
    };
    let Ok(text) = serde_json::to_vec(&object) else {
        return false;
    };
    // `{…}` without its `}`, then `isError`.
    out.extend_from_slice(&text[..text.len() - 1]);
    if text.len() > 2 {
        out.push(b',');
    }
    out.extend_from_slice(if is_error {
        b"\"isError\":true"
    } else {
        b"\"isError\":false"
    });
    true
}
