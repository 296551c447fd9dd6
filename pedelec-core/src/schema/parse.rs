//! Reading a [`SchemaNode`] from its JSON form, strictly (the wire keywords of the Pedelec
//! Tool Args Schema, each fitting the node's type) or leniently (any JSON Schema built from
//! those keywords, as in the JSON Schema Test Suite).

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::check::{Checks, check_local};
use pedelec_rules::Number;

use super::SchemaError;
use super::json::{describe, did_you_mean, number_of, push_token, show};
use super::node::{
    AdditionalProperties, Def, Literal, Property, SchemaKind, SchemaNode, SchemaRef, Str,
};
use crate::error::Problem;

/// How [`SchemaNode::from_json_with`] reads a schema.
///
/// ```
/// use pedelec_core::schema::{ParseOptions, SchemaNode};
/// use serde_json::json;
///
/// // No `type`: rejected by the strict reader, fine for the lenient one.
/// let schema = json!({"minLength": 2});
/// assert!(SchemaNode::from_json(&schema).is_err());
/// assert!(SchemaNode::from_json_with(&schema, &ParseOptions::lenient()).is_ok());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ParseOptions {
    /// Read any JSON Schema made of the wire keywords: `type` is optional, keywords of every
    /// type may sit on one node (each applies to values of its own JSON type), `true` and
    /// `false` are schemas, `required` may name properties that are not in `properties`,
    /// `$schema` is ignored. Meant for conformance testing; tool schemas are read strictly.
    pub lenient: bool,
}

impl ParseOptions {
    /// The strict reader of tool schemas (the default).
    #[must_use]
    pub const fn strict() -> Self {
        ParseOptions { lenient: false }
    }

    /// The lenient reader (see [`lenient`](Self::lenient)).
    #[must_use]
    pub const fn lenient() -> Self {
        ParseOptions { lenient: true }
    }
}

/// Every keyword of the wire form, for "did you mean".
pub(crate) const KEYWORDS: &[&str] = &[
    "type",
    "description",
    "enum",
    "default",
    "format",
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "items",
    "minItems",
    "maxItems",
    "uniqueItems",
    "properties",
    "required",
    "additionalProperties",
    "oneOf",
    "x-mcp-header",
];

const TYPE_NAMES: &[&str] = &["string", "number", "integer", "boolean", "array", "object"];

impl SchemaNode {
    /// Reads a schema from its JSON form, strictly: exactly the wire keywords, `type`
    /// required unless the node is a `oneOf`, every keyword fitting the node's type.
    ///
    /// ```
    /// use pedelec_core::schema::SchemaNode;
    /// use serde_json::json;
    ///
    /// let err = SchemaNode::from_json(&json!({
    ///     "type": "object",
    ///     "properties": {"delta": {"type": "int", "minimum": 5, "maximum": 1}},
    ///     "required": ["delta", "name"],
    /// }))
    /// .unwrap_err();
    /// let problems: Vec<String> = err.problems().iter().map(ToString::to_string).collect();
    /// assert_eq!(problems, [
    ///     r#"/properties/delta/type: unknown type "int"; did you mean "integer"?"#,
    ///     "/properties/delta/minimum: `minimum` (5) is greater than `maximum` (1): no number can match",
    ///     r#"/required/1: `required` names "name", which is not in `properties`; add the property or remove the name"#,
    /// ]);
    /// ```
    ///
    /// # Errors
    /// Every structural problem, each with a JSON pointer into `json`.
    pub fn from_json(json: &Value) -> Result<SchemaNode, SchemaError> {
        SchemaNode::from_json_with(json, &ParseOptions::strict())
    }

    /// Reads a schema from its JSON form with the given options.
    ///
    /// # Errors
    /// Every structural problem, each with a JSON pointer into `json`.
    pub fn from_json_with(json: &Value, options: &ParseOptions) -> Result<SchemaNode, SchemaError> {
        let mut parser = Parser {
            checks: if options.lenient {
                Checks::Lenient
            } else {
                Checks::Strict
            },
            problems: Vec::new(),
        };
        let mut pointer = String::new();
        let node = parser.node(json, &mut pointer);
        super::check::check_refs(&node, &mut parser.problems);
        if parser.problems.is_empty() {
            Ok(node)
        } else {
            Err(SchemaError::new(parser.problems))
        }
    }
}

/// A URI fragment, percent-decoded (`None` when an escape is malformed or the bytes are not
/// UTF-8).
fn percent_decode(fragment: &str) -> Option<String> {
    let bytes = fragment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = fragment.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

struct Parser {
    checks: Checks,
    problems: Vec<Problem>,
}

impl Parser {
    fn lenient(&self) -> bool {
        self.checks == Checks::Lenient
    }

    fn problem(&mut self, pointer: &str, message: impl Into<String>) {
        self.problems.push(Problem::at(pointer.to_owned(), message));
    }

    /// Reads one node. Always returns a node (the best reading of what was written) so
    /// that the rest of the schema is still checked.
    fn node(&mut self, json: &Value, pointer: &mut String) -> SchemaNode {
        let map = match json {
            Value::Object(map) => map,
            Value::Bool(true) if self.lenient() => return SchemaNode::any(),
            Value::Bool(false) if self.lenient() => {
                // Nothing is valid: an empty `enum`.
                let mut node = SchemaNode::any();
                node.enum_values = Some(Cow::Owned(Vec::new()));
                return node;
            }
            other => {
                self.problem(
                    pointer,
                    format!(
                        "expected a schema object such as {{\"type\": \"string\"}}, got {}",
                        describe(other)
                    ),
                );
                return SchemaNode::any();
            }
        };
        let before = self.problems.len();
        let mut node = SchemaNode::any();
        // A node without a kind is explained already when `type` was written (an unknown
        // type was reported), `oneOf` was (it is a `oneOf` node, maybe a malformed one), or
        // an unsupported keyword that stands for the node's type (`$ref`, `anyOf`, …).
        let mut kind_explained = map.contains_key("oneOf");
        let mut required: Option<(usize, &Vec<Value>)> = None;
        for (key, value) in map {
            let len = pointer.len();
            push_token(pointer, key);
            match key.as_str() {
                "type" => {
                    kind_explained = true;
                    node.kind = self.kind(value, pointer);
                }
                "description" => {
                    node.description = self.string(key, value, pointer).map(Cow::Owned);
                }
                "enum" => match value {
                    Value::Array(values) => {
                        node.enum_values = Some(values.iter().map(Literal::from_value).collect());
                    }
                    other => self.problem(
                        pointer,
                        format!("`enum` must be an array of values, got {}", describe(other)),
                    ),
                },
                "default" => node.default = Some(Literal::from_value(value)),
                "format" => node.format = self.string(key, value, pointer).map(Cow::Owned),
                "x-mcp-header" => {
                    let name = self.string(key, value, pointer);
                    if let Some(problem) = name
                        .as_deref()
                        .and_then(pedelec_rules::mcp_header::header_name_problem)
                    {
                        self.problem(pointer, problem.to_owned());
                    }
                    node.mcp_header = name.map(Cow::Owned);
                }
                "pattern" => node.pattern = self.string(key, value, pointer).map(Cow::Owned),
                "minLength" => node.min_length = self.count(key, value, pointer),
                "maxLength" => node.max_length = self.count(key, value, pointer),
                "minItems" => node.min_items = self.count(key, value, pointer),
                "maxItems" => node.max_items = self.count(key, value, pointer),
                "minimum" => node.minimum = self.number(key, value, pointer),
                "maximum" => node.maximum = self.number(key, value, pointer),
                "exclusiveMinimum" => node.exclusive_minimum = self.number(key, value, pointer),
                "exclusiveMaximum" => node.exclusive_maximum = self.number(key, value, pointer),
                "multipleOf" => node.multiple_of = self.number(key, value, pointer),
                "uniqueItems" => match value {
                    Value::Bool(b) => node.unique_items = Some(*b),
                    other => self.problem(
                        pointer,
                        format!(
                            "`uniqueItems` must be true or false, got {}",
                            describe(other)
                        ),
                    ),
                },
                "items" => {
                    let items = self.node(value, pointer);
                    node.items = Some(SchemaRef::Owned(Box::new(items)));
                }
                "properties" => node.properties = self.properties(value, pointer).map(Cow::Owned),
                "required" => match value {
                    Value::Array(names) => required = Some((len, names)),
                    other => self.problem(
                        pointer,
                        format!(
                            "`required` must be an array of property names, got {}",
                            describe(other)
                        ),
                    ),
                },
                "additionalProperties" => {
                    node.additional_properties = match value {
                        Value::Bool(b) => Some(AdditionalProperties::Bool(*b)),
                        Value::Object(_) => Some(AdditionalProperties::Schema(SchemaRef::Owned(
                            Box::new(self.node(value, pointer)),
                        ))),
                        other => {
                            self.problem(
                                pointer,
                                format!(
                                    "`additionalProperties` must be true, false or a schema, got {}",
                                    describe(other)
                                ),
                            );
                            None
                        }
                    };
                }
                "oneOf" => match value {
                    Value::Array(branches) => {
                        let mut nodes = Vec::with_capacity(branches.len());
                        for (i, branch) in branches.iter().enumerate() {
                            let len = pointer.len();
                            push_token(pointer, &i.to_string());
                            nodes.push(self.node(branch, pointer));
                            pointer.truncate(len);
                        }
                        node.one_of = Some(Cow::Owned(nodes));
                    }
                    other => self.problem(
                        pointer,
                        format!(
                            "`oneOf` must be an array of schemas, got {}",
                            describe(other)
                        ),
                    ),
                },
                "$ref" => {
                    kind_explained = true;
                    node.reference = self.reference(value, pointer);
                }
                "$defs" => {
                    if len == 0 {
                        node.defs = self.defs(value, pointer);
                    } else {
                        self.problem(
                            pointer,
                            "`$defs` is allowed only at the root of the schema; move the \
                             definition there and refer to it with `\"$ref\": \"#/$defs/<name>\"`",
                        );
                    }
                }
                "$schema" if self.lenient() => {}
                other => {
                    kind_explained |=
                        matches!(other, "$ref" | "anyOf" | "allOf" | "not" | "if" | "const");
                    let message = unknown_keyword(other);
                    self.problem(pointer, message);
                }
            }
            pointer.truncate(len);
        }
        if let Some((len, names)) = required {
            push_token(pointer, "required");
            self.required(&mut node, names, pointer);
            pointer.truncate(len);
        }
        let subtree_sound = self.problems.len() == before;
        check_local(
            &node,
            pointer,
            self.checks,
            kind_explained,
            subtree_sound,
            &mut self.problems,
        );
        node
    }

    /// `$ref`: only `"#/$defs/<name>"` (no remote or other references). The fragment is
    /// percent-decoded, then its JSON pointer token unescaped (`~1` → `/`, `~0` → `~`).
    fn reference(&mut self, value: &Value, pointer: &str) -> Option<Str> {
        let name = value
            .as_str()
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .and_then(percent_decode)
            .filter(|token| !token.contains('/'))
            .map(|token| token.replace("~1", "/").replace("~0", "~"));
        if name.is_none() {
            self.problem(
                pointer,
                format!(
                    "`$ref` must name an entry of the root's `$defs` as \"#/$defs/<name>\" \
                     (no remote or other references), got {}",
                    describe(value)
                ),
            );
        }
        name.map(Cow::Owned)
    }

    /// `$defs` at the root: each entry a schema.
    fn defs(&mut self, value: &Value, pointer: &mut String) -> Option<Cow<'static, [Def]>> {
        let Value::Object(entries) = value else {
            self.problem(
                pointer,
                format!(
                    "`$defs` must be an object mapping each name to a schema, got {}",
                    describe(value)
                ),
            );
            return None;
        };
        let mut defs = Vec::with_capacity(entries.len());
        for (name, schema) in entries {
            let len = pointer.len();
            push_token(pointer, name);
            let node = self.node(schema, pointer);
            pointer.truncate(len);
            defs.push(Def {
                name: Cow::Owned(name.clone()),
                schema: SchemaRef::Owned(Box::new(node)),
            });
        }
        Some(Cow::Owned(defs))
    }

    fn kind(&mut self, value: &Value, pointer: &str) -> Option<SchemaKind> {
        match value {
            Value::String(name) => {
                if let Some(kind) = SchemaKind::from_name(name) {
                    return Some(kind);
                }
                let message = if name == "null" {
                    "`null` is not a type of tool schemas; to make a property optional, leave it out of `required`".to_owned()
                } else if let Some(suggestion) =
                    did_you_mean(&name.to_lowercase(), TYPE_NAMES.iter().copied())
                {
                    format!(
                        "unknown type {}; did you mean {}?",
                        show(value),
                        show(&Value::String(suggestion.to_owned()))
                    )
                } else {
                    format!(
                        "unknown type {}; expected one of \"string\", \"number\", \"integer\", \"boolean\", \"array\", \"object\"",
                        show(value)
                    )
                };
                self.problem(pointer, message);
            }
            Value::Array(_) => self.problem(
                pointer,
                "`type` must be one type name, not a list; to make a property optional, leave it out of `required`, and for alternatives use `oneOf`",
            ),
            other => self.problem(
                pointer,
                format!(
                    "`type` must be a type name such as \"string\", got {}",
                    describe(other)
                ),
            ),
        }
        None
    }

    fn string(&mut self, key: &str, value: &Value, pointer: &str) -> Option<String> {
        match value {
            Value::String(s) => Some(s.clone()),
            other => {
                self.problem(
                    pointer,
                    format!("`{key}` must be a string, got {}", describe(other)),
                );
                None
            }
        }
    }

    /// A length or count: a non-negative integer (`2.0` counts as `2`).
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    fn count(&mut self, key: &str, value: &Value, pointer: &str) -> Option<u64> {
        let found = match value {
            Value::Number(n) => match number_of(n) {
                Number::Int(i) if i >= 0 => return Some(i.unsigned_abs()),
                Number::Uint(u) => return Some(u),
                // Every integral f64 below 2^64 converts exactly.
                Number::Float(f)
                    if f >= 0.0 && f.fract() == 0.0 && f < 18_446_744_073_709_551_616.0 =>
                {
                    return Some(f as u64);
                }
                Number::Float(f) if f >= 0.0 && f.fract() == 0.0 => {
                    self.problem(
                        pointer,
                        format!("`{key}` is too large: it must be at most {}", u64::MAX),
                    );
                    return None;
                }
                _ => describe(value),
            },
            other => describe(other),
        };
        self.problem(
            pointer,
            format!("`{key}` must be a non-negative integer, got {found}"),
        );
        None
    }

    fn number(&mut self, key: &str, value: &Value, pointer: &str) -> Option<Number> {
        match value {
            Value::Number(n) => Some(number_of(n)),
            other => {
                self.problem(
                    pointer,
                    format!("`{key}` must be a number, got {}", describe(other)),
                );
                None
            }
        }
    }

    fn properties(&mut self, value: &Value, pointer: &mut String) -> Option<Vec<Property>> {
        let Value::Object(map) = value else {
            self.problem(
                pointer,
                format!(
                    "`properties` must be an object mapping each property name to its schema, got {}",
                    describe(value)
                ),
            );
            return None;
        };
        Some(self.property_list(map, pointer))
    }

    fn property_list(&mut self, map: &Map<String, Value>, pointer: &mut String) -> Vec<Property> {
        map.iter()
            .map(|(name, schema)| {
                let len = pointer.len();
                push_token(pointer, name);
                let schema = self.node(schema, pointer);
                pointer.truncate(len);
                Property::owned(name.clone(), schema, false)
            })
            .collect()
    }

    fn required(&mut self, node: &mut SchemaNode, names: &[Value], pointer: &mut String) {
        let lenient = self.lenient();
        let mut extra = Vec::new();
        for (i, name) in names.iter().enumerate() {
            let len = pointer.len();
            push_token(pointer, &i.to_string());
            match name {
                Value::String(name) => {
                    let repeated = names[..i].iter().any(|n| n.as_str() == Some(name));
                    if repeated {
                        if !lenient {
                            self.problem(
                                pointer,
                                format!("{} is listed twice in `required`", show_str(name)),
                            );
                        }
                    } else if let Some(p) = node
                        .properties
                        .as_mut()
                        .and_then(|props| props.to_mut().iter_mut().find(|p| p.name == *name))
                    {
                        p.required = true;
                    } else if lenient {
                        extra.push(Cow::Owned(name.clone()));
                    } else {
                        let message = format!(
                            "`required` names {}, which is not in `properties`; add the property or remove the name",
                            show_str(name)
                        );
                        self.problem(pointer, message);
                    }
                }
                other => self.problem(
                    pointer,
                    format!(
                        "`required` lists property names (strings), got {}",
                        describe(other)
                    ),
                ),
            }
            pointer.truncate(len);
        }
        if !extra.is_empty() {
            node.required_extra = Cow::Owned(extra);
        }
    }
}

fn show_str(s: &str) -> String {
    show(&Value::String(s.to_owned()))
}

/// The message for a keyword that is not part of the wire form.
fn unknown_keyword(keyword: &str) -> String {
    let hint = match keyword {
        "$ref" => "inline the referenced schema here",
        "$defs" | "definitions" => "inline each definition where it is used, then remove this",
        "$schema" => "the wire form declares no dialect; remove it",
        "$id" | "$anchor" | "$comment" => "remove it",
        "title" => "put the text in `description`",
        "examples" | "example" => "mention examples in `description`",
        "const" => "write `enum` with one value",
        "nullable" => "to make a property optional, leave it out of `required`",
        "anyOf" => "use `oneOf` (exactly one branch must match)",
        "allOf" => "merge the schemas into one",
        "not" | "if" | "then" | "else" => "express the rule with the supported keywords",
        "prefixItems" | "additionalItems" | "contains" | "minContains" | "maxContains" => {
            "describe every element with `items`"
        }
        "patternProperties"
        | "propertyNames"
        | "minProperties"
        | "maxProperties"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties"
        | "unevaluatedItems" => "use `properties`, `required` and `additionalProperties`",
        _ => {
            return match did_you_mean(keyword, KEYWORDS.iter().copied()) {
                Some(suggestion) => {
                    format!("unknown keyword `{keyword}`; did you mean `{suggestion}`?")
                }
                None => format!(
                    "unknown keyword `{keyword}`; the wire form allows only the standard keywords `type`, `description`, `enum`, `default`, `format`, `minLength`, `maxLength`, `pattern`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `items`, `minItems`, `maxItems`, `uniqueItems`, `properties`, `required`, `additionalProperties` and `oneOf`, and MCP's `x-mcp-header`"
                ),
            };
        }
    };
    format!("`{keyword}` is not supported; {hint}")
}

impl<'de> serde::Deserialize<'de> for SchemaNode {
    /// Reads the wire JSON strictly ([`SchemaNode::from_json`]).
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        SchemaNode::from_json(&value).map_err(serde::de::Error::custom)
    }
}
