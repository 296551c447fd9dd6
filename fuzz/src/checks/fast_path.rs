//! The fast path against the reference: an arbitrary schema (from a structured generator)
//! × arbitrary JSON text (an instance generated along the schema, written with varied
//! number forms, escapes, white space and duplicate keys, or raw bytes).
//!
//! `CompiledSchema::deserialize_args_with::<T>(text, options)` (the session's route: the fast
//! path straight into `T`, falling back to the slow one, recorded to a tape and replayed)
//! must give exactly what the reference gives: parse with `serde_json`,
//! `validate_with` (every error), normalize as documented (a `null` for an optional declared
//! property removed under `null_as_absent`; an integral number at an `integer` node made an
//! integer; through the one matching `oneOf` branch, `items`, properties and
//! `additionalProperties`), then `serde_json::from_value::<T>`. Same value, same errors, same
//! syntax or mismatch message; for `T` = `Value`, a map, and a typed struct; under the
//! three option sets. `deserialize_value_with` must agree too.

use std::collections::BTreeMap;
use std::fmt::{Debug, Write as _};

use arbitrary::{Result, Unstructured};
use pedelec_core::ToolArgsSchema;
use pedelec_core::schema::{ArgsError, CompiledSchema, ValidationErrors, ValidationOptions};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value, json};

use super::{OPTIONS, node_accepts};

const NAMES: &[&str] = &["a", "b", "c", "d", "e", "é", "x", "a b", ""];
const PATTERNS: &[&str] = &[
    "^[a-z]+$",
    "a",
    "^$",
    "\\d",
    "^.{2}",
    "[é-ü]",
    "^(?:ab|c)*$",
];
const FORMATS: &[&str] = &["email", "date", "uuid", "ipv4", "date-time", "uri", "regex"];
const STRINGS: &[&str] = &[
    "",
    "a",
    "ab",
    "abc",
    "é",
    "🐲",
    "2024-01-02",
    "a@b.c",
    "1",
    "x y",
];

/// A typed target: what `#[derive(Deserialize)]` generates, beside `Value`.
#[derive(Debug, PartialEq, Deserialize)]
pub struct Typed {
    a: Option<i64>,
    b: Option<f64>,
    c: Option<String>,
    d: Option<Vec<Value>>,
    e: Option<bool>,
    #[serde(rename = "é")]
    f: Option<u8>,
    #[serde(default)]
    x: BTreeMap<String, Value>,
}

fn number(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=9)? {
        0 => json!(0),
        1 => json!(u.int_in_range(-3i64..=10)?),
        2 => json!(0.5),
        3 => json!(-1.5),
        4 => json!(u64::MAX),
        5 => json!(i64::MIN),
        6 => json!(1e300),
        7 => json!(0.1),
        8 => json!(f64::from(u.int_in_range(-1000i32..=1000)?) / 8.0),
        _ => json!(u.arbitrary::<i64>()?),
    })
}

fn positive(u: &mut Unstructured<'_>) -> Result<Value> {
    Ok(match u.int_in_range(0..=4)? {
        0 => json!(2),
        1 => json!(0.5),
        2 => json!(0.1),
        3 => json!(3),
        _ => json!(1e-3),
    })
}

/// A schema node of any kind (the root is an object).
fn schema(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    let kind = if depth == 0 {
        6
    } else if depth > 3 {
        u.int_in_range(0..=3)?
    } else {
        u.int_in_range(0..=7)?
    };
    let mut s = Map::new();
    let set = |s: &mut Map<String, Value>, k: &str, v: Value| {
        s.insert(k.to_owned(), v);
    };
    match kind {
        0 => {
            set(&mut s, "type", json!("string"));
            if u.ratio(1, 4)? {
                set(&mut s, "minLength", json!(u.int_in_range(0..=3)?));
            }
            if u.ratio(1, 4)? {
                set(&mut s, "maxLength", json!(u.int_in_range(1..=4)?));
            }
            if u.ratio(1, 5)? {
                set(&mut s, "pattern", json!(*u.choose(PATTERNS)?));
            }
            if u.ratio(1, 5)? {
                set(&mut s, "format", json!(*u.choose(FORMATS)?));
            }
            if u.ratio(1, 6)? {
                let n = u.int_in_range(1..=3)?;
                let values: Result<Vec<Value>> =
                    (0..n).map(|_| Ok(json!(*u.choose(STRINGS)?))).collect();
                set(&mut s, "enum", Value::Array(values?));
            }
        }
        1 | 2 => {
            set(
                &mut s,
                "type",
                json!(if kind == 1 { "number" } else { "integer" }),
            );
            for key in ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"] {
                if u.ratio(1, 5)? {
                    set(&mut s, key, number(u)?);
                }
            }
            if u.ratio(1, 5)? {
                set(&mut s, "multipleOf", positive(u)?);
            }
            if u.ratio(1, 8)? {
                let values: Result<Vec<Value>> = (0..2).map(|_| number(u)).collect();
                set(&mut s, "enum", Value::Array(values?));
            }
        }
        3 => set(&mut s, "type", json!("boolean")),
        4 | 5 => {
            set(&mut s, "type", json!("array"));
            set(&mut s, "items", schema(u, depth + 1)?);
            if u.ratio(1, 4)? {
                set(&mut s, "minItems", json!(u.int_in_range(0..=2)?));
            }
            if u.ratio(1, 4)? {
                set(&mut s, "maxItems", json!(u.int_in_range(1..=3)?));
            }
            if u.ratio(1, 4)? {
                set(&mut s, "uniqueItems", json!(u.arbitrary::<bool>()?));
            }
        }
        6 => {
            set(&mut s, "type", json!("object"));
            let mut props = Map::new();
            let mut required = Vec::new();
            for _ in 0..u.int_in_range(0..=4)? {
                let name = *u.choose(NAMES)?;
                props.insert(name.to_owned(), schema(u, depth + 1)?);
                if u.ratio(1, 2)? {
                    required.push(json!(name));
                }
            }
            if u.ratio(1, 10)? {
                required.push(json!(*u.choose(NAMES)?));
            }
            set(&mut s, "properties", Value::Object(props));
            if !required.is_empty() {
                let mut seen = std::collections::HashSet::new();
                required.retain(|r| seen.insert(r.to_string()));
                set(&mut s, "required", Value::Array(required));
            }
            match u.int_in_range(0..=3)? {
                0 => {}
                1 => set(&mut s, "additionalProperties", json!(false)),
                2 => set(&mut s, "additionalProperties", json!(true)),
                _ => set(&mut s, "additionalProperties", schema(u, depth + 1)?),
            }
        }
        _ => {
            let n = u.int_in_range(1..=3)?;
            let branches: Result<Vec<Value>> = (0..n).map(|_| schema(u, depth + 1)).collect();
            set(&mut s, "oneOf", Value::Array(branches?));
        }
    }
    if u.ratio(1, 12)? {
        s.insert(
            "default".to_owned(),
            instance(u, &Value::Object(s.clone()), 3)?,
        );
    }
    Ok(Value::Object(s))
}

/// Any JSON value, small.
fn any(u: &mut Unstructured<'_>, depth: usize) -> Result<Value> {
    Ok(match u.int_in_range(0..=if depth > 2 { 4 } else { 6 })? {
        0 => Value::Null,
        1 => json!(u.arbitrary::<bool>()?),
        2 => number(u)?,
        3 => json!(*u.choose(STRINGS)?),
        4 => json!(u.arbitrary::<String>()?),
        5 => {
            let n = u.int_in_range(0..=3)?;
            let items: Result<Vec<Value>> = (0..n).map(|_| any(u, depth + 1)).collect();
            Value::Array(items?)
        }
        _ => {
            let mut map = Map::new();
            for _ in 0..u.int_in_range(0..=3)? {
                map.insert((*u.choose(NAMES)?).to_owned(), any(u, depth + 1)?);
            }
            Value::Object(map)
        }
    })
}

/// An instance along `schema` (valid more often than not), or anything.
fn instance(u: &mut Unstructured<'_>, schema: &Value, depth: usize) -> Result<Value> {
    if depth > 6 || u.ratio(1, 10)? {
        return any(u, depth);
    }
    if let Some(Value::Array(values)) = schema.get("enum")
        && !values.is_empty()
        && u.ratio(3, 4)?
    {
        return Ok(u.choose(values)?.clone());
    }
    if let Some(Value::Array(branches)) = schema.get("oneOf")
        && !branches.is_empty()
    {
        let branch = u.choose(branches)?.clone();
        return instance(u, &branch, depth + 1);
    }
    Ok(match schema.get("type").and_then(Value::as_str) {
        Some("string") => json!(*u.choose(STRINGS)?),
        Some("number") => number(u)?,
        Some("integer") => match u.int_in_range(0..=3)? {
            0 => json!(f64::from(u.int_in_range(-5i32..=5)?)),
            _ => json!(u.int_in_range(-5i64..=5)?),
        },
        Some("boolean") => json!(u.arbitrary::<bool>()?),
        Some("array") => {
            let items = schema.get("items").cloned().unwrap_or(Value::Null);
            let n = u.int_in_range(0..=3)?;
            let mut out = Vec::new();
            for _ in 0..n {
                out.push(instance(u, &items, depth + 1)?);
            }
            if n > 0 && u.ratio(1, 6)? {
                out.push(out[0].clone());
            }
            Value::Array(out)
        }
        Some("object") => {
            let mut map = Map::new();
            if let Some(Value::Object(props)) = schema.get("properties") {
                for (k, v) in props {
                    match u.int_in_range(0..=5)? {
                        0 => {}
                        1 => {
                            map.insert(k.clone(), Value::Null);
                        }
                        _ => {
                            map.insert(k.clone(), instance(u, v, depth + 1)?);
                        }
                    }
                }
            }
            if u.ratio(1, 5)? {
                let extra = schema
                    .get("additionalProperties")
                    .filter(|a| a.is_object())
                    .cloned()
                    .unwrap_or(Value::Null);
                map.insert(
                    (*u.choose(NAMES)?).to_owned(),
                    instance(u, &extra, depth + 1)?,
                );
            }
            Value::Object(map)
        }
        _ => any(u, depth)?,
    })
}

/// Writes `v` as JSON text with varied forms: numbers as `1.0` / `1e0` / `-0`, escaped
/// characters, white space, and now and then a key given twice.
fn emit(u: &mut Unstructured<'_>, v: &Value, out: &mut String) -> Result<()> {
    if u.ratio(1, 16)? {
        out.push_str(u.choose(&[" ", "\n", "\t", "\r\n "])?);
    }
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64().filter(|_| u.ratio(1, 4).unwrap_or(false)) {
                match u.int_in_range(0..=2)? {
                    0 => write!(out, "{i}.0").unwrap(),
                    1 => write!(out, "{i}e0").unwrap(),
                    _ => write!(out, "{i}E+0").unwrap(),
                }
            } else {
                out.push_str(&n.to_string());
            }
        }
        Value::String(s) => {
            out.push('"');
            for c in s.chars() {
                if c == '"' || c == '\\' || c.is_control() || u.ratio(1, 8)? {
                    let mut buf = [0u16; 2];
                    for unit in c.encode_utf16(&mut buf) {
                        write!(out, "\\u{unit:04x}").unwrap();
                    }
                } else {
                    out.push(c);
                }
            }
            out.push('"');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                emit(u, item, out)?;
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push('{');
            let mut first = true;
            for (k, item) in map {
                let twice = u.ratio(1, 20)?;
                for _ in 0..=usize::from(twice) {
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    emit(u, &Value::String(k.clone()), out)?;
                    out.push(':');
                    emit(u, item, out)?;
                }
            }
            out.push('}');
        }
        other => out.push_str(&other.to_string()),
    }
    Ok(())
}

#[derive(Debug, PartialEq)]
enum Outcome<T> {
    Value(T),
    Syntax(String),
    Invalid(ValidationErrors),
    Mismatch(String),
}

fn outcome<T>(result: std::result::Result<T, ArgsError>) -> Outcome<T> {
    match result {
        Ok(v) => Outcome::Value(v),
        Err(ArgsError::Syntax(e)) => Outcome::Syntax(e.to_string()),
        Err(ArgsError::Invalid(e)) => Outcome::Invalid(e),
        Err(ArgsError::Mismatch(e)) => Outcome::Mismatch(e.to_string()),
        Err(e) => Outcome::Mismatch(format!("unexpected: {e:?}")),
    }
}

/// The documented normalization, over the schema's JSON form.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss,
    reason = "integral floats, range-checked"
)]
fn normalize(node: &Value, value: &mut Value, options: ValidationOptions) {
    if let Some(Value::Array(branches)) = node.get("oneOf") {
        let matching: Vec<&Value> = branches
            .iter()
            .filter(|b| node_accepts(b, value, options) == Some(true))
            .collect();
        if let [branch] = matching[..] {
            normalize(branch, value, options);
        }
    }
    let kind = node.get("type").and_then(Value::as_str);
    match value {
        Value::Number(n) if kind == Some("integer") && n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if f.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                *n = Number::from(f as u64);
            } else if f.fract() == 0.0 && (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
                *n = Number::from(f as i64);
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.get("items") {
                for v in items {
                    normalize(item, v, options);
                }
            }
        }
        Value::Object(map) => {
            let props = node.get("properties").and_then(Value::as_object);
            let required = |k: &str| {
                node.get("required")
                    .and_then(Value::as_array)
                    .is_some_and(|r| r.iter().any(|n| n == k))
            };
            if options.null_as_absent {
                map.retain(|k, v| {
                    !(v.is_null() && props.is_some_and(|p| p.contains_key(k)) && !required(k))
                });
            }
            for (k, v) in map.iter_mut() {
                if let Some(p) = props.and_then(|p| p.get(k)) {
                    normalize(p, v, options);
                } else if let Some(extra @ Value::Object(_)) = node.get("additionalProperties") {
                    normalize(extra, v, options);
                }
            }
        }
        _ => {}
    }
}

fn reference<T: DeserializeOwned>(
    schema: &CompiledSchema,
    wire: &Value,
    text: &str,
    options: ValidationOptions,
) -> Outcome<T> {
    let mut value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Outcome::Syntax(e.to_string()),
    };
    if let Err(errors) = schema.validate_with(&value, options) {
        return Outcome::Invalid(errors);
    }
    normalize(wire, &mut value, options);
    match serde_json::from_value(value) {
        Ok(v) => Outcome::Value(v),
        Err(e) => Outcome::Mismatch(e.to_string()),
    }
}

fn compare<T: DeserializeOwned + PartialEq + Debug>(
    schema: &CompiledSchema,
    wire: &Value,
    text: &str,
) {
    for options in OPTIONS {
        let expected = reference::<T>(schema, wire, text, options);
        let got = outcome(schema.deserialize_args_with::<T>(text, options));
        assert_eq!(
            got,
            expected,
            "deserialize_args_with::<{}> disagrees with the reference\nschema: {wire}\ntext: {text}\noptions: {options:?}",
            std::any::type_name::<T>()
        );
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            let got = outcome(schema.deserialize_value_with::<T>(value, options));
            assert_eq!(
                got,
                expected,
                "deserialize_value_with::<{}> disagrees with the reference\nschema: {wire}\ntext: {text}\noptions: {options:?}",
                std::any::type_name::<T>()
            );
        }
    }
}

/// Checks one input; panics when an invariant does not hold.
pub fn check(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(generated) = schema(&mut u, 0) else {
        return;
    };
    let Ok(schema) = ToolArgsSchema::from_json(&generated) else {
        return;
    };
    let wire = schema.to_json();
    let schema = schema.compiled().expect("`from_json` compiles the schema");
    let mut texts = Vec::new();
    for _ in 0..3 {
        let text = match u.int_in_range(0..=7) {
            Ok(0) => {
                let n = u.int_in_range(0..=32).unwrap_or(0);
                let bytes = u.bytes(n.min(u.len())).unwrap_or_default();
                String::from_utf8_lossy(bytes).into_owned()
            }
            Ok(_) => {
                let Ok(value) = instance(&mut u, &wire, 0) else {
                    break;
                };
                let mut text = String::new();
                if emit(&mut u, &value, &mut text).is_err() {
                    break;
                }
                text
            }
            Err(_) => break,
        };
        texts.push(text);
    }
    for text in &texts {
        compare::<Value>(schema, &wire, text);
        compare::<Map<String, Value>>(schema, &wire, text);
        compare::<Typed>(schema, &wire, text);
    }
}
