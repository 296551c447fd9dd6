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
    /// `{"ok":true,"value":…}`: written with its envelope at once, so that the text a
    /// bridge gets needs no second copy.
    Text(Vec<u8>),
}

impl Encoded {
    /// The result as a value (parsing it if it was serialized to text).
    pub(crate) fn into_value(self) -> Result<Value, ToolError> {
        match self {
            Encoded::Value(v) => Ok(v),
            Encoded::Text(text) => serde_json::from_slice(value_of(&text)).map_err(|e| {
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
        Encoding::Text => {
            let mut buf = Vec::with_capacity(64);
            buf.extend_from_slice(OK_PREFIX);
            strict::to_writer(&mut buf, out)?;
            buf.push(b'}');
            Ok(Encoded::Text(buf))
        }
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

const OK_PREFIX: &[u8] = br#"{"ok":true,"value":"#;

/// The value in an [`Encoded::Text`].
fn value_of(text: &[u8]) -> &[u8] {
    &text[OK_PREFIX.len()..text.len() - 1]
}

/// A call's outcome as the wire text `{"ok":true,"value":…}` or `{"ok":false,"error":…}`.
pub(crate) fn to_json_text(result: Result<Encoded, ToolError>) -> String {
    let out = match result {
        // The common case: the text is the whole answer already.
        Ok(Encoded::Text(text)) => text,
        result => {
            let mut out = Vec::with_capacity(64);
            write_result(&mut out, result);
            out
        }
    };
    // Both serializers write UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// Appends `{"ok":true,"value":…}` or `{"ok":false,"error":…}`.
fn write_result(out: &mut Vec<u8>, result: Result<Encoded, ToolError>) {
    let result = match result {
        Ok(Encoded::Text(text)) => {
            out.extend_from_slice(&text);
            return;
        }
        Ok(Encoded::Value(v)) => ToolResult::Ok(v),
        Err(e) => ToolResult::Err(e),
    };
    // A ToolResult holds only JSON values: this cannot fail.
    let _ = serde_json::to_writer(&mut *out, &result);
}
