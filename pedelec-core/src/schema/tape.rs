//! Arguments as a tape: the slow path's validated value, flattened to tokens and replayed
//! into the handler's argument type.
//!
//! The slow path (args that are a `Value`, or JSON text the fast path did not decide)
//! validates a `Value` in full and normalizes it. Handing that `Value` to each argument
//! type's `Deserialize` would compile `serde_json`'s `Value` deserializer again for every
//! argument struct of every tool. Instead the value is written once to a [`Tape`]
//! ([`Tape::push_value`], compiled once), and per argument type only its own `Deserialize`
//! impl is compiled, against [`Replay`]: a small deserializer that hands the tokens back,
//! with no parsing, no checks and no call through a `dyn`. The fast path's buffered
//! subtrees reach their target the same way ([`replay_value`]).
//!
//! The tape lives on the stack for the usual few arguments (it spills to the heap beyond
//! 16 tokens). Its strings are moved out of the `Value` and on to the target, never copied.
//!
//! What replaying gives the target is what `serde_json::from_value` gives it for the same
//! value (the property tests compare both): an integer beyond 64 bits is read as a float
//! (a `u128` field cannot take it), and an argument struct cannot be given as an array (its
//! schema is an object, so no valid args are).

use std::fmt;
use std::marker::PhantomData;

use serde::de::value::{BorrowedStrDeserializer, StrDeserializer, StringDeserializer};
use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, Error as _, Expected, MapAccess,
    SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde_json::Value;
use smallvec::SmallVec;

/// The error of a replay: the target's own (`missing field`, `invalid type`, …).
pub(crate) type Error = serde_json::Error;

/// One token of a recorded value. `Copy`, so that reading one is a load, and the tape
/// has nothing to drop token by token.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Tok {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    /// A string: the tape's `owned` string at this index.
    Owned(usize),
    /// An object: `len` entries follow (a name, always a string token, then its value),
    /// up to token `end`.
    Map {
        len: usize,
        end: usize,
    },
    /// An array: `len` values follow, up to token `end`.
    Seq {
        len: usize,
        end: usize,
    },
    /// Past the end of the tape (never recorded).
    End,
}

/// A recorded value.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    toks: SmallVec<[Tok; 16]>,
    /// The strings of [`Tok::Owned`] (none for text without escapes).
    owned: Vec<String>,
}

impl Tape {
    pub(crate) fn new() -> Self {
        Tape {
            toks: SmallVec::new(),
            owned: Vec::new(),
        }
    }

    fn push_owned(&mut self, s: String) {
        self.toks.push(Tok::Owned(self.owned.len()));
        self.owned.push(s);
    }

    /// Records a value (already validated and normalized), moving its strings.
    pub(crate) fn push_value(&mut self, value: Value) {
        match value {
            Value::Null => self.toks.push(Tok::Null),
            Value::Bool(b) => self.toks.push(Tok::Bool(b)),
            // As `serde_json`'s `Value` deserializer visits numbers.
            Value::Number(n) => self.toks.push(if let Some(u) = n.as_u64() {
                Tok::U64(u)
            } else if let Some(i) = n.as_i64() {
                Tok::I64(i)
            } else {
                Tok::F64(n.as_f64().unwrap_or(f64::NAN))
            }),
            Value::String(s) => self.push_owned(s),
            Value::Array(items) => {
                let at = self.open(Tok::Seq { len: 0, end: 0 });
                let len = items.len();
                for item in items {
                    self.push_value(item);
                }
                self.close(at, len);
            }
            Value::Object(map) => {
                let at = self.open(Tok::Map { len: 0, end: 0 });
                let len = map.len();
                for (name, value) in map {
                    self.push_owned(name);
                    self.push_value(value);
                }
                self.close(at, len);
            }
        }
    }

    fn open(&mut self, header: Tok) -> usize {
        self.toks.push(header);
        self.toks.len() - 1
    }

    /// Completes the header at `at` once its `len` entries or items are recorded.
    fn close(&mut self, at: usize, len: usize) {
        let end = self.toks.len();
        if let Some(header @ (Tok::Map { .. } | Tok::Seq { .. })) = self.toks.get_mut(at) {
            *header = match header {
                Tok::Map { .. } => Tok::Map { len, end },
                _ => Tok::Seq { len, end },
            };
        }
    }

    /// Deserializes the recorded value into `T` (the one step compiled per argument type).
    #[inline]
    pub(crate) fn replay<'de, T: Deserialize<'de>>(&mut self) -> Result<T, Error> {
        T::deserialize(&mut Replay {
            toks: &self.toks,
            owned: &mut self.owned,
            pos: 0,
        })
    }
}

/// Hands `value` (validated and normalized) to a target through a tape, as the slow path
/// does: `f` gives the target's hint. (The direct fast path's buffered subtrees: the target's
/// `Deserialize` against [`Replay`] is compiled for the slow path anyway.)
pub(crate) fn replay_value<T>(
    value: Value,
    f: impl FnOnce(&mut Replay<'_>) -> Result<T, Error>,
) -> Result<T, Error> {
    let mut tape = Tape::new();
    tape.push_value(value);
    f(&mut Replay {
        toks: &tape.toks,
        owned: &mut tape.owned,
        pos: 0,
    })
}

// ----- replaying: what is compiled per argument type -----

/// Hands a tape's tokens to a target, as `serde_json` hands it the same value.
pub(crate) struct Replay<'t> {
    toks: &'t [Tok],
    owned: &'t mut [String],
    pos: usize,
}

impl Replay<'_> {
    /// The next token.
    #[inline]
    fn next(&mut self) -> Tok {
        let tok = self.toks.get(self.pos).copied().unwrap_or(Tok::End);
        self.pos += 1;
        tok
    }

    /// Owned string `i`, moved out (each is read once).
    #[inline]
    fn take(&mut self, i: usize) -> String {
        self.owned
            .get_mut(i)
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The next token as a property or variant name (read as `serde_json` reads map keys).
    #[inline]
    fn name<'de>(&mut self) -> Result<Key<'de, '_>, Error> {
        match self.next() {
            Tok::Owned(i) => Ok(Key::Transient(self.owned.get(i).map_or("", String::as_str))),
            tok => Err(invalid(tok, self.owned, &"a name")),
        }
    }

    /// Whether the next token is `null`.
    #[inline]
    fn next_is_null(&self) -> bool {
        matches!(self.toks.get(self.pos), Some(Tok::Null))
    }

    /// Steps over the next value.
    fn skip(&mut self) {
        match self.next() {
            Tok::Map { end, .. } | Tok::Seq { end, .. } => self.pos = end,
            _ => {}
        }
    }

    /// The next value as JSON text (what `serde_json::value::RawValue` takes): read into a
    /// `Value` and printed, which is how `serde_json::from_value` makes it (the same key
    /// order and numbers, whatever `serde_json`'s features).
    fn render(&mut self) -> Result<String, Error> {
        Value::deserialize(&mut *self).map(|value| value.to_string())
    }
}

/// What a token is, for `invalid type: …` errors.
fn unexpected<'a>(tok: &'a Tok, owned: &'a [String]) -> Unexpected<'a> {
    match *tok {
        Tok::Null => Unexpected::Unit,
        Tok::Bool(b) => Unexpected::Bool(b),
        Tok::I64(n) => Unexpected::Signed(n),
        Tok::U64(n) => Unexpected::Unsigned(n),
        Tok::F64(n) => Unexpected::Float(n),
        Tok::Owned(i) => Unexpected::Str(owned.get(i).map_or("", String::as_str)),
        Tok::Map { .. } => Unexpected::Map,
        Tok::Seq { .. } => Unexpected::Seq,
        Tok::End => Unexpected::Other("the end of the arguments"),
    }
}

/// The target's visitor does not take this token (worded by the visitor, as serde's
/// default `visit_*` methods word it).
#[cold]
fn invalid(tok: Tok, owned: &[String], expected: &dyn Expected) -> Error {
    Error::invalid_type(unexpected(&tok, owned), expected)
}

/// A map or array whose visitor stopped before its end.
#[cold]
fn unfinished(len: usize, kind: &'static str) -> Error {
    Error::invalid_length(len, &kind)
}

/// The hints that take numbers: `serde_json` visits every number as it reads it.
macro_rules! number_hints {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            match self.next() {
                Tok::U64(n) => v.visit_u64(n),
                Tok::I64(n) => v.visit_i64(n),
                Tok::F64(n) => v.visit_f64(n),
                tok => Err(invalid(tok, self.owned, &v)),
            }
        }
    )*};
}

/// The hints that take strings.
macro_rules! string_hints {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            match self.next() {
                Tok::Owned(i) => v.visit_string(self.take(i)),
                tok => Err(invalid(tok, self.owned, &v)),
            }
        }
    )*};
}

/// The hints that take arrays.
macro_rules! seq_hints {
    ($($method:ident($($arg:ident: $ty:ty),*))*) => {$(
        fn $method<V: Visitor<'de>>(self, $(_: $ty,)* v: V) -> Result<V::Value, Error> {
            match self.next() {
                Tok::Seq { len, .. } => self.seq(len, v),
                tok => Err(invalid(tok, self.owned, &v)),
            }
        }
    )*};
}

// Compiled per target type: written without `?` and other generic helpers, each of which
// would be one more function per type in a debug build.
impl<'de> Replay<'_> {
    #[inline]
    fn seq<V: Visitor<'de>>(&mut self, len: usize, v: V) -> Result<V::Value, Error> {
        let mut items = ReplaySeq {
            de: self,
            left: len,
        };
        match v.visit_seq(&mut items) {
            Ok(value) if items.left == 0 => Ok(value),
            Ok(_) => Err(unfinished(len, "fewer elements in array")),
            Err(e) => Err(e),
        }
    }

    #[inline]
    fn map<V: Visitor<'de>>(&mut self, len: usize, v: V) -> Result<V::Value, Error> {
        let mut entries = ReplayMap {
            de: self,
            left: len,
        };
        match v.visit_map(&mut entries) {
            Ok(value) if entries.left == 0 => Ok(value),
            Ok(_) => Err(unfinished(len, "fewer elements in map")),
            Err(e) => Err(e),
        }
    }
}

impl<'de> Deserializer<'de> for &mut Replay<'_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.next() {
            Tok::Null => v.visit_unit(),
            Tok::Bool(b) => v.visit_bool(b),
            Tok::I64(n) => v.visit_i64(n),
            Tok::U64(n) => v.visit_u64(n),
            Tok::F64(n) => v.visit_f64(n),
            Tok::Owned(i) => v.visit_string(self.take(i)),
            Tok::Map { len, .. } => self.map(len, v),
            Tok::Seq { len, .. } => self.seq(len, v),
            tok @ Tok::End => Err(invalid(tok, self.owned, &v)),
        }
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.next() {
            Tok::Bool(b) => v.visit_bool(b),
            tok => Err(invalid(tok, self.owned, &v)),
        }
    }

    number_hints! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    string_hints! {
        deserialize_char deserialize_str deserialize_string deserialize_identifier
    }

    fn deserialize_bytes<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.next() {
            Tok::Owned(i) => v.visit_byte_buf(self.take(i).into_bytes()),
            Tok::Seq { len, .. } => self.seq(len, v),
            tok => Err(invalid(tok, self.owned, &v)),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(v)
    }

    fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        if self.next_is_null() {
            self.pos += 1;
            v.visit_none()
        } else {
            v.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.next() {
            Tok::Null => v.visit_unit(),
            tok => Err(invalid(tok, self.owned, &v)),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_unit(v)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        if name == RAW_VALUE_TOKEN {
            // `serde_json::value::RawValue` takes the value's text, through the map its
            // own deserializers hand it.
            return match self.render() {
                Ok(text) => v.visit_map(RawText(Some(text))),
                Err(e) => Err(e),
            };
        }
        v.visit_newtype_struct(self)
    }

    seq_hints! {
        deserialize_seq()
        deserialize_tuple(len: usize)
        deserialize_tuple_struct(name: &'static str, len: usize)
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.next() {
            Tok::Map { len, .. } => self.map(len, v),
            tok => Err(invalid(tok, self.owned, &v)),
        }
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_map(v)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        match self.next() {
            // A unit variant, by name.
            Tok::Owned(i) => v.visit_enum(StringDeserializer::new(self.take(i))),
            // `{"Variant": content}`.
            Tok::Map { len: 1, .. } => v.visit_enum(ReplayEnum { de: self }),
            Tok::Map { .. } => Err(Error::invalid_value(
                Unexpected::Map,
                &"map with a single key",
            )),
            tok => Err(invalid(tok, self.owned, &v)),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        self.skip();
        v.visit_unit()
    }
}

/// The entries of a recorded object.
struct ReplayMap<'a, 't> {
    de: &'a mut Replay<'t>,
    left: usize,
}

impl<'de> MapAccess<'de> for &mut ReplayMap<'_, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        let key = match self.de.name() {
            Ok(name) => seed.deserialize(KeyDeserializer::new(name)),
            Err(e) => Err(e),
        };
        match key {
            Ok(key) => Ok(Some(key)),
            Err(e) => Err(e),
        }
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(&mut *self.de)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The values of a recorded array.
struct ReplaySeq<'a, 't> {
    de: &'a mut Replay<'t>,
    left: usize,
}

impl<'de> SeqAccess<'de> for &mut ReplaySeq<'_, '_> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        match seed.deserialize(&mut *self.de) {
            Ok(item) => Ok(Some(item)),
            Err(e) => Err(e),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// `{"Variant": content}`: the name, then the content.
struct ReplayEnum<'a, 't> {
    de: &'a mut Replay<'t>,
}

impl<'de> EnumAccess<'de> for ReplayEnum<'_, '_> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let variant = match self.de.name() {
            Ok(name) => seed.deserialize(KeyDeserializer::new(name)),
            Err(e) => Err(e),
        };
        match variant {
            Ok(variant) => Ok((variant, self)),
            Err(e) => Err(e),
        }
    }
}

impl<'de> VariantAccess<'de> for ReplayEnum<'_, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.de.next() {
            Tok::Null => Ok(()),
            tok => Err(invalid(tok, self.de.owned, &"unit variant")),
        }
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        seed.deserialize(self.de)
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, Error> {
        self.de.deserialize_seq(v)
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.de.deserialize_map(v)
    }
}

/// The map `serde_json`'s deserializers hand `RawValue`: its token as the one name, the
/// value's text as the value.
struct RawText(Option<String>);

impl<'de> MapAccess<'de> for RawText {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN))
            .map(Some)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        match self.0.take() {
            Some(text) => seed.deserialize(StringDeserializer::new(text)),
            None => Err(Error::custom("the raw value was already read")),
        }
    }
}

/// The name `serde_json::value::RawValue` deserializes through.
pub(super) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

// ----- names: how the fast path and the replay hand a property name to a target -----

/// A property name: borrowed from the text (no escapes) or not.
#[derive(Clone, Copy)]
pub(super) enum Key<'de, 'k> {
    Borrowed(&'de str),
    Transient(&'k str),
}

impl Key<'_, '_> {
    #[inline]
    pub(super) fn as_str(&self) -> &str {
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
            other => Err(E::invalid_type(Unexpected::Str(other), &visitor)),
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
