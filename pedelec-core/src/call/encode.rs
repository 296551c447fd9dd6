//! Results in the form the caller needs: a `serde_json::Value` for in-process callers, JSON
//! text for bridges (written once, straight from the handler's output), and the wire form
//! `{"ok":true,"value":…}` / `{"ok":false,"error":{…}}`.

use serde::Serialize;
use serde_json::Value;

use super::strict;
use crate::error::{ErrorCode, ToolError, ToolResult};

/// The form a result is serialized to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// A `serde_json::Value` (in-process calls).
    Value,
    /// The wire text of a success, `{"ok":true,"value":…}` (bridges that write JSON).
    Text,
}

/// A serialized result.
#[derive(Debug)]
pub(crate) enum Encoded {
    Value(Value),
    /// The value's JSON text (the envelope `{"ok":true,"value":…}` is put around it in
    /// place when the text is the answer).
    Text(String),
}

impl Encoded {
    /// The result as a value (parsing it if it was serialized to text).
    pub(crate) fn into_value(self) -> Result<Value, ToolError> {
        match self {
            Encoded::Value(v) => Ok(v),
            Encoded::Text(text) => serde_json::from_str(&text).map_err(|e| {
                ToolError::with_code(
                    ErrorCode::ToolResultInvalid,
                    format!("the result could not be read back: {e}"),
                )
            }),
        }
    }
}

/// Serializes a handler's output strictly, in the requested form.
///
/// Each output type's `Serialize` impl is compiled twice, not three times: once for text
/// (the bridges' hot path, where it runs inlined; the pass that locates a violation reuses
/// the same serializer type), and once against `erased_serde`'s `dyn` serializer for a
/// `Value` (in-process and MCP callers), whose strict serializer is then compiled once for
/// all tools. (Erasing the text path too would save that copy but cost ~300 instructions
/// per call: measured with `examples/call_cost.rs`.)
#[inline]
pub(crate) fn encode<O: Serialize>(out: &O, encoding: Encoding) -> Result<Encoded, ToolError> {
    match encoding {
        Encoding::Value => encode_value(out),
        Encoding::Text => strict::to_string(out).map(Encoded::Text),
    }
}

fn encode_value(out: &dyn erased_serde::Serialize) -> Result<Encoded, ToolError> {
    strict::to_value(out).map(Encoded::Value)
}

/// A call's outcome as a [`ToolResult`].
pub(crate) fn to_tool_result(result: Result<Encoded, ToolError>) -> ToolResult {
    match result.and_then(Encoded::into_value) {
        Ok(v) => ToolResult::Ok(v),
        Err(e) => ToolResult::Err(e),
    }
}

/// A call's outcome as the value's JSON text, or the error.
pub(crate) fn to_value_text(result: Result<Encoded, ToolError>) -> Result<String, ToolError> {
    match result? {
        Encoded::Text(text) => Ok(text),
        // A `Value` serializes to text without failing.
        Encoded::Value(v) => Ok(v.to_string()),
    }
}

const OK_PREFIX: &str = r#"{"ok":true,"value":"#;

/// A call's outcome as the wire text `{"ok":true,"value":…}` or `{"ok":false,"error":…}`.
pub(crate) fn to_json_text(result: Result<Encoded, ToolError>) -> String {
    let result = match result {
        // The common case: the value's text, with the envelope put around it in place (a
        // small value leaves room for it in the buffer `serde_json` starts with).
        Ok(Encoded::Text(mut text)) => {
            text.insert_str(0, OK_PREFIX);
            text.push('}');
            return text;
        }
        Ok(Encoded::Value(v)) => ToolResult::Ok(v),
        Err(e) => ToolResult::Err(e),
    };
    // A ToolResult holds only JSON values: this cannot fail.
    serde_json::to_string(&result).unwrap_or_default()
}
