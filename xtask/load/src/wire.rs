//! The MCP requests the generator sends, encoded once before the run, and how it checks the
//! answers.
//!
//! Over streamable HTTP a stateless server needs no `initialize`: each `tools/call` is a
//! `POST` with `Content-Type: application/json`, `Accept: application/json,
//! text/event-stream` and `MCP-Protocol-Version`. What rmcp 3.11's stateless service then
//! asks of the body depends on the version:
//! - `2025-11-25` (and every version before 2026-07-28): nothing more; a request without
//!   the header is taken as `2025-03-26`;
//! - `2026-07-28`: the request's `_meta` must carry
//!   `io.modelcontextprotocol/protocolVersion` (equal to the header) and
//!   `io.modelcontextprotocol/clientCapabilities`, and the request must repeat its method
//!   and tool name in the `Mcp-Method` and `Mcp-Name` headers (SEP-2243); `400 Bad Request`
//!   (JSON-RPC `-32020` or `-32602`) otherwise.

use serde::Deserialize;
use serde::de::IgnoredAny;
use serde_json::{Value, json};

/// The MCP revision the generator's requests follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// `2025-11-25`: the header alone.
    V2025_11_25,
    /// `2026-07-28`: the header and the per-request `_meta`.
    V2026_07_28,
}

impl Protocol {
    /// The version string (the `MCP-Protocol-Version` header's value).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::V2025_11_25 => "2025-11-25",
            Protocol::V2026_07_28 => "2026-07-28",
        }
    }

    /// The revision named `s`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "2025-11-25" => Ok(Protocol::V2025_11_25),
            "2026-07-28" => Ok(Protocol::V2026_07_28),
            _ => Err(format!(
                "unknown MCP protocol version `{s}` (expected 2025-11-25 or 2026-07-28)"
            )),
        }
    }
}

/// The `_meta` a `2026-07-28` request carries.
fn meta(protocol: Protocol) -> Option<Value> {
    match protocol {
        Protocol::V2025_11_25 => None,
        Protocol::V2026_07_28 => Some(json!({
            "io.modelcontextprotocol/protocolVersion": protocol.as_str(),
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "pedelec-load", "version": "0"},
        })),
    }
}

/// The headers a `tools/call` of `tool` needs besides `Content-Type` and `Accept`.
#[must_use]
pub fn call_headers(protocol: Protocol, tool: &str) -> Vec<(&'static str, String)> {
    let mut headers = vec![("mcp-protocol-version", protocol.as_str().to_owned())];
    if protocol == Protocol::V2026_07_28 {
        headers.push(("mcp-method", "tools/call".to_owned()));
        headers.push(("mcp-name", tool.to_owned()));
    }
    headers
}

/// A `tools/call` request.
#[must_use]
pub fn tools_call(protocol: Protocol, id: u64, name: &str, arguments: &Value) -> Vec<u8> {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(meta) = meta(protocol) {
        params["_meta"] = meta;
    }
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    serde_json::to_vec(&request).expect("JSON values serialize")
}

/// A `tools/list` request (as the TM Dev Lab v2 script sends it).
#[must_use]
pub fn tools_list(id: u64) -> Vec<u8> {
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {}}))
        .expect("JSON values serialize")
}

/// An `initialize` request for `version` (the TM Dev Lab v2 script sends `2024-11-05`).
#[must_use]
pub fn initialize(id: u64, version: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "jsonrpc": "2.0", "id": id, "method": "initialize",
        "params": {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "k6-bench", "version": "1.0"},
        },
    }))
    .expect("JSON values serialize")
}

/// The `notifications/initialized` notification.
#[must_use]
pub fn initialized() -> Vec<u8> {
    br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.to_vec()
}

/// The JSON-RPC message of an answer: the body itself when it is JSON, or the first
/// `data:` line holding an object when it is a server-sent event stream.
#[must_use]
pub fn payload(body: &[u8]) -> Option<&[u8]> {
    let trimmed = body.trim_ascii();
    if trimmed.first() == Some(&b'{') {
        return Some(trimmed);
    }
    trimmed.split(|&b| b == b'\n').find_map(|line| {
        let data = line.trim_ascii().strip_prefix(b"data:")?.trim_ascii();
        (data.first() == Some(&b'{')).then_some(data)
    })
}

#[derive(Deserialize)]
struct Answer {
    result: Option<CallResult>,
    error: Option<IgnoredAny>,
}

#[derive(Deserialize)]
struct CallResult {
    #[serde(rename = "isError")]
    is_error: Option<bool>,
}

/// Whether an answer is a JSON-RPC result that is not a tool error (`isError: true`). Reads
/// the whole message without building it (no allocation).
#[must_use]
pub fn succeeded(body: &[u8]) -> bool {
    let Some(payload) = payload(body) else {
        return false;
    };
    match serde_json::from_slice::<Answer>(payload) {
        Ok(Answer {
            result: Some(result),
            error: None,
        }) => result.is_error != Some(true),
        _ => false,
    }
}

/// The JSON value of a tool result's first text content (`result.content[0].text`), what
/// the TM Dev Lab v2 script checks.
#[must_use]
pub fn tool_text(body: &[u8]) -> Option<Value> {
    let message: Value = serde_json::from_slice(payload(body)?).ok()?;
    if message["result"]["isError"] == true {
        return None;
    }
    serde_json::from_str(message["result"]["content"][0]["text"].as_str()?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies() {
        let call = tools_call(
            Protocol::V2025_11_25,
            1,
            "update_counter",
            &json!({"delta": 1}),
        );
        assert_eq!(
            String::from_utf8(call).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_counter","arguments":{"delta":1}}}"#
        );
        let call = tools_call(Protocol::V2026_07_28, 7, "t", &json!({}));
        let call: Value = serde_json::from_slice(&call).unwrap();
        assert_eq!(
            call["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert!(call["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"].is_object());
        assert_eq!(Protocol::parse("2026-07-28"), Ok(Protocol::V2026_07_28));
        assert_eq!(call_headers(Protocol::V2025_11_25, "t").len(), 1);
        assert_eq!(
            call_headers(Protocol::V2026_07_28, "t")[1..],
            [
                ("mcp-method", "tools/call".into()),
                ("mcp-name", "t".into())
            ]
        );
        assert!(Protocol::parse("2026-13-01").is_err());
    }

    #[test]
    fn answers() {
        let ok = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"value\":3}"}],"structuredContent":{"value":3},"isError":false}}"#;
        assert!(succeeded(ok));
        assert_eq!(tool_text(ok), Some(json!({"value": 3})));
        let tool_error = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}"#;
        assert!(!succeeded(tool_error));
        assert_eq!(tool_text(tool_error), None);
        let rpc_error = br#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}"#;
        assert!(!succeeded(rpc_error));
        assert!(!succeeded(b"Bad Request"));
        let sse = b"event: message\nid: 0\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";
        assert!(succeeded(sse));
        assert_eq!(payload(b"data: \n\n"), None);
    }
}
