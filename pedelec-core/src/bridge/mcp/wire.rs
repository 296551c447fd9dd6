//! JSON-RPC on the wire: one incoming message read once (its fields kept as ranges of its
//! text, so a call's arguments go to the session as the text they arrived in), and the
//! answers written straight into bytes.

use std::ops::Range;

use bytes::Bytes;
use rmcp::model::{ErrorCode, ErrorData};
use serde::Deserialize;
use serde_json::value::RawValue;

/// The methods the server knows. Anything else is [`Method::Other`] (answered
/// `-32601`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Method {
    Initialize,
    Initialized,
    Ping,
    Discover,
    ToolsList,
    ToolsCall,
    PromptsList,
    PromptsGet,
    ResourcesList,
    ResourceTemplatesList,
    ResourcesRead,
    SetLevel,
    TasksGet,
    TasksUpdate,
    TasksCancel,
    Cancelled,
    Progress,
    RootsListChanged,
    Other,
}

impl Method {
    fn of(name: &str) -> Method {
        match name {
            "tools/call" => Method::ToolsCall,
            "tools/list" => Method::ToolsList,
            "initialize" => Method::Initialize,
            "notifications/initialized" => Method::Initialized,
            "ping" => Method::Ping,
            "server/discover" => Method::Discover,
            "prompts/list" => Method::PromptsList,
            "prompts/get" => Method::PromptsGet,
            "resources/list" => Method::ResourcesList,
            "resources/templates/list" => Method::ResourceTemplatesList,
            "resources/read" => Method::ResourcesRead,
            "logging/setLevel" => Method::SetLevel,
            "tasks/get" => Method::TasksGet,
            "tasks/update" => Method::TasksUpdate,
            "tasks/cancel" => Method::TasksCancel,
            "notifications/cancelled" => Method::Cancelled,
            "notifications/progress" => Method::Progress,
            "notifications/roots/list_changed" => Method::RootsListChanged,
            _ => Method::Other,
        }
    }

    /// The body field the `Mcp-Name` header mirrors, for the methods that have one.
    pub(crate) const fn name_field(self) -> Option<NameField> {
        match self {
            Method::ToolsCall | Method::PromptsGet => Some(NameField::Name),
            Method::ResourcesRead => Some(NameField::Uri),
            Method::TasksGet | Method::TasksUpdate | Method::TasksCancel => Some(NameField::TaskId),
            _ => None,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NameField {
    Name,
    Uri,
    TaskId,
}

/// What kind of message it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Request,
    Notification,
    /// A response to a request the server sent (a result or an error).
    Response,
}

/// One JSON-RPC message, read once: its text and where its fields are in it.
pub(crate) struct Message {
    pub(crate) text: Bytes,
    pub(crate) kind: Kind,
    pub(crate) method: Method,
    /// The method's name as sent (for `Other`, in errors).
    method_name: Option<Range<usize>>,
    id: Option<Range<usize>>,
    pub(crate) params: Params,
    result: Option<Range<usize>>,
    error: Option<Range<usize>>,
}

/// The params fields the server reads, each as the range of its JSON text.
#[derive(Default)]
pub(crate) struct Params {
    pub(crate) all: Option<Range<usize>>,
    pub(crate) meta: Option<Range<usize>>,
    pub(crate) name: Option<Range<usize>>,
    pub(crate) arguments: Option<Range<usize>>,
    pub(crate) task_id: Option<Range<usize>>,
    pub(crate) uri: Option<Range<usize>>,
    pub(crate) input_responses: Option<Range<usize>>,
    pub(crate) request_state: Option<Range<usize>>,
    pub(crate) protocol_version: Option<Range<usize>>,
    pub(crate) capabilities: Option<Range<usize>>,
    pub(crate) client_info: Option<Range<usize>>,
    pub(crate) level: Option<Range<usize>>,
    pub(crate) request_id: Option<Range<usize>>,
}

/// Why a message could not be read: answered `-32700` (not JSON) or `-32600` (not a
/// JSON-RPC message) with `id: null`, or `-32602` with the request's id when only its
/// params are malformed.
pub(crate) struct Unreadable {
    pub(crate) error: ErrorData,
    /// The id, when the message was a request with a readable id.
    pub(crate) id: Option<Box<RawValue>>,
}

#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(borrow)]
    jsonrpc: Option<&'a RawValue>,
    /// `Some("null")` for `"id": null` (kept: a request's id must not be null).
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow)]
    method: Option<&'a RawValue>,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
    #[serde(borrow)]
    result: Option<&'a RawValue>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct RawParams<'a> {
    #[serde(rename = "_meta", borrow)]
    meta: Option<&'a RawValue>,
    #[serde(borrow)]
    name: Option<&'a RawValue>,
    #[serde(borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(rename = "taskId", borrow)]
    task_id: Option<&'a RawValue>,
    #[serde(borrow)]
    uri: Option<&'a RawValue>,
    #[serde(rename = "inputResponses", borrow)]
    input_responses: Option<&'a RawValue>,
    #[serde(rename = "requestState", borrow)]
    request_state: Option<&'a RawValue>,
    #[serde(rename = "protocolVersion", borrow)]
    protocol_version: Option<&'a RawValue>,
    #[serde(borrow)]
    capabilities: Option<&'a RawValue>,
    #[serde(rename = "clientInfo", borrow)]
    client_info: Option<&'a RawValue>,
    #[serde(borrow)]
    level: Option<&'a RawValue>,
    #[serde(rename = "requestId", borrow)]
    request_id: Option<&'a RawValue>,
}

/// The range of `part` (a slice of `whole`) in `whole`.
fn range_in(whole: &str, part: &RawValue) -> Range<usize> {
    let start = part.get().as_ptr().addr() - whole.as_ptr().addr();
    start..start + part.get().len()
}

/// A field's raw JSON when present, `null` included (serde reads a `null` into `None`
/// for an `Option` by itself).
fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&RawValue as Deserialize>::deserialize(d).map(Some)
}

fn is_null(raw: &RawValue) -> bool {
    raw.get() == "null"
}

impl Message {
    /// Reads one message.
    pub(crate) fn parse(text: Bytes) -> Result<Message, Unreadable> {
        let Ok(str) = std::str::from_utf8(&text) else {
            return Err(Unreadable {
                error: ErrorData::parse_error("Parse error: the message is not UTF-8", None),
                id: None,
            });
        };
        let envelope: Envelope<'_> = match serde_json::from_str(str) {
            Ok(envelope) => envelope,
            Err(e) if e.is_data() => {
                return Err(Unreadable {
                    error: ErrorData::invalid_request(
                        "Invalid Request: a JSON-RPC 2.0 message is one object (batches are not accepted)",
                        None,
                    ),
                    id: None,
                });
            }
            Err(e) => {
                return Err(Unreadable {
                    error: ErrorData::parse_error(format!("Parse error: {e}"), None),
                    id: None,
                });
            }
        };
        let invalid = |why: &str| Unreadable {
            error: ErrorData::invalid_request(format!("Invalid Request: {why}"), None),
            id: None,
        };
        if envelope.jsonrpc.map(RawValue::get) != Some("\"2.0\"") {
            return Err(invalid("`jsonrpc` must be \"2.0\""));
        }
        let id = match envelope.id {
            Some(id) if is_null(id) => None,
            Some(id) => {
                let text = id.get();
                let first = text.as_bytes().first().copied();
                if !matches!(first, Some(b'"' | b'-' | b'0'..=b'9')) {
                    return Err(invalid("`id` must be a string or a number"));
                }
                // A number id is an integer a client can read back (MCP: `string |
                // number`; JSON-RPC: no fractional part): `1e4001` is not echoed.
                if first != Some(b'"')
                    && text.parse::<i64>().is_err()
                    && text.parse::<u64>().is_err()
                {
                    return Err(invalid("a number `id` must be an integer within 64 bits"));
                }
                Some(range_in(str, id))
            }
            None => None,
        };
        let method = match envelope.method {
            Some(raw) => match serde_json::from_str::<std::borrow::Cow<'_, str>>(raw.get()) {
                Ok(name) => Some((Method::of(&name), range_in(str, raw))),
                Err(_) => return Err(invalid("`method` must be a string")),
            },
            None => None,
        };
        let kind = match (&method, &id) {
            (Some(_), Some(_)) => Kind::Request,
            (Some(_), None) => {
                if envelope.id.is_some() {
                    return Err(invalid("a request's `id` must not be null"));
                }
                Kind::Notification
            }
            (None, Some(_)) if envelope.result.is_some() || envelope.error.is_some() => {
                Kind::Response
            }
            (None, _) => return Err(invalid("the message has no `method`")),
        };
        let (method, method_name) = match method {
            Some((m, r)) => (m, Some(r)),
            None => (Method::Other, None),
        };
        let mut params = Params::default();
        if let Some(raw) = envelope.params.filter(|p| !is_null(p)) {
            params.all = Some(range_in(str, raw));
            let read: RawParams<'_> = match serde_json::from_str(raw.get()) {
                Ok(read) => read,
                Err(_) => {
                    return Err(Unreadable {
                        error: ErrorData::invalid_params(
                            "Invalid params: `params` must be an object",
                            None,
                        ),
                        id: envelope.id.map(RawValue::to_owned),
                    });
                }
            };
            let at =
                |field: Option<&RawValue>| field.filter(|f| !is_null(f)).map(|f| range_in(str, f));
            params.meta = at(read.meta);
            params.name = at(read.name);
            params.arguments = at(read.arguments);
            params.task_id = at(read.task_id);
            params.uri = at(read.uri);
            params.input_responses = at(read.input_responses);
            params.request_state = at(read.request_state);
            params.protocol_version = at(read.protocol_version);
            params.capabilities = at(read.capabilities);
            params.client_info = at(read.client_info);
            params.level = at(read.level);
            params.request_id = at(read.request_id);
        }
        let result = envelope.result.map(|r| range_in(str, r));
        let error = envelope.error.map(|r| range_in(str, r));
        Ok(Message {
            text,
            kind,
            method,
            method_name,
            id,
            params,
            result,
            error,
        })
    }

    /// The text of a range of the message.
    pub(crate) fn slice(&self, range: &Range<usize>) -> &str {
        // Ranges come from parsing this UTF-8 text, on JSON token boundaries.
        std::str::from_utf8(&self.text[range.clone()]).unwrap_or_default()
    }

    /// The raw JSON of a params field.
    #[allow(
        clippy::ref_option,
        reason = "called with the parsed fields as they are stored"
    )]
    pub(crate) fn raw(&self, field: &Option<Range<usize>>) -> Option<&str> {
        field.as_ref().map(|r| self.slice(r))
    }

    /// A params field that must be a string, unescaped. `Err` when present and not a string.
    #[allow(
        clippy::ref_option,
        reason = "called with the parsed fields as they are stored"
    )]
    pub(crate) fn string(
        &self,
        field: &Option<Range<usize>>,
    ) -> Result<Option<std::borrow::Cow<'_, str>>, ()> {
        match self.raw(field) {
            None => Ok(None),
            Some(raw) => json_str(raw).map(Some).ok_or(()),
        }
    }

    /// The request's id as JSON text (`1`, `"abc"`); `None` for notifications.
    pub(crate) fn id(&self) -> Option<&str> {
        self.id.as_ref().map(|r| self.slice(r))
    }

    /// The method's name as sent.
    pub(crate) fn method_name(&self) -> &str {
        self.method_name
            .as_ref()
            .and_then(|r| json_str(self.slice(r)))
            .map_or("", |name| match name {
                std::borrow::Cow::Borrowed(s) => s,
                // An escaped name is unknown anyway; the raw text names it well enough.
                std::borrow::Cow::Owned(_) => {
                    self.slice(self.method_name.as_ref().unwrap_or(&(0..0)))
                }
            })
    }

    /// A response's result, or its error, as JSON text.
    pub(crate) fn response(&self) -> Result<&str, &str> {
        match (&self.result, &self.error) {
            (Some(r), _) => Ok(self.slice(r)),
            (None, Some(e)) => Err(self.slice(e)),
            (None, None) => Err("null"),
        }
    }
}

/// A JSON string's value: borrowed when it has no escapes.
pub(crate) fn json_str(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        return Some(std::borrow::Cow::Borrowed(inner));
    }
    serde_json::from_str::<String>(raw)
        .ok()
        .map(std::borrow::Cow::Owned)
}

/// Writes `s` as a JSON string.
pub(crate) fn write_str(out: &mut Vec<u8>, s: &str) {
    // Writing into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, s);
}

/// `{"jsonrpc":"2.0","id":ID,"result":` — the result and a closing `}` follow.
pub(crate) fn open_result(out: &mut Vec<u8>, id: &str) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b",\"result\":");
}

/// A whole response whose result is `result` serialized.
pub(crate) fn result<T: serde::Serialize + ?Sized>(id: &str, result: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    open_result(&mut out, id);
    let _ = serde_json::to_writer(&mut out, result);
    out.push(b'}');
    out
}

/// A whole response whose result is the JSON text `result`.
pub(crate) fn raw_result(id: &str, result: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.len() + 48);
    open_result(&mut out, id);
    out.extend_from_slice(result);
    out.push(b'}');
    out
}

/// An error response (`id` is `null` when the request's id is unknown).
pub(crate) fn error(id: Option<&str>, error: &ErrorData) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.unwrap_or("null").as_bytes());
    out.extend_from_slice(b",\"error\":");
    let _ = serde_json::to_writer(&mut out, error);
    out.push(b'}');
    out
}

/// A notification: `{"jsonrpc":"2.0","method":METHOD,"params":PARAMS}`.
pub(crate) fn notification<T: serde::Serialize + ?Sized>(method: &str, params: &T) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"method\":");
    write_str(&mut out, method);
    out.extend_from_slice(b",\"params\":");
    let _ = serde_json::to_writer(&mut out, params);
    out.push(b'}');
    out
}

/// A request from the server: `{"jsonrpc":"2.0","id":ID,"method":METHOD,"params":PARAMS}`.
pub(crate) fn request(id: &str, method: &str, params: &serde_json::Value) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(b",\"method\":");
    write_str(&mut out, method);
    out.extend_from_slice(b",\"params\":");
    let _ = serde_json::to_writer(&mut out, params);
    out.push(b'}');
    out
}

/// The HTTP status an error answer gets on the 2026-07-28 wire (and for messages that
/// could not be read on any revision): `400` for what the client must change, `404` for
/// an unknown method, `200` otherwise (SEP-2575, streamable HTTP).
pub(crate) fn http_status_of(code: ErrorCode, malformed: bool) -> u16 {
    match code {
        ErrorCode::PARSE_ERROR
        | ErrorCode::INVALID_REQUEST
        | ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
        | ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
        | ErrorCode::HEADER_MISMATCH => 400,
        ErrorCode::INVALID_PARAMS if malformed => 400,
        ErrorCode::METHOD_NOT_FOUND => 404,
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Message, Unreadable> {
        Message::parse(Bytes::copy_from_slice(text.as_bytes()))
    }

    #[test]
    fn a_call_is_read_with_its_arguments_as_text() {
        let m = parse(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"a": [1, 2]},"_meta":{"progressToken":"p"}}}"#).ok().unwrap();
        assert_eq!(
            (m.kind, m.method, m.id()),
            (Kind::Request, Method::ToolsCall, Some("7"))
        );
        assert_eq!(m.string(&m.params.name).unwrap().as_deref(), Some("t"));
        assert_eq!(m.raw(&m.params.arguments), Some(r#"{"a": [1, 2]}"#));
        assert_eq!(m.raw(&m.params.meta), Some(r#"{"progressToken":"p"}"#));
    }

    #[test]
    fn what_is_not_json_rpc_is_told_apart_from_what_is_not_json() {
        let code = |t: &str| parse(t).err().map(|e| e.error.code);
        assert_eq!(code("{"), Some(ErrorCode::PARSE_ERROR));
        assert_eq!(code("\u{0}"), Some(ErrorCode::PARSE_ERROR));
        assert_eq!(code("[1,2]"), Some(ErrorCode::INVALID_REQUEST));
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":1}"#),
            Some(ErrorCode::INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#),
            Some(ErrorCode::INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#),
            Some(ErrorCode::INVALID_REQUEST)
        );
        assert_eq!(
            code(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#),
            Some(ErrorCode::INVALID_REQUEST)
        );
        let bad_params = parse(r#"{"jsonrpc":"2.0","id":"x","method":"ping","params":[1]}"#)
            .err()
            .unwrap();
        assert_eq!(bad_params.error.code, ErrorCode::INVALID_PARAMS);
        assert_eq!(bad_params.id.unwrap().get(), "\"x\"");
        let n = parse(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .ok()
            .unwrap();
        assert_eq!(
            (n.kind, n.method),
            (Kind::Notification, Method::Initialized)
        );
        let r = parse(r#"{"jsonrpc":"2.0","id":"s-1","result":{"action":"accept"}}"#)
            .ok()
            .unwrap();
        assert_eq!(
            (r.kind, r.response()),
            (Kind::Response, Ok(r#"{"action":"accept"}"#))
        );
    }

    #[test]
    fn answers_are_written_in_place() {
        assert_eq!(
            String::from_utf8(raw_result("1", b"{}")).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"result":{}}"#
        );
        let e = error(None, &ErrorData::parse_error("Parse error", None));
        assert_eq!(
            String::from_utf8(e).unwrap(),
            r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#
        );
    }
}
