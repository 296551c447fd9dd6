//! Decoding a call's arguments: the one place where args text becomes a handler's input.
//!
//! Typed handlers get the args through the schema's decode route (`schema::decode`): JSON
//! text checked while it is parsed straight into the argument struct (the fast path), full
//! validation only when that gives up; invalid ones are reported with every problem. JSON
//! handlers get the validated, normalized `Value`. Both use the session's options:
//! [`ValidationOptions::null_as_absent`] (a `null` for an optional property means the
//! property is absent) and [`ValidationOptions::assert_formats`] (a declared `format` is
//! checked: `docs/formats.md`). No args at all (`null`) count as `{}`.

use std::fmt::Write as _;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ToolError};
use crate::schema::decode::ArgsIn;
use crate::schema::tape::Tape;
use crate::schema::{ArgsError, CompiledSchema, ValidationErrors, ValidationOptions};

/// A tool's argsSchema, prepared once per session.
pub(crate) struct CompiledArgs {
    /// The tool (for messages).
    tool: Arc<str>,
    /// `None` for a tool that is not in the manifest: nothing to validate against.
    schema: Option<Arc<CompiledSchema>>,
    /// What the fast path checks: `schema`, unless a 2020-12 validator decides (a raw
    /// schema), which only the slow path asks. A field of its own, so that the fast path
    /// asks nothing more than before.
    fast: Option<Arc<CompiledSchema>>,
}

/// How a session validates a call's arguments: `null` for an optional property is absent,
/// and a declared `format` is checked (`docs/formats.md` says why).
const OPTIONS: ValidationOptions = ValidationOptions::new()
    .null_as_absent(true)
    .assert_formats(true);

impl CompiledArgs {
    pub(crate) fn new(tool: Arc<str>, schema: Arc<CompiledSchema>) -> Self {
        CompiledArgs {
            tool,
            fast: (!schema.is_raw()).then(|| schema.clone()),
            schema: Some(schema),
        }
    }

    /// For a call of a tool the session does not know (served by the fallback): the args
    /// are only required to be JSON.
    pub(crate) fn unchecked(tool: Arc<str>) -> Self {
        CompiledArgs {
            tool,
            schema: None,
            fast: None,
        }
    }

    /// Validates and deserializes the args into a handler's argument type: JSON text
    /// straight into `T` through the checks (the direct fast path), else recorded to a tape
    /// by the slow path (validated in full, normalized: compiled once for every argument
    /// type, see `schema::decode`) and replayed into `T`.
    #[inline]
    pub(crate) fn decode<T: DeserializeOwned>(&self, args: ArgsIn<'_>) -> Result<T, ToolError> {
        if let (Some(schema), ArgsIn::Text(text)) = (&self.fast, &args)
            && let Some(value) = schema.decode_fast(text, OPTIONS)
        {
            return Ok(value);
        }
        self.decode_slow(args)
    }

    /// [`decode`](Self::decode) when the direct fast path did not decide.
    #[cold]
    #[inline(never)]
    fn decode_slow<T: DeserializeOwned>(&self, args: ArgsIn<'_>) -> Result<T, ToolError> {
        let mut tape = Tape::new();
        #[allow(
            clippy::question_mark,
            reason = "`?` instantiates one more generic function per type in a debug build"
        )]
        if let Err(e) = self.record_other(args, &mut tape) {
            return Err(e);
        }
        match tape.replay() {
            Ok(value) => Ok(value),
            Err(e) => Err(self.mismatch(e)),
        }
    }

    /// The slow path's recording: args that are a value, invalid or absent, or that the
    /// direct fast path left undecided, and the calls of tools the session does not know.
    #[cold]
    #[inline(never)]
    fn record_other(&self, args: ArgsIn<'_>, tape: &mut Tape) -> Result<(), ToolError> {
        let Some(schema) = &self.schema else {
            tape.push_value(self.prepare(args)?);
            return Ok(());
        };
        // Whether the args are `null` is asked only once they failed.
        let absent = Absent::of(&args);
        match schema.record_slow(args, OPTIONS, tape) {
            Ok(()) => Ok(()),
            Err(error) => self.record_failed(schema, absent, error, tape),
        }
    }

    /// Args that failed: when they were absent (`null`), they count as `{}`; otherwise the
    /// error is the call's.
    #[cold]
    #[inline(never)]
    fn record_failed(
        &self,
        schema: &CompiledSchema,
        absent: Absent<'_>,
        error: ArgsError,
        tape: &mut Tape,
    ) -> Result<(), ToolError> {
        if !absent.is_null() {
            return Err(self.error(error));
        }
        // The slow path records nothing unless the args are valid: the tape is empty.
        schema
            .record_slow(ArgsIn::Value(Value::Object(Map::new())), OPTIONS, tape)
            .map_err(|e| self.error(e))
    }

    /// Valid args that the argument type does not take (the schema allows what the type
    /// does not).
    #[cold]
    #[inline(never)]
    fn mismatch(&self, error: serde_json::Error) -> ToolError {
        self.error(ArgsError::Mismatch(error))
    }

    /// Parses, validates and normalizes the args, for handlers that take JSON.
    pub(crate) fn prepare(&self, args: ArgsIn<'_>) -> Result<Value, ToolError> {
        let value = match args {
            ArgsIn::Value(v) => crate::schema::decode::bounded(v).map_err(|e| self.error(e))?,
            ArgsIn::Text(text) => {
                serde_json::from_str(text).map_err(|e| self.error(ArgsError::Syntax(e)))?
            }
        };
        let value = or_empty(value);
        match &self.schema {
            Some(schema) => schema
                .validated(value, OPTIONS)
                .map_err(|e| self.error(ArgsError::Invalid(e))),
            None => Ok(value),
        }
    }

    fn error(&self, error: ArgsError) -> ToolError {
        args_error(&self.tool, error)
    }
}

/// The one conversion of an [`ArgsError`] into a call's error: `TOOL_ARGS_INVALID`, naming
/// the tool. Validation errors all go into `details`, the first three into the message (the
/// model reads the message first); other errors are one detail at the root.
pub(crate) fn args_error(tool: &str, error: ArgsError) -> ToolError {
    let mut message = format!("invalid arguments for `{tool}`: ");
    let details = match error {
        ArgsError::Invalid(errors) => {
            summarize(&errors, &mut message);
            serde_json::to_value(&errors).unwrap_or_else(|_| serde_json::json!({"errors": []}))
        }
        other => {
            let text = other.to_string();
            message.push_str(&text);
            serde_json::json!({"errors": [{"pointer": "", "message": text}]})
        }
    };
    ToolError::with_code(ErrorCode::ToolArgsInvalid, message).with_details(details)
}

/// Appends the first few errors, and how many more there are.
fn summarize(errors: &ValidationErrors, message: &mut String) {
    const SHOWN: usize = 3;
    let all = errors.errors();
    for (i, e) in all.iter().take(SHOWN).enumerate() {
        if i > 0 {
            message.push_str("; ");
        }
        let _ = write!(message, "{e}");
    }
    let more = all.len().saturating_sub(SHOWN);
    if errors.truncated() {
        let _ = write!(message, " (and more than {more} other errors)");
    } else if more > 0 {
        let errors = if more == 1 { "error" } else { "errors" };
        let _ = write!(message, " (and {more} more {errors})");
    }
}

/// No arguments at all counts as `{}`.
fn or_empty(value: Value) -> Value {
    if value.is_null() {
        Value::Object(Map::new())
    } else {
        value
    }
}

/// What [`CompiledArgs::record_other`] keeps of the args to tell, should they fail, whether they
/// were `null` (which counts as `{}`): free to keep, asked only on failure.
#[derive(Clone, Copy)]
enum Absent<'a> {
    Text(&'a str),
    Null,
    Other,
}

impl<'a> Absent<'a> {
    #[inline]
    fn of(args: &ArgsIn<'a>) -> Self {
        match *args {
            ArgsIn::Text(text) => Absent::Text(text),
            ArgsIn::Value(Value::Null) => Absent::Null,
            ArgsIn::Value(_) => Absent::Other,
        }
    }

    fn is_null(self) -> bool {
        match self {
            Absent::Text(text) => text.trim_ascii() == "null",
            Absent::Null => true,
            Absent::Other => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::{Property, SchemaNode};

    const INNER: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("a", SchemaNode::integer(), true),
                Property::new("b", SchemaNode::string(), false),
            ]
        },
    )
    .closed();

    const ROOT: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("x", SchemaNode::integer(), true),
                Property::new("y", SchemaNode::string(), false),
                Property::new("inner", INNER, false),
                Property::new("list", SchemaNode::array(const { &INNER }), false),
            ]
        },
    )
    .closed();

    fn compiled() -> CompiledArgs {
        CompiledArgs::new(
            "t".into(),
            Arc::new(CompiledSchema::compile(&ROOT).unwrap()),
        )
    }

    #[test]
    fn nulls_of_optional_properties_become_absent_at_every_level() {
        let v = json!({
            "x": 1, "y": null,
            "inner": {"a": 2, "b": null},
            "list": [{"a": 1, "b": null}, {"a": 3.0}]
        });
        assert_eq!(
            compiled().prepare(ArgsIn::Value(v)).unwrap(),
            json!({"x": 1, "inner": {"a": 2}, "list": [{"a": 1}, {"a": 3}]})
        );
        // A null for a required property is an error, not an absence.
        let err = compiled()
            .prepare(ArgsIn::Value(json!({"x": null})))
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::ToolArgsInvalid);
        assert!(
            err.message().contains("/x: expected integer, got null"),
            "{err}"
        );
    }

    #[test]
    fn typed_decoding_agrees_with_json_decoding() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Inner {
            a: i64,
            b: Option<String>,
        }
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Args {
            x: i64,
            y: Option<String>,
            inner: Option<Inner>,
            #[serde(default)]
            list: Vec<Inner>,
        }
        let text = r#"{"x": 1, "y": null, "inner": {"a": 2.0, "b": null}, "list": []}"#;
        let expected = Args {
            x: 1,
            y: None,
            inner: Some(Inner { a: 2, b: None }),
            list: vec![],
        };
        assert_eq!(
            compiled().decode::<Args>(ArgsIn::Text(text)).unwrap(),
            expected
        );
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            compiled().decode::<Args>(ArgsIn::Value(value)).unwrap(),
            expected
        );
        // Absent args are `{}`, which lacks the required `x`.
        for absent in [ArgsIn::Text(" null "), ArgsIn::Value(Value::Null)] {
            let err = compiled().decode::<Args>(absent).unwrap_err();
            assert!(err.message().contains("\"x\""), "{err}");
        }
        let err = compiled()
            .decode::<Args>(ArgsIn::Text(r#"{"x": "1", "y": 2, "z": 0, "w": 0}"#))
            .unwrap_err();
        assert_eq!(
            err.details().unwrap()["errors"].as_array().unwrap().len(),
            4
        );
        assert!(err.message().ends_with(" (and 1 more error)"), "{err}");
    }

    #[test]
    fn missing_and_null_args_count_as_an_empty_object() {
        let args = CompiledArgs::unchecked("t".into());
        assert_eq!(args.prepare(ArgsIn::Value(Value::Null)).unwrap(), json!({}));
        assert_eq!(args.prepare(ArgsIn::Text("null")).unwrap(), json!({}));
        assert_eq!(
            args.prepare(ArgsIn::Text(r#"{"k":[1]}"#)).unwrap(),
            json!({"k": [1]})
        );
    }

    #[test]
    fn decode_failures_are_args_invalid_with_details() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Args {
            x: i64,
        }
        let err = compiled()
            .decode::<Args>(ArgsIn::Value(json!({"x": "five"})))
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::ToolArgsInvalid);
        assert!(
            err.message().starts_with("invalid arguments for `t`: "),
            "{err}"
        );
        assert!(err.details().unwrap()["errors"].is_array());
        let deep = "[".repeat(200) + &"]".repeat(200);
        let err = CompiledArgs::unchecked("t".into())
            .prepare(ArgsIn::Text(&deep))
            .unwrap_err();
        assert!(
            err.message()
                .contains("not valid JSON: recursion limit exceeded"),
            "{err}"
        );
    }
}
