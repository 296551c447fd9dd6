//! Error codes, the error a handler returns ([`ToolError`]), the result of a call
//! ([`ToolResult`]), and the session's own error ([`Error`], e.g. `INVALID_INPUT`).

use std::fmt;
use std::io;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The error codes of the Pedelec Tools API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// The tool list given to a session is invalid (bad names, schemas, duplicates, …).
    InvalidInput,
    /// A call's arguments do not match the tool's argsSchema.
    ToolArgsInvalid,
    /// No named, inline or fallback handler serves the tool.
    ToolHandlerNotFound,
    /// The handler returned an error or panicked.
    ToolHandlerError,
    /// The handler did not finish within the tool's timeout.
    ToolTimeout,
    /// Core cancelled the call.
    ToolCancelled,
    /// The handler's value is not representable in JSON (NaN, infinities, non-string keys).
    ToolResultInvalid,
    /// A result could not be delivered to Core.
    SubmitToolResultFailed,
    /// The caller does not hold the scopes the tool requires (`details.missingScopes`).
    ToolForbidden,
    /// The call is over a rate or concurrency limit; `details.retryAfterMs` says when to
    /// try again.
    ToolRateLimited,
    /// A socket, pipe or listener failed (the session's own error, [`Error::Io`]).
    IoFailed,
    /// The tool needs a person's approval (`#[tool(approval)]`) and nobody can give it: no
    /// approver is set and the caller cannot be asked.
    ToolApprovalRequired,
    /// The approval was refused; the handler did not run.
    ToolApprovalDenied,
    /// An idempotency key was used again with other args (`#[tool(exactly_once)]`).
    ToolIdempotencyConflict,
    /// The first call with this idempotency key started and never answered (its replica
    /// stopped, or its answer could not be kept): whether it did its work is unknown, and
    /// it is never run again (`#[tool(exactly_once)]`). Check the effect, or call again
    /// with a new key.
    ToolOutcomeUnknown,
}

impl ErrorCode {
    /// Every code, in declaration order.
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::InvalidInput,
        ErrorCode::ToolArgsInvalid,
        ErrorCode::ToolHandlerNotFound,
        ErrorCode::ToolHandlerError,
        ErrorCode::ToolTimeout,
        ErrorCode::ToolCancelled,
        ErrorCode::ToolResultInvalid,
        ErrorCode::SubmitToolResultFailed,
        ErrorCode::ToolForbidden,
        ErrorCode::ToolRateLimited,
        ErrorCode::IoFailed,
        ErrorCode::ToolApprovalRequired,
        ErrorCode::ToolApprovalDenied,
        ErrorCode::ToolIdempotencyConflict,
        ErrorCode::ToolOutcomeUnknown,
    ];

    /// The code on the wire (`"TOOL_TIMEOUT"`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidInput => "INVALID_INPUT",
            ErrorCode::ToolArgsInvalid => "TOOL_ARGS_INVALID",
            ErrorCode::ToolHandlerNotFound => "TOOL_HANDLER_NOT_FOUND",
            ErrorCode::ToolHandlerError => "TOOL_HANDLER_ERROR",
            ErrorCode::ToolTimeout => "TOOL_TIMEOUT",
            ErrorCode::ToolCancelled => "TOOL_CANCELLED",
            ErrorCode::ToolResultInvalid => "TOOL_RESULT_INVALID",
            ErrorCode::SubmitToolResultFailed => "SUBMIT_TOOL_RESULT_FAILED",
            ErrorCode::ToolForbidden => "TOOL_FORBIDDEN",
            ErrorCode::ToolRateLimited => "TOOL_RATE_LIMITED",
            ErrorCode::IoFailed => "IO_FAILED",
            ErrorCode::ToolApprovalRequired => "TOOL_APPROVAL_REQUIRED",
            ErrorCode::ToolApprovalDenied => "TOOL_APPROVAL_DENIED",
            ErrorCode::ToolIdempotencyConflict => "TOOL_IDEMPOTENCY_CONFLICT",
            ErrorCode::ToolOutcomeUnknown => "TOOL_OUTCOME_UNKNOWN",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of a tool call: a code, a message for the model, and optional structured
/// details.
///
/// A handler returns `Err(ToolError)` (or any error convertible into one: every
/// `std::error::Error + Send + Sync + 'static` and `anyhow::Error`) and the
/// call's result becomes `TOOL_HANDLER_ERROR` with that message. Like `anyhow::Error`,
/// `ToolError` does not implement `std::error::Error` itself, which is what lets `?` convert
/// every error type into it.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ToolError {
    /// Boxed: a `Result<_, ToolError>` is then as small as its `Ok` side allows, and a call
    /// moves its results through several frames (measured: ~100 instructions per call).
    inner: Box<ErrorInner>,
}

#[derive(Clone, PartialEq, Serialize, Deserialize)]
struct ErrorInner {
    code: ErrorCode,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    details: Option<Value>,
}

impl ToolError {
    /// A handler error (`TOOL_HANDLER_ERROR`) with this message.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError::with_code(ErrorCode::ToolHandlerError, message)
    }

    /// An error with an explicit code.
    pub fn with_code(code: ErrorCode, message: impl Into<String>) -> Self {
        ToolError {
            inner: Box::new(ErrorInner {
                code,
                message: message.into(),
                details: None,
            }),
        }
    }

    /// Attaches structured details (sent to the model as `error.details`).
    #[must_use]
    pub fn with_details(mut self, details: Value) -> Self {
        self.inner.details = Some(details);
        self
    }

    /// The error code.
    #[must_use]
    pub const fn code(&self) -> ErrorCode {
        self.inner.code
    }

    /// The message.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The structured details, if any.
    #[must_use]
    pub const fn details(&self) -> Option<&Value> {
        self.inner.details.as_ref()
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = f.debug_struct("ToolError");
        s.field("code", &self.inner.code)
            .field("message", &self.inner.message);
        if let Some(d) = &self.inner.details {
            s.field("details", d);
        }
        s.finish()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.inner.code, self.inner.message)
    }
}

/// Every error `anyhow` accepts converts: any `std::error::Error + Send + Sync + 'static`,
/// `Box<dyn Error + Send + Sync>` and `anyhow::Error` itself. The message is the error with
/// its chain of causes (`outer: inner: root`).
impl<E: Into<anyhow::Error>> From<E> for ToolError {
    fn from(error: E) -> Self {
        ToolError::new(format!("{:#}", error.into()))
    }
}

/// The outcome of one tool call, as sent to Core: `{"ok": true, "value": …}` or
/// `{"ok": false, "error": {"code", "message", "details"?}}`.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolResult {
    /// The handler's value.
    Ok(Value),
    /// Why the call failed.
    Err(ToolError),
}

impl ToolResult {
    /// `true` for a successful call.
    #[must_use]
    pub const fn is_ok(&self) -> bool {
        matches!(self, ToolResult::Ok(_))
    }

    /// The error code of a failed call.
    #[must_use]
    pub const fn error_code(&self) -> Option<ErrorCode> {
        match self {
            ToolResult::Ok(_) => None,
            ToolResult::Err(e) => Some(e.code()),
        }
    }

    /// The value of a successful call.
    #[must_use]
    pub const fn value(&self) -> Option<&Value> {
        match self {
            ToolResult::Ok(v) => Some(v),
            ToolResult::Err(_) => None,
        }
    }

    /// The error of a failed call.
    #[must_use]
    pub const fn error(&self) -> Option<&ToolError> {
        match self {
            ToolResult::Ok(_) => None,
            ToolResult::Err(e) => Some(e),
        }
    }

    /// Converts into a `Result`.
    pub fn into_result(self) -> Result<Value, ToolError> {
        match self {
            ToolResult::Ok(v) => Ok(v),
            ToolResult::Err(e) => Err(e),
        }
    }
}

impl From<Result<Value, ToolError>> for ToolResult {
    fn from(result: Result<Value, ToolError>) -> Self {
        match result {
            Ok(v) => ToolResult::Ok(v),
            Err(e) => ToolResult::Err(e),
        }
    }
}

impl Serialize for ToolResult {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("ToolResult", 2)?;
        match self {
            ToolResult::Ok(v) => {
                s.serialize_field("ok", &true)?;
                s.serialize_field("value", v)?;
            }
            ToolResult::Err(e) => {
                s.serialize_field("ok", &false)?;
                s.serialize_field("error", e)?;
            }
        }
        s.end()
    }
}

impl<'de> Deserialize<'de> for ToolResult {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Wire {
            ok: bool,
            #[serde(default)]
            value: Option<Value>,
            #[serde(default)]
            error: Option<ToolError>,
        }
        let wire = Wire::deserialize(deserializer)?;
        match (wire.ok, wire.error) {
            (true, None) => Ok(ToolResult::Ok(wire.value.unwrap_or(Value::Null))),
            (false, Some(e)) => Ok(ToolResult::Err(e)),
            (true, Some(_)) => Err(serde::de::Error::custom(
                "a successful result (`ok: true`) has no `error`",
            )),
            (false, None) => Err(serde::de::Error::custom(
                "a failed result (`ok: false`) needs an `error`",
            )),
        }
    }
}

/// One problem found in an input: where it is, the rule it breaks, and what to do.
///
/// Every error that lists problems shares this type: a refused tool list
/// ([`Error::InvalidInput`], its place a path into the list: `tools[1].name`), a schema
/// ([`SchemaError`](crate::schema::SchemaError), a pointer into the schema), a call's args
/// ([`ValidationErrors`](crate::schema::ValidationErrors), a pointer into the args, the
/// failed keyword as its rule), an export ([`ExportError`](crate::export::ExportError), the
/// tool, a pointer into its schema or the payload, the provider's rule).
///
/// Displays as `place: message` (the root place shown as `/`), after `` tool `name` at ``
/// when it names a tool: `/delta: expected integer, got string "5"`. Serializes as
/// `{"pointer", "keyword"?, "tool"?, "message"}` (a call's `TOOL_ARGS_INVALID` details).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Where: a JSON pointer (RFC 6901; `""` is the root) into the args, the schema or the
    /// payload, or a path into a tool list (`tools[1].argsSchema/properties/x`).
    #[serde(rename = "pointer")]
    pub place: String,
    /// The rule broken: the JSON Schema keyword that failed (`type`, `required`, …), or the
    /// provider's rule (`name-length`, `strict-open-object`, …); empty when none applies.
    #[serde(rename = "keyword", skip_serializing_if = "str::is_empty")]
    pub rule: &'static str,
    /// The tool the problem is about, when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// What is wrong, phrased so that the reader (a developer or a model) can fix it.
    pub message: String,
}

impl Problem {
    /// A problem at `place` (a JSON pointer or a path into a tool list).
    pub fn at(place: impl Into<String>, message: impl Into<String>) -> Self {
        Problem {
            place: place.into(),
            rule: "",
            tool: None,
            message: message.into(),
        }
    }

    /// The same problem, naming the rule (or keyword) it breaks.
    #[must_use]
    pub fn rule(mut self, rule: &'static str) -> Self {
        self.rule = rule;
        self
    }

    /// The same problem, naming the tool it is about.
    #[must_use]
    pub fn tool(mut self, tool: Option<&str>) -> Self {
        self.tool = tool.map(str::to_owned);
        self
    }

    /// The same problem, its place under `prefix` (`tools[1].` before `name`).
    #[must_use]
    pub fn under(mut self, prefix: &str) -> Self {
        self.place.insert_str(0, prefix);
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.tool, self.place.as_str()) {
            (Some(tool), "") => write!(f, "tool `{tool}`: ")?,
            (Some(tool), place) => write!(f, "tool `{tool}` at `{place}`: ")?,
            (None, "") => f.write_str("/: ")?,
            (None, place) => write!(f, "{place}: ")?,
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

/// An error of the session itself (not of a call): the tool list or a setting was refused,
/// or a transport failed.
///
/// Match on the variant to tell them apart, or read [`code`](Error::code); an I/O failure
/// keeps its [`io::Error`] as the [`source`](std::error::Error::source).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Error {
    /// `INVALID_INPUT`: the tool list (or a manifest read from JSON) has problems, every one
    /// listed with its place.
    #[non_exhaustive]
    InvalidInput {
        /// The summary (`invalid input: 3 problems`).
        message: String,
        /// Every problem, each with its place.
        problems: Vec<Problem>,
    },
    /// `INVALID_INPUT`: a setting that cannot work as given (`McpHttp` with both a bearer
    /// token and OAuth, no address to serve on, …); the message says what to write instead.
    #[non_exhaustive]
    Config {
        /// What is wrong and what to do.
        message: String,
    },
    /// `IO_FAILED`: a socket, pipe or listener failed (binding, reading, writing).
    #[non_exhaustive]
    Io {
        /// What was being done (`cannot listen on 127.0.0.1:8080`).
        message: String,
        /// The error itself (shared, so that `Error` stays `Clone`).
        source: Arc<io::Error>,
    },
    /// `SUBMIT_TOOL_RESULT_FAILED`: a call's result could not be delivered to its caller.
    #[non_exhaustive]
    Undelivered {
        /// Why (the transport's words).
        message: String,
    },
}

impl Error {
    /// An `INVALID_INPUT` error listing every problem.
    #[must_use]
    pub fn invalid_input(problems: Vec<Problem>) -> Self {
        let message = match problems.len() {
            1 => format!("invalid input: {}", problems[0]),
            n => format!("invalid input: {n} problems"),
        };
        Error::InvalidInput { message, problems }
    }

    /// A setting that cannot work (`INVALID_INPUT`), with a message that says what to do.
    pub fn config(message: impl Into<String>) -> Self {
        Error::Config {
            message: message.into(),
        }
    }

    /// An I/O failure (`IO_FAILED`): what was being done, and the error.
    pub fn io(message: impl Into<String>, source: io::Error) -> Self {
        Error::Io {
            message: message.into(),
            source: Arc::new(source),
        }
    }

    /// A result that could not be delivered (`SUBMIT_TOOL_RESULT_FAILED`).
    pub fn undelivered(message: impl Into<String>) -> Self {
        Error::Undelivered {
            message: message.into(),
        }
    }

    /// The error code: `INVALID_INPUT` for a refused tool list or setting, `IO_FAILED`,
    /// `SUBMIT_TOOL_RESULT_FAILED`.
    #[must_use]
    pub const fn code(&self) -> ErrorCode {
        match self {
            Error::InvalidInput { .. } | Error::Config { .. } => ErrorCode::InvalidInput,
            Error::Io { .. } => ErrorCode::IoFailed,
            Error::Undelivered { .. } => ErrorCode::SubmitToolResultFailed,
        }
    }

    /// Every problem of an `InvalidInput` error, each with its place (empty otherwise).
    #[must_use]
    pub fn problems(&self) -> &[Problem] {
        match self {
            Error::InvalidInput { problems, .. } => problems,
            _ => &[],
        }
    }

    /// The summary message.
    #[must_use]
    pub fn message(&self) -> &str {
        match self {
            Error::InvalidInput { message, .. }
            | Error::Config { message }
            | Error::Io { message, .. }
            | Error::Undelivered { message } => message,
        }
    }
}

impl PartialEq for Error {
    /// Two errors are equal when their variants, messages and problems are; two I/O errors
    /// also need the same [`io::ErrorKind`] (an `io::Error` has no equality of its own).
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (
                Error::Io {
                    message: a,
                    source: x,
                },
                Error::Io {
                    message: b,
                    source: y,
                },
            ) => a == b && x.kind() == y.kind(),
            (
                Error::InvalidInput {
                    message: a,
                    problems: x,
                },
                Error::InvalidInput {
                    message: b,
                    problems: y,
                },
            ) => a == b && x == y,
            (Error::Config { message: a }, Error::Config { message: b })
            | (Error::Undelivered { message: a }, Error::Undelivered { message: b }) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code(), self.message())?;
        match self {
            Error::InvalidInput { problems, .. } if problems.len() > 1 => {
                for p in problems {
                    write!(f, "\n  - {p}")?;
                }
            }
            Error::Io { source, .. } => write!(f, ": {source}")?,
            _ => {}
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(&**source),
            _ => None,
        }
    }
}

/// "a number (`5`)", "an array", …: what a JSON value is, for messages such as "`callId`
/// must be a string, not a number (`5`)" (long strings are cut at 40 characters).
#[must_use]
pub fn describe_value(v: &Value) -> String {
    match v {
        Value::Null => "`null`".into(),
        Value::Bool(b) => format!("a boolean (`{b}`)"),
        Value::Number(n) => format!("a number (`{n}`)"),
        Value::String(s) => {
            let shown: String = s.chars().take(40).collect();
            if shown.len() < s.len() {
                format!("a string (\"{shown}…\")")
            } else {
                format!("a string ({s:?})")
            }
        }
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn results_serialize_to_the_wire_shape() {
        let ok = ToolResult::Ok(json!({"value": 2}));
        assert_eq!(
            serde_json::to_value(&ok).unwrap(),
            json!({"ok": true, "value": {"value": 2}})
        );
        let err = ToolResult::Err(ToolError::with_code(ErrorCode::ToolTimeout, "too slow"));
        assert_eq!(
            serde_json::to_value(&err).unwrap(),
            json!({"ok": false, "error": {"code": "TOOL_TIMEOUT", "message": "too slow"}})
        );
        let back: ToolResult = serde_json::from_value(serde_json::to_value(&err).unwrap()).unwrap();
        assert_eq!(back, err);
    }

    #[test]
    fn session_errors_are_variants_with_codes_and_sources() {
        use std::error::Error as _;
        let refused = Error::invalid_input(vec![Problem::at("tools[0].name", "must not be empty")]);
        assert_eq!(refused.code(), ErrorCode::InvalidInput);
        assert_eq!(refused.problems().len(), 1);
        assert!(refused.source().is_none());
        let config = Error::config("choose one");
        assert_eq!(config.code(), ErrorCode::InvalidInput);
        assert!(matches!(config, Error::Config { .. }));
        assert!(config.problems().is_empty());
        let io = Error::io(
            "cannot listen on `x`",
            io::Error::from(io::ErrorKind::AddrInUse),
        );
        assert_eq!(io.code(), ErrorCode::IoFailed);
        assert_eq!(io.message(), "cannot listen on `x`");
        let source = io.source().and_then(|e| e.downcast_ref::<io::Error>());
        assert_eq!(source.map(io::Error::kind), Some(io::ErrorKind::AddrInUse));
        assert_eq!(io.clone(), io);
        assert_ne!(
            io,
            Error::io("cannot listen on `x`", io::Error::other("other"))
        );
        assert_eq!(
            Error::undelivered("gone").code(),
            ErrorCode::SubmitToolResultFailed
        );
    }

    #[test]
    fn std_errors_convert_with_their_chain() {
        let io = io::Error::other("disk full");
        let e: ToolError = io.into();
        assert_eq!(e.code(), ErrorCode::ToolHandlerError);
        assert_eq!(e.message(), "disk full");
        let e: ToolError = anyhow::anyhow!("root").context("outer").into();
        assert_eq!(e.message(), "outer: root");
    }
}
