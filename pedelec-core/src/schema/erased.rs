//! Deserialization with the target's type erased: one copy of the validating deserializer
//! for every argument type.
//!
//! A typed call decodes its args through the validating fast path ([`Checked`] around
//! `serde_json`'s parser) or, when that gives up, through `serde_json`'s `Value`
//! deserializer. Generic over the target, both would be compiled again for every argument
//! struct of every tool (about 4,000 lines of LLVM IR per tool, most of a crate's build
//! time). Here the target deserializes from `&mut dyn` [`ErasedDeserializer`] instead: per
//! argument type, only its own `Deserialize` impl is compiled (against the one `dyn`
//! deserializer), and everything below the `dyn` (`serde_json`, the checks, the `Value`
//! path) is compiled once, in this crate.
//!
//! Unlike `erased-serde`, values are never boxed: every visitor and seed writes its value into
//! a slot ([`Slot`], [`SeedSlot`], [`Typed`]) on the caller's stack, so decoding through the
//! erasure allocates nothing. Errors are `serde_json::Error` on both sides of the `dyn`: the
//! messages a target produces (`missing field`, `invalid type`, …) are those it would give
//! `serde_json` directly.
//!
//! [`Checked`]: super::fast

use std::fmt;

use serde::de::{
    self, Deserialize, DeserializeSeed, Deserializer, EnumAccess, Error as _, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};

/// The error on both sides of the erasure.
pub(crate) type Error = serde_json::Error;

/// A visitor, seed or deserializer was used a second time: a bug in a `Deserialize` impl
/// (serde's contract is one use each), reported instead of panicking.
#[cold]
fn used_twice() -> Error {
    Error::custom("a deserializer or visitor was used more than once")
}

/// A visitor or seed returned `Ok` without producing its value (impossible: reported
/// instead of panicking).
#[cold]
fn no_value() -> Error {
    Error::custom("the deserializer did not produce a value")
}

/// What a deserializer hands a visitor: one value of the serde data model, in fewer kinds
/// than serde's `visit_*` methods, because each kind costs code in every target type:
/// - the narrower integer and float kinds travel widened (serde's own visitors accept them
///   so, and no deserializer behind the erasure produces them);
/// - strings and bytes travel borrowed for the visit only (`visit_str`, `visit_bytes`): the
///   targets are `DeserializeOwned`, so they cannot keep a borrow of the input anyway, and
///   an owned `String` from the `Value` path is copied once more (the slow path only).
pub(crate) enum Visit<'a, 'de> {
    Bool(bool),
    I64(i64),
    I128(i128),
    U64(u64),
    U128(u128),
    F64(f64),
    Str(&'a str),
    Bytes(&'a [u8]),
    None,
    Some(&'a mut dyn ErasedDeserializer<'de>),
    Unit,
    NewtypeStruct(&'a mut dyn ErasedDeserializer<'de>),
    Seq(&'a mut dyn ErasedSeqAccess<'de>),
    Map(&'a mut dyn ErasedMapAccess<'de>),
    Enum(&'a mut dyn ErasedEnumAccess<'de>),
}

/// What a target asks a deserializer for: serde's `deserialize_*` hints.
#[derive(Clone, Copy)]
pub(crate) enum Hint {
    Any,
    Bool,
    I8,
    I16,
    I32,
    I64,
    I128,
    U8,
    U16,
    U32,
    U64,
    U128,
    F32,
    F64,
    Char,
    Str,
    String,
    Bytes,
    ByteBuf,
    Option,
    Unit,
    UnitStruct(&'static str),
    NewtypeStruct(&'static str),
    Seq,
    Tuple(usize),
    TupleStruct(&'static str, usize),
    Map,
    Struct(&'static str, &'static [&'static str]),
    Enum(&'static str, &'static [&'static str]),
    Identifier,
    IgnoredAny,
}

/// A visitor with its type erased (implemented by [`Slot`]).
pub(crate) trait ErasedVisitor<'de> {
    fn erased_expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    fn erased_visit(&mut self, visit: Visit<'_, 'de>) -> Result<(), Error>;
}

/// A deserializer with its type erased (implemented by [`ErasedDe`]).
pub(crate) trait ErasedDeserializer<'de> {
    fn erased_deserialize(
        &mut self,
        hint: Hint,
        visitor: &mut dyn ErasedVisitor<'de>,
    ) -> Result<(), Error>;
    fn erased_is_human_readable(&self) -> bool;
}

/// A seed with its type erased (implemented by [`SeedSlot`] and [`Typed`]).
pub(crate) trait ErasedSeed<'de> {
    fn erased_deserialize(&mut self, de: &mut dyn ErasedDeserializer<'de>) -> Result<(), Error>;
}

/// The entries of a map, erased.
pub(crate) trait ErasedMapAccess<'de> {
    /// `false` at the end of the map.
    fn erased_next_key(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<bool, Error>;
    fn erased_next_value(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<(), Error>;
    fn erased_size_hint(&self) -> Option<usize>;
}

/// The elements of a sequence, erased.
pub(crate) trait ErasedSeqAccess<'de> {
    /// `false` at the end of the sequence.
    fn erased_next_element(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<bool, Error>;
    fn erased_size_hint(&self) -> Option<usize>;
}

/// What an enum variant holds, as its target asks for it.
pub(crate) enum Content<'a, 'de> {
    Unit,
    Newtype(&'a mut dyn ErasedSeed<'de>),
    Tuple(usize, &'a mut dyn ErasedVisitor<'de>),
    Struct(&'static [&'static str], &'a mut dyn ErasedVisitor<'de>),
}

/// An enum, erased: first its variant, then the variant's content (serde's `EnumAccess`
/// and `VariantAccess` in one object).
pub(crate) trait ErasedEnumAccess<'de> {
    fn erased_variant(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<(), Error>;
    fn erased_content(&mut self, content: Content<'_, 'de>) -> Result<(), Error>;
}

// The target's side: typed visitors and seeds behind the erased traits, and serde's traits
// for the erased objects. This is what is compiled per target type.

/// A typed visitor and the slot its value goes to.
pub(crate) struct Slot<V, T> {
    visitor: Option<V>,
    value: Option<T>,
}

impl<V, T> Slot<V, T> {
    fn new(visitor: V) -> Self {
        Slot {
            visitor: Some(visitor),
            value: None,
        }
    }
}

impl<'de, V: Visitor<'de>> Slot<V, V::Value> {
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.visitor {
            Some(v) => v.expecting(f),
            None => f.write_str("a value"),
        }
    }
}

// The code below is compiled for every target type: it is written without generic helpers
// (`?`, `ok_or_else`, `map`), each of which would be one more function per type in a debug
// build.

/// Slots by hint. [`Full`] hands the visitor every kind; the others, for the hints of data
/// shapes, hand it only the kinds of value that a deserializer behind the erasure
/// (`serde_json`'s, on text or on a `Value`, through the checks) gives for their hints, and
/// report anything else as serde's default `visit_*` methods would (`invalid type: …,
/// expected …`). Each kind a slot hands over costs one
/// visitor method per target type: the per-tool argument structs and their field
/// identifiers then cost one each.
macro_rules! narrow_slots {
    ($($(#[$doc:meta])* $name:ident { $($kind:ident $(($binding:ident))? => $method:ident),* })*) => {$(
        $(#[$doc])*
        pub(crate) struct $name<V, T>(Slot<V, T>);

        impl<'de, V: Visitor<'de>> ErasedVisitor<'de> for $name<V, V::Value> {
            fn erased_expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.expecting(f)
            }

            fn erased_visit(&mut self, visit: Visit<'_, 'de>) -> Result<(), Error> {
                let Some(v) = self.0.visitor.take() else {
                    return Err(used_twice());
                };
                let result = match visit {
                    $(Visit::$kind $(($binding))? => v.$method($($binding)?),)*
                    #[allow(unreachable_patterns)]
                    other => Err(Error::invalid_type(unexpected(&other), &v)),
                };
                match result {
                    Ok(value) => {
                        self.0.value = Some(value);
                        Ok(())
                    }
                    Err(e) => Err(e),
                }
            }
        }
    )*};
}

narrow_slots! {
    /// Every kind, for the scalar hints (`deserialize_any`, `deserialize_str`, …).
    Full {
        Bool(b) => visit_bool,
        I64(n) => visit_i64,
        I128(n) => visit_i128,
        U64(n) => visit_u64,
        U128(n) => visit_u128,
        F64(n) => visit_f64,
        Str(s) => visit_str,
        Bytes(b) => visit_bytes,
        None => visit_none,
        Some(d) => visit_some,
        Unit => visit_unit,
        NewtypeStruct(d) => visit_newtype_struct,
        Seq(s) => visit_seq,
        Map(m) => visit_map,
        Enum(e) => visit_enum
    }
    /// Struct and map hints: `serde_json` answers them with `visit_map` (or a mismatch
    /// through `expecting`). A struct given as an array (which serde accepts by default) is
    /// refused: an argument struct's schema is an object, so no valid args are an array.
    OnlyMap { Map(m) => visit_map }
    /// Sequence, tuple and tuple struct hints: `visit_seq`.
    OnlySeq { Seq(s) => visit_seq }
    /// Identifier hints (field and variant names): `visit_str`.
    OnlyStr { Str(s) => visit_str }
    /// Option, unit, unit struct, newtype struct and enum hints: `visit_none`,
    /// `visit_some`, `visit_unit`, `visit_newtype_struct`, `visit_enum`, `visit_map` (a
    /// `RawValue`), and `visit_str` (any of these hints on a map key).
    Shaped {
        Str(s) => visit_str,
        None => visit_none,
        Some(d) => visit_some,
        Unit => visit_unit,
        NewtypeStruct(d) => visit_newtype_struct,
        Map(m) => visit_map,
        Enum(e) => visit_enum
    }
}

/// What serde's default `visit_*` methods report for a value (the scalar kinds that
/// the narrow slots do not hand over).
fn unexpected<'a>(visit: &'a Visit<'_, '_>) -> de::Unexpected<'a> {
    match *visit {
        Visit::Bool(b) => de::Unexpected::Bool(b),
        Visit::I64(n) => de::Unexpected::Signed(n),
        Visit::U64(n) => de::Unexpected::Unsigned(n),
        Visit::F64(n) => de::Unexpected::Float(n),
        Visit::I128(_) | Visit::U128(_) => de::Unexpected::Other("a 128-bit integer"),
        Visit::Str(s) => de::Unexpected::Str(s),
        Visit::Bytes(b) => de::Unexpected::Bytes(b),
        Visit::None | Visit::Some(_) => de::Unexpected::Option,
        Visit::Unit => de::Unexpected::Unit,
        Visit::NewtypeStruct(_) => de::Unexpected::NewtypeStruct,
        Visit::Seq(_) => de::Unexpected::Seq,
        Visit::Map(_) => de::Unexpected::Map,
        Visit::Enum(_) => de::Unexpected::Enum,
    }
}

/// A typed seed and the slot its value goes to (used once).
pub(crate) struct SeedSlot<S, T> {
    seed: Option<S>,
    value: Option<T>,
}

impl<S, T> SeedSlot<S, T> {
    fn new(seed: S) -> Self {
        SeedSlot {
            seed: Some(seed),
            value: None,
        }
    }
}

impl<'de, S: DeserializeSeed<'de>> ErasedSeed<'de> for SeedSlot<S, S::Value> {
    fn erased_deserialize(&mut self, de: &mut dyn ErasedDeserializer<'de>) -> Result<(), Error> {
        let Some(seed) = self.seed.take() else {
            return Err(used_twice());
        };
        match seed.deserialize(de) {
            Ok(value) => {
                self.value = Some(value);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

/// A value of type `T` to be deserialized, as many times as needed (the fast path may give
/// up halfway; the slow path then starts again): the seed of a whole call's args.
pub(crate) struct Typed<T>(Option<T>);

impl<T> Typed<T> {
    pub(crate) fn new() -> Self {
        Typed(None)
    }

    /// The value, once deserialized.
    pub(crate) fn take(self) -> Option<T> {
        self.0
    }
}

impl<'de, T: Deserialize<'de>> ErasedSeed<'de> for Typed<T> {
    fn erased_deserialize(&mut self, de: &mut dyn ErasedDeserializer<'de>) -> Result<(), Error> {
        match T::deserialize(de) {
            Ok(value) => {
                self.0 = Some(value);
                Ok(())
            }
            Err(e) => Err(e),
        }
    }
}

macro_rules! erased_hints {
    ($($method:ident($($arg:ident: $ty:ty),*) => $slot:ident($hint:expr);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $ty,)* visitor: V) -> Result<V::Value, Error> {
            let mut slot = $slot(Slot::new(visitor));
            match self.erased_deserialize($hint, &mut slot) {
                Ok(()) => match slot.0.value {
                    Some(value) => Ok(value),
                    None => Err(no_value()),
                },
                Err(e) => Err(e),
            }
        }
    )*};
}

impl<'de> Deserializer<'de> for &mut dyn ErasedDeserializer<'de> {
    type Error = Error;

    erased_hints! {
        deserialize_any() => Full(Hint::Any);
        deserialize_bool() => Full(Hint::Bool);
        deserialize_i8() => Full(Hint::I8);
        deserialize_i16() => Full(Hint::I16);
        deserialize_i32() => Full(Hint::I32);
        deserialize_i64() => Full(Hint::I64);
        deserialize_i128() => Full(Hint::I128);
        deserialize_u8() => Full(Hint::U8);
        deserialize_u16() => Full(Hint::U16);
        deserialize_u32() => Full(Hint::U32);
        deserialize_u64() => Full(Hint::U64);
        deserialize_u128() => Full(Hint::U128);
        deserialize_f32() => Full(Hint::F32);
        deserialize_f64() => Full(Hint::F64);
        deserialize_char() => Full(Hint::Char);
        deserialize_str() => Full(Hint::Str);
        deserialize_string() => Full(Hint::String);
        deserialize_bytes() => Full(Hint::Bytes);
        deserialize_byte_buf() => Full(Hint::ByteBuf);
        deserialize_option() => Shaped(Hint::Option);
        deserialize_unit() => Shaped(Hint::Unit);
        deserialize_unit_struct(name: &'static str) => Shaped(Hint::UnitStruct(name));
        deserialize_newtype_struct(name: &'static str) => Shaped(Hint::NewtypeStruct(name));
        deserialize_seq() => OnlySeq(Hint::Seq);
        deserialize_tuple(len: usize) => OnlySeq(Hint::Tuple(len));
        deserialize_tuple_struct(name: &'static str, len: usize) => OnlySeq(Hint::TupleStruct(name, len));
        deserialize_map() => OnlyMap(Hint::Map);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]) => OnlyMap(Hint::Struct(name, fields));
        deserialize_enum(name: &'static str, variants: &'static [&'static str]) => Shaped(Hint::Enum(name, variants));
        deserialize_identifier() => OnlyStr(Hint::Identifier);
        deserialize_ignored_any() => Full(Hint::IgnoredAny);
    }

    fn is_human_readable(&self) -> bool {
        self.erased_is_human_readable()
    }
}

/// The next key or element of an erased map or sequence, from the erased call's answer
/// (`true`: there is one, in the slot). A macro, not a function: one generic function
/// more per type in a debug build.
macro_rules! next_of {
    ($answer:expr, $slot:ident) => {
        match $answer {
            Ok(true) => match $slot.value {
                Some(next) => Ok(Some(next)),
                None => Err(no_value()),
            },
            Ok(false) => Ok(None),
            Err(e) => Err(e),
        }
    };
}

impl<'de> MapAccess<'de> for &mut dyn ErasedMapAccess<'de> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let mut slot = SeedSlot::new(seed);
        next_of!(self.erased_next_key(&mut slot), slot)
    }

    fn next_value_seed<S: DeserializeSeed<'de>>(&mut self, seed: S) -> Result<S::Value, Error> {
        let mut slot = SeedSlot::new(seed);
        match self.erased_next_value(&mut slot) {
            Ok(()) => match slot.value {
                Some(value) => Ok(value),
                None => Err(no_value()),
            },
            Err(e) => Err(e),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        self.erased_size_hint()
    }
}

impl<'de> SeqAccess<'de> for &mut dyn ErasedSeqAccess<'de> {
    type Error = Error;

    fn next_element_seed<S: DeserializeSeed<'de>>(
        &mut self,
        seed: S,
    ) -> Result<Option<S::Value>, Error> {
        let mut slot = SeedSlot::new(seed);
        next_of!(self.erased_next_element(&mut slot), slot)
    }

    fn size_hint(&self) -> Option<usize> {
        self.erased_size_hint()
    }
}

impl<'de> EnumAccess<'de> for &mut dyn ErasedEnumAccess<'de> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), Error> {
        let mut slot = SeedSlot::new(seed);
        match self.erased_variant(&mut slot) {
            Ok(()) => match slot.value {
                Some(variant) => Ok((variant, self)),
                None => Err(no_value()),
            },
            Err(e) => Err(e),
        }
    }
}

impl<'de> VariantAccess<'de> for &mut dyn ErasedEnumAccess<'de> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        self.erased_content(Content::Unit)
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, Error> {
        let mut slot = SeedSlot::new(seed);
        match self.erased_content(Content::Newtype(&mut slot)) {
            Ok(()) => match slot.value {
                Some(value) => Ok(value),
                None => Err(no_value()),
            },
            Err(e) => Err(e),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Error> {
        let mut slot = OnlySeq(Slot::new(visitor));
        match self.erased_content(Content::Tuple(len, &mut slot)) {
            Ok(()) => match slot.0.value {
                Some(value) => Ok(value),
                None => Err(no_value()),
            },
            Err(e) => Err(e),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut slot = OnlyMap(Slot::new(visitor));
        match self.erased_content(Content::Struct(fields, &mut slot)) {
            Ok(()) => match slot.0.value {
                Some(value) => Ok(value),
                None => Err(no_value()),
            },
            Err(e) => Err(e),
        }
    }
}

// The deserializer's side: serde's traits behind the erased ones. Compiled once, here, for
// the few deserializers of this crate.

/// Carries an error across the erasure (the message is kept; only a position that
/// `serde_json` added is then part of the message text).
fn carry<E: de::Error>(e: impl fmt::Display) -> E {
    E::custom(e)
}

/// A typed deserializer behind [`ErasedDeserializer`] (used once).
pub(crate) struct ErasedDe<D>(Option<D>);

impl<D> ErasedDe<D> {
    pub(crate) fn new(de: D) -> Self {
        ErasedDe(Some(de))
    }
}

impl<'de, D: Deserializer<'de>> ErasedDeserializer<'de> for ErasedDe<D> {
    fn erased_deserialize(
        &mut self,
        hint: Hint,
        visitor: &mut dyn ErasedVisitor<'de>,
    ) -> Result<(), Error> {
        let de = self.0.take().ok_or_else(used_twice)?;
        let v = Erase(visitor);
        match hint {
            Hint::Any => de.deserialize_any(v),
            Hint::Bool => de.deserialize_bool(v),
            Hint::I8 => de.deserialize_i8(v),
            Hint::I16 => de.deserialize_i16(v),
            Hint::I32 => de.deserialize_i32(v),
            Hint::I64 => de.deserialize_i64(v),
            Hint::I128 => de.deserialize_i128(v),
            Hint::U8 => de.deserialize_u8(v),
            Hint::U16 => de.deserialize_u16(v),
            Hint::U32 => de.deserialize_u32(v),
            Hint::U64 => de.deserialize_u64(v),
            Hint::U128 => de.deserialize_u128(v),
            Hint::F32 => de.deserialize_f32(v),
            Hint::F64 => de.deserialize_f64(v),
            Hint::Char => de.deserialize_char(v),
            Hint::Str => de.deserialize_str(v),
            Hint::String => de.deserialize_string(v),
            Hint::Bytes => de.deserialize_bytes(v),
            Hint::ByteBuf => de.deserialize_byte_buf(v),
            Hint::Option => de.deserialize_option(v),
            Hint::Unit => de.deserialize_unit(v),
            Hint::UnitStruct(name) => de.deserialize_unit_struct(name, v),
            Hint::NewtypeStruct(name) => de.deserialize_newtype_struct(name, v),
            Hint::Seq => de.deserialize_seq(v),
            Hint::Tuple(len) => de.deserialize_tuple(len, v),
            Hint::TupleStruct(name, len) => de.deserialize_tuple_struct(name, len, v),
            Hint::Map => de.deserialize_map(v),
            Hint::Struct(name, fields) => de.deserialize_struct(name, fields, v),
            Hint::Enum(name, variants) => de.deserialize_enum(name, variants, v),
            Hint::Identifier => de.deserialize_identifier(v),
            Hint::IgnoredAny => de.deserialize_ignored_any(v),
        }
        .map_err(carry)
    }

    fn erased_is_human_readable(&self) -> bool {
        self.0.as_ref().is_none_or(Deserializer::is_human_readable)
    }
}

/// An erased visitor as a serde visitor (what the typed deserializers below the erasure
/// see).
pub(crate) struct Erase<'a, 'de>(&'a mut dyn ErasedVisitor<'de>);

impl<'de> Erase<'_, 'de> {
    fn visit<E: de::Error>(self, visit: Visit<'_, 'de>) -> Result<(), E> {
        self.0.erased_visit(visit).map_err(carry)
    }
}

/// Scalar visits, widened to the kinds of [`Visit`].
macro_rules! forward_visits {
    ($($method:ident($ty:ty) => $kind:ident,)*) => {$(
        fn $method<E: de::Error>(self, v: $ty) -> Result<(), E> {
            self.visit(Visit::$kind(v.into()))
        }
    )*};
}

impl<'de> Visitor<'de> for Erase<'_, 'de> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.erased_expecting(f)
    }

    forward_visits! {
        visit_bool(bool) => Bool,
        visit_i8(i8) => I64,
        visit_i16(i16) => I64,
        visit_i32(i32) => I64,
        visit_i64(i64) => I64,
        visit_i128(i128) => I128,
        visit_u8(u8) => U64,
        visit_u16(u16) => U64,
        visit_u32(u32) => U64,
        visit_u64(u64) => U64,
        visit_u128(u128) => U128,
        visit_f32(f32) => F64,
        visit_f64(f64) => F64,
    }

    fn visit_char<E: de::Error>(self, v: char) -> Result<(), E> {
        // As serde's default `visit_char` does.
        self.visit(Visit::Str(v.encode_utf8(&mut [0; 4])))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<(), E> {
        self.visit(Visit::Str(v))
    }

    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<(), E> {
        self.visit(Visit::Str(v))
    }

    fn visit_string<E: de::Error>(self, v: String) -> Result<(), E> {
        self.visit(Visit::Str(&v))
    }

    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<(), E> {
        self.visit(Visit::Bytes(v))
    }

    fn visit_borrowed_bytes<E: de::Error>(self, v: &'de [u8]) -> Result<(), E> {
        self.visit(Visit::Bytes(v))
    }

    fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<(), E> {
        self.visit(Visit::Bytes(&v))
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        self.visit(Visit::None)
    }

    fn visit_some<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        self.visit(Visit::Some(&mut ErasedDe::new(de)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit(Visit::Unit)
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        self.visit(Visit::NewtypeStruct(&mut ErasedDe::new(de)))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        self.visit(Visit::Seq(&mut ErasedSeq(seq)))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.visit(Visit::Map(&mut ErasedMap(map)))
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        self.visit(Visit::Enum(&mut ErasedEnum::Enum(data)))
    }
}

/// An erased seed as a serde seed.
pub(crate) struct EraseSeed<'a, 'de>(&'a mut dyn ErasedSeed<'de>);

impl<'de> DeserializeSeed<'de> for EraseSeed<'_, 'de> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, de: D) -> Result<(), D::Error> {
        self.0
            .erased_deserialize(&mut ErasedDe::new(de))
            .map_err(carry)
    }
}

struct ErasedMap<A>(A);

impl<'de, A: MapAccess<'de>> ErasedMapAccess<'de> for ErasedMap<A> {
    fn erased_next_key(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<bool, Error> {
        self.0
            .next_key_seed(EraseSeed(seed))
            .map(|key| key.is_some())
            .map_err(carry)
    }

    fn erased_next_value(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<(), Error> {
        self.0.next_value_seed(EraseSeed(seed)).map_err(carry)
    }

    fn erased_size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

struct ErasedSeq<A>(A);

impl<'de, A: SeqAccess<'de>> ErasedSeqAccess<'de> for ErasedSeq<A> {
    fn erased_next_element(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<bool, Error> {
        self.0
            .next_element_seed(EraseSeed(seed))
            .map(|element| element.is_some())
            .map_err(carry)
    }

    fn erased_size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// An enum access, then (once the variant is read) its variant access.
enum ErasedEnum<'de, A: EnumAccess<'de>> {
    Enum(A),
    Variant(A::Variant),
    Used,
}

impl<'de, A: EnumAccess<'de>> ErasedEnumAccess<'de> for ErasedEnum<'de, A> {
    fn erased_variant(&mut self, seed: &mut dyn ErasedSeed<'de>) -> Result<(), Error> {
        let ErasedEnum::Enum(access) = std::mem::replace(self, ErasedEnum::Used) else {
            return Err(used_twice());
        };
        let ((), variant) = access.variant_seed(EraseSeed(seed)).map_err(carry)?;
        *self = ErasedEnum::Variant(variant);
        Ok(())
    }

    fn erased_content(&mut self, content: Content<'_, 'de>) -> Result<(), Error> {
        let ErasedEnum::Variant(variant) = std::mem::replace(self, ErasedEnum::Used) else {
            return Err(used_twice());
        };
        match content {
            Content::Unit => variant.unit_variant(),
            Content::Newtype(seed) => variant.newtype_variant_seed(EraseSeed(seed)),
            Content::Tuple(len, visitor) => variant.tuple_variant(len, Erase(visitor)),
            Content::Struct(fields, visitor) => variant.struct_variant(fields, Erase(visitor)),
        }
        .map_err(carry)
    }
}

/// Deserializes `seed` from `de` through the erasure: what the fast and slow paths call.
pub(crate) fn deserialize_erased<'de, D: Deserializer<'de>>(
    de: D,
    seed: &mut dyn ErasedSeed<'de>,
) -> Result<(), Error> {
    seed.erased_deserialize(&mut ErasedDe::new(de))
}
