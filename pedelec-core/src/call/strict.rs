//! A serializer adapter that refuses what JSON cannot represent.
//!
//! `serde_json` writes a NaN or an infinity as `null` and turns integer or boolean map keys
//! into strings, so a handler's bug reaches the model as plausible data. The session
//! serializes every result through [`Strict`], which wraps any serializer (the JSON writer
//! of a bridge, or `serde_json`'s `Value` builder) and stops at the first value that is not
//! representable, naming where it is (`/scores/2 is NaN`). The result of such a call is
//! `TOOL_RESULT_INVALID`.
//!
//! Results are almost always representable, so the first pass only checks: it keeps no
//! path. When it finds a violation, a second pass over the same value (into a sink) tracks
//! the path to name where the violation is.

use std::cell::{Cell, RefCell};
use std::fmt::{self, Write as _};

use serde::ser::{
    self, Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct,
    SerializeStructVariant, SerializeTuple, SerializeTupleStruct, SerializeTupleVariant,
    Serializer,
};
use serde_json::Value;

use crate::error::{ErrorCode, ToolError};

/// Serializes `value` to JSON text (through `serde_json::to_string`, whose output needs no
/// second UTF-8 check).
pub(crate) fn to_string<T: Serialize + ?Sized>(value: &T) -> Result<String, ToolError> {
    let state = State::default();
    let result = serde_json::to_string(&Checked {
        value,
        state: &state,
    });
    finish(value, &state, result)
}

/// Serializes `value` to a `serde_json::Value`.
pub(crate) fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, ToolError> {
    let state = State::default();
    let result = value.serialize(Strict {
        inner: serde_json::value::Serializer,
        state: &state,
    });
    finish(value, &state, result)
}

/// Why an integer beyond 64 bits is refused.
fn too_wide(v: impl fmt::Display) -> String {
    format!(
        "is {v}, an integer beyond 64 bits; JSON readers lose its exact value (return it as a \
         string)"
    )
}

fn finish<T: Serialize + ?Sized, O>(
    value: &T,
    state: &State<'_>,
    result: Result<O, serde_json::Error>,
) -> Result<O, ToolError> {
    // A violation counts even when some `Serialize` impl swallowed our error and went on: the
    // output may then be missing a value (or, for text, be cut in the middle).
    if state.violated.get() {
        let path = Tracking::default();
        let tracking = State {
            violated: Cell::new(false),
            tracking: Some(&path),
        };
        // Into a scratch buffer of the same type as `to_string`'s: the same code serves.
        let mut scratch = Vec::new();
        let _ = value.serialize(Strict {
            inner: &mut serde_json::Serializer::new(&mut scratch),
            state: &tracking,
        });
        // A `Serialize` impl that violates only some of the time may not violate again.
        let violation = path.violation.borrow_mut().take();
        let violation = violation.unwrap_or_else(|| {
            "a value (a NaN, an infinity or a non-string map key) could not be located".to_owned()
        });
        return Err(ToolError::with_code(
            ErrorCode::ToolResultInvalid,
            format!("the result is not representable in JSON: {violation}"),
        ));
    }
    result.map_err(|e| {
        ToolError::with_code(
            ErrorCode::ToolResultInvalid,
            format!("the result could not be serialized: {e}"),
        )
    })
}

/// One step of the path to the value being serialized.
#[derive(Clone, Copy)]
enum Seg {
    Index(usize),
    Field(&'static str),
    /// A map key: its text is in `State::keys` at the same depth.
    Key,
}

/// How deep the path is tracked (deeper values are reported at this depth, with `…`).
const TRACKED: usize = 32;

/// The path to the value being serialized (second pass only).
#[derive(Default)]
struct Path {
    segs: Vec<Seg>,
    /// Levels below the tracked ones.
    untracked: usize,
}

/// What a pass shares: whether it met a violation, and (second pass only) where.
#[derive(Default)]
struct State<'t> {
    /// Set at the first violation, on either pass.
    violated: Cell<bool>,
    /// The second pass's path tracking; `None` on the first pass, which then sets up and
    /// drops nothing else (measured: ~50 instructions per call).
    tracking: Option<&'t Tracking>,
}

#[derive(Default)]
struct Tracking {
    path: RefCell<Path>,
    /// The text of the current map key at each depth (buffers reused across entries;
    /// allocated only when the value has maps).
    keys: RefCell<Vec<String>>,
    violation: RefCell<Option<String>>,
}

impl State<'_> {
    #[inline]
    fn push(&self, seg: Seg) {
        if let Some(t) = self.tracking {
            t.push(seg);
        }
    }

    #[inline]
    fn pop(&self) {
        if let Some(t) = self.tracking {
            t.pop();
        }
    }

    #[inline]
    fn set_key(&self, key: &str) {
        if let Some(t) = self.tracking {
            t.set_key(key);
        }
    }

    /// Records the first violation (at the current path, on the second pass) and returns the
    /// error to bubble up.
    fn violation<E: ser::Error>(&self, what: fmt::Arguments<'_>) -> E {
        self.violated.set(true);
        if let Some(t) = self.tracking {
            t.violation(what);
        }
        E::custom("the result is not representable in JSON")
    }
}

impl Tracking {
    fn push(&self, seg: Seg) {
        let mut path = self.path.borrow_mut();
        if path.segs.len() < TRACKED {
            path.segs.push(seg);
        } else {
            path.untracked += 1;
        }
    }

    fn pop(&self) {
        let mut path = self.path.borrow_mut();
        if path.untracked > 0 {
            path.untracked -= 1;
        } else {
            path.segs.pop();
        }
    }

    fn set_key(&self, key: &str) {
        let depth = {
            let path = self.path.borrow();
            if path.untracked > 0 {
                return;
            }
            path.segs.len()
        };
        if depth >= TRACKED {
            return;
        }
        let mut keys = self.keys.borrow_mut();
        if keys.len() <= depth {
            keys.resize_with(depth + 1, String::new);
        }
        keys[depth].clear();
        keys[depth].push_str(key);
    }

    /// Records the first violation, at the current path.
    fn violation(&self, what: fmt::Arguments<'_>) {
        let mut slot = self.violation.borrow_mut();
        if slot.is_some() {
            return;
        }
        let mut pointer = String::new();
        let keys = self.keys.borrow();
        let path = self.path.borrow();
        for (depth, seg) in path.segs.iter().enumerate() {
            pointer.push('/');
            match *seg {
                Seg::Index(i) => {
                    let _ = write!(pointer, "{i}");
                }
                Seg::Field(name) => escape_pointer(&mut pointer, name),
                Seg::Key => escape_pointer(&mut pointer, keys.get(depth).map_or("", |k| k)),
            }
        }
        if path.untracked > 0 {
            pointer.push_str("/…");
        }
        if pointer.is_empty() {
            *slot = Some(format!("the value {what}"));
        } else {
            *slot = Some(format!("`{pointer}` {what}"));
        }
    }
}

fn escape_pointer(out: &mut String, token: &str) {
    for c in token.chars() {
        match c {
            '~' => out.push_str("~0"),
            '/' => out.push_str("~1"),
            c => out.push(c),
        }
    }
}

/// The adapter: forwards everything to `inner`, except what JSON cannot hold.
struct Strict<'a, S> {
    inner: S,
    state: &'a State<'a>,
}

/// A value to serialize through the adapter.
struct Checked<'a, T: ?Sized> {
    value: &'a T,
    state: &'a State<'a>,
}

impl<T: Serialize + ?Sized> Serialize for Checked<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(Strict {
            inner: serializer,
            state: self.state,
        })
    }
}

/// A map key to serialize through [`KeyCheck`].
struct CheckedKey<'a, T: ?Sized> {
    key: &'a T,
    state: &'a State<'a>,
}

impl<T: Serialize + ?Sized> Serialize for CheckedKey<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.key.serialize(KeyCheck {
            inner: serializer,
            state: self.state,
        })
    }
}

fn non_finite(v: f64) -> &'static str {
    if v.is_nan() {
        "is NaN; JSON has no NaN (return `null` via an `Option`, or a string)"
    } else if v > 0.0 {
        "is infinity; JSON has no infinities (return `null` via an `Option`, or a string)"
    } else {
        "is -infinity; JSON has no infinities (return `null` via an `Option`, or a string)"
    }
}

impl<'a, S: Serializer> Serializer for Strict<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Compound<'a, S::SerializeSeq>;
    type SerializeTuple = Compound<'a, S::SerializeTuple>;
    type SerializeTupleStruct = Compound<'a, S::SerializeTupleStruct>;
    type SerializeTupleVariant = Compound<'a, S::SerializeTupleVariant>;
    type SerializeMap = Compound<'a, S::SerializeMap>;
    type SerializeStruct = Compound<'a, S::SerializeStruct>;
    type SerializeStructVariant = Compound<'a, S::SerializeStructVariant>;

    fn serialize_bool(self, v: bool) -> Result<S::Ok, S::Error> {
        self.inner.serialize_bool(v)
    }
    fn serialize_i8(self, v: i8) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i8(v)
    }
    fn serialize_i16(self, v: i16) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i16(v)
    }
    fn serialize_i32(self, v: i32) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i32(v)
    }
    fn serialize_i64(self, v: i64) -> Result<S::Ok, S::Error> {
        self.inner.serialize_i64(v)
    }
    fn serialize_i128(self, v: i128) -> Result<S::Ok, S::Error> {
        // Within 64 bits it is a plain integer; beyond, `serde_json`'s text writer would
        // print it and its `Value` would refuse it: refused here on every path alike.
        match (i64::try_from(v), u64::try_from(v)) {
            (Ok(i), _) => self.inner.serialize_i64(i),
            (_, Ok(u)) => self.inner.serialize_u64(u),
            _ => Err(self.state.violation(format_args!("{}", too_wide(v)))),
        }
    }
    fn serialize_u8(self, v: u8) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u8(v)
    }
    fn serialize_u16(self, v: u16) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u16(v)
    }
    fn serialize_u32(self, v: u32) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u32(v)
    }
    fn serialize_u64(self, v: u64) -> Result<S::Ok, S::Error> {
        self.inner.serialize_u64(v)
    }
    fn serialize_u128(self, v: u128) -> Result<S::Ok, S::Error> {
        match u64::try_from(v) {
            Ok(u) => self.inner.serialize_u64(u),
            Err(_) => Err(self.state.violation(format_args!("{}", too_wide(v)))),
        }
    }
    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            self.inner.serialize_f32(v)
        } else {
            Err(self
                .state
                .violation(format_args!("{}", non_finite(f64::from(v)))))
        }
    }
    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            self.inner.serialize_f64(v)
        } else {
            Err(self.state.violation(format_args!("{}", non_finite(v))))
        }
    }
    fn serialize_char(self, v: char) -> Result<S::Ok, S::Error> {
        self.inner.serialize_char(v)
    }
    fn serialize_str(self, v: &str) -> Result<S::Ok, S::Error> {
        self.inner.serialize_str(v)
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<S::Ok, S::Error> {
        self.inner.serialize_bytes(v)
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_none()
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.inner.serialize_some(&Checked {
            value,
            state: self.state,
        })
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit()
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit_struct(name)
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.inner.serialize_unit_variant(name, index, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.inner.serialize_newtype_struct(
            name,
            &Checked {
                value,
                state: self.state,
            },
        )
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.state.push(Seg::Field(variant));
        let r = self.inner.serialize_newtype_variant(
            name,
            index,
            variant,
            &Checked {
                value,
                state: self.state,
            },
        );
        self.state.pop();
        r
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Ok(Compound::new(self.inner.serialize_seq(len)?, self.state, 0))
    }
    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, S::Error> {
        Ok(Compound::new(
            self.inner.serialize_tuple(len)?,
            self.state,
            0,
        ))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        Ok(Compound::new(
            self.inner.serialize_tuple_struct(name, len)?,
            self.state,
            0,
        ))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        let inner = self
            .inner
            .serialize_tuple_variant(name, index, variant, len)?;
        self.state.push(Seg::Field(variant));
        Ok(Compound::new(inner, self.state, 1))
    }
    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        Ok(Compound::new(self.inner.serialize_map(len)?, self.state, 0))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        Ok(Compound::new(
            self.inner.serialize_struct(name, len)?,
            self.state,
            0,
        ))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        let inner = self
            .inner
            .serialize_struct_variant(name, index, variant, len)?;
        self.state.push(Seg::Field(variant));
        Ok(Compound::new(inner, self.state, 1))
    }
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A sequence, tuple, map or struct being serialized: tracks the element's position.
struct Compound<'a, C> {
    inner: C,
    state: &'a State<'a>,
    index: usize,
    /// Path segments pushed when the compound started (a variant name), popped at the end.
    pushed: usize,
}

impl<'a, C> Compound<'a, C> {
    fn new(inner: C, state: &'a State<'a>, pushed: usize) -> Self {
        Compound {
            inner,
            state,
            index: 0,
            pushed,
        }
    }

    fn element<E>(
        &mut self,
        seg: Seg,
        f: impl FnOnce(&mut C, &'a State<'a>) -> Result<(), E>,
    ) -> Result<(), E> {
        self.state.push(seg);
        let r = f(&mut self.inner, self.state);
        self.state.pop();
        r
    }

    fn next_index(&mut self) -> Seg {
        let i = self.index;
        self.index += 1;
        Seg::Index(i)
    }

    fn end_path(&self) {
        for _ in 0..self.pushed {
            self.state.pop();
        }
    }
}

macro_rules! indexed {
    ($trait:ident, $method:ident) => {
        impl<C: $trait> $trait for Compound<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
                let seg = self.next_index();
                self.element(seg, |inner, state| inner.$method(&Checked { value, state }))
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.end_path();
                self.inner.end()
            }
        }
    };
}

indexed!(SerializeSeq, serialize_element);
indexed!(SerializeTuple, serialize_element);
indexed!(SerializeTupleStruct, serialize_field);
indexed!(SerializeTupleVariant, serialize_field);

macro_rules! fields {
    ($trait:ident) => {
        impl<C: $trait> $trait for Compound<'_, C> {
            type Ok = C::Ok;
            type Error = C::Error;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), C::Error> {
                self.element(Seg::Field(key), |inner, state| {
                    inner.serialize_field(key, &Checked { value, state })
                })
            }
            fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
                self.inner.skip_field(key)
            }
            fn end(self) -> Result<C::Ok, C::Error> {
                self.end_path();
                self.inner.end()
            }
        }
    };
}

fields!(SerializeStruct);
fields!(SerializeStructVariant);

impl<C: SerializeMap> SerializeMap for Compound<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        // A bad key is reported at the map's own path; a good one is remembered (at the
        // map's depth) for the path of its value.
        self.inner.serialize_key(&CheckedKey {
            key,
            state: self.state,
        })
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        self.element(Seg::Key, |inner, state| {
            inner.serialize_value(&Checked { value, state })
        })
    }
    fn end(self) -> Result<C::Ok, C::Error> {
        self.end_path();
        self.inner.end()
    }
}

/// Serializes a map key: strings (and what serializes as one) pass and are remembered for
/// error paths; anything else is a violation.
struct KeyCheck<'a, S> {
    inner: S,
    state: &'a State<'a>,
}

impl<S: Serializer> KeyCheck<'_, S> {
    fn reject(&self, what: fmt::Arguments<'_>) -> S::Error {
        self.state.violation(format_args!(
            "has a map key that is {what}; JSON object keys are strings (use `String` keys, or convert them with `to_string()`)"
        ))
    }
}

impl<S: Serializer> Serializer for KeyCheck<'_, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Impossible<S::Ok, S::Error>;
    type SerializeStruct = Impossible<S::Ok, S::Error>;
    type SerializeStructVariant = Impossible<S::Ok, S::Error>;

    fn serialize_str(self, v: &str) -> Result<S::Ok, S::Error> {
        self.state.set_key(v);
        self.inner.serialize_str(v)
    }
    fn serialize_char(self, v: char) -> Result<S::Ok, S::Error> {
        self.state.set_key(v.encode_utf8(&mut [0; 4]));
        self.inner.serialize_char(v)
    }
    fn serialize_unit_variant(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        self.state.set_key(variant);
        self.inner.serialize_unit_variant(name, index, variant)
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("a boolean (`{v}`)")))
    }
    fn serialize_i8(self, v: i8) -> Result<S::Ok, S::Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i16(self, v: i16) -> Result<S::Ok, S::Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i32(self, v: i32) -> Result<S::Ok, S::Error> {
        self.serialize_i64(i64::from(v))
    }
    fn serialize_i64(self, v: i64) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("an integer (`{v}`)")))
    }
    fn serialize_i128(self, v: i128) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("an integer (`{v}`)")))
    }
    fn serialize_u8(self, v: u8) -> Result<S::Ok, S::Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u16(self, v: u16) -> Result<S::Ok, S::Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u32(self, v: u32) -> Result<S::Ok, S::Error> {
        self.serialize_u64(u64::from(v))
    }
    fn serialize_u64(self, v: u64) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("an integer (`{v}`)")))
    }
    fn serialize_u128(self, v: u128) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("an integer (`{v}`)")))
    }
    fn serialize_f32(self, v: f32) -> Result<S::Ok, S::Error> {
        self.serialize_f64(f64::from(v))
    }
    fn serialize_f64(self, v: f64) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("a number (`{v}`)")))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("a byte string")))
    }
    fn serialize_none(self) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("`None`")))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("an `Option`")))
    }
    fn serialize_unit(self) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("`()`")))
    }
    fn serialize_unit_struct(self, name: &'static str) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!("the unit struct `{name}`")))
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _value: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(self.reject(format_args!(
            "the enum variant `{name}::{variant}` with data"
        )))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Err(self.reject(format_args!("a sequence")))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, S::Error> {
        Err(self.reject(format_args!("a tuple")))
    }
    fn serialize_tuple_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        Err(self.reject(format_args!("the tuple struct `{name}`")))
    }
    fn serialize_tuple_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        Err(self.reject(format_args!(
            "the enum variant `{name}::{variant}` with data"
        )))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        Err(self.reject(format_args!("a map")))
    }
    fn serialize_struct(
        self,
        name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        Err(self.reject(format_args!("the struct `{name}`")))
    }
    fn serialize_struct_variant(
        self,
        name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        Err(self.reject(format_args!(
            "the enum variant `{name}::{variant}` with data"
        )))
    }
    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use serde::Serialize;
    use serde_json::json;

    use super::*;

    fn text<T: Serialize + ?Sized>(v: &T) -> Result<String, ToolError> {
        to_string(v)
    }

    #[derive(Serialize)]
    struct Report {
        name: String,
        scores: Vec<f64>,
        nested: Option<Box<Report>>,
    }

    #[derive(Serialize)]
    enum Shape {
        Circle { radius: f32 },
        Pair(f64, f64),
        Unit,
    }

    #[test]
    fn representable_values_match_serde_json() {
        let mut map = BTreeMap::new();
        map.insert("a/b~c".to_owned(), vec![1.5, -0.0]);
        let report = Report {
            name: "x".into(),
            scores: vec![1.0, 2.5],
            nested: Some(Box::new(Report {
                name: "y".into(),
                scores: vec![],
                nested: None,
            })),
        };
        assert_eq!(
            text(&report).unwrap(),
            serde_json::to_string(&report).unwrap()
        );
        assert_eq!(
            to_value(&report).unwrap(),
            serde_json::to_value(&report).unwrap()
        );
        assert_eq!(text(&map).unwrap(), serde_json::to_string(&map).unwrap());
        let shapes = vec![
            Shape::Circle { radius: 1.0 },
            Shape::Pair(1.0, 2.0),
            Shape::Unit,
        ];
        assert_eq!(
            to_value(&shapes).unwrap(),
            serde_json::to_value(&shapes).unwrap()
        );
        assert_eq!(
            text(&shapes).unwrap(),
            serde_json::to_string(&shapes).unwrap()
        );
        let v = json!({"k": [1, "two", null, {"three": 3.25}], "u": u64::MAX});
        assert_eq!(to_value(&v).unwrap(), v);
        assert_eq!(text(&v).unwrap(), v.to_string());
    }

    #[test]
    fn non_finite_numbers_are_reported_with_their_pointer() {
        let report = Report {
            name: "x".into(),
            scores: vec![1.0],
            nested: Some(Box::new(Report {
                name: "y".into(),
                scores: vec![0.0, f64::NAN],
                nested: None,
            })),
        };
        for err in [text(&report).unwrap_err(), to_value(&report).unwrap_err()] {
            assert_eq!(err.code(), ErrorCode::ToolResultInvalid);
            assert_eq!(
                err.message(),
                "the result is not representable in JSON: `/nested/scores/1` is NaN; JSON has no NaN (return `null` via an `Option`, or a string)"
            );
        }
        let err = to_value(&vec![
            Shape::Unit,
            Shape::Circle {
                radius: f32::INFINITY,
            },
        ])
        .unwrap_err();
        assert!(
            err.message().contains("`/1/Circle/radius` is infinity"),
            "{err}"
        );
        let err = text(&Shape::Pair(0.0, f64::NEG_INFINITY)).unwrap_err();
        assert!(err.message().contains("`/Pair/1` is -infinity"), "{err}");
        let err = text(&f64::NAN).unwrap_err();
        assert!(err.message().contains(": the value is NaN"), "{err}");
        let mut map = HashMap::new();
        map.insert("we/ird~".to_owned(), f64::NAN);
        let err = text(&map).unwrap_err();
        assert!(err.message().contains("`/we~1ird~0` is NaN"), "{err}");
    }

    #[test]
    fn integers_beyond_64_bits_are_refused_on_every_path() {
        #[derive(Serialize)]
        struct Big {
            fits: i128,
            also: u128,
            wide: i128,
        }
        let ok = Big {
            fits: -5,
            also: u128::from(u64::MAX),
            wide: i128::from(i64::MIN),
        };
        let expected = json!({"fits": -5, "also": u64::MAX, "wide": i64::MIN});
        assert_eq!(to_value(&ok).unwrap(), expected);
        assert_eq!(text(&ok).unwrap(), expected.to_string());
        let big = Big {
            wide: i128::MAX,
            ..ok
        };
        for err in [text(&big).unwrap_err(), to_value(&big).unwrap_err()] {
            assert_eq!(err.code(), ErrorCode::ToolResultInvalid);
            assert_eq!(
                err.message(),
                "the result is not representable in JSON: `/wide` is 170141183460469231731687303715884105727, an integer beyond 64 bits; JSON readers lose its exact value (return it as a string)"
            );
        }
        let err = text(&(u128::from(u64::MAX) + 1)).unwrap_err();
        assert!(
            err.message()
                .contains("18446744073709551616, an integer beyond 64 bits"),
            "{err}"
        );
    }

    #[test]
    fn non_string_map_keys_are_reported() {
        let mut by_id = BTreeMap::new();
        by_id.insert(7_u32, "seven");
        let err = text(&vec![by_id]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::ToolResultInvalid);
        assert!(
            err.message().contains(
                "`/0` has a map key that is an integer (`7`); JSON object keys are strings"
            ),
            "{err}"
        );
        let mut flags = BTreeMap::new();
        flags.insert(true, 1);
        let err = to_value(&flags).unwrap_err();
        assert!(
            err.message()
                .contains("the value has a map key that is a boolean"),
            "{err}"
        );

        #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
        enum Color {
            Red,
        }
        #[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
        struct Name(String);
        let mut ok = BTreeMap::new();
        ok.insert(Color::Red, 1);
        assert_eq!(text(&ok).unwrap(), r#"{"Red":1}"#);
        let mut ok = BTreeMap::new();
        ok.insert(Name("n".into()), 'c');
        assert_eq!(to_value(&ok).unwrap(), json!({"n": "c"}));
    }

    #[test]
    fn serialize_errors_of_the_value_itself_are_result_invalid() {
        struct Broken;
        impl Serialize for Broken {
            fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(ser::Error::custom("database handle cannot be serialized"))
            }
        }
        let err = text(&vec![Broken]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::ToolResultInvalid);
        assert_eq!(
            err.message(),
            "the result could not be serialized: database handle cannot be serialized"
        );
    }

    #[test]
    fn a_swallowed_violation_still_counts() {
        struct Forgiving;
        impl Serialize for Forgiving {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                // Tries NaN, and on failure... cannot retry (the serializer is consumed), so
                // emulate a lenient impl that reports success some other way.
                let _ = f64::NAN.serialize(s);
                Err(ser::Error::custom("gave up"))
            }
        }
        let err = to_value(&Forgiving).unwrap_err();
        assert!(err.message().contains("is NaN"), "{err}");
    }
}
