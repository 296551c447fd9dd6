//! Decoding tool arguments into a typed value: the one route from args (JSON text or a
//! `Value`) to a handler's argument type, taken by the session (`call::args`) and by
//! [`CompiledSchema::deserialize_args_with`] and [`CompiledSchema::deserialize_value_with`].
//!
//! 1. **The fast path** ([`decode_fast`](CompiledSchema::decode_fast), `fast.rs`): JSON
//!    text is deserialized straight into the target type, checked while it is parsed (no
//!    `Value` built). It gives up on the first violation or error.
//! 2. **The slow path** ([`record_slow`](CompiledSchema::record_slow), then
//!    [`Tape::replay`]): when the fast path gave up, or the args are a `Value`, they are
//!    validated in full (every error), normalized, recorded to a tape and replayed into the
//!    target type (`tape.rs`; compiled once, but for each type's replay).
//!
//! The fast path accepts nothing the slow path rejects, and gives the target what the slow
//! path gives it; it only gets there sooner. Both normalize the arguments the way the
//! validator judged them:
//! - with [`ValidationOptions::null_as_absent`], a `null` given for a declared property
//!   that is not required is removed, so the target sees the property as missing (an
//!   `Option` is `None`, a `#[serde(default)]` field gets its default);
//! - at an `integer` node, a number with a zero fractional part (`1.0`) is delivered as the
//!   integer it is (`1`), so integer fields accept what the schema accepts.

use std::fmt;

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::compiled::{Additional, CompiledSchema, NodeId};
use super::node::SchemaKind;
use super::options::ValidationOptions;
use super::tape::Tape;
use super::validate::ValidationErrors;

/// Why tool arguments could not be turned into the tool's argument type.
///
/// A session answers each of them as a `TOOL_ARGS_INVALID` call result naming the tool.
#[derive(Debug)]
#[non_exhaustive]
pub enum ArgsError {
    /// The arguments are not one JSON value.
    Syntax(serde_json::Error),
    /// The arguments do not match the schema: every error, exactly as
    /// [`validate_with`](CompiledSchema::validate_with) reports them.
    Invalid(ValidationErrors),
    /// The arguments match the schema but do not deserialize into the target type: the
    /// schema and the type disagree (typically a schema written by hand that allows what the
    /// type does not). Carries serde's message.
    Mismatch(serde_json::Error),
}

impl ArgsError {
    /// The validation errors, for [`ArgsError::Invalid`].
    #[must_use]
    pub fn validation_errors(&self) -> Option<&ValidationErrors> {
        match self {
            ArgsError::Invalid(errors) => Some(errors),
            _ => None,
        }
    }
}

impl fmt::Display for ArgsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgsError::Syntax(e) => write!(f, "the arguments are not valid JSON: {e}"),
            ArgsError::Invalid(errors) => fmt::Display::fmt(errors, f),
            ArgsError::Mismatch(e) => write!(
                f,
                "the arguments match the schema but cannot be read as the tool's argument \
                 type: {e} (the argsSchema allows what the type does not accept)"
            ),
        }
    }
}

impl std::error::Error for ArgsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ArgsError::Syntax(e) | ArgsError::Mismatch(e) => Some(e),
            ArgsError::Invalid(errors) => Some(errors),
        }
    }
}

/// A call's arguments as they arrive: JSON text from a bridge, or a value from an
/// in-process caller.
pub(crate) enum ArgsIn<'a> {
    /// JSON text (a bridge has already checked that it is well-formed).
    Text(&'a str),
    /// A JSON value.
    Value(Value),
}

impl CompiledSchema {
    /// Deserializes tool arguments from their JSON text into `T`, validating them with the
    /// default options (plain JSON Schema 2020-12) on the way.
    ///
    /// ```
    /// use pedelec_core::schema::{ArgsError, CompiledSchema, SchemaNode};
    /// use serde_json::json;
    ///
    /// #[derive(serde::Deserialize, Debug, PartialEq)]
    /// struct Args { delta: i32 }
    ///
    /// let node = SchemaNode::from_json(&json!({
    ///     "type": "object",
    ///     "properties": {"delta": {"type": "integer", "minimum": -100, "maximum": 100}},
    ///     "required": ["delta"],
    ///     "additionalProperties": false
    /// }))?;
    /// let schema = CompiledSchema::compile(&node)?;
    /// assert_eq!(schema.deserialize_args::<Args>(r#"{"delta": 2}"#)?, Args { delta: 2 });
    /// let Err(ArgsError::Invalid(errors)) = schema.deserialize_args::<Args>(r#"{"delta": 500}"#)
    /// else { panic!() };
    /// assert_eq!(errors.to_string(), "/delta: expected a number <= 100, got 500");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// [`ArgsError::Syntax`] when `json` is not JSON, [`ArgsError::Invalid`] with every
    /// error when it does not match the schema, [`ArgsError::Mismatch`] when it matches but
    /// `T` does not accept it.
    pub fn deserialize_args<T: DeserializeOwned>(&self, json: &str) -> Result<T, ArgsError> {
        self.deserialize_args_with(json, ValidationOptions::new())
    }

    /// Deserializes tool arguments from their JSON text into `T`, validating them on the
    /// way, exactly as a session decodes a call's arguments (the session passes
    /// [`ValidationOptions::null_as_absent`] and [`ValidationOptions::assert_formats`]).
    ///
    /// Valid arguments are checked while they are parsed straight into `T`, without
    /// building a `Value`. Invalid ones are parsed again and validated in full, so the error
    /// lists every problem.
    ///
    /// # Errors
    /// As [`deserialize_args`](Self::deserialize_args).
    pub fn deserialize_args_with<T: DeserializeOwned>(
        &self,
        json: &str,
        options: ValidationOptions,
    ) -> Result<T, ArgsError> {
        self.decode(ArgsIn::Text(json), options)
    }

    /// Deserializes already-parsed tool arguments into `T` after validating them with the
    /// default options.
    ///
    /// # Errors
    /// [`ArgsError::Invalid`] or [`ArgsError::Mismatch`], as
    /// [`deserialize_args`](Self::deserialize_args).
    pub fn deserialize_value<T: DeserializeOwned>(&self, args: Value) -> Result<T, ArgsError> {
        self.deserialize_value_with(args, ValidationOptions::new())
    }

    /// Deserializes already-parsed tool arguments into `T` after validating them: validate,
    /// normalize (see the module docs: `null` for an optional property is dropped under
    /// `null_as_absent`, `1.0` becomes `1` where the schema says integer), then read `T`
    /// from the result (as `serde_json::from_value` would).
    ///
    /// # Errors
    /// [`ArgsError::Invalid`] or [`ArgsError::Mismatch`], as
    /// [`deserialize_args`](Self::deserialize_args).
    pub fn deserialize_value_with<T: DeserializeOwned>(
        &self,
        args: Value,
        options: ValidationOptions,
    ) -> Result<T, ArgsError> {
        self.decode(ArgsIn::Value(args), options)
    }

    /// JSON text straight into `T` through the checks (the direct fast path,
    /// [`decode_fast`](Self::decode_fast)); when that does not decide, or for a `Value`,
    /// the slow path records `args` and replays them into `T`.
    fn decode<T: DeserializeOwned>(
        &self,
        args: ArgsIn<'_>,
        options: ValidationOptions,
    ) -> Result<T, ArgsError> {
        if let ArgsIn::Text(text) = args
            && !self.is_raw()
            && let Some(value) = self.decode_fast(text, options)
        {
            return Ok(value);
        }
        let mut tape = Tape::new();
        self.record_slow(args, options, &mut tape)?;
        tape.replay().map_err(ArgsError::Mismatch)
    }

    /// The slow path: parse, validate (every error), normalize, record.
    #[cold]
    #[inline(never)]
    pub(crate) fn record_slow(
        &self,
        args: ArgsIn<'_>,
        options: ValidationOptions,
        tape: &mut Tape,
    ) -> Result<(), ArgsError> {
        let value = match args {
            ArgsIn::Text(text) => serde_json::from_str(text).map_err(ArgsError::Syntax)?,
            ArgsIn::Value(value) => bounded(value)?,
        };
        tape.push_value(self.validated(value, options).map_err(ArgsError::Invalid)?);
        Ok(())
    }

    /// Validates `args` (every error) and normalizes them (see the module docs): what the
    /// slow path records, and what a handler taking JSON gets.
    pub(crate) fn validated(
        &self,
        mut args: Value,
        options: ValidationOptions,
    ) -> Result<Value, ValidationErrors> {
        if let Some(raw) = &self.raw {
            // The raw validator drops what `null_as_absent` drops; the plain nodes are
            // only its approximation, not a guide to normalizing.
            return raw.validated(args, options);
        }
        self.validate_with(&args, options)?;
        self.normalize(CompiledSchema::ROOT, &mut args, options);
        Ok(args)
    }

    /// Normalizes a value that is valid against node `id` (see the module docs).
    pub(crate) fn normalize(&self, id: NodeId, value: &mut Value, options: ValidationOptions) {
        let node = self.node(id);
        // The value is valid, so it nests at most `MAX_REF_DEPTH` references deep.
        if node.composite
            && let Some(target) = self.reference(id)
        {
            self.normalize(target, value, options);
        }
        if let Some(branches) = &node.one_of
            && let Some(&branch) = branches
                .iter()
                .find(|&&branch| self.is_valid_at(branch, value, options))
        {
            self.normalize(branch, value, options);
        }
        match value {
            Value::Number(n) if node.kind == Some(SchemaKind::Integer) && n.is_f64() => {
                match n.as_f64().and_then(integral) {
                    Some(Integral::Unsigned(u)) => *n = u.into(),
                    Some(Integral::Signed(i)) => *n = i.into(),
                    None => {}
                }
            }
            Value::Array(items) => {
                if let Some(item) = node.items {
                    for value in items {
                        self.normalize(item, value, options);
                    }
                }
            }
            Value::Object(map) => {
                if options.null_as_absent {
                    map.retain(|key, value| {
                        !(value.is_null() && node.property(key).is_some_and(|(_, p)| !p.required))
                    });
                }
                for (key, value) in map {
                    match node.property(key) {
                        Some((_, property)) => self.normalize(property.node, value, options),
                        None => {
                            if let Additional::Schema(id) = node.additional {
                                self.normalize(id, value, options);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// A value built in process, refused when it nests deeper than JSON text may
/// ([`depth::MAX_DEPTH`](super::depth::MAX_DEPTH)): no parser bounded it, and walking or
/// dropping it recursively could overflow the stack. A refused value is taken apart
/// without recursion. One loop over the value, on the `Value` path only (text is bounded
/// by its parser).
pub(crate) fn bounded(value: Value) -> Result<Value, ArgsError> {
    use super::depth::{MAX_DEPTH, drop_deep, nests_deeper_than};
    if !nests_deeper_than(&value, MAX_DEPTH) {
        return Ok(value);
    }
    drop_deep(value);
    Err(ArgsError::Invalid(ValidationErrors::from_errors(vec![
        crate::error::Problem::at(
            String::new(),
            format!(
                "nested too deeply: the arguments may nest arrays and objects at most {MAX_DEPTH} levels"
            ),
        )
        .rule("maxDepth"),
    ])))
}

/// An integral `f64` as the integer it is, when one fits (non-negative ones unsigned, as
/// `serde_json` reads integers).
pub(super) enum Integral {
    Unsigned(u64),
    Signed(i64),
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is integral and range-checked first"
)]
pub(super) fn integral(f: f64) -> Option<Integral> {
    // 2^64 and -2^63, exactly.
    const U64_END: f64 = 18_446_744_073_709_551_616.0;
    const I64_MIN: f64 = -9_223_372_036_854_775_808.0;
    if !f.is_finite() || f.fract() != 0.0 {
        return None;
    }
    if f >= 0.0 {
        (f < U64_END).then_some(Integral::Unsigned(f as u64))
    } else {
        (f >= I64_MIN).then_some(Integral::Signed(f as i64))
    }
}
