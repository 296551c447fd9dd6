//! The validating fast path: tool arguments go from their JSON text straight to the typed
//! value, checked against the compiled schema on the way, with no intermediate
//! `serde_json::Value`.
//!
//! [`Checked`] is a [`serde::Deserializer`] wrapped around `serde_json`'s. It carries the
//! current schema node; every `deserialize_*` hint of the target type is forwarded to the
//! inner deserializer with a [`CheckVisitor`] that checks the visited value against the node
//! (type, `enum`, bounds, lengths in code points, `pattern`, `format`) before handing it on,
//! and wraps maps and sequences so that each key picks its property node, unknown and
//! missing properties are caught, and each item is checked against `items`.
//!
//! What one streaming pass cannot decide (`oneOf`, `uniqueItems`, an `enum` with arrays or
//! objects among its values, `required` names that are not properties) is buffered: that
//! subtree is read into a `Value`, checked by the tree validator, normalized, and fed to
//! the target through `serde_json`'s `Value` deserializer.
//!
//! On the first violation, or any other error, the fast path stops and the slow path runs:
//! parse to a `Value`, [`validate`](CompiledSchema::validate_with) (every error), normalize,
//! deserialize from the `Value`. The fast path accepts exactly what the slow path accepts,
//! with the same value; it only gets there sooner.
//!
//! A session runs both paths into a [`Tape`] (see [`super::tape`]): they are then compiled
//! once, here, not once per argument type.
//!
//! Normalization (both paths) is what makes the typed value see the arguments the way the
//! validator judged them:
//! - with [`ValidationOptions::null_as_absent`], a `null` given for a declared property
//!   that is not required is removed, so the target sees the property as missing (an
//!   `Option` is `None`, a `#[serde(default)]` field gets its default);
//! - at an `integer` node, a number with a zero fractional part (`1.0`) is delivered as the
//!   integer it is (`1`), so integer fields accept what the schema accepts.

use std::fmt;
use std::marker::PhantomData;

use pedelec_rules::Number;
use serde::Deserialize;
use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess,
    Visitor,
};
use serde_json::Value;
use serde_json::de::StrRead;

use super::compiled::{Additional, CompiledNode, CompiledSchema, MultipleOf, NodeId};
use super::format::check_format;
use super::json::{Decimal, number_of};
use super::node::SchemaKind;
use super::tape::{Record, Tape};
use super::validate::{ValidationErrors, ValidationOptions, longer_than, shorter_than};

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

impl CompiledSchema {
    /// Deserializes tool arguments from their JSON text into `T`, validating them with the
    /// default options (plain JSON Schema 2020-12) on the way.
    ///
    /// ```
    /// use pedelec_core::{ArgsError, CompiledSchema, SchemaNode};
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
    /// way (the session passes [`ValidationOptions::null_as_absent`]).
    ///
    /// Valid arguments cost little more than `serde_json::from_str::<T>`: the schema is
    /// checked while `T` deserializes, without building a `Value`. Invalid ones are parsed
    /// again and validated in full, so the error lists every problem.
    ///
    /// # Errors
    /// As [`deserialize_args`](Self::deserialize_args).
    // Inlined, with the slow path out of line: the typed value then goes straight to the
    // caller instead of being moved through two more frames.
    //
    // Generic over `T` (the whole validating deserializer is compiled for each `T`): the
    // fastest form, for callers decoding a few types. A session decodes every tool's args
    // through a tape instead (`record_fast`, `record_slow`), compiled once for all.
    #[inline]
    pub fn deserialize_args_with<T: DeserializeOwned>(
        &self,
        json: &str,
        options: ValidationOptions,
    ) -> Result<T, ArgsError> {
        match self.fast_path(json, options) {
            Some(value) => Ok(value),
            None => self.slow_path_typed(json, options),
        }
    }

    /// What [`deserialize_args_with`](Self::deserialize_args_with) does when the fast path
    /// gives up: parse, validate (every error), normalize, `from_value`.
    #[cold]
    #[inline(never)]
    fn slow_path_typed<T: DeserializeOwned>(
        &self,
        json: &str,
        options: ValidationOptions,
    ) -> Result<T, ArgsError> {
        let value: Value = serde_json::from_str(json).map_err(ArgsError::Syntax)?;
        self.deserialize_value_with(value, options)
    }

    /// The slow path into a tape: parse, validate (every error), normalize, record.
    #[cold]
    #[inline(never)]
    pub(crate) fn record_slow(
        &self,
        json: &str,
        options: ValidationOptions,
        tape: &mut Tape<'_>,
    ) -> Result<(), ArgsError> {
        let value: Value = serde_json::from_str(json).map_err(ArgsError::Syntax)?;
        self.record_value(value, options, tape)
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
    /// `null_as_absent`, `1.0` becomes `1` where the schema says integer), then deserialize
    /// from the `Value` (as `serde_json::from_value` would).
    ///
    /// # Errors
    /// [`ArgsError::Invalid`] or [`ArgsError::Mismatch`], as
    /// [`deserialize_args`](Self::deserialize_args).
    pub fn deserialize_value_with<T: DeserializeOwned>(
        &self,
        args: Value,
        options: ValidationOptions,
    ) -> Result<T, ArgsError> {
        let args = self.validated(args, options).map_err(ArgsError::Invalid)?;
        serde_json::from_value(args).map_err(ArgsError::Mismatch)
    }

    /// [`deserialize_value_with`](Self::deserialize_value_with) into a tape: validate,
    /// normalize, record.
    pub(crate) fn record_value(
        &self,
        args: Value,
        options: ValidationOptions,
        tape: &mut Tape<'_>,
    ) -> Result<(), ArgsError> {
        let args = self.validated(args, options).map_err(ArgsError::Invalid)?;
        tape.push_value(args);
        Ok(())
    }

    /// Validates `args` (every error) and normalizes them (see the module docs): what the
    /// target of the slow path, or a handler taking JSON, gets.
    pub(crate) fn validated(
        &self,
        mut args: Value,
        options: ValidationOptions,
    ) -> Result<Value, ValidationErrors> {
        self.validate_with(&args, options)?;
        self.normalize(CompiledSchema::ROOT, &mut args, options);
        Ok(args)
    }

    /// The fast path alone: `Some` when `json` matches the schema and deserializes into
    /// `T` in one streaming pass; `None` on the first violation or error (and in the rare
    /// cases it cannot decide, such as an escaped property name whose value must be looked
    /// at before the name is delivered), after which the slow path decides.
    // Always inlined into `deserialize_args_with`: the value is then built in place.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured")]
    pub(crate) fn fast_path<T: DeserializeOwned>(
        &self,
        json: &str,
        options: ValidationOptions,
    ) -> Option<T> {
        self.checked_walk(json, options, |checked| T::deserialize(checked))
    }

    /// The fast path into a tape: `true` when `json` matches the schema and is recorded
    /// (checked and normalized as the slow path would); `false` (and `tape` cleared) on the
    /// first violation or error.
    pub(crate) fn record_fast<'de>(
        &self,
        json: &'de str,
        options: ValidationOptions,
        tape: &mut Tape<'de>,
    ) -> bool {
        let recorded = self.checked_walk(json, options, |checked| {
            checked.deserialize_any(Record(&mut *tape))
        });
        if recorded.is_none() {
            tape.clear();
        }
        recorded.is_some()
    }

    /// What both fast paths share: `walk` gets `json`'s value through the checking
    /// deserializer, at the root node; `Some` of what it made when the value matched and
    /// nothing follows it.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured, in `fast_path`")]
    fn checked_walk<'de, R>(
        &self,
        json: &'de str,
        options: ValidationOptions,
        walk: impl for<'a> FnOnce(
            Checked<'a, &'a mut serde_json::Deserializer<StrRead<'de>>>,
        ) -> Result<R, serde_json::Error>,
    ) -> Option<R> {
        let cx = Ctx {
            schema: self,
            options,
            text: json,
        };
        let mut de = serde_json::Deserializer::from_str(json);
        let value = walk(Checked {
            de: &mut de,
            at: cx.at(CompiledSchema::ROOT),
            cx: &cx,
        })
        .ok()?;
        de.end().ok()?;
        Some(value)
    }

    /// Normalizes a value that is valid against node `id` (see the module docs).
    pub(crate) fn normalize(&self, id: NodeId, value: &mut Value, options: ValidationOptions) {
        let node = self.node(id);
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
                    Some(Integral::Unsigned(u)) => *n = serde_json::Number::from(u),
                    Some(Integral::Signed(i)) => *n = serde_json::Number::from(i),
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

/// An integral `f64` as the integer it is, when one fits (non-negative ones unsigned, as
/// `serde_json` reads integers).
enum Integral {
    Unsigned(u64),
    Signed(i64),
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "the value is integral and range-checked first"
)]
fn integral(f: f64) -> Option<Integral> {
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

/// What the whole walk shares.
struct Ctx<'a> {
    schema: &'a CompiledSchema,
    options: ValidationOptions,
    /// The JSON text, to look at what follows a property name (`null` or not).
    text: &'a str,
}

impl<'a> Ctx<'a> {
    #[inline]
    fn at(&self, id: NodeId) -> At<'a> {
        At {
            node: self.schema.node(id),
        }
    }

    /// Whether the value after the property name `key` (a slice of the text: names without
    /// escapes are borrowed from it) is `null`. `None` when that cannot be told.
    #[inline]
    fn null_follows(&self, key: &str) -> Option<bool> {
        let offset = key.as_ptr().addr().checked_sub(self.text.as_ptr().addr())?;
        let rest = self.text.as_bytes().get(offset.checked_add(key.len())?..)?;
        // Compact JSON (`"name":value`) first, without the loops that skip whitespace
        // (measured: ~30 instructions per optional property).
        if let [b'"', b':', first, ..] = rest
            && !first.is_ascii_whitespace()
        {
            return Some(*first == b'n' && rest[2..].starts_with(b"null"));
        }
        let rest = rest.strip_prefix(b"\"")?;
        let rest = rest.trim_ascii_start().strip_prefix(b":")?;
        Some(rest.trim_ascii_start().starts_with(b"null"))
    }
}

/// A node (which knows its id, for the tree validator).
#[derive(Clone, Copy)]
struct At<'a> {
    node: &'a CompiledNode,
}

/// The error that stops the fast path; the slow path then reports the real errors.
fn violation<E: de::Error>() -> E {
    E::custom("the value does not match the schema")
}

/// Whether values of this node are checked by buffering them (see the module docs).
#[inline]
fn needs_buffer(node: &CompiledNode) -> bool {
    node.buffered
}

#[inline]
fn kind_allows(node: &CompiledNode, kind: SchemaKind) -> bool {
    node.kind.is_none_or(|k| k == kind)
}

#[inline(always)]
#[allow(clippy::inline_always, reason = "measured: called for every string")]
fn string_ok(node: &CompiledNode, s: &str, options: ValidationOptions) -> bool {
    // The common case in one range check (measured: ~25 instructions per string).
    if let Some((lo, hi)) = node.plain_string_bytes
        && (lo..=hi).contains(&(s.len() as u64))
    {
        return true;
    }
    if !kind_allows(node, SchemaKind::String) {
        return false;
    }
    if node.enum_values.is_some() && !node.enum_has_string(s) {
        return false;
    }
    if !node.string_keywords {
        return true;
    }
    if node.min_length.is_some_and(|min| shorter_than(s, min))
        || node.max_length.is_some_and(|max| longer_than(s, max))
    {
        return false;
    }
    if let Some(pattern) = &node.pattern
        && !pattern.regex.is_match(s)
    {
        return false;
    }
    !(options.assert_formats
        && node
            .format
            .as_ref()
            .is_some_and(|format| check_format(format, s) == Some(false)))
}

#[inline(always)]
#[allow(clippy::inline_always, reason = "measured: called for every number")]
fn number_ok(node: &CompiledNode, n: Number) -> bool {
    use std::cmp::Ordering::{Greater, Less};
    match node.kind {
        None | Some(SchemaKind::Number) => {}
        Some(SchemaKind::Integer) if n.is_integer() => {}
        Some(_) => return false,
    }
    if let Some(values) = &node.enum_values
        && !values
            .iter()
            .any(|v| matches!(v, Value::Number(m) if number_of(m) == n))
    {
        return false;
    }
    if !node.number_keywords {
        return true;
    }
    // An integer against integer bounds: two comparisons instead of up to four calls of
    // `compare` (measured: ~45 instructions per checked integer).
    if let Number::Int(i) = n
        && let Some(in_bounds) = node.int_in_bounds(i)
    {
        return in_bounds && node.multiple_of.is_none_or(|m| multiple_ok(n, m));
    }
    let cmp = |bound: Number| n.exact_cmp(bound);
    !(node.minimum.is_some_and(|min| cmp(min) == Some(Less))
        || node
            .exclusive_minimum
            .is_some_and(|min| cmp(min) != Some(Greater))
        || node.maximum.is_some_and(|max| cmp(max) == Some(Greater))
        || node
            .exclusive_maximum
            .is_some_and(|max| cmp(max) != Some(Less))
        || node.multiple_of.is_some_and(|m| !multiple_ok(n, m)))
}

#[inline]
fn multiple_ok(n: Number, multiple: MultipleOf) -> bool {
    Decimal::of(n).is_some_and(|d| d.is_multiple_of(multiple.decimal))
}

#[inline]
fn bool_ok(node: &CompiledNode, b: bool) -> bool {
    kind_allows(node, SchemaKind::Boolean)
        && node
            .enum_values
            .as_ref()
            .is_none_or(|values| values.iter().any(|v| v.as_bool() == Some(b)))
}

#[inline]
fn null_ok(node: &CompiledNode) -> bool {
    node.kind.is_none()
        && node
            .enum_values
            .as_ref()
            .is_none_or(|values| values.iter().any(Value::is_null))
}

/// Whether an array or object may stand here (its content is checked as it streams). A
/// node with an `enum` is buffered when its values include arrays or objects, so here an
/// `enum` means scalars only.
#[inline]
fn container_ok(node: &CompiledNode, kind: SchemaKind) -> bool {
    kind_allows(node, kind) && node.enum_values.is_none()
}

/// The checking deserializer: `de` positioned at a value of node `at`.
struct Checked<'a, D> {
    de: D,
    at: At<'a>,
    cx: &'a Ctx<'a>,
}

impl<'a, 'de, D: Deserializer<'de>> Checked<'a, D> {
    #[inline]
    fn visitor<V>(&self, v: V) -> CheckVisitor<'a, V> {
        CheckVisitor {
            v,
            at: self.at,
            cx: self.cx,
        }
    }

    /// Reads the value into a `Value`, checks it with the tree validator, normalizes it and
    /// feeds it to `f` (a `deserialize_*` call on the `Value`).
    ///
    /// Out of line: inlined, its large frame made every `deserialize_*` hint save and
    /// restore registers even when nothing is buffered (measured: ~15 instructions per
    /// value).
    #[inline(never)]
    fn buffer<T>(
        self,
        f: impl FnOnce(Value) -> Result<T, serde_json::Error>,
    ) -> Result<T, D::Error> {
        let mut value = Value::deserialize(self.de)?;
        let (schema, options) = (self.cx.schema, self.cx.options);
        if !schema.is_valid_at(self.at.node.id, &value, options) {
            return Err(violation());
        }
        schema.normalize(self.at.node.id, &mut value, options);
        f(value).map_err(de::Error::custom)
    }
}

macro_rules! checked_hints {
    ($($method:ident($($arg:ident: $ty:ty),*);)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, D::Error> {
            if needs_buffer(self.at.node) {
                return self.buffer(move |value| value.$method($($arg,)* visitor));
            }
            let visitor = self.visitor(visitor);
            self.de.$method($($arg,)* visitor)
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Checked<'_, D> {
    type Error = D::Error;

    checked_hints! {
        deserialize_any();
        deserialize_bool();
        deserialize_i8();
        deserialize_i16();
        deserialize_i32();
        deserialize_i64();
        deserialize_i128();
        deserialize_u8();
        deserialize_u16();
        deserialize_u32();
        deserialize_u64();
        deserialize_u128();
        deserialize_f32();
        deserialize_f64();
        deserialize_char();
        deserialize_str();
        deserialize_string();
        deserialize_bytes();
        deserialize_byte_buf();
        deserialize_option();
        deserialize_unit();
        deserialize_unit_struct(name: &'static str);
        deserialize_seq();
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_map();
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_identifier();
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // `serde_json::value::RawValue` asks for the raw text: give it the text of the
        // checked, normalized value, as `from_value` would.
        if name == RAW_VALUE_TOKEN || needs_buffer(self.at.node) {
            return self.buffer(move |value| value.deserialize_newtype_struct(name, visitor));
        }
        let visitor = self.visitor(visitor);
        self.de.deserialize_newtype_struct(name, visitor)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        // A string node (unit variants): check the string, then hand it over as the
        // variant. Anything else (`oneOf` of data-carrying variants, …) is buffered.
        if self.at.node.kind == Some(SchemaKind::String) && !needs_buffer(self.at.node) {
            let visitor = EnumStr {
                v: visitor,
                at: self.at,
                cx: self.cx,
            };
            return self.de.deserialize_str(visitor);
        }
        self.buffer(move |value| value.deserialize_enum(name, variants, visitor))
    }

    #[inline]
    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        // The target ignores the value, but it is still checked.
        if needs_buffer(self.at.node) {
            return self.buffer(move |value| value.deserialize_ignored_any(visitor));
        }
        let visitor = self.visitor(visitor);
        self.de.deserialize_any(visitor)
    }

    #[inline]
    fn is_human_readable(&self) -> bool {
        self.de.is_human_readable()
    }
}

/// The name `serde_json::value::RawValue` deserializes through.
pub(super) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// A seed that deserializes through [`Checked`].
struct CheckedSeed<'a, S> {
    seed: S,
    at: At<'a>,
    cx: &'a Ctx<'a>,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for CheckedSeed<'_, S> {
    type Value = S::Value;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Checked {
            de,
            at: self.at,
            cx: self.cx,
        })
    }
}

/// Checks each visited value against the node, then hands it to the target's visitor.
struct CheckVisitor<'a, V> {
    v: V,
    at: At<'a>,
    cx: &'a Ctx<'a>,
}

impl<V> CheckVisitor<'_, V> {
    #[inline]
    fn node(&self) -> &CompiledNode {
        self.at.node
    }
}

macro_rules! visit_signed {
    ($($method:ident: $ty:ty),*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, n: $ty) -> Result<V::Value, E> {
            if number_ok(self.node(), Number::Int(i64::from(n))) {
                self.v.$method(n)
            } else {
                Err(violation())
            }
        }
    )*};
}

macro_rules! visit_unsigned {
    ($($method:ident: $ty:ty),*) => {$(
        #[inline]
        fn $method<E: de::Error>(self, n: $ty) -> Result<V::Value, E> {
            if number_ok(self.node(), Number::from_u64(u64::from(n))) {
                self.v.$method(n)
            } else {
                Err(violation())
            }
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for CheckVisitor<'_, V> {
    type Value = V::Value;

    #[inline]
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    #[inline]
    fn visit_bool<E: de::Error>(self, b: bool) -> Result<V::Value, E> {
        if bool_ok(self.node(), b) {
            self.v.visit_bool(b)
        } else {
            Err(violation())
        }
    }

    visit_signed!(visit_i8: i8, visit_i16: i16, visit_i32: i32, visit_i64: i64);
    visit_unsigned!(visit_u8: u8, visit_u16: u16, visit_u32: u32, visit_u64: u64);

    #[inline]
    fn visit_i128<E: de::Error>(self, n: i128) -> Result<V::Value, E> {
        // Beyond 64 bits the number has no exact `Number`: let the slow path decide.
        let Some(num) = Number::from_i128(n) else {
            return Err(violation());
        };
        if number_ok(self.node(), num) {
            self.v.visit_i128(n)
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_u128<E: de::Error>(self, n: u128) -> Result<V::Value, E> {
        match u64::try_from(n) {
            Ok(u) if number_ok(self.node(), Number::from_u64(u)) => self.v.visit_u128(n),
            _ => Err(violation()),
        }
    }

    #[inline]
    fn visit_f32<E: de::Error>(self, f: f32) -> Result<V::Value, E> {
        let wide = f64::from(f);
        if !number_ok(self.node(), Number::Float(wide)) {
            return Err(violation());
        }
        match self.integer(wide) {
            Some(Integral::Unsigned(u)) => self.v.visit_u64(u),
            Some(Integral::Signed(i)) => self.v.visit_i64(i),
            None => self.v.visit_f32(f),
        }
    }

    #[inline]
    fn visit_f64<E: de::Error>(self, f: f64) -> Result<V::Value, E> {
        if !number_ok(self.node(), Number::Float(f)) {
            return Err(violation());
        }
        match self.integer(f) {
            Some(Integral::Unsigned(u)) => self.v.visit_u64(u),
            Some(Integral::Signed(i)) => self.v.visit_i64(i),
            None => self.v.visit_f64(f),
        }
    }

    #[inline]
    fn visit_char<E: de::Error>(self, c: char) -> Result<V::Value, E> {
        if string_ok(self.node(), c.encode_utf8(&mut [0; 4]), self.cx.options) {
            self.v.visit_char(c)
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        if string_ok(self.node(), s, self.cx.options) {
            self.v.visit_str(s)
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        if string_ok(self.node(), s, self.cx.options) {
            self.v.visit_borrowed_str(s)
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        if string_ok(self.node(), &s, self.cx.options) {
            self.v.visit_string(s)
        } else {
            Err(violation())
        }
    }

    // Bytes come from a JSON string read as bytes.
    #[inline]
    fn visit_bytes<E: de::Error>(self, b: &[u8]) -> Result<V::Value, E> {
        if self.bytes_ok(b) {
            self.v.visit_bytes(b)
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_borrowed_bytes<E: de::Error>(self, b: &'de [u8]) -> Result<V::Value, E> {
        if self.bytes_ok(b) {
            self.v.visit_borrowed_bytes(b)
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_byte_buf<E: de::Error>(self, b: Vec<u8>) -> Result<V::Value, E> {
        if self.bytes_ok(&b) {
            self.v.visit_byte_buf(b)
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        if null_ok(self.node()) {
            self.v.visit_none()
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        if null_ok(self.node()) {
            self.v.visit_unit()
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_some(Checked {
            de,
            at: self.at,
            cx: self.cx,
        })
    }

    #[inline]
    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<V::Value, D::Error> {
        self.v.visit_newtype_struct(Checked {
            de,
            at: self.at,
            cx: self.cx,
        })
    }

    #[inline]
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let node = self.at.node;
        if !container_ok(node, SchemaKind::Array) {
            return Err(violation());
        }
        let mut seq = CheckedSeq {
            seq,
            node,
            item: node.items.map(|id| self.cx.at(id)),
            cx: self.cx,
            count: 0,
        };
        let value = self.v.visit_seq(&mut seq)?;
        // A target that stops reading before the end: the items it read must be enough
        // (more items than it read are an error of the inner deserializer).
        if node.min_items.is_some_and(|min| seq.count < min) {
            return Err(violation());
        }
        Ok(value)
    }

    #[inline]
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        let node = self.at.node;
        if !container_ok(node, SchemaKind::Object) {
            return Err(violation());
        }
        let mut map = CheckedMap {
            map,
            keys: Keys {
                node,
                cx: self.cx,
                seen: Seen::default(),
                required: 0,
                next: 0,
                value: None,
            },
            finished: false,
        };
        let value = self.v.visit_map(&mut map)?;
        if !map.finished {
            map.keys.check_required()?;
        }
        Ok(value)
    }

    #[inline]
    fn visit_enum<A: de::EnumAccess<'de>>(self, _: A) -> Result<V::Value, A::Error> {
        // `serde_json` calls this only for `deserialize_enum`, which is handled before the
        // visitor; any other source cannot be checked here.
        Err(violation())
    }
}

impl<V> CheckVisitor<'_, V> {
    /// The integer to deliver instead of an integral float, at an `integer` node.
    #[inline]
    fn integer(&self, f: f64) -> Option<Integral> {
        if self.at.node.kind == Some(SchemaKind::Integer) {
            integral(f)
        } else {
            None
        }
    }

    #[inline]
    fn bytes_ok(&self, b: &[u8]) -> bool {
        std::str::from_utf8(b).is_ok_and(|s| string_ok(self.at.node, s, self.cx.options))
    }
}

/// A unit variant read from a string node: the string is checked, then becomes the variant.
struct EnumStr<'a, V> {
    v: V,
    at: At<'a>,
    cx: &'a Ctx<'a>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for EnumStr<'_, V> {
    type Value = V::Value;

    #[inline]
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.v.expecting(f)
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<V::Value, E> {
        if string_ok(self.at.node, s, self.cx.options) {
            self.v.visit_enum(BorrowedStrDeserializer::new(s))
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<V::Value, E> {
        if string_ok(self.at.node, s, self.cx.options) {
            self.v.visit_enum(StrDeserializer::new(s))
        } else {
            Err(violation())
        }
    }

    #[inline]
    fn visit_string<E: de::Error>(self, s: String) -> Result<V::Value, E> {
        if string_ok(self.at.node, &s, self.cx.options) {
            self.v.visit_enum(StringDeserializer::new(s))
        } else {
            Err(violation())
        }
    }
}

/// The items of an array, each checked against `items`; the count against the bounds.
struct CheckedSeq<'a, A> {
    seq: A,
    node: &'a CompiledNode,
    item: Option<At<'a>>,
    cx: &'a Ctx<'a>,
    count: u64,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for CheckedSeq<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, A::Error> {
        let element = match self.item {
            Some(at) => self.seq.next_element_seed(CheckedSeed {
                seed,
                at,
                cx: self.cx,
            })?,
            None => self.seq.next_element_seed(seed)?,
        };
        match element {
            Some(_) => {
                self.count += 1;
                if self.node.max_items.is_some_and(|max| self.count > max) {
                    return Err(violation());
                }
            }
            None => {
                if self.node.min_items.is_some_and(|min| self.count < min) {
                    return Err(violation());
                }
            }
        }
        Ok(element)
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}

/// Which declared properties were given (a bit per property, in declaration order).
#[derive(Default)]
struct Seen {
    first: u64,
    rest: Vec<u64>,
}

impl Seen {
    /// Marks property `i`; `false` when it was already marked (a repeated name).
    #[inline]
    fn insert(&mut self, i: usize) -> bool {
        if i < 64 {
            let bit = 1u64 << i;
            let new = self.first & bit == 0;
            self.first |= bit;
            new
        } else {
            self.insert_rest(i)
        }
    }

    #[cold]
    #[inline]
    fn insert_rest(&mut self, i: usize) -> bool {
        let w = i / 64 - 1;
        if self.rest.len() <= w {
            self.rest.resize(w + 1, 0);
        }
        let bit = 1u64 << (i % 64);
        let new = self.rest[w] & bit == 0;
        self.rest[w] |= bit;
        new
    }
}

/// The entries of an object: each name picks the node of its value; unknown, repeated and
/// missing properties stop the fast path.
struct CheckedMap<'a, A> {
    map: A,
    keys: Keys<'a>,
    /// Whether the end of the object was reached (and `required` checked).
    finished: bool,
}

/// What the names of an object decide, apart from the inner `MapAccess` (so that the
/// visitor of a name can update it while the inner deserializer reads the name).
struct Keys<'a> {
    node: &'a CompiledNode,
    cx: &'a Ctx<'a>,
    seen: Seen,
    /// How many required properties were given.
    required: usize,
    /// Where to look first for the next name (the one after the last found).
    next: usize,
    /// The node of the value whose name was just delivered (`None`: not checked).
    value: Option<At<'a>>,
}

impl Keys<'_> {
    #[inline]
    fn check_required<E: de::Error>(&self) -> Result<(), E> {
        if self.required == self.node.required_count {
            Ok(())
        } else {
            Err(violation())
        }
    }

    /// Takes the name `name` (`borrowed`: whether it is a slice of the text): `Some(true)`
    /// to hand it to the target, `Some(false)` to skip its entry (a `null` that counts as
    /// absent), `None` to stop the fast path.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured: ~20 instructions per name")]
    fn accept(&mut self, name: &str, borrowed: bool) -> Option<bool> {
        let (value, deliver) = match self.node.property_after(name, &mut self.next) {
            Some((index, property)) => {
                // A repeated name: `Value` keeps the last, a struct rejects it.
                if !self.seen.insert(index) {
                    return None;
                }
                self.required += usize::from(property.required);
                if self.cx.options.null_as_absent && !property.required {
                    // `null` counts as absent: skip the entry before the target sees its
                    // name. Looking ahead needs the name to be borrowed from the text; an
                    // escaped one (rare) leaves it to the slow path.
                    if !borrowed {
                        return None;
                    }
                    if self.cx.null_follows(name)? {
                        return Some(false);
                    }
                }
                (Some(self.cx.at(property.node)), true)
            }
            None => match self.node.additional {
                Additional::Allow => (None, true),
                Additional::Deny => return None,
                Additional::Schema(id) => (Some(self.cx.at(id)), true),
            },
        };
        self.value = value;
        Some(deliver)
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for CheckedMap<'_, A> {
    type Error = A::Error;

    #[inline]
    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        mut seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            // The name goes from the inner deserializer through `KeyCheck` straight to the
            // target's seed (measured: ~40 instructions per name less than reading it into a
            // `Cow` first and handing that over).
            let key = KeyCheck {
                seed,
                keys: &mut self.keys,
            };
            match self.map.next_key_seed(key)? {
                Some(Step::Key(key)) => return Ok(Some(key)),
                Some(Step::Skip(again)) => {
                    self.map.next_value::<IgnoredAny>()?;
                    seed = again;
                }
                None => {
                    self.finished = true;
                    self.keys.check_required()?;
                    return Ok(None);
                }
            }
        }
    }

    #[inline]
    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, A::Error> {
        match self.keys.value.take() {
            Some(at) => self.map.next_value_seed(CheckedSeed {
                seed,
                at,
                cx: self.keys.cx,
            }),
            None => self.map.next_value_seed(seed),
        }
    }

    #[inline]
    fn size_hint(&self) -> Option<usize> {
        self.map.size_hint()
    }
}

/// What reading a name gave: the target's key, or the target's seed back when the entry is
/// skipped.
enum Step<T, K> {
    Key(T),
    Skip(K),
}

/// Reads a property name, decides on it ([`Keys::accept`]) and hands it to the target's seed.
struct KeyCheck<'k, 'a, K> {
    seed: K,
    keys: &'k mut Keys<'a>,
}

impl<'de, K: DeserializeSeed<'de>> DeserializeSeed<'de> for KeyCheck<'_, '_, K> {
    type Value = Step<K::Value, K>;

    #[inline]
    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<Self::Value, D::Error> {
        de.deserialize_str(self)
    }
}

impl<'de, K: DeserializeSeed<'de>> Visitor<'de> for KeyCheck<'_, '_, K> {
    type Value = Step<K::Value, K>;

    #[inline]
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a property name")
    }

    #[inline]
    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        self.take(Key::Borrowed(s))
    }

    #[inline]
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        self.take(Key::Transient(s))
    }

    #[inline]
    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        self.visit_str(&s)
    }
}

impl<'de, K: DeserializeSeed<'de>> KeyCheck<'_, '_, K> {
    /// Decides on the name ([`Keys::accept`]) and hands it to the target's seed, or hands
    /// the seed back when the entry is skipped.
    #[inline(always)]
    #[allow(
        clippy::inline_always,
        reason = "measured: ~95 instructions per call otherwise"
    )]
    fn take<E: de::Error>(self, key: Key<'de, '_>) -> Result<Step<K::Value, K>, E> {
        match self
            .keys
            .accept(key.as_str(), matches!(key, Key::Borrowed(_)))
        {
            Some(true) => self
                .seed
                .deserialize(KeyDeserializer {
                    key,
                    error: PhantomData,
                })
                .map(Step::Key),
            Some(false) => Ok(Step::Skip(self.seed)),
            None => Err(violation()),
        }
    }
}

/// A property name: borrowed from the text (no escapes) or not.
#[derive(Clone, Copy)]
pub(super) enum Key<'de, 'k> {
    Borrowed(&'de str),
    Transient(&'k str),
}

impl Key<'_, '_> {
    #[inline]
    fn as_str(&self) -> &str {
        match *self {
            Key::Borrowed(s) | Key::Transient(s) => s,
        }
    }
}

/// Hands a property name to the target, as `serde_json` hands map keys over (strings;
/// numbers and booleans for keys of those types).
pub(super) struct KeyDeserializer<'de, 'k, E> {
    key: Key<'de, 'k>,
    error: PhantomData<E>,
}

impl<'de, 'k, E> KeyDeserializer<'de, 'k, E> {
    #[inline]
    pub(super) fn new(key: Key<'de, 'k>) -> Self {
        KeyDeserializer {
            key,
            error: PhantomData,
        }
    }
}

/// What `serde_json` reports for a key that is not a number where one is expected.
const NUMERIC_KEY: &str = "invalid value: expected key to be a number in quotes";

/// Keys read as numbers, as `serde_json`'s `Value` deserializer reads them (the messages
/// too): the key must be a JSON number and nothing else, read by `serde_json` with the
/// target's hint.
macro_rules! numeric_keys {
    ($($method:ident)*) => {$(
        #[inline]
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
            let key = self.key.as_str();
            if !matches!(key.as_bytes().first(), Some(b'0'..=b'9' | b'-')) {
                return Err(E::custom(NUMERIC_KEY));
            }
            let mut de = serde_json::Deserializer::from_str(key);
            let number = de.$method(NumberOnly(visitor, PhantomData)).map_err(E::custom)?;
            // Nothing may follow the number, not even whitespace.
            if de.end().is_err() || key.as_bytes().last().is_some_and(u8::is_ascii_whitespace) {
                return Err(E::custom(NUMERIC_KEY));
            }
            Ok(number)
        }
    )*};
}

/// A visitor of numbers for a deserializer of another lifetime (numbers borrow nothing).
struct NumberOnly<'de, V>(V, PhantomData<&'de ()>);

impl<'de, V: Visitor<'de>> Visitor<'_> for NumberOnly<'de, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<V::Value, E> {
        self.0.visit_i64(v)
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<V::Value, E> {
        self.0.visit_i128(v)
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<V::Value, E> {
        self.0.visit_u64(v)
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<V::Value, E> {
        self.0.visit_u128(v)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<V::Value, E> {
        self.0.visit_f64(v)
    }
}

impl<'de, E: de::Error> Deserializer<'de> for KeyDeserializer<'de, '_, E> {
    type Error = E;

    #[inline]
    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.key {
            Key::Borrowed(s) => visitor.visit_borrowed_str(s),
            Key::Transient(s) => visitor.visit_str(s),
        }
    }

    numeric_keys!(
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    );

    #[inline]
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        match self.key.as_str() {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => Err(E::invalid_type(de::Unexpected::Str(other), &visitor)),
        }
    }

    #[inline]
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        // Keys are never null.
        visitor.visit_some(self)
    }

    #[inline]
    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, E> {
        visitor.visit_newtype_struct(self)
    }

    #[inline]
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, E> {
        match self.key {
            Key::Borrowed(s) => {
                BorrowedStrDeserializer::<E>::new(s).deserialize_enum(name, variants, visitor)
            }
            Key::Transient(s) => {
                StrDeserializer::<E>::new(s).deserialize_enum(name, variants, visitor)
            }
        }
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct
        map struct identifier ignored_any
    }
}
