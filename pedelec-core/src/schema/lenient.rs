//! The lenient reader (DESIGN §16, feature `raw-schemas`): a tool schema as people write it
//! becomes a raw schema, with warnings beside it for what was repaired or ignored.
//!
//! A schema the strict reader takes stays a plain one (the fast path serves it). Any other
//! is repaired where its meaning is clear, kept verbatim otherwise, and validated by a
//! 2020-12 validator:
//!
//! - type names from other languages (`dict`, `float`, `int`, `str`, `list`, `bool`,
//!   `any`) become JSON Schema's; an unknown type name is dropped (any value);
//! - `"required": true` on a property (draft 3) moves into its object's `required`;
//!   `nullable: true` (`OpenAPI`) adds `"null"` to the `type`;
//! - an annotation that cannot be used is dropped: a `default` or an `enum` value whose
//!   type the node's `type` excludes, a `$ref` to another document (never fetched:
//!   SEP-2106), a keyword whose value the 2020-12 meta-schema rejects;
//! - a keyword JSON Schema does not define (`"optional": true`) is kept, as 2020-12 keeps
//!   it (an annotation), with a warning; `x-…` extensions are kept silently.
//!
//! - an `enum` whose values all disagree with the node's `type` keeps its values: an
//!   array's move into its `items`, elsewhere the `type` is dropped.
//!
//! What cannot hold any value is still an error: a root that is `false` or whose `type`
//! excludes objects.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::compiled::CompiledSchema;
use super::node::SchemaNode;
use super::parse::ParseOptions;
use super::plain::plain;
use super::raw::RawSchema;
use super::{SchemaError, ToolArgsSchema};
use crate::error::Problem;

/// At most this many failed attempts at building the validator (each removes the keyword it
/// names) before the schema is refused.
const MAX_REPAIRS: usize = 32;
/// Deeper than this, the reader stops repairing (and the validator judges what is left).
const MAX_DEPTH: usize = 128;

impl ToolArgsSchema {
    /// Reads a tool schema as people write it (full JSON Schema 2020-12, and the usual
    /// slips): a schema [`from_json`](Self::from_json) takes is returned as that one;
    /// any other becomes a *raw* schema, kept as written (after the repairs the module
    /// `lenient` lists) and validated by a maintained 2020-12 validator. The warnings say
    /// what was repaired, dropped or ignored, each at its pointer into the schema.
    ///
    /// ```
    /// use pedelec_core::ToolArgsSchema;
    /// use serde_json::json;
    ///
    /// let (schema, warnings) = ToolArgsSchema::from_json_lenient(&json!({
    ///     "$schema": "https://json-schema.org/draft/2020-12/schema",
    ///     "type": "object",
    ///     "properties": {"phone": {"type": "string"}, "email": {"type": "string", "default": null}},
    ///     "anyOf": [{"required": ["phone"]}, {"required": ["email"]}]
    /// }))?;
    /// assert!(schema.is_raw());
    /// assert!(schema.is_valid(&json!({"email": "a@b.c"})));
    /// assert!(!schema.is_valid(&json!({})));
    /// assert_eq!(warnings[0].place, "/properties/email/default");
    /// # Ok::<(), pedelec_core::schema::SchemaError>(())
    /// ```
    ///
    /// # Errors
    /// A schema that cannot hold any tool's arguments (`false`, or a root whose `type`
    /// excludes objects), or that the validator cannot build even after the repairs.
    pub fn from_json_lenient(json: &Value) -> Result<(ToolArgsSchema, Vec<Problem>), SchemaError> {
        if let Ok(mut schema) = ToolArgsSchema::from_json(json) {
            schema.lenient = true;
            return Ok((schema, Vec::new()));
        }
        let mut read = Reader::default();
        let mut raw = json.clone();
        read.root(&mut raw);
        if !read.errors.is_empty() {
            return Err(SchemaError::new(read.errors));
        }
        let raw = read.build(raw)?;
        let (node, compiled) = Reader::plain_node(raw.json());
        let mut compiled = compiled;
        compiled.raw = Some(Arc::new(raw));
        Ok((
            ToolArgsSchema {
                root: node,
                compiled: Some(Arc::new(compiled)),
                lenient: true,
            },
            read.warnings,
        ))
    }
}

#[derive(Default)]
struct Reader {
    warnings: Vec<Problem>,
    errors: Vec<Problem>,
}

impl Reader {
    fn warn(&mut self, place: &str, message: String) {
        self.warnings.push(Problem::at(place, message));
    }

    fn root(&mut self, raw: &mut Value) {
        match raw {
            Value::Bool(false) => self.errors.push(Problem::at(
                "",
                "the schema is `false`: no arguments would ever be valid",
            )),
            Value::Object(_) => {
                // Repaired first: `dict` is an object.
                self.node(raw, &mut String::new(), 0);
                let types = type_names(raw.get("type"));
                if !types.is_empty() && !types.iter().any(|t| t == "object") {
                    self.errors.push(Problem::at(
                        "",
                        format!(
                            "the root of an argsSchema must accept objects (`\"type\": \"object\"`), not {}",
                            types.join(" or ")
                        ),
                    ));
                }
            }
            _ => self.errors.push(Problem::at(
                "",
                "the root of an argsSchema must be a JSON object (`{\"type\": \"object\", …}`)",
            )),
        }
    }

    /// Repairs one subschema and, through [`each_subschema`], every one below it.
    fn node(&mut self, value: &mut Value, pointer: &mut String, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let Value::Object(map) = value else { return };
        self.types(map, pointer);
        self.draft3_required(map, pointer);
        self.annotations(map, pointer);
        for (key, _) in map.iter() {
            if !is_keyword(key) && !key.starts_with("x-") {
                self.warnings.push(Problem::at(
                    format!("{pointer}/{}", escape(key)),
                    format!(
                        "`{key}` is not a JSON Schema keyword: kept as an annotation, it constrains nothing{}",
                        match key.as_str() {
                            "optional" => " (a property is optional unless its object lists it in `required`)",
                            _ => "",
                        }
                    ),
                ));
            }
        }
        each_subschema(map, pointer, &mut |sub, pointer| {
            self.node(sub, pointer, depth + 1);
        });
    }

    /// Type names from other languages, unknown ones, and `nullable`.
    fn types(&mut self, map: &mut Map<String, Value>, pointer: &str) {
        let place = format!("{pointer}/type");
        match map.get_mut("type") {
            Some(Value::String(t)) => match alias(t) {
                TypeName::Json(json) if json != t => {
                    self.warn(&place, format!("type `{t}` read as `{json}`"));
                    json.clone_into(t);
                }
                TypeName::Json(_) => {}
                TypeName::Any => {
                    let t = t.clone();
                    map.remove("type");
                    self.warn(&place, format!("type `{t}` read as no `type`: any value"));
                }
                TypeName::Unknown => {
                    let t = t.clone();
                    map.remove("type");
                    self.warn(
                        &place,
                        format!("unknown type `{t}` dropped: any value is accepted here"),
                    );
                }
            },
            Some(Value::Array(types)) => {
                let before = types.clone();
                types.retain_mut(|t| match t.as_str().map(alias) {
                    Some(TypeName::Json(json)) => {
                        *t = Value::String(json.to_owned());
                        true
                    }
                    _ => false,
                });
                if *types != before {
                    self.warn(
                        &place,
                        format!(
                            "type {} read as {}",
                            Value::Array(before),
                            Value::Array(types.clone())
                        ),
                    );
                }
                if types.is_empty() {
                    map.remove("type");
                }
            }
            Some(other) => {
                let other = other.clone();
                map.remove("type");
                self.warn(
                    &place,
                    format!("`type` must be a name or a list of names, not {other}: dropped"),
                );
            }
            None => {}
        }
        if let Some(nullable) = map.remove("nullable") {
            if nullable == Value::Bool(true) {
                match map.get_mut("type") {
                    Some(Value::String(t)) => {
                        let t = std::mem::take(t);
                        map.insert("type".into(), Value::Array(vec![t.into(), "null".into()]));
                    }
                    Some(Value::Array(types)) if !types.iter().any(|t| t == "null") => {
                        types.push("null".into());
                    }
                    _ => {}
                }
            }
            self.warn(
                &format!("{pointer}/nullable"),
                "`nullable` (OpenAPI) read as `\"null\"` in `type`".to_owned(),
            );
        }
    }

    /// `"required": true` inside a property (draft 3): into the object's `required`.
    fn draft3_required(&mut self, map: &mut Map<String, Value>, pointer: &str) {
        let mut names = Vec::new();
        if let Some(Value::Object(props)) = map.get_mut("properties") {
            for (name, prop) in props.iter_mut() {
                if let Value::Object(prop) = prop
                    && let Some(Value::Bool(required)) = prop.get("required").cloned()
                {
                    prop.remove("required");
                    self.warn(
                        &format!("{pointer}/properties/{}/required", escape(name)),
                        format!(
                            "`\"required\": {required}` on a property (draft 3) {}",
                            if required {
                                "moved into its object's `required`"
                            } else {
                                "dropped: properties are optional by default"
                            }
                        ),
                    );
                    if required {
                        names.push(Value::String(name.clone()));
                    }
                }
            }
        }
        if let Some(required) = map.get("required")
            && !is_string_list(required)
        {
            let required = map.remove("required").unwrap_or_default();
            self.warn(
                &format!("{pointer}/required"),
                format!("`required` must be a list of property names, not {required}: dropped"),
            );
        }
        if !names.is_empty() {
            match map.get_mut("required") {
                Some(Value::Array(list)) => {
                    for name in names {
                        if !list.contains(&name) {
                            list.push(name);
                        }
                    }
                }
                _ => {
                    map.insert("required".into(), Value::Array(names));
                }
            }
        }
    }

    /// `default` and `enum` values the node's `type` excludes; remote `$ref`s.
    fn annotations(&mut self, map: &mut Map<String, Value>, pointer: &str) {
        let types = type_names(map.get("type"));
        if let Some(default) = map.get("default")
            && !types.is_empty()
            && !of_types(default, &types)
        {
            let default = map.remove("default").unwrap_or_default();
            self.warn(
                &format!("{pointer}/default"),
                format!(
                    "`default: {default}` dropped: it is not of type {}",
                    types.join(" or ")
                ),
            );
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && !types.is_empty()
            && !values.is_empty()
        {
            let (fit, misfit): (Vec<Value>, Vec<Value>) =
                values.iter().cloned().partition(|v| of_types(v, &types));
            let place = format!("{pointer}/enum");
            let types = types.join(" or ");
            if fit.is_empty() && types == "array" && misfit.iter().all(|v| !v.is_array()) {
                // `{"type": "array", "enum": ["a", "b"]}`: the values are the items'.
                let values = map.remove("enum").unwrap_or_default();
                match map.entry("items") {
                    serde_json::map::Entry::Occupied(mut items) => {
                        if let Value::Object(items) = items.get_mut() {
                            items.entry("enum").or_insert(values);
                        }
                    }
                    serde_json::map::Entry::Vacant(items) => {
                        items.insert(serde_json::json!({"enum": values}));
                    }
                }
                self.warn(
                    &place,
                    "the `enum` of an array moved into its `items`: the values are its items'"
                        .to_owned(),
                );
            } else if fit.is_empty() {
                // No value is of the type: the values say what is meant.
                map.remove("type");
                self.warn(
                    &format!("{pointer}/type"),
                    format!("`type: {types}` dropped: no value of `enum` is of that type, the values decide"),
                );
            } else if !misfit.is_empty() {
                map.insert("enum".into(), Value::Array(fit));
                self.warn(
                    &place,
                    format!(
                        "`enum` values {} dropped: not of type {types}",
                        Value::Array(misfit)
                    ),
                );
            }
        }
        if let Some(Value::String(reference)) = map.get("$ref")
            && !reference.starts_with('#')
        {
            let reference = reference.clone();
            map.remove("$ref");
            self.warn(
                &format!("{pointer}/$ref"),
                format!("`$ref` to another document (`{reference}`) is never fetched (SEP-2106): any value is accepted here"),
            );
        }
    }

    /// Builds the validator, removing each keyword it cannot build with (a warning each).
    fn build(&mut self, mut raw: Value) -> Result<RawSchema, SchemaError> {
        for _ in 0..MAX_REPAIRS {
            match RawSchema::new(raw.clone()) {
                Ok(schema) => return Ok(schema),
                Err((place, message)) => {
                    if place.is_empty() || !remove_at(&mut raw, &place) {
                        return Err(SchemaError::new(vec![Problem::at(place, message)]));
                    }
                    self.warn(&place, format!("dropped: {message}"));
                }
            }
        }
        Err(SchemaError::new(vec![Problem::at(
            "",
            format!(
                "more than {MAX_REPAIRS} keywords had to be dropped: the schema is not JSON Schema 2020-12"
            ),
        )]))
    }

    /// The plain node that approximates the raw schema from above (see `schema::plain`),
    /// compiled. A keyword the plain reader refuses is dropped from it (the raw schema still
    /// checks it).
    fn plain_node(raw: &Value) -> (SchemaNode, CompiledSchema) {
        let mut json = plain(raw);
        for _ in 0..MAX_REPAIRS {
            let failed = match SchemaNode::from_json_with(&json, &ParseOptions::lenient()) {
                Ok(node) => match CompiledSchema::compile(&node) {
                    Ok(compiled) if node.is_object() => return (node, compiled),
                    Ok(_) => break,
                    Err(e) => e,
                },
                Err(e) => e,
            };
            if !failed
                .problems()
                .iter()
                .any(|p| !p.place.is_empty() && remove_at(&mut json, &p.place))
            {
                break;
            }
        }
        // Nothing better: an object with any properties (the raw schema checks them all).
        let node = SchemaNode::from_json_with(
            &serde_json::json!({"type": "object"}),
            &ParseOptions::lenient(),
        )
        .expect("a plain object schema reads");
        let compiled = CompiledSchema::compile(&node).expect("a plain object schema compiles");
        (node, compiled)
    }
}

/// What a type name means.
enum TypeName {
    /// A JSON Schema type.
    Json(&'static str),
    /// Any type (`any`).
    Any,
    Unknown,
}

/// JSON Schema's name for a type name.
fn alias(name: &str) -> TypeName {
    TypeName::Json(match name {
        "object" | "dict" | "map" | "Object" | "hash" => "object",
        "array" | "list" | "tuple" | "set" | "Array" => "array",
        "string" | "str" | "String" | "text" => "string",
        "number" | "float" | "double" | "Number" | "decimal" => "number",
        "integer" | "int" | "long" | "Integer" => "integer",
        "boolean" | "bool" | "Boolean" => "boolean",
        "null" | "None" | "NoneType" => "null",
        "any" | "Any" => return TypeName::Any,
        _ => return TypeName::Unknown,
    })
}

fn type_names(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(|t| t.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `value` is of one of the JSON Schema types named.
fn of_types(value: &Value, types: &[String]) -> bool {
    types.iter().any(|t| match (t.as_str(), value) {
        ("null", Value::Null)
        | ("boolean", Value::Bool(_))
        | ("string", Value::String(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("number", Value::Number(_)) => true,
        ("integer", Value::Number(n)) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    })
}

fn is_string_list(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|v| v.iter().all(Value::is_string))
}

/// The keywords and annotations of JSON Schema 2020-12 (and the older drafts' spellings the
/// validator still reads as annotations).
fn is_keyword(key: &str) -> bool {
    matches!(
        key,
        "$schema"
            | "$id"
            | "$anchor"
            | "$dynamicAnchor"
            | "$ref"
            | "$dynamicRef"
            | "$defs"
            | "$comment"
            | "$vocabulary"
            | "definitions"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "if"
            | "then"
            | "else"
            | "dependentSchemas"
            | "prefixItems"
            | "items"
            | "contains"
            | "properties"
            | "patternProperties"
            | "additionalProperties"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "type"
            | "const"
            | "enum"
            | "multipleOf"
            | "maximum"
            | "exclusiveMaximum"
            | "minimum"
            | "exclusiveMinimum"
            | "maxLength"
            | "minLength"
            | "pattern"
            | "maxItems"
            | "minItems"
            | "uniqueItems"
            | "maxContains"
            | "minContains"
            | "maxProperties"
            | "minProperties"
            | "required"
            | "dependentRequired"
            | "format"
            | "contentEncoding"
            | "contentMediaType"
            | "contentSchema"
            | "title"
            | "description"
            | "default"
            | "deprecated"
            | "readOnly"
            | "writeOnly"
            | "examples"
            | "additionalItems"
            | "dependencies"
    )
}

/// Calls `f` on every subschema directly below `map`, with its pointer.
pub(crate) fn each_subschema(
    map: &mut Map<String, Value>,
    pointer: &mut String,
    f: &mut dyn FnMut(&mut Value, &mut String),
) {
    for (key, value) in map.iter_mut() {
        let len = pointer.len();
        pointer.push('/');
        pointer.push_str(&escape(key));
        match (key.as_str(), value) {
            (
                "additionalProperties"
                | "contains"
                | "not"
                | "if"
                | "then"
                | "else"
                | "propertyNames"
                | "unevaluatedItems"
                | "unevaluatedProperties"
                | "additionalItems"
                | "contentSchema"
                | "items",
                sub @ Value::Object(_),
            ) => f(sub, pointer),
            (
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
                Value::Object(subs),
            ) => {
                for (name, sub) in subs.iter_mut() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&escape(name));
                    f(sub, pointer);
                    pointer.truncate(len);
                }
            }
            ("allOf" | "anyOf" | "oneOf" | "prefixItems" | "items", Value::Array(subs)) => {
                for (i, sub) in subs.iter_mut().enumerate() {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&i.to_string());
                    f(sub, pointer);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
        pointer.truncate(len);
    }
}

/// A JSON pointer segment (RFC 6901).
pub(crate) fn escape(segment: &str) -> String {
    segment.replace('~', "~0").replace('/', "~1")
}

/// Makes what `pointer` names stop constraining: a keyword is removed from its node, a
/// subschema (a property's, a branch's) becomes `true`-like `{}`, an element of a list of
/// names (`required`, `type`, `enum`) is removed. Whether anything changed.
pub(crate) fn remove_at(root: &mut Value, pointer: &str) -> bool {
    let Some((parent, last)) = pointer.rsplit_once('/') else {
        return false;
    };
    let last = last.replace("~1", "/").replace("~0", "~");
    let grand = parent.rsplit_once('/').map(|(_, k)| k.to_owned());
    let Some(container) = root.pointer_mut(parent) else {
        return false;
    };
    match container {
        Value::Object(map) => {
            let schema_map = matches!(
                grand.as_deref(),
                Some(
                    "properties"
                        | "patternProperties"
                        | "$defs"
                        | "definitions"
                        | "dependentSchemas"
                )
            );
            if schema_map {
                map.get_mut(&last)
                    .map(|v| *v = Value::Object(Map::new()))
                    .is_some()
            } else {
                map.remove(&last).is_some()
            }
        }
        Value::Array(items) => {
            let Ok(i) = last.parse::<usize>() else {
                return false;
            };
            if i >= items.len() {
                return false;
            }
            if matches!(
                grand.as_deref(),
                Some("required" | "type" | "enum" | "examples")
            ) {
                items.remove(i);
            } else {
                items[i] = Value::Object(Map::new());
            }
            true
        }
        _ => false,
    }
}
