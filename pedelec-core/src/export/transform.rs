//! The schema transforms, on the wire JSON of an argsSchema (walked beside its
//! [`SchemaNode`], which answers the semantic questions: is a property required, are a
//! `oneOf`'s branches disjoint). Every transform keeps the set of valid instances, up to
//! the reversible `null` ↔ absent mapping:
//!
//! - OpenAI strict: every property listed in `required`; an optional one accepts `null`
//!   too (`["T", "null"]`, `null` added to its `enum`, or a `{"type": "null"}` branch), and
//!   [`decode_call`](super::Export::decode_call) turns that `null` back into "absent";
//! - `oneOf` → `anyOf` where the provider rejects or ignores `oneOf`, only when the branches
//!   are provably disjoint (then "exactly one" and "at least one" branch accept the same
//!   values; see [`one_of_is_disjoint`](super::one_of_is_disjoint)); otherwise an error;
//! - a keyword the provider rejects moves into the node's description in words ("At
//!   least 1, at most 100."); the session still enforces it;
//! - strict modes need every object closed: a map (`additionalProperties: <schema>` and
//!   nothing else) becomes an array of `{"key": string, "value": V}` entries, which
//!   [`decode_call`](super::Export::decode_call) turns back into the object (key order
//!   kept, a repeated key an error); any other open object is an error, never closed
//!   silently.
//!
//! The output is deterministic: keys keep the wire order, descriptions are appended to.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt::Write as _;

use pedelec_rules::provider::{Provider, Rule};
use serde_json::{Map, Value};

use super::facts::{branches, is_closed, is_map, one_of_is_disjoint};
use super::problem;
use crate::error::Problem;
use crate::schema::{AdditionalProperties, SchemaKind, SchemaNode, mcp_header};

/// Formats OpenAI strict mode accepts.
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];
/// Formats Anthropic strict mode accepts.
const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];
/// String formats Gemini's OpenAPI `parameters` accepts.
const GEMINI_OPENAPI_FORMATS: &[&str] = &["date-time", "enum"];

#[derive(Clone, Copy)]
struct Profile {
    provider: Provider,
    /// Every property in `required`, optional ones nullable.
    require_all: bool,
    /// Every object must be closed.
    closed: bool,
    one_of_to_any_of: bool,
    /// Accepted formats (`None`: any).
    formats: Option<&'static [&'static str]>,
}

impl Profile {
    fn new(provider: Provider, strict: bool) -> Self {
        Profile {
            provider,
            require_all: strict && provider == Provider::OpenAi,
            closed: provider.requires_closed_objects(strict),
            one_of_to_any_of: provider.rewrites_one_of(strict),
            formats: match provider {
                Provider::OpenAi if strict => Some(OPENAI_FORMATS),
                Provider::Anthropic if strict => Some(ANTHROPIC_FORMATS),
                Provider::GeminiOpenApi => Some(GEMINI_OPENAPI_FORMATS),
                _ => None,
            },
        }
    }

    fn is_identity(&self) -> bool {
        !self.require_all && !self.closed && !self.one_of_to_any_of && self.formats.is_none()
    }

    /// Whether `keyword: value` moves into the description.
    fn describes(&self, keyword: &str, value: &Value) -> bool {
        let strict = self.closed;
        match (self.provider, keyword) {
            (Provider::OpenAi, "uniqueItems" | "default")
            | (
                Provider::Anthropic,
                "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf"
                | "minLength" | "maxLength" | "maxItems" | "uniqueItems",
            ) => strict,
            (Provider::Anthropic, "minItems") => strict && value.as_u64().is_none_or(|n| n > 1),
            (
                Provider::GeminiOpenApi,
                "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" | "uniqueItems",
            ) => true,
            (Provider::GeminiOpenApi, "enum") => value
                .as_array()
                .is_some_and(|v| v.iter().any(|v| !v.is_string())),
            _ => false,
        }
    }
}

/// The exported form of one argsSchema.
pub(crate) fn schema(
    provider: Provider,
    strict: bool,
    json: &Value,
    node: &SchemaNode,
    tool: &str,
    problems: &mut Vec<Problem>,
) -> Value {
    let profile = Profile::new(provider, strict);
    if profile.is_identity()
        && (provider.accepts_refs(strict) || node.definitions().is_empty())
        && (provider == Provider::Mcp || !mcp_header::annotated(node))
    {
        return json.clone();
    }
    let mut walk = Walk {
        profile,
        tool,
        problems,
        narrowings: None,
        pointer: String::new(),
        root: node,
        reported_ref: false,
    };
    walk.node(json, node, false)
}

/// The exported form of an argsSchema read by `from_json_lenient` (raw or not). Where the
/// provider takes JSON Schema as it is (MCP, Gemini's `parametersJsonSchema`, OpenAI and
/// Anthropic without strict mode when the root has no union or condition), the schema as
/// written. Elsewhere its plain form (see `schema::plain`), transformed like any schema,
/// except that a union need not be disjoint and an open object is closed (the
/// `strict-closed-object` narrowing in `narrowings`): the raw schema still validates every
/// call, so the export may say less than it, but never accepts what it refuses silently.
pub(crate) fn raw_schema(
    provider: Provider,
    strict: bool,
    schema: &crate::schema::ToolArgsSchema,
    tool: &str,
    problems: &mut Vec<Problem>,
    narrowings: &mut Vec<Problem>,
) -> Value {
    let node = schema.node();
    if let Some(raw) = schema.raw_json()
        && takes_raw(provider, strict, raw)
    {
        return raw.clone();
    }
    let json = node.to_json();
    let mut walk = Walk {
        profile: Profile::new(provider, strict),
        tool,
        problems,
        narrowings: Some(narrowings),
        pointer: String::new(),
        root: node,
        reported_ref: false,
    };
    walk.node(&json, node, false)
}

/// Whether the provider takes the raw schema as written (see [`raw_schema`]).
fn takes_raw(provider: Provider, strict: bool, raw: &Value) -> bool {
    const ROOT_UNIONS: [&str; 6] = ["allOf", "anyOf", "oneOf", "not", "if", "enum"];
    match provider {
        Provider::Mcp | Provider::Gemini => true,
        Provider::OpenAi | Provider::Anthropic => {
            !strict
                && raw
                    .as_object()
                    .is_some_and(|root| ROOT_UNIONS.iter().all(|k| !root.contains_key(*k)))
        }
        Provider::GeminiOpenApi => false,
    }
}

/// Whether the export of `node` needs `decode_call` to drop `null`s (OpenAI strict).
pub(crate) fn nulls_stand_for_absent(provider: Provider, strict: bool) -> bool {
    Profile::new(provider, strict).require_all
}

struct Walk<'a> {
    profile: Profile,
    tool: &'a str,
    problems: &'a mut Vec<Problem>,
    /// For a raw schema's plain form (see [`raw_schema`]): where an open object closed in
    /// a strict mode is reported, instead of failing.
    narrowings: Option<&'a mut Vec<Problem>>,
    pointer: String,
    /// The argsSchema's root (whose `$defs` entries the `$ref`s name).
    root: &'a SchemaNode,
    /// Whether a `$ref` the provider cannot take was reported (once per tool).
    reported_ref: bool,
}

impl Walk<'_> {
    fn child(&mut self, json: &Value, node: &SchemaNode, nullable: bool, segment: &str) -> Value {
        let len = self.pointer.len();
        self.pointer.push('/');
        self.pointer.push_str(segment);
        let out = self.node(json, node, nullable);
        self.pointer.truncate(len);
        out
    }

    fn problem(&mut self, rule: Rule) {
        self.problems.push(problem(
            Some(self.tool),
            self.pointer.clone(),
            rule.id(),
            rule.to_string(),
        ));
    }

    fn node(&mut self, json: &Value, node: &SchemaNode, nullable: bool) -> Value {
        let Value::Object(map) = json else {
            return json.clone();
        };
        let p = self.profile;
        if p.closed && is_map(node) {
            return self.entries(map, node, nullable);
        }
        if node.reference.is_some() && !p.provider.accepts_refs(p.closed) && !self.reported_ref {
            self.reported_ref = true;
            self.problem(Rule::Recursive);
        }
        let mut out = Map::new();
        let mut notes: Vec<String> = Vec::new();
        for (key, value) in map {
            match key.as_str() {
                "properties" => {
                    let mut props = Map::new();
                    let mut names = Vec::new();
                    if let Some(entries) = value.as_object() {
                        for (name, sub) in entries {
                            let Some(prop) = node.property(name) else {
                                props.insert(name.clone(), sub.clone());
                                continue;
                            };
                            let nullable = p.require_all && !prop.is_required();
                            let segment = format!(
                                "properties/{}",
                                name.replace('~', "~0").replace('/', "~1")
                            );
                            let sub = self.child(sub, prop.schema(), nullable, &segment);
                            props.insert(name.clone(), sub);
                            names.push(Value::String(name.clone()));
                        }
                    }
                    out.insert(key.clone(), Value::Object(props));
                    if p.require_all && !names.is_empty() {
                        out.insert("required".into(), Value::Array(names));
                    }
                }
                "required" if p.require_all => {}
                "$defs" => {
                    let mut defs = Map::new();
                    for (name, sub) in value.as_object().into_iter().flatten() {
                        let out = match self.root.definition(name) {
                            Some(def) => {
                                let segment =
                                    format!("$defs/{}", name.replace('~', "~0").replace('/', "~1"));
                                self.child(sub, def, false, &segment)
                            }
                            None => sub.clone(),
                        };
                        defs.insert(name.clone(), out);
                    }
                    out.insert(key.clone(), Value::Object(defs));
                }
                "items" => {
                    let sub = match &node.items {
                        Some(items) => self.child(value, items, false, "items"),
                        None => value.clone(),
                    };
                    out.insert(key.clone(), sub);
                }
                "additionalProperties" => {
                    if p.provider == Provider::GeminiOpenApi {
                        // Not in the OpenAPI subset. Dropping `false` only widens what the
                        // declaration accepts (the session still rejects extra properties);
                        // a map's value schema is described.
                        if value.is_object() {
                            notes.push(format!(
                                "an object with any property names, each value matching {value}"
                            ));
                        }
                        continue;
                    }
                    let sub = match &node.additional_properties {
                        Some(AdditionalProperties::Schema(values)) => {
                            self.child(value, values, false, "additionalProperties")
                        }
                        _ => value.clone(),
                    };
                    out.insert(key.clone(), sub);
                }
                "oneOf" => {
                    let nodes = branches(node);
                    let list: Vec<Value> = value
                        .as_array()
                        .map(|items| {
                            items
                                .iter()
                                .zip(nodes)
                                .enumerate()
                                .map(|(i, (b, n))| self.child(b, n, false, &format!("oneOf/{i}")))
                                .collect()
                        })
                        .unwrap_or_default();
                    if p.one_of_to_any_of {
                        // Equivalent: no value matches two branches (checked here; see
                        // `one_of_is_disjoint`), so "exactly one" = "at least one".
                        if self.narrowings.is_none() && !one_of_is_disjoint(nodes) {
                            self.problem(Rule::AmbiguousUnion);
                        }
                        out.insert("anyOf".into(), Value::Array(list));
                    } else {
                        out.insert(key.clone(), Value::Array(list));
                    }
                }
                // MCP's own annotation; the model providers take none.
                "x-mcp-header" if p.provider != Provider::Mcp => {}
                "format" => match (p.formats, value.as_str()) {
                    (Some(allowed), Some(f)) if !allowed.contains(&f) => {
                        notes.push(format!("format: {f}"));
                    }
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                },
                keyword if p.describes(keyword, value) => {
                    if let Some(note) = phrase(keyword, value) {
                        notes.push(note);
                    }
                }
                _ => {
                    out.insert(key.clone(), value.clone());
                }
            }
        }
        if p.closed && node.is_kind(SchemaKind::Object) && !is_closed(node) {
            if let Some(narrowings) = &mut self.narrowings {
                narrowings.push(problem(
                    Some(self.tool),
                    self.pointer.clone(),
                    "strict-closed-object",
                    "an open object is closed (`additionalProperties: false`) for the provider's strict mode: the model can send only the properties it declares".to_owned(),
                ));
                out.insert("additionalProperties".into(), Value::Bool(false));
                if p.require_all && !out.contains_key("properties") {
                    out.insert("properties".into(), Value::Object(Map::new()));
                    out.insert("required".into(), Value::Array(Vec::new()));
                }
            } else {
                self.problem(Rule::OpenObject);
            }
        }
        if p.provider == Provider::OpenAi && p.closed && out.contains_key("$ref") && out.len() > 1 {
            // OpenAI's strict mode takes no keyword beside `$ref`: the reference becomes
            // the one branch of an `anyOf`, which may carry a description.
            ref_in_any_of(&mut out);
        }
        if nullable {
            make_nullable(&mut out);
        }
        if !notes.is_empty() {
            describe(&mut out, &notes);
        }
        Value::Object(out)
    }
}

/// `{"$ref": r, …}` → `{"anyOf": [{"$ref": r}], …}`, in the `$ref`'s place.
fn ref_in_any_of(out: &mut Map<String, Value>) {
    let old = std::mem::take(out);
    for (k, v) in old {
        if k == "$ref" {
            let mut reference = Map::new();
            reference.insert(k, v);
            out.insert("anyOf".into(), Value::Array(vec![Value::Object(reference)]));
        } else {
            out.insert(k, v);
        }
    }
}

impl Walk<'_> {
    /// A map in a strict mode: `{"type": "array", "items": {"type": "object", "properties":
    /// {"key": {"type": "string"}, "value": V}, "required": ["key", "value"],
    /// "additionalProperties": false}}`, the map's own keywords (`description`, …) kept on
    /// the array, which says in words that a key comes once.
    fn entries(&mut self, map: &Map<String, Value>, node: &SchemaNode, nullable: bool) -> Value {
        let value = match (&node.additional_properties, map.get("additionalProperties")) {
            (Some(AdditionalProperties::Schema(values)), Some(json)) => {
                self.child(json, values, false, "additionalProperties")
            }
            _ => Value::Object(Map::new()),
        };
        let mut entry = Map::new();
        entry.insert("type".into(), "object".into());
        let mut props = Map::new();
        props.insert("key".into(), serde_json::json!({"type": "string"}));
        props.insert("value".into(), value);
        entry.insert("properties".into(), Value::Object(props));
        entry.insert("required".into(), serde_json::json!(["key", "value"]));
        entry.insert("additionalProperties".into(), Value::Bool(false));
        let mut out = Map::new();
        out.insert("type".into(), "array".into());
        for (key, v) in map {
            if !matches!(key.as_str(), "type" | "additionalProperties") {
                out.insert(key.clone(), v.clone());
            }
        }
        out.insert("items".into(), Value::Object(entry));
        if nullable {
            make_nullable(&mut out);
        }
        describe(
            &mut out,
            &["a map as a list of entries, each key at most once".to_owned()],
        );
        Value::Object(out)
    }
}

/// Whether `decode_call` turns entries back into maps: the export of `node` has a map in
/// the entries form.
pub(crate) fn has_entries(provider: Provider, strict: bool, node: &SchemaNode) -> bool {
    Profile::new(provider, strict).closed && super::facts::has_map(node)
}

/// Lets a node accept `null` too (the provider form of an absent optional property).
fn make_nullable(out: &mut Map<String, Value>) {
    match out.get_mut("type") {
        Some(Value::String(t)) => {
            let t = std::mem::take(t);
            out.insert("type".into(), Value::Array(vec![t.into(), "null".into()]));
        }
        Some(Value::Array(types)) => {
            if !types.iter().any(|t| t == "null") {
                types.push("null".into());
            }
        }
        _ => {
            if out.contains_key("$ref") {
                ref_in_any_of(out);
            }
            if let Some(Value::Array(branches)) = out.get_mut("anyOf") {
                branches.push(serde_json::json!({"type": "null"}));
            } else if let Some(Value::Array(branches)) = out.get_mut("oneOf") {
                branches.push(serde_json::json!({"type": "null"}));
            }
        }
    }
    if let Some(Value::Array(values)) = out.get_mut("enum")
        && !values.iter().any(Value::is_null)
    {
        values.push(Value::Null);
    }
}

/// A keyword in words.
fn phrase(keyword: &str, value: &Value) -> Option<String> {
    Some(match keyword {
        "minimum" => format!("at least {value}"),
        "maximum" => format!("at most {value}"),
        "exclusiveMinimum" => format!("greater than {value}"),
        "exclusiveMaximum" => format!("less than {value}"),
        "multipleOf" => format!("a multiple of {value}"),
        "minLength" => format!("at least {value} {}", plural(value, "character")),
        "maxLength" => format!("at most {value} {}", plural(value, "character")),
        "minItems" => format!("at least {value} {}", plural(value, "item")),
        "maxItems" => format!("at most {value} {}", plural(value, "item")),
        "uniqueItems" if value == &Value::Bool(true) => "items must be unique".to_owned(),
        "default" => format!("default: {value}"),
        "enum" => {
            let mut s = "one of ".to_owned();
            for (i, v) in value.as_array()?.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{v}");
            }
            s
        }
        _ => return None,
    })
}

fn plural(n: &Value, noun: &str) -> String {
    if n.as_u64() == Some(1) {
        noun.to_owned()
    } else {
        format!("{noun}s")
    }
}

/// Appends the notes to the node's description as one sentence ("At least 1, at most
/// 100."), inserting the description after `type` when there is none.
fn describe(out: &mut Map<String, Value>, notes: &[String]) {
    let mut sentence = notes.join(", ");
    if let Some(first) = sentence.chars().next() {
        let upper: String = first.to_uppercase().collect();
        sentence.replace_range(..first.len_utf8(), &upper);
    }
    sentence.push('.');
    if let Some(Value::String(d)) = out.get_mut("description") {
        let trimmed = d.trim_end().len();
        d.truncate(trimmed);
        if !d.is_empty() {
            d.push(' ');
        }
        d.push_str(&sentence);
        return;
    }
    let old = std::mem::take(out);
    let mut inserted = false;
    for (k, v) in old {
        let after_type = k == "type";
        out.insert(k, v);
        if after_type {
            out.insert("description".into(), Value::String(sentence.clone()));
            inserted = true;
        }
    }
    if !inserted {
        // No `type` (a union): the description goes first.
        let rest = std::mem::take(out);
        out.insert("description".into(), Value::String(sentence));
        out.extend(rest);
    }
}
