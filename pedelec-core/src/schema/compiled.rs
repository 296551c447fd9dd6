//! The compiled form of a schema: built once (regexes compiled, `enum` literals turned into
//! `Value`s, `multipleOf` turned into an exact decimal, a fast property lookup per object)
//! and reused for every validation.
//!
//! The nodes live in one flat arena addressed by [`NodeId`]; each node keeps everything a
//! checker needs to decide on one JSON value of that node: its kind, bounds, regex,
//! properties in declaration order with a name lookup, the additional-properties schema and
//! the `enum` values. The tree validator ([`CompiledSchema::validate`]) walks a
//! `serde_json::Value` over it; a streaming checker can walk deserializer events over the
//! same arena.

use std::collections::HashMap;
use std::fmt;

use regex::Regex;
use serde_json::Value;

use super::json::{Decimal, push_token};
use super::node::{AdditionalProperties, Num, SchemaKind, SchemaNode, Str};
use super::{SchemaError, SchemaProblem};

/// The index of a node in a [`CompiledSchema`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct NodeId(pub(crate) u32);

/// A `pattern`: its source (for messages) and the compiled regex.
#[derive(Clone, Debug)]
pub(crate) struct Pattern {
    pub(crate) source: Str,
    pub(crate) regex: Regex,
}

/// A `multipleOf`: as written (for messages) and as an exact decimal.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MultipleOf {
    pub(crate) num: Num,
    pub(crate) decimal: Decimal,
}

/// One compiled property of an object node.
#[derive(Clone, Debug)]
pub(crate) struct CompiledProperty {
    pub(crate) name: Str,
    pub(crate) node: NodeId,
    pub(crate) required: bool,
}

/// What an object node does with properties not in `properties`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Additional {
    /// Allowed (no `additionalProperties`, or `true`).
    Allow,
    /// Rejected (`false`).
    Deny,
    /// Each must match this node.
    Schema(NodeId),
}

/// Objects with more properties than this get a hash map for name lookups; smaller ones
/// are scanned (faster for a handful of short names).
const LINEAR_LOOKUP_MAX: usize = 8;

/// One compiled node. Every keyword is optional; a keyword applies only to values of its
/// JSON type (JSON Schema semantics), so a type-less node from the lenient parser works too.
#[derive(Clone, Debug)]
pub(crate) struct CompiledNode {
    pub(crate) kind: Option<SchemaKind>,
    pub(crate) enum_values: Option<Box<[Value]>>,
    pub(crate) format: Option<Str>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<Pattern>,
    pub(crate) minimum: Option<Num>,
    pub(crate) maximum: Option<Num>,
    pub(crate) exclusive_minimum: Option<Num>,
    pub(crate) exclusive_maximum: Option<Num>,
    pub(crate) multiple_of: Option<MultipleOf>,
    pub(crate) items: Option<NodeId>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) unique_items: bool,
    pub(crate) properties: Box<[CompiledProperty]>,
    /// Name → index into `properties`, only for large objects (see [`Self::property`]).
    pub(crate) property_index: Option<HashMap<Box<str>, u32>>,
    pub(crate) required_extra: Box<[Str]>,
    pub(crate) additional: Additional,
    pub(crate) one_of: Option<Box<[NodeId]>>,
}

impl CompiledNode {
    /// The property named `name`, with its index in declaration order.
    pub(crate) fn property(&self, name: &str) -> Option<(usize, &CompiledProperty)> {
        match &self.property_index {
            Some(index) => index.get(name).map(|&i| {
                let i = i as usize;
                (i, &self.properties[i])
            }),
            None => self
                .properties
                .iter()
                .enumerate()
                .find(|(_, p)| p.name == name),
        }
    }
}

/// A schema compiled for validation: build it once with [`CompiledSchema::compile`] and
/// validate any number of values with it. Any [`SchemaNode`] compiles, whatever its root
/// (a tool's [`ToolArgsSchema`](crate::ToolArgsSchema) wraps one for its object root).
///
/// Compiling fails only on what makes validation impossible: a `pattern` that is not a
/// valid regular expression, or a `multipleOf` that is not positive. The other structural
/// checks ([`SchemaNode::problems`]) are about writing sound schemas and do not stop
/// validation.
#[derive(Clone)]
pub struct CompiledSchema {
    pub(crate) nodes: Box<[CompiledNode]>,
}

impl CompiledSchema {
    /// The node every validation starts from.
    pub(crate) const ROOT: NodeId = NodeId(0);

    /// Compiles `schema`.
    ///
    /// # Errors
    /// Every invalid `pattern` and every `multipleOf` that is not a positive number, each
    /// with a JSON pointer into the schema.
    pub fn compile(schema: &SchemaNode) -> Result<CompiledSchema, SchemaError> {
        let mut builder = Builder {
            nodes: Vec::new(),
            problems: Vec::new(),
        };
        let mut pointer = String::new();
        builder.add(schema, &mut pointer);
        if builder.problems.is_empty() {
            Ok(CompiledSchema {
                nodes: builder.nodes.into_boxed_slice(),
            })
        } else {
            Err(SchemaError::new(builder.problems))
        }
    }

    pub(crate) fn node(&self, id: NodeId) -> &CompiledNode {
        &self.nodes[id.0 as usize]
    }
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

/// Compiles a `pattern`.
///
/// The single place where schema patterns become regexes: patterns are ECMA-262 regular
/// expressions (what JSON Schema specifies), matched anywhere in the string. They are
/// translated into an equivalent `regex`-crate pattern (`\d` stays ASCII, `$` matches only
/// at the very end, …), so matching takes linear time; lookaround and backreferences are
/// rejected with a reason.
pub(crate) fn compile_pattern(pattern: &str) -> Result<Regex, String> {
    let translated = pedelec_rules::ecma::translate(pattern).map_err(|e| e.to_string())?;
    Regex::new(&translated).map_err(|e| match e {
        regex::Error::CompiledTooBig(limit) => {
            format!("the pattern is too large (it compiles to more than {limit} bytes)")
        }
        regex::Error::Syntax(text) => text,
        other => other.to_string(),
    })
}

/// Whether `n` is a valid `multipleOf` (a positive finite number).
pub(crate) fn is_positive(n: Num) -> bool {
    match n {
        Num::Int(i) => i > 0,
        Num::Uint(u) => u > 0,
        Num::Float(f) => f > 0.0 && f.is_finite(),
    }
}

struct Builder {
    nodes: Vec<CompiledNode>,
    problems: Vec<SchemaProblem>,
}

impl Builder {
    fn problem(&mut self, pointer: &str, keyword: &str, message: String) {
        let mut pointer = pointer.to_owned();
        push_token(&mut pointer, keyword);
        self.problems.push(SchemaProblem { pointer, message });
    }

    #[allow(clippy::cast_possible_truncation)]
    fn add(&mut self, node: &SchemaNode, pointer: &mut String) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        // Reserve the slot so children get later ids; filled below.
        self.nodes.push(CompiledNode {
            kind: node.kind,
            enum_values: node
                .enum_values
                .as_ref()
                .map(|values| values.iter().map(super::node::Literal::to_value).collect()),
            format: node.format.clone(),
            min_length: node.min_length,
            max_length: node.max_length,
            pattern: None,
            minimum: node.minimum,
            maximum: node.maximum,
            exclusive_minimum: node.exclusive_minimum,
            exclusive_maximum: node.exclusive_maximum,
            multiple_of: None,
            items: None,
            min_items: node.min_items,
            max_items: node.max_items,
            unique_items: node.unique_items.unwrap_or(false),
            properties: Box::new([]),
            property_index: None,
            required_extra: node.required_extra.iter().cloned().collect(),
            additional: Additional::Allow,
            one_of: None,
        });

        let pattern = match &node.pattern {
            Some(source) => match compile_pattern(source) {
                Ok(regex) => Some(Pattern {
                    source: source.clone(),
                    regex,
                }),
                Err(e) => {
                    self.problem(
                        pointer,
                        "pattern",
                        format!("invalid regular expression: {e}"),
                    );
                    None
                }
            },
            None => None,
        };

        let multiple_of = match node.multiple_of {
            Some(num) => match Decimal::of(num) {
                Some(decimal) if is_positive(num) => Some(MultipleOf { num, decimal }),
                _ => {
                    self.problem(
                        pointer,
                        "multipleOf",
                        format!("`multipleOf` must be greater than 0, got {num}"),
                    );
                    None
                }
            },
            None => None,
        };

        let items = node.items.as_ref().map(|items| {
            let len = pointer.len();
            push_token(pointer, "items");
            let child = self.add(items, pointer);
            pointer.truncate(len);
            child
        });

        let mut properties = Vec::with_capacity(node.get_properties().len());
        for p in node.get_properties() {
            let len = pointer.len();
            push_token(pointer, "properties");
            push_token(pointer, p.name());
            let child = self.add(p.schema(), pointer);
            pointer.truncate(len);
            properties.push(CompiledProperty {
                name: p.name.clone(),
                node: child,
                required: p.is_required(),
            });
        }
        let property_index = (properties.len() > LINEAR_LOOKUP_MAX).then(|| {
            properties
                .iter()
                .enumerate()
                .map(|(i, p)| (Box::from(p.name.as_ref()), i as u32))
                .collect()
        });

        let additional = match &node.additional_properties {
            None | Some(AdditionalProperties::Bool(true)) => Additional::Allow,
            Some(AdditionalProperties::Bool(false)) => Additional::Deny,
            Some(AdditionalProperties::Schema(schema)) => {
                let len = pointer.len();
                push_token(pointer, "additionalProperties");
                let child = self.add(schema, pointer);
                pointer.truncate(len);
                Additional::Schema(child)
            }
        };

        let one_of = node.one_of.as_ref().map(|branches| {
            branches
                .iter()
                .enumerate()
                .map(|(i, branch)| {
                    let len = pointer.len();
                    push_token(pointer, "oneOf");
                    push_token(pointer, &i.to_string());
                    let child = self.add(branch, pointer);
                    pointer.truncate(len);
                    child
                })
                .collect()
        });

        let slot = &mut self.nodes[id.0 as usize];
        slot.pattern = pattern;
        slot.multiple_of = multiple_of;
        slot.items = items;
        slot.properties = properties.into_boxed_slice();
        slot.property_index = property_index;
        slot.additional = additional;
        slot.one_of = one_of;
        id
    }
}
