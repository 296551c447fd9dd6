//! The strict result serializer, through a session call whose handler returns an arbitrary
//! `Serialize` structure: every serde data model shape, floats including NaN and the
//! infinities, and map keys of every kind.
//!
//! Invariants, for both encodings (`session.call`, which builds a `Value`, and
//! `session.call_raw`, which writes JSON text as the bridges do):
//! - a structure JSON can represent (finite floats, map keys that serialize as strings) is
//!   `{"ok":true,"value":v}` with `v` exactly what `serde_json` makes of it (except an
//!   `i128`/`u128` outside 64 bits, which `serde_json`'s `Value` cannot hold: then
//!   `TOOL_RESULT_INVALID` is also right);
//! - any other is `TOOL_RESULT_INVALID`, and the message names the JSON pointer of the
//!   first violation (in serialization order);
//! - `call_raw`'s text is always valid JSON.

use arbitrary::{Arbitrary, Unstructured};
use pedelec_core::{Session, SkillsInput, ToolError};
use serde::ser::{
    Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant, SerializeTuple,
    SerializeTupleVariant, Serializer,
};
use serde_json::Value;
use serde_json::value::RawValue;

use super::block_on;

const FIELDS: [&str; 6] = ["f0", "f1", "a/b", "t~1", "é", ""];
const VARIANTS: [&str; 4] = ["V0", "V1", "x/y", "~"];

/// A value of the serde data model.
#[derive(Arbitrary, Debug, Clone)]
pub enum Node {
    Null,
    Bool(bool),
    I64(i64),
    U64(u64),
    I128(i128),
    U128(u128),
    F64(f64),
    F32(f32),
    Nan,
    Inf,
    NegInf,
    F32Nan,
    Str(String),
    Char(char),
    Bytes(Vec<u8>),
    Unit,
    UnitStruct,
    UnitVariant(u8),
    Some(Box<Node>),
    Newtype(Box<Node>),
    NewtypeVariant(u8, Box<Node>),
    Seq(Vec<Node>),
    Tuple(Vec<Node>),
    TupleVariant(u8, Vec<Node>),
    Map(Vec<(Key, Node)>),
    Struct(Vec<Node>),
    StructVariant(u8, Vec<Node>),
}

/// A map key of the serde data model.
#[derive(Arbitrary, Debug, Clone)]
pub enum Key {
    Str(String),
    Char(char),
    UnitVariant(u8),
    Newtype(Box<Key>),
    Bool(bool),
    I64(i64),
    U64(u64),
    F64(f64),
    Unit,
    None,
    Seq(Vec<Key>),
}

fn variant(i: u8) -> &'static str {
    VARIANTS[usize::from(i) % VARIANTS.len()]
}

impl Serialize for Node {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Node::Null => s.serialize_none(),
            Node::Bool(b) => s.serialize_bool(*b),
            Node::I64(n) => s.serialize_i64(*n),
            Node::U64(n) => s.serialize_u64(*n),
            Node::I128(n) => s.serialize_i128(*n),
            Node::U128(n) => s.serialize_u128(*n),
            Node::F64(n) => s.serialize_f64(*n),
            Node::F32(n) => s.serialize_f32(*n),
            Node::Nan => s.serialize_f64(f64::NAN),
            Node::Inf => s.serialize_f64(f64::INFINITY),
            Node::NegInf => s.serialize_f64(f64::NEG_INFINITY),
            Node::F32Nan => s.serialize_f32(f32::NAN),
            Node::Str(v) => s.serialize_str(v),
            Node::Char(c) => s.serialize_char(*c),
            Node::Bytes(b) => s.serialize_bytes(b),
            Node::Unit => s.serialize_unit(),
            Node::UnitStruct => s.serialize_unit_struct("U"),
            Node::UnitVariant(i) => s.serialize_unit_variant("E", u32::from(*i), variant(*i)),
            Node::Some(v) => s.serialize_some(v),
            Node::Newtype(v) => s.serialize_newtype_struct("N", v),
            Node::NewtypeVariant(i, v) => {
                s.serialize_newtype_variant("E", u32::from(*i), variant(*i), v)
            }
            Node::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Node::Tuple(items) => {
                let mut t = s.serialize_tuple(items.len())?;
                for item in items {
                    t.serialize_element(item)?;
                }
                t.end()
            }
            Node::TupleVariant(i, items) => {
                let mut t =
                    s.serialize_tuple_variant("E", u32::from(*i), variant(*i), items.len())?;
                for item in items {
                    t.serialize_field(item)?;
                }
                t.end()
            }
            Node::Map(entries) => {
                let mut m = s.serialize_map(Some(entries.len()))?;
                for (k, v) in entries {
                    m.serialize_entry(k, v)?;
                }
                m.end()
            }
            Node::Struct(fields) => {
                let fields = &fields[..fields.len().min(FIELDS.len())];
                let mut st = s.serialize_struct("S", fields.len())?;
                for (name, v) in FIELDS.iter().zip(fields) {
                    st.serialize_field(name, v)?;
                }
                st.end()
            }
            Node::StructVariant(i, fields) => {
                let fields = &fields[..fields.len().min(FIELDS.len())];
                let mut st =
                    s.serialize_struct_variant("E", u32::from(*i), variant(*i), fields.len())?;
                for (name, v) in FIELDS.iter().zip(fields) {
                    st.serialize_field(name, v)?;
                }
                st.end()
            }
        }
    }
}

impl Serialize for Key {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Key::Str(v) => s.serialize_str(v),
            Key::Char(c) => s.serialize_char(*c),
            Key::UnitVariant(i) => s.serialize_unit_variant("E", u32::from(*i), variant(*i)),
            Key::Newtype(k) => s.serialize_newtype_struct("K", k),
            Key::Bool(b) => s.serialize_bool(*b),
            Key::I64(n) => s.serialize_i64(*n),
            Key::U64(n) => s.serialize_u64(*n),
            Key::F64(n) => s.serialize_f64(*n),
            Key::Unit => s.serialize_unit(),
            Key::None => s.serialize_none(),
            Key::Seq(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

/// The text of a key JSON can represent, or `None`.
fn key_text(key: &Key) -> Option<String> {
    match key {
        Key::Str(s) => Some(s.clone()),
        Key::Char(c) => Some(c.to_string()),
        Key::UnitVariant(i) => Some(variant(*i).to_owned()),
        Key::Newtype(k) => key_text(k),
        _ => None,
    }
}

fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// The pointer of the first value JSON cannot represent (serialization order), if any,
/// and its depth.
fn first_violation(node: &Node, path: &mut Vec<String>) -> Option<Vec<String>> {
    let at = |seg: String, child: &Node, path: &mut Vec<String>| {
        path.push(seg);
        let found = first_violation(child, path);
        path.pop();
        found
    };
    match node {
        Node::F64(f) if !f.is_finite() => Some(path.clone()),
        Node::F32(f) if !f.is_finite() => Some(path.clone()),
        Node::Nan | Node::Inf | Node::NegInf | Node::F32Nan => Some(path.clone()),
        Node::Some(v) | Node::Newtype(v) => first_violation(v, path),
        Node::NewtypeVariant(i, v) => at(escape(variant(*i)), v, path),
        Node::Seq(items) | Node::Tuple(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| at(i.to_string(), v, path)),
        Node::TupleVariant(i, items) => {
            path.push(escape(variant(*i)));
            let found = items
                .iter()
                .enumerate()
                .find_map(|(j, v)| at(j.to_string(), v, path));
            path.pop();
            found
        }
        Node::Map(entries) => entries.iter().find_map(|(k, v)| match key_text(k) {
            None => Some(path.clone()),
            Some(text) => at(escape(&text), v, path),
        }),
        Node::Struct(fields) => FIELDS
            .iter()
            .zip(fields)
            .find_map(|(name, v)| at(escape(name), v, path)),
        Node::StructVariant(i, fields) => {
            path.push(escape(variant(*i)));
            let found = FIELDS
                .iter()
                .zip(fields)
                .find_map(|(name, v)| at(escape(name), v, path));
            path.pop();
            found
        }
        _ => None,
    }
}

/// Whether the structure holds an integer wider than 64 bits (which a `Value` cannot).
fn has_wide_int(node: &Node) -> bool {
    match node {
        Node::I128(n) => i64::try_from(*n).is_err() && u64::try_from(*n).is_err(),
        Node::U128(n) => u64::try_from(*n).is_err(),
        Node::Some(v) | Node::Newtype(v) | Node::NewtypeVariant(_, v) => has_wide_int(v),
        Node::Seq(items)
        | Node::Tuple(items)
        | Node::TupleVariant(_, items)
        | Node::Struct(items)
        | Node::StructVariant(_, items) => items.iter().any(has_wide_int),
        Node::Map(entries) => entries.iter().any(|(_, v)| has_wide_int(v)),
        _ => false,
    }
}

fn node_depth(node: &Node) -> usize {
    match node {
        Node::Some(v) | Node::Newtype(v) | Node::NewtypeVariant(_, v) => 1 + node_depth(v),
        Node::Seq(items)
        | Node::Tuple(items)
        | Node::TupleVariant(_, items)
        | Node::Struct(items)
        | Node::StructVariant(_, items) => 1 + items.iter().map(node_depth).max().unwrap_or(0),
        Node::Map(entries) => {
            1 + entries
                .iter()
                .map(|(k, v)| key_depth(k).max(node_depth(v)))
                .max()
                .unwrap_or(0)
        }
        _ => 0,
    }
}

fn key_depth(key: &Key) -> usize {
    match key {
        Key::Newtype(k) => 1 + key_depth(k),
        Key::Seq(items) => 1 + items.iter().map(key_depth).max().unwrap_or(0),
        _ => 0,
    }
}

/// Runs one structure through a session; panics when an invariant does not hold.
pub fn check(data: &[u8]) {
    super::install_panic_filter();
    let mut u = Unstructured::new(data);
    let Ok(node) = Node::arbitrary(&mut u) else {
        return;
    };
    if node_depth(&node) > 48 {
        return; // deep enough; deeper only tests the stack
    }
    let violation = first_violation(&node, &mut Vec::new());
    let wide = has_wide_int(&node);
    let context = format!("structure: {node:?}");

    let skills = SkillsInput::from_json(&serde_json::json!({
        "guidance": "Fuzzing.",
        "tools": [{"name": "give", "description": "Return the structure.",
                   "argsSchema": {"type": "object"}}]
    }))
    .expect("a valid skill set");
    let session = Session::builder(skills).create().expect("a session");
    let returned = node.clone();
    session.on_tool_name("give", move |_args: Value, _ctx| {
        let node = returned.clone();
        async move { Ok::<_, ToolError>(node) }
    });
    let args = RawValue::from_string("{}".to_owned()).expect("raw args");
    let (as_value, as_text) = block_on(async {
        (
            session.call("give", serde_json::json!({})).await,
            session.call_raw("give", &args).await,
        )
    });
    let as_value = serde_json::to_value(&as_value).expect("a ToolResult serializes");
    let as_text: Value = serde_json::from_str(&as_text).unwrap_or_else(|e| {
        panic!("call_raw gave text that is not JSON ({e}): {as_text}\n{context}")
    });

    for (encoding, result) in [("value", &as_value), ("text", &as_text)] {
        let context = format!("{context}\nencoding: {encoding}\nresult: {result}");
        match &violation {
            Some(path) => {
                assert_eq!(
                    result["error"]["code"], "TOOL_RESULT_INVALID",
                    "not representable, yet not TOOL_RESULT_INVALID\n{context}"
                );
                let message = result["error"]["message"].as_str().unwrap_or_default();
                // A wide integer before it may be reported first (`Value` cannot hold it).
                if path.len() < 32 && !path.is_empty() && !wide {
                    let pointer = path.iter().fold(String::new(), |mut p, s| {
                        p.push('/');
                        p.push_str(s);
                        p
                    });
                    assert!(
                        message.contains(&format!("`{pointer}`")),
                        "the message does not name {pointer:?}\n{context}"
                    );
                }
            }
            None if wide => {
                if result["ok"] == false {
                    assert_eq!(result["error"]["code"], "TOOL_RESULT_INVALID", "{context}");
                }
            }
            None => {
                let expected = if encoding == "value" {
                    serde_json::to_value(&node).expect("representable")
                } else {
                    let text = serde_json::to_string(&node).expect("representable");
                    serde_json::from_str(&text).expect("serde_json reads its own text")
                };
                assert_eq!(result["ok"], true, "representable, yet failed\n{context}");
                assert_eq!(result["value"], expected, "{context}");
            }
        }
    }
}
