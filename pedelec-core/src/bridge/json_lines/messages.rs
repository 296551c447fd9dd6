//! The wire messages: what Core sends (`Envelope`), the protocol error codes, the
//! `tool_progress` line, and precise explanations of lines that are not messages.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::ProgressUpdate;
use crate::error::describe_value;

/// A message from Core; unknown fields are ignored.
#[derive(Deserialize)]
pub(super) struct Envelope<'a> {
    #[serde(rename = "type", borrow)]
    pub(super) kind: Cow<'a, str>,
    #[serde(rename = "callId", default, borrow)]
    pub(super) call_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    pub(super) args: Option<&'a RawValue>,
}

/// Protocol error codes (`docs/protocol.md`).
#[derive(Clone, Copy, Debug)]
pub(super) enum ProtocolError {
    MalformedJson,
    InvalidMessage,
    UnknownMessageType,
    LineTooLong,
    NestingTooDeep,
    UnknownCallId,
    DuplicateCallId,
    TooManyCalls,
    TooManyConnections,
    IdleTimeout,
}

impl ProtocolError {
    pub(super) fn as_str(self) -> &'static str {
        match self {
            ProtocolError::MalformedJson => "MALFORMED_JSON",
            ProtocolError::InvalidMessage => "INVALID_MESSAGE",
            ProtocolError::UnknownMessageType => "UNKNOWN_MESSAGE_TYPE",
            ProtocolError::LineTooLong => "LINE_TOO_LONG",
            ProtocolError::NestingTooDeep => "NESTING_TOO_DEEP",
            ProtocolError::UnknownCallId => "UNKNOWN_CALL_ID",
            ProtocolError::DuplicateCallId => "DUPLICATE_CALL_ID",
            ProtocolError::TooManyCalls => "TOO_MANY_CALLS",
            ProtocolError::TooManyConnections => "TOO_MANY_CONNECTIONS",
            ProtocolError::IdleTimeout => "IDLE_TIMEOUT",
        }
    }
}

/// Appends `{"type":"tool_progress","callId":…,"done":…,"total":…,"message":…}` (`total`
/// omitted when unknown).
pub(super) fn write_progress(out: &mut Vec<u8>, call_id: &str, update: &ProgressUpdate) {
    out.extend_from_slice(b"{\"type\":\"tool_progress\",\"callId\":");
    // Strings and integers: these cannot fail.
    let _ = serde_json::to_writer(&mut *out, call_id);
    out.extend_from_slice(b",\"done\":");
    let _ = serde_json::to_writer(&mut *out, &update.done);
    if let Some(total) = update.total {
        out.extend_from_slice(b",\"total\":");
        let _ = serde_json::to_writer(&mut *out, &total);
    }
    out.extend_from_slice(b",\"message\":");
    let _ = serde_json::to_writer(&mut *out, &update.message);
    out.extend_from_slice(b"}\n");
}

/// A precise message for a line that is JSON but not a message, and its `callId` when it
/// has one (so Core knows which call failed).
pub(super) fn explain_invalid(line: &str, error: &serde_json::Error) -> (String, Option<String>) {
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        return (format!("invalid message: {error}"), None);
    };
    let Some(obj) = value.as_object() else {
        return (
            format!(
                "a message is a JSON object with a `type`, not {}",
                describe_value(&value)
            ),
            None,
        );
    };
    let call_id = obj.get("callId").and_then(Value::as_str).map(str::to_owned);
    for (field, what) in [
        ("type", "a string"),
        ("callId", "a string"),
        ("name", "a string"),
    ] {
        // `null` stands for an absent optional field; `type` is required.
        let fine = |v: &Value| v.is_string() || (field != "type" && v.is_null());
        match obj.get(field) {
            None if field == "type" => {
                return (
                    "a message needs a `type` (\"tool_call\" or \"cancel\")".into(),
                    call_id,
                );
            }
            Some(v) if !fine(v) => {
                return (
                    format!("`{field}` must be {what}, not {}", describe_value(v)),
                    call_id,
                );
            }
            _ => {}
        }
    }
    (format!("invalid message: {error}"), call_id)
}
