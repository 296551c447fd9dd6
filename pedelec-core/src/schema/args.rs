//! The schema trait, [`ToolArgs`], and its implementations for standard types.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use pedelec_rules::Number;

use super::node::{Literal, SchemaNode};

/// A type with a tool-args schema, built at compile time.
///
/// Derive it with `#[derive(ToolArgs)]` on structs and enums; it is implemented here for
/// strings, numbers, booleans, sequences, sets, string-keyed maps, `Option`, `Box` and
/// `Arc`. To give a type a schema by hand, write the constant:
///
/// ```
/// use pedelec_core::ToolArgs;
/// use pedelec_core::schema::SchemaNode;
///
/// /// An RFC 3339 timestamp.
/// struct Timestamp(String);
///
/// impl ToolArgs for Timestamp {
///     const SCHEMA: SchemaNode = SchemaNode::string().with_format("date-time");
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no tool-args schema",
    label = "this type does not implement `ToolArgs`",
    note = "derive it with `#[derive(pedelec::ToolArgs)]`, implement `ToolArgs` by hand, or give the field a schema with `#[arg(schema = PATH_TO_A_CONST)]`"
)]
pub trait ToolArgs {
    /// The type's schema. `#[derive(ToolArgs)]` on a type without type or const
    /// parameters writes it as a reference to a `static` holding the body
    /// ([`SchemaNode::named`]), which every reader inlines, so that types may contain
    /// themselves and each other.
    const SCHEMA: SchemaNode;

    /// `true` when a property of this type may be absent (`Option<T>`): such a property is
    /// not listed in `required`.
    const OPTIONAL: bool = false;
}

/// A [`ToolArgs`] type whose schema is an object, so it can be a tool's arguments (the root
/// of every argsSchema is an object).
///
/// `#[derive(ToolArgs)]` implements it for structs with named fields; it is implemented
/// here for string-keyed maps, `Box` and `Arc`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a tool's arguments",
    label = "not a struct with named fields deriving `ToolArgs`",
    note = "the root of an argsSchema is an object: take the arguments as one struct with named fields and `#[derive(ToolArgs, Deserialize)]` (a list, a string or an enum becomes one of its fields)"
)]
pub trait ToolArgsRoot: ToolArgs {}

/// The schema node of `T`: `pedelec::schema_for::<Vec<u8>>()` serializes to
/// `{"type":"array","items":{"type":"integer","minimum":0,"maximum":255}}`.
#[must_use]
pub fn schema_for<T: ToolArgs + ?Sized>() -> &'static SchemaNode {
    const { &T::SCHEMA }
}

macro_rules! string_like {
    ($($ty:ty),* $(,)?) => {$(
        impl ToolArgs for $ty {
            const SCHEMA: SchemaNode = SchemaNode::string();
        }
    )*};
}

string_like!(String, str, PathBuf);

impl ToolArgs for Cow<'_, str> {
    const SCHEMA: SchemaNode = SchemaNode::string();
}

impl ToolArgs for char {
    const SCHEMA: SchemaNode = SchemaNode::string().with_min_length(1).with_max_length(1);
}

impl ToolArgs for bool {
    const SCHEMA: SchemaNode = SchemaNode::boolean();
}

macro_rules! signed {
    ($($ty:ty),* $(,)?) => {$(
        impl ToolArgs for $ty {
            const SCHEMA: SchemaNode = SchemaNode::integer()
                .with_minimum(Number::Int(<$ty>::MIN as i64))
                .with_maximum(Number::Int(<$ty>::MAX as i64));
        }
    )*};
}

signed!(i8, i16, i32);

macro_rules! unsigned {
    ($($ty:ty),* $(,)?) => {$(
        impl ToolArgs for $ty {
            const SCHEMA: SchemaNode = SchemaNode::integer()
                .with_minimum(Number::Int(0))
                .with_maximum(Number::Uint(<$ty>::MAX as u64));
        }
    )*};
}

unsigned!(u8, u16, u32);

impl ToolArgs for i64 {
    const SCHEMA: SchemaNode = SchemaNode::integer();
}

impl ToolArgs for u64 {
    const SCHEMA: SchemaNode = SchemaNode::integer().with_minimum(Number::Int(0));
}

impl ToolArgs for isize {
    const SCHEMA: SchemaNode = if isize::BITS < 64 {
        SchemaNode::integer()
            .with_minimum(Number::Int(isize::MIN as i64))
            .with_maximum(Number::Int(isize::MAX as i64))
    } else {
        SchemaNode::integer()
    };
}

impl ToolArgs for usize {
    const SCHEMA: SchemaNode = if usize::BITS < 64 {
        SchemaNode::integer()
            .with_minimum(Number::Int(0))
            .with_maximum(Number::Uint(usize::MAX as u64))
    } else {
        SchemaNode::integer().with_minimum(Number::Int(0))
    };
}

impl ToolArgs for f32 {
    const SCHEMA: SchemaNode = SchemaNode::number();
}

impl ToolArgs for f64 {
    const SCHEMA: SchemaNode = SchemaNode::number();
}

macro_rules! sequence {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: ToolArgs> ToolArgs for $ty<T> {
            const SCHEMA: SchemaNode = SchemaNode::array(const { &T::SCHEMA });
        }
    )*};
}

sequence!(Vec, VecDeque);

impl<T: ToolArgs> ToolArgs for [T] {
    const SCHEMA: SchemaNode = SchemaNode::array(const { &T::SCHEMA });
}

macro_rules! set {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: ToolArgs, S> ToolArgs for $ty<T, S> {
            const SCHEMA: SchemaNode = SchemaNode::array(const { &T::SCHEMA }).with_unique_items(true);
        }
    )*};
}

set!(HashSet);

impl<T: ToolArgs> ToolArgs for BTreeSet<T> {
    const SCHEMA: SchemaNode = SchemaNode::array(const { &T::SCHEMA }).with_unique_items(true);
}

impl<T: ToolArgs, const N: usize> ToolArgs for [T; N] {
    const SCHEMA: SchemaNode = SchemaNode::array(const { &T::SCHEMA })
        .with_min_items(N as u64)
        .with_max_items(N as u64);
}

/// Key types of maps that serialize as JSON object keys (strings).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the key of a map in a tool-args schema",
    note = "JSON object keys are strings: use `String` keys"
)]
pub trait MapKey {}
impl MapKey for String {}
impl MapKey for Box<str> {}
impl MapKey for Arc<str> {}
impl MapKey for Cow<'_, str> {}

impl<K: MapKey, V: ToolArgs, S> ToolArgs for HashMap<K, V, S> {
    const SCHEMA: SchemaNode = SchemaNode::map(const { &V::SCHEMA });
}
impl<K: MapKey, V: ToolArgs, S> ToolArgsRoot for HashMap<K, V, S> {}

impl<K: MapKey, V: ToolArgs> ToolArgs for BTreeMap<K, V> {
    const SCHEMA: SchemaNode = SchemaNode::map(const { &V::SCHEMA });
}
impl<K: MapKey, V: ToolArgs> ToolArgsRoot for BTreeMap<K, V> {}

impl<T: ToolArgs> ToolArgs for Option<T> {
    const SCHEMA: SchemaNode = T::SCHEMA;
    const OPTIONAL: bool = true;
}

macro_rules! transparent {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: ToolArgs + ?Sized> ToolArgs for $ty<T> {
            const SCHEMA: SchemaNode = T::SCHEMA;
            const OPTIONAL: bool = T::OPTIONAL;
        }
        impl<T: ToolArgsRoot + ?Sized> ToolArgsRoot for $ty<T> {}
    )*};
}

transparent!(Box, Arc, Rc);

impl<T: ToolArgs + ?Sized> ToolArgs for &T {
    const SCHEMA: SchemaNode = T::SCHEMA;
    const OPTIONAL: bool = T::OPTIONAL;
}

/// The arguments of a tool that takes none: `{}` (an empty, closed object).
///
/// `#[tool]` uses it for a function without an argument struct. It deserializes from `{}`
/// (and from `null`, which a model may send for "no arguments").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoArgs;

impl ToolArgs for NoArgs {
    const SCHEMA: SchemaNode = SchemaNode::object(&[]).closed();
}
impl ToolArgsRoot for NoArgs {}

impl<'de> serde::Deserialize<'de> for NoArgs {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = NoArgs;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an empty object `{}`")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<NoArgs, E> {
                Ok(NoArgs)
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<NoArgs, E> {
                Ok(NoArgs)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<NoArgs, A::Error> {
                match map.next_key::<String>()? {
                    None => Ok(NoArgs),
                    Some(key) => Err(serde::de::Error::custom(format_args!(
                        "unknown property \"{key}\": this tool takes no arguments"
                    ))),
                }
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

/// `Literal` for a unit enum variant name, usable in a `const` (used by the derive).
#[doc(hidden)]
#[must_use]
pub const fn variant(name: &'static str) -> Literal {
    Literal::str(name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn std_types_have_the_documented_schemas() {
        assert_eq!(
            schema_for::<u8>().to_json(),
            json!({"type": "integer", "minimum": 0, "maximum": 255})
        );
        assert_eq!(schema_for::<i64>().to_json(), json!({"type": "integer"}));
        assert_eq!(
            schema_for::<u64>().to_json(),
            json!({"type": "integer", "minimum": 0})
        );
        assert_eq!(
            schema_for::<[u8; 3]>().to_json(),
            json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}, "minItems": 3, "maxItems": 3})
        );
        assert_eq!(
            schema_for::<BTreeSet<String>>().to_json(),
            json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})
        );
        assert_eq!(
            schema_for::<HashMap<String, Option<bool>>>().to_json(),
            json!({"type": "object", "additionalProperties": {"type": "boolean"}})
        );
        assert_eq!(
            schema_for::<char>().to_json(),
            json!({"type": "string", "minLength": 1, "maxLength": 1})
        );
        assert_eq!(
            schema_for::<Box<Arc<str>>>().to_json(),
            json!({"type": "string"})
        );
        const { assert!(<Option<u8> as ToolArgs>::OPTIONAL) };
        const { assert!(!<Box<u8> as ToolArgs>::OPTIONAL) };
    }

    #[test]
    fn no_args_accepts_empty_object_and_null_only() {
        assert_eq!(serde_json::from_str::<NoArgs>("{}").unwrap(), NoArgs);
        assert_eq!(serde_json::from_str::<NoArgs>("null").unwrap(), NoArgs);
        let err = serde_json::from_str::<NoArgs>(r#"{"x":1}"#).unwrap_err();
        assert!(err.to_string().contains("unknown property \"x\""), "{err}");
    }
}
