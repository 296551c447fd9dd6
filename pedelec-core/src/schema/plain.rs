//! The plain form of a raw schema: a schema in the wire subset (DESIGN §1) that accepts at
//! least every value the raw one accepts, for what reads schemas by their subset (provider
//! exports, code mode's signatures, search). The raw schema still validates every call, so
//! the plain form may be looser; what it leaves out is said in words in the description
//! ("Further rules apply: …"), where a model reads it.
//!
//! - local `$ref`s are inlined (a reference cycle ends in "any value");
//! - `allOf` branches are merged into their node (properties, `required`, keywords the node
//!   lacks);
//! - `anyOf`/`oneOf`: `null` branches are dropped (absent is how a model says "no value"),
//!   one branch left is merged, several typed ones become a `oneOf` (read as "any of" by
//!   the exports: the raw schema decides), branches that only require properties are said
//!   in words;
//! - a type list keeps its one non-`null` type, or becomes type-less; `const` becomes a
//!   one-value `enum`;
//! - `not`, `if`/`then`/`else`, `dependentRequired`, `patternProperties`, … are said in words
//!   and dropped; annotations the subset has no place for (`$schema`, `title`, `examples`,
//!   unknown keywords) are dropped.

use serde_json::{Map, Value};

use super::parse::KEYWORDS;

/// Deeper than this (or this many `$ref`s inlined on one path), a node is "any value".
const MAX_DEPTH: usize = 32;

/// The plain form of the raw schema `raw`; its root is an object node.
pub(crate) fn plain(raw: &Value) -> Value {
    let mut out = node(raw, raw, 0);
    if let Value::Object(map) = &mut out {
        if map.get("type").is_none_or(|t| t != "object") {
            map.insert("type".into(), "object".into());
        }
        map.remove("oneOf");
    }
    out
}

fn node(schema: &Value, root: &Value, depth: usize) -> Value {
    let (mut out, notes) = parts(schema, root, depth);
    if !notes.is_empty() {
        let sentence = format!("Further rules apply: {}.", notes.join("; "));
        match out.get_mut("description") {
            Some(Value::String(d)) => {
                let trimmed = d.trim_end().len();
                d.truncate(trimmed);
                d.push(' ');
                d.push_str(&sentence);
            }
            _ => {
                out.insert("description".into(), Value::String(sentence));
            }
        }
    }
    Value::Object(out)
}

/// A node's plain form, and the rules it leaves to words (said once, in [`node`], for the
/// node and the branches merged into it).
fn parts(schema: &Value, root: &Value, depth: usize) -> (Map<String, Value>, Vec<String>) {
    let mut out = Map::new();
    let mut notes: Vec<String> = Vec::new();
    let Value::Object(map) = schema else {
        return (out, notes);
    };
    if depth > MAX_DEPTH {
        return (out, notes);
    }
    // Inline a local reference first: the node's own keywords then refine it.
    if let Some(Value::String(reference)) = map.get("$ref")
        && let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p))
    {
        let (target, said) = parts(target, root, depth + 1);
        merge(&mut out, target);
        notes.extend(said);
    }
    for (key, value) in map {
        match key.as_str() {
            "type" => {
                if let Some(t) = one_type(value) {
                    out.insert(key.clone(), Value::String(t));
                }
            }
            "const" => {
                out.insert("enum".into(), Value::Array(vec![value.clone()]));
            }
            "properties" => {
                let props: Map<String, Value> = value
                    .as_object()
                    .into_iter()
                    .flatten()
                    .map(|(name, sub)| (name.clone(), node(sub, root, depth + 1)))
                    .collect();
                merge(
                    &mut out,
                    Map::from_iter([(key.clone(), Value::Object(props))]),
                );
            }
            "items" if value.is_object() => {
                out.insert(key.clone(), node(value, root, depth + 1));
            }
            "additionalProperties" => {
                let sub = match value {
                    Value::Object(_) => node(value, root, depth + 1),
                    other => other.clone(),
                };
                out.insert(key.clone(), sub);
            }
            "allOf" => {
                for branch in value.as_array().into_iter().flatten() {
                    let (branch, said) = parts(branch, root, depth + 1);
                    merge(&mut out, branch);
                    notes.extend(said);
                }
            }
            "anyOf" | "oneOf" => union(value, root, depth, &mut out, &mut notes),
            "enum" | "required" => {
                if let Some(values) = value.as_array() {
                    merge(
                        &mut out,
                        Map::from_iter([(key.clone(), Value::Array(values.clone()))]),
                    );
                }
            }
            "dependentRequired" => {
                for (name, needs) in value.as_object().into_iter().flatten() {
                    let needs: Vec<String> = needs
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|n| n.as_str().map(|n| format!("`{n}`")))
                        .collect();
                    if !needs.is_empty() {
                        notes.push(format!("with `{name}`, also {}", needs.join(", ")));
                    }
                }
            }
            "not"
            | "if"
            | "then"
            | "else"
            | "dependentSchemas"
            | "dependencies"
            | "patternProperties"
            | "propertyNames"
            | "prefixItems"
            | "contains"
            | "minContains"
            | "maxContains"
            | "minProperties"
            | "maxProperties"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "items" => {
                let said = match key.as_str() {
                    "then" | "else" => None,
                    "if" => Some("`if`/`then`/`else`".to_owned()),
                    other => Some(format!("`{other}`")),
                };
                if let Some(said) = said
                    && !notes.contains(&said)
                {
                    notes.push(said);
                }
            }
            "description" | "default" | "format" | "minLength" | "maxLength" | "pattern"
            | "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"
            | "minItems" | "maxItems" | "uniqueItems" | "x-mcp-header" => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    // `enum` with `null` (a nullable choice): absent says it.
    if let Some(Value::Array(values)) = out.get_mut("enum") {
        values.retain(|v| !v.is_null());
        if values.is_empty() {
            out.remove("enum");
        }
    }
    // A node with properties names only those in `required` (one without is a fragment,
    // merged into another by `allOf`).
    if let (Some(Value::Array(names)), Some(Value::Object(props))) =
        (out.get("required"), out.get("properties"))
    {
        let kept: Vec<Value> = names
            .iter()
            .filter(|n| n.as_str().is_some_and(|n| props.contains_key(n)))
            .cloned()
            .collect();
        out.insert("required".into(), Value::Array(kept));
    }
    if !out.contains_key("type") {
        if out.contains_key("properties") || out.contains_key("additionalProperties") {
            out.insert("type".into(), "object".into());
        } else if out.contains_key("items") {
            out.insert("type".into(), "array".into());
        }
    }
    let keys: Vec<String> = out.keys().cloned().collect();
    for key in keys {
        if !KEYWORDS.contains(&key.as_str()) {
            out.remove(&key);
        }
    }
    notes.dedup();
    (out, notes)
}

/// `anyOf`/`oneOf` in the plain form.
fn union(
    value: &Value,
    root: &Value,
    depth: usize,
    out: &mut Map<String, Value>,
    notes: &mut Vec<String>,
) {
    let raw: Vec<&Value> = value
        .as_array()
        .into_iter()
        .flatten()
        .filter(|b| !is_null_type(b))
        .collect();
    let only_required = |b: &&Value| {
        b.as_object()
            .is_some_and(|b| b.keys().all(|k| k == "required" || k == "description"))
    };
    if !raw.is_empty() && raw.iter().all(only_required) {
        let sets: Vec<String> = raw
            .iter()
            .filter_map(|b| b.get("required").and_then(Value::as_array))
            .map(|names| {
                names
                    .iter()
                    .filter_map(|n| n.as_str().map(|n| format!("`{n}`")))
                    .collect::<Vec<_>>()
                    .join(" and ")
            })
            .filter(|s| !s.is_empty())
            .collect();
        if !sets.is_empty() {
            notes.push(format!("give at least one of: {}", sets.join(", or ")));
        }
        return;
    }
    let branches: Vec<Map<String, Value>> = raw
        .into_iter()
        .filter_map(|b| match node(b, root, depth + 1) {
            Value::Object(map) => Some(map),
            _ => None,
        })
        .collect();
    match <[_; 1]>::try_from(branches) {
        Ok([one]) => merge(out, one),
        Err(branches) => {
            if branches.iter().all(|b| b.contains_key("type")) && !out.contains_key("type") {
                out.insert(
                    "oneOf".into(),
                    Value::Array(branches.into_iter().map(Value::Object).collect()),
                );
            } else {
                notes.push("one of several forms".to_owned());
            }
        }
    }
}

fn is_null_type(branch: &Value) -> bool {
    branch.get("type").is_some_and(|t| t == "null")
        || branch.get("const").is_some_and(Value::is_null)
}

/// The one type of a type list once `null` is left out (absent says "no value").
fn one_type(value: &Value) -> Option<String> {
    match value {
        Value::String(t) if t != "null" => Some(t.clone()),
        Value::Array(types) => {
            let mut rest = types
                .iter()
                .filter_map(Value::as_str)
                .filter(|t| *t != "null");
            match (rest.next(), rest.next()) {
                (Some(t), None) => Some(t.to_owned()),
                // `["integer", "number"]` is `number`.
                (Some(a), Some(b))
                    if rest.next().is_none()
                        && [a, b].contains(&"number")
                        && [a, b].contains(&"integer") =>
                {
                    Some("number".to_owned())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// Merges `from` into `into`: properties and `required` are united; any other keyword is
/// taken only where `into` has none.
fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (key, value) in from {
        match (key.as_str(), into.get_mut(&key), value) {
            ("properties", Some(Value::Object(have)), Value::Object(more)) => {
                for (name, sub) in more {
                    have.entry(name).or_insert(sub);
                }
            }
            ("required", Some(Value::Array(have)), Value::Array(more)) => {
                for name in more {
                    if !have.contains(&name) {
                        have.push(name);
                    }
                }
            }
            (_, Some(_), _) => {}
            (_, None, value) => {
                into.insert(key, value);
            }
        }
    }
}
