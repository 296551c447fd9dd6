//! What a handler can ask of the client on the other end of its call, besides returning a
//! result: log messages ([`LogLevel`]), and input — a person's answer to a form
//! ([`Elicited`]), a completion from the client's model ([`Sampled`]), the client's roots
//! ([`Root`]). A bridge that can carry them gives the call a [`ClientChannel`]
//! (`CallOptions::client_channel`); without one, logs go to `tracing` only and every
//! request for input is an error the handler can read.
//!
//! Over MCP the requests become `elicitation/create`, `sampling/createMessage` and
//! `roots/list`: sent to the client while the call runs (revision 2025-11-25, on a
//! connection that can carry requests to the client), or returned as an input-required
//! result whose answers come back with the client's retry of the call (2026-07-28), which
//! runs the handler again from its start.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The severity of a log message, as MCP (and syslog, RFC 5424) names them, least severe
/// first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something may go wrong.
    Warning,
    /// Something went wrong.
    Error,
    /// A critical condition.
    Critical,
    /// Action must be taken at once.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LogLevel {
    /// Every level, least severe first.
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    /// The level's name on the wire (`"warning"`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    /// The level named `name`, if any.
    #[must_use]
    pub fn from_name(name: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == name)
    }
}

impl fmt::Display for LogLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The kinds of input a handler can ask the client for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InputKind {
    /// A person fills in a form (`elicitation/create`).
    Elicitation,
    /// The client's model completes a conversation (`sampling/createMessage`).
    Sampling,
    /// The client lists its roots (`roots/list`).
    Roots,
}

impl InputKind {
    /// The client capability this kind needs (`"elicitation"`, `"sampling"`, `"roots"`).
    #[must_use]
    pub const fn capability(self) -> &'static str {
        match self {
            InputKind::Elicitation => "elicitation",
            InputKind::Sampling => "sampling",
            InputKind::Roots => "roots",
        }
    }
}

/// One request for input, as a bridge receives it from [`ClientChannel::ask`]: the
/// method's params in their MCP form.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `elicitation/create`: a message and the flat object schema of the answer.
    Elicit {
        /// What to ask the person.
        message: String,
        /// The answer's schema (`{"type":"object","properties":{…},"required":[…]}`).
        requested_schema: Value,
    },
    /// `sampling/createMessage`, its params (see [`SampleRequest`]).
    Sample(Value),
    /// `roots/list`.
    ListRoots,
}

impl InputRequest {
    /// The kind of input asked for.
    #[must_use]
    pub const fn kind(&self) -> InputKind {
        match self {
            InputRequest::Elicit { .. } => InputKind::Elicitation,
            InputRequest::Sample(_) => InputKind::Sampling,
            InputRequest::ListRoots => InputKind::Roots,
        }
    }

    /// The MCP method (`"elicitation/create"`, `"sampling/createMessage"`, `"roots/list"`).
    #[must_use]
    pub const fn method(&self) -> &'static str {
        match self {
            InputRequest::Elicit { .. } => "elicitation/create",
            InputRequest::Sample(_) => "sampling/createMessage",
            InputRequest::ListRoots => "roots/list",
        }
    }

    /// The method's params, as MCP sends them.
    #[must_use]
    pub fn params(&self) -> Value {
        match self {
            InputRequest::Elicit {
                message,
                requested_schema,
            } => serde_json::json!({"message": message, "requestedSchema": requested_schema}),
            InputRequest::Sample(params) => params.clone(),
            InputRequest::ListRoots => Value::Object(serde_json::Map::new()),
        }
    }
}

/// Why a request for input got no answer.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InputError {
    /// The client did not declare the capability this input needs. Over MCP the call is
    /// then answered with the protocol error `-32021` (missing required client capability)
    /// unless the handler recovers and returns a value.
    MissingCapability(InputKind),
    /// The transport cannot carry a request to the client (the message says why and what
    /// to change).
    Unsupported(String),
    /// The request was sent but failed (the client answered with an error, or went away).
    Failed(String),
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputError::MissingCapability(kind) => write!(
                f,
                "the client did not declare the `{}` capability",
                kind.capability()
            ),
            InputError::Unsupported(why) | InputError::Failed(why) => f.write_str(why),
        }
    }
}

/// The answer a [`ClientChannel`] gives: the client's result in its MCP form
/// (`{"action":…,"content":…}`, a `CreateMessageResult`, `{"roots":[…]}`).
pub type InputFuture = Pin<Box<dyn Future<Output = Result<Value, InputError>> + Send>>;

/// What a bridge gives a call so that its handler can reach the client: log messages and
/// requests for input. Implemented by the MCP bridges; `CallOptions::client_channel` hands
/// one to a call.
pub trait ClientChannel: Send + Sync {
    /// Whether a message at `level` would reach the client (the client asked for that
    /// level or a less severe one).
    fn log_enabled(&self, level: LogLevel) -> bool {
        let _ = level;
        false
    }

    /// Delivers a log message (called only when [`log_enabled`](Self::log_enabled)).
    fn log(&self, level: LogLevel, message: &str) {
        let _ = (level, message);
    }

    /// Whether the client declared what `kind` needs.
    fn supports(&self, kind: InputKind) -> bool {
        let _ = kind;
        false
    }

    /// Asks the client for input; `key` names the request among the call's requests (the
    /// handler's choice, unique per call). The future may never complete: a bridge that
    /// answers the call with an input-required result drops the call instead.
    fn ask(&self, key: &str, request: InputRequest) -> InputFuture {
        let _ = key;
        let kind = request.kind();
        Box::pin(std::future::ready(Err(InputError::MissingCapability(kind))))
    }

    /// Whether the call stopped for input: the bridge answered it with the requests it
    /// asked (an MCP 2026-07-28 input-required result) and drops it, and its retry brings
    /// the answers. An exactly-once call that stops so releases its key (its retry runs);
    /// one that stops otherwise keeps it. `false` unless the bridge says so.
    fn parked(&self) -> bool {
        false
    }
}

/// The answer to [`ToolCallContext::elicit`](super::ToolCallContext::elicit): what the
/// person did with the form. Declining and cancelling are answers, not errors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Elicited<T> {
    /// The person filled in the form and submitted it.
    Accepted(T),
    /// The person explicitly refused.
    Declined,
    /// The person dismissed the form without choosing.
    Cancelled,
}

impl<T> Elicited<T> {
    /// The answer, if the person accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Elicited::Accepted(value) => Some(value),
            Elicited::Declined | Elicited::Cancelled => None,
        }
    }

    /// The MCP name of the action: `"accept"`, `"decline"` or `"cancel"`.
    #[must_use]
    pub const fn action(&self) -> &'static str {
        match self {
            Elicited::Accepted(_) => "accept",
            Elicited::Declined => "decline",
            Elicited::Cancelled => "cancel",
        }
    }
}

/// A request for a completion from the client's model
/// ([`ToolCallContext::sample`](super::ToolCallContext::sample)): the conversation so far
/// and a token budget. MCP's `sampling/createMessage`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SampleRequest {
    messages: Vec<SampleMessage>,
    max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_prompt: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct SampleMessage {
    role: &'static str,
    content: SampleText,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
struct SampleText {
    #[serde(rename = "type")]
    kind: &'static str,
    text: String,
}

impl SampleRequest {
    /// A conversation of one user message, completed in at most `max_tokens` tokens.
    #[must_use]
    pub fn new(prompt: impl Into<String>, max_tokens: u32) -> Self {
        SampleRequest {
            messages: vec![SampleMessage::new("user", prompt.into())],
            max_tokens,
            system_prompt: None,
        }
    }

    /// Adds the assistant's earlier answer to the conversation.
    #[must_use]
    pub fn assistant(mut self, text: impl Into<String>) -> Self {
        self.messages
            .push(SampleMessage::new("assistant", text.into()));
        self
    }

    /// Adds a further user message.
    #[must_use]
    pub fn user(mut self, text: impl Into<String>) -> Self {
        self.messages.push(SampleMessage::new("user", text.into()));
        self
    }

    /// A system prompt the client may use.
    #[must_use]
    pub fn system_prompt(mut self, prompt: impl Into<String>) -> Self {
        self.system_prompt = Some(prompt.into());
        self
    }

    /// The params of `sampling/createMessage`.
    #[must_use]
    pub fn to_json(&self) -> Value {
        // Strings and integers only: this cannot fail.
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl SampleMessage {
    fn new(role: &'static str, text: String) -> Self {
        SampleMessage {
            role,
            content: SampleText { kind: "text", text },
        }
    }
}

/// The client model's completion ([`ToolCallContext::sample`](super::ToolCallContext::sample)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sampled {
    /// The text of the answer (empty when the model answered with something else, such as
    /// an image).
    pub text: String,
    /// The model that answered, as the client names it.
    pub model: String,
    /// Why the model stopped (`"endTurn"`, `"maxTokens"`, …), when the client says.
    pub stop_reason: Option<String>,
}

/// One of the client's roots ([`ToolCallContext::roots`](super::ToolCallContext::roots)): a
/// `file://` URI the client lets the server work in, and its name.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI (`file:///home/me/project`).
    pub uri: String,
    /// A name for people, when the client gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`.
    #[must_use]
    pub fn new(uri: impl Into<String>, name: Option<String>) -> Self {
        Root {
            uri: uri.into(),
            name,
        }
    }
}

/// The `requestedSchema` of an elicitation: the form's argsSchema as MCP takes it (`type`,
/// `properties`, `required`; the closing `additionalProperties` is left out, elicitation
/// schemas do not have it), with the titles of titled choices (SEP-1330).
pub(super) fn form_schema(schema: &crate::schema::SchemaNode) -> Value {
    let mut json = schema.to_json();
    if let Value::Object(map) = &mut json {
        map.remove("additionalProperties");
        let properties = map
            .entry("properties")
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(properties) = properties {
            for p in schema.properties() {
                if let Some(Value::Object(field)) = properties.get_mut(p.name()) {
                    titled_choices(p.schema(), field);
                }
            }
        }
    }
    json
}

/// A choice whose values have titles, as MCP's elicitation writes it: a single choice as a
/// `oneOf` of `{const, title}` (or, with `#[arg(enum_names)]`, the legacy `enumNames` beside
/// `enum`); a multiple choice as `items.anyOf` of `{const, title}`.
fn titled_choices(node: &crate::schema::SchemaNode, field: &mut serde_json::Map<String, Value>) {
    let pairs = |values: Vec<Value>, titles: &[&str]| -> Value {
        values
            .into_iter()
            .zip(titles)
            .map(|(value, title)| serde_json::json!({"const": value, "title": title}))
            .collect()
    };
    if let Some(titles) = node.enum_titles() {
        if node.lists_enum_names() {
            field.insert("enumNames".into(), titles.to_vec().into());
        } else if let Some(Value::Array(values)) = field.shift_remove("enum") {
            field.insert("oneOf".into(), pairs(values, titles));
        }
    } else if let (Some(titles), Some(Value::Object(items))) = (
        node.items()
            .and_then(crate::schema::SchemaNode::enum_titles),
        field.get_mut("items"),
    ) && let Some(Value::Array(values)) = items.shift_remove("enum")
    {
        let mut any_of = serde_json::Map::new();
        any_of.insert("anyOf".into(), pairs(values, titles));
        *items = any_of;
    }
}

/// The `ToolError` of a request for input that got no answer.
pub(super) fn input_error(key: &str, kind: InputKind, error: &InputError) -> crate::ToolError {
    let what = match kind {
        InputKind::Elicitation => "ask the person using the client",
        InputKind::Sampling => "ask the client's model",
        InputKind::Roots => "list the client's roots",
    };
    crate::ToolError::new(format!("cannot {what} (request `{key}`): {error}")).with_details(
        serde_json::json!({
            "inputRequest": key,
            "capability": kind.capability(),
        }),
    )
}

fn bad_answer(key: &str, why: impl fmt::Display) -> crate::ToolError {
    crate::ToolError::new(format!(
        "the client's answer to request `{key}` is not usable: {why}"
    ))
}

/// An `ElicitResult` (`{"action", "content"?}`) read as the form's type.
pub(super) fn read_elicited<T: serde::de::DeserializeOwned>(
    key: &str,
    schema: &crate::schema::SchemaNode,
    answer: Value,
) -> Result<Elicited<T>, crate::ToolError> {
    #[derive(Deserialize)]
    struct Answer {
        action: String,
        #[serde(default)]
        content: Option<Value>,
    }
    let answer: Answer = serde_json::from_value(answer).map_err(|e| bad_answer(key, e))?;
    match answer.action.as_str() {
        "accept" => {
            let content = answer
                .content
                .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
            let compiled =
                crate::schema::CompiledSchema::compile(schema).map_err(|e| bad_answer(key, e))?;
            compiled
                .validate(&content)
                .map_err(|e| bad_answer(key, format_args!("it does not match the form: {e}")))?;
            serde_json::from_value(content)
                .map(Elicited::Accepted)
                .map_err(|e| bad_answer(key, e))
        }
        "decline" => Ok(Elicited::Declined),
        "cancel" => Ok(Elicited::Cancelled),
        other => Err(bad_answer(
            key,
            format_args!(
                "unknown action {other:?} (expected \"accept\", \"decline\" or \"cancel\")"
            ),
        )),
    }
}

/// A `CreateMessageResult` read as [`Sampled`].
pub(super) fn read_sampled(key: &str, answer: &Value) -> Result<Sampled, crate::ToolError> {
    let Some(object) = answer.as_object() else {
        return Err(bad_answer(key, "a sampling result is an object"));
    };
    // `content` is one block, or (since 2025-11-25) an array of them.
    let text = match object.get("content") {
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(block) => block
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        None => return Err(bad_answer(key, "a sampling result has `content`")),
    };
    Ok(Sampled {
        text,
        model: object
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        stop_reason: object
            .get("stopReason")
            .and_then(Value::as_str)
            .map(str::to_owned),
    })
}

/// A `ListRootsResult` read as roots.
pub(super) fn read_roots(key: &str, answer: Value) -> Result<Vec<Root>, crate::ToolError> {
    #[derive(Deserialize)]
    struct Answer {
        roots: Vec<Root>,
    }
    serde_json::from_value::<Answer>(answer)
        .map(|a| a.roots)
        .map_err(|e| bad_answer(key, e))
}

#[cfg(test)]
mod tests {
    use super::form_schema;
    use crate::schema::{Literal, Property, SchemaNode};
    use serde_json::json;

    const VALUES: &[Literal] = &[Literal::str("a"), Literal::str("b")];
    const PLAIN: SchemaNode = SchemaNode::string().with_enum_values(VALUES);
    const TITLED: SchemaNode = PLAIN.with_enum_titles(&["Alpha", "Beta"]);
    const FORM: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("plain", PLAIN, false),
                Property::new("titled", TITLED.with_description("Pick one."), true),
                Property::new("legacy", TITLED.with_legacy_enum_names(), false),
                Property::new("plainMany", SchemaNode::array(const { &PLAIN }), false),
                Property::new("titledMany", SchemaNode::array(const { &TITLED }), false),
                Property::new("name", SchemaNode::string(), false),
            ]
        },
    )
    .closed();

    #[test]
    fn titled_choices_are_written_as_mcp_elicitation_reads_them() {
        assert_eq!(
            form_schema(&FORM),
            json!({
                "type": "object",
                "properties": {
                    "plain": {"type": "string", "enum": ["a", "b"]},
                    "titled": {"type": "string", "description": "Pick one.", "oneOf": [
                        {"const": "a", "title": "Alpha"},
                        {"const": "b", "title": "Beta"},
                    ]},
                    "legacy": {"type": "string", "enum": ["a", "b"], "enumNames": ["Alpha", "Beta"]},
                    "plainMany": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
                    "titledMany": {"type": "array", "items": {"anyOf": [
                        {"const": "a", "title": "Alpha"},
                        {"const": "b", "title": "Beta"},
                    ]}},
                    "name": {"type": "string"},
                },
                "required": ["titled"],
            })
        );
        // The argsSchema itself has no titles (DESIGN §1): only the form shows them.
        assert_eq!(TITLED.to_json(), PLAIN.to_json());
        assert!(FORM.is_flat_form());
    }

    #[test]
    fn an_empty_form_still_lists_its_properties() {
        assert_eq!(
            form_schema(&SchemaNode::object(&[]).closed()),
            json!({"type": "object", "properties": {}})
        );
    }
}
