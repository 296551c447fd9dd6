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

use super::format::Format;
use super::json::{Decimal, push_token};
use super::shortcuts;
use pedelec_rules::Number;

use super::SchemaError;
use super::node::{AdditionalProperties, SchemaKind, SchemaNode, Str};
use crate::error::Problem;

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
    pub(crate) num: Number,
    pub(crate) decimal: Decimal,
}

/// One compiled property of an object node.
#[derive(Clone, Debug)]
pub(crate) struct CompiledProperty {
    pub(crate) name: Str,
    pub(crate) head: NameHead,
    pub(crate) node: NodeId,
    pub(crate) required: bool,
}

/// A string's length and first and last eight bytes: for strings of up to 16 bytes (most
/// property names and `enum` values) equal heads mean equal strings, compared in three
/// word comparisons instead of a call to `memcmp`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NameHead {
    len: usize,
    first: u64,
    last: u64,
}

impl NameHead {
    /// The longest string whose head is the whole string.
    const WHOLE: usize = 16;

    #[inline]
    pub(crate) fn of(name: &str) -> NameHead {
        let bytes = name.as_bytes();
        let len = bytes.len();
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(w)
        };
        let half = |at: usize| {
            let mut w = [0u8; 4];
            w.copy_from_slice(&bytes[at..at + 4]);
            u64::from(u32::from_le_bytes(w))
        };
        let (first, last) = if len >= 8 {
            (word(0), word(len - 8))
        } else if len >= 4 {
            (half(0), half(len - 4))
        } else {
            let mut packed = 0u64;
            for (i, &b) in bytes.iter().enumerate() {
                packed |= u64::from(b) << (i * 8);
            }
            (packed, 0)
        };
        NameHead { len, first, last }
    }

    /// Whether `name` (whose head is `self`) equals `other` (whose head is `other_head`).
    #[inline]
    pub(crate) fn same(self, name: &str, other_head: NameHead, other: &str) -> bool {
        self.eq_words(other_head) && (self.len <= NameHead::WHOLE || name == other)
    }

    /// `self == other` without a branch per field (measured: ~8 instructions per
    /// comparison less than the derived `==`).
    #[inline]
    fn eq_words(self, other: NameHead) -> bool {
        ((self.len ^ other.len) as u64 | (self.first ^ other.first) | (self.last ^ other.last)) == 0
    }
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
#[allow(
    clippy::struct_excessive_bools,
    reason = "independent keyword flags, precomputed for the hot path"
)]
pub(crate) struct CompiledNode {
    /// This node's index in the arena (the fast path carries nodes, the tree validator ids).
    pub(crate) id: NodeId,
    pub(crate) kind: Option<SchemaKind>,
    pub(crate) enum_values: Option<Box<[Value]>>,
    /// The strings among `enum_values`, with their heads (a string is checked against
    /// these alone).
    pub(crate) enum_strings: Box<[(NameHead, Box<str>)]>,
    /// A `format` pedelec knows (one it does not know is an annotation, as if absent).
    pub(crate) format: Option<Format>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<Pattern>,
    pub(crate) minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) exclusive_minimum: Option<Number>,
    pub(crate) exclusive_maximum: Option<Number>,
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
    /// `oneOf` or `$ref`: the value must also match other nodes (the tree validator's
    /// shortcut for leaf values does not apply). The `$ref` itself is in
    /// [`CompiledSchema::reference`], off the node: the hot path never reads it.
    pub(crate) composite: bool,
    /// How many of `properties` are required (validation counts the required properties
    /// it meets instead of looking each one up).
    pub(crate) required_count: usize,
    /// Whether the fast path reads values of this node into a `Value` and checks them with
    /// the tree validator: `oneOf`, `uniqueItems`, an `enum` with arrays or objects among
    /// its values, and `required` names that are not properties cannot be decided while
    /// streaming.
    pub(crate) buffered: bool,
    /// Whether any of `minLength`, `maxLength`, `pattern`, a known `format` is present.
    pub(crate) string_keywords: bool,
    /// Whether any of the bounds or `multipleOf` is present.
    pub(crate) number_keywords: bool,
    /// The bounds (`minimum`, `maximum` and the exclusive ones) as one inclusive range of
    /// `i64`, when every bound present is an integer: an `i64` instance is then checked
    /// with two comparisons (see [`shortcuts::int_bounds`]). `None` when a bound is a float
    /// or out of `i64`'s range: the general comparisons decide.
    pub(crate) int_bounds: Option<(i64, i64)>,
    /// For a node that allows strings and has no `enum`, `pattern` or `format`: the byte
    /// lengths with which any string satisfies `minLength` and `maxLength` (see
    /// [`shortcuts::plain_string_bytes`]). Other lengths, and other nodes, take the general checks.
    pub(crate) plain_string_bytes: Option<(u64, u64)>,
}

impl CompiledNode {
    /// The property named `name`, with its index in declaration order, trying the
    /// property at index `*next` first: properties usually come in declaration order, so
    /// the guess saves the search. `*next` is then set past the property found.
    #[inline]
    pub(crate) fn property_after(
        &self,
        name: &str,
        next: &mut usize,
    ) -> Option<(usize, &CompiledProperty)> {
        let head = NameHead::of(name);
        if let Some(p) = self.properties.get(*next)
            && p.head.same(&p.name, head, name)
        {
            *next += 1;
            return Some((*next - 1, p));
        }
        let found = self.property_search(name, head, *next);
        if let Some((i, _)) = found {
            *next = i + 1;
        }
        found
    }

    /// [`property_after`](Self::property_after) when the guess was wrong.
    #[inline(never)]
    fn property_search(
        &self,
        name: &str,
        head: NameHead,
        next: usize,
    ) -> Option<(usize, &CompiledProperty)> {
        if self.property_index.is_some() {
            return self.property(name);
        }
        // From the guess on (an absent optional property costs one more comparison), then
        // from the start.
        let properties = &self.properties;
        let start = next.min(properties.len());
        let (before, after) = properties.split_at(start);
        if let Some(i) = after.iter().position(|p| p.head.same(&p.name, head, name)) {
            return Some((start + i, &after[i]));
        }
        before
            .iter()
            .position(|p| p.head.same(&p.name, head, name))
            .map(|i| (i, &before[i]))
    }

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
                .find(|(_, p)| *p.name == *name),
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
    /// `(node, entry)` for each node with a `$ref`, by node: the compiled `$defs` entry the
    /// value must match too. Empty unless the schema holds a recursive type.
    pub(crate) references: Box<[(NodeId, NodeId)]>,
    /// A raw schema's validator (`schema::raw`): it alone decides validity; the nodes are
    /// its plain form.
    pub(crate) raw: Option<std::sync::Arc<super::raw::RawSchema>>,
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
        let schema = &*schema.resolved();
        let mut builder = Builder {
            nodes: Vec::new(),
            problems: Vec::new(),
            references: Vec::new(),
        };
        let mut pointer = String::new();
        builder.add(schema, &mut pointer);
        let references = if builder.references.is_empty() {
            Vec::new()
        } else {
            builder.link(schema)
        };
        if builder.problems.is_empty() {
            Ok(CompiledSchema {
                nodes: builder.nodes.into_boxed_slice(),
                references: references.into_boxed_slice(),
                raw: None,
            })
        } else {
            Err(SchemaError::new(builder.problems))
        }
    }

    /// Whether a 2020-12 validator decides (a raw schema): the fast path does not serve it.
    pub(crate) fn is_raw(&self) -> bool {
        self.raw.is_some()
    }

    pub(crate) fn node(&self, id: NodeId) -> &CompiledNode {
        &self.nodes[id.0 as usize]
    }

    /// The `$defs` entry the node `id` refers to with `$ref`, if it does.
    pub(crate) fn reference(&self, id: NodeId) -> Option<NodeId> {
        self.references
            .binary_search_by_key(&id.0, |(node, _)| node.0)
            .ok()
            .map(|i| self.references[i].1)
    }
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("nodes", &self.nodes.len())
            .field("references", &self.references.len())
            .field("raw", &self.raw.is_some())
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

struct Builder {
    nodes: Vec<CompiledNode>,
    problems: Vec<Problem>,
    /// The nodes with a `$ref`, the name they refer to, and their pointer.
    references: Vec<(NodeId, Str, String)>,
}

impl Builder {
    /// Compiles the `$defs` entries of `root` after the tree and points each `$ref` at its
    /// entry: `(node, entry)` pairs, sorted by node.
    fn link(&mut self, root: &SchemaNode) -> Vec<(NodeId, NodeId)> {
        let mut compiled: Vec<(&str, NodeId)> = Vec::new();
        for def in root.definitions() {
            let mut pointer = String::new();
            push_token(&mut pointer, "$defs");
            push_token(&mut pointer, def.name());
            let id = self.add(def.schema(), &mut pointer);
            compiled.push((def.name(), id));
        }
        let mut links = Vec::new();
        for (id, name, pointer) in std::mem::take(&mut self.references) {
            match compiled.iter().find(|(n, _)| *n == &*name) {
                Some(&(_, target)) => links.push((id, target)),
                None => self.problem(
                    &pointer,
                    "$ref",
                    format!("`$ref` names \"#/$defs/{name}\", which is not an entry of the root's `$defs`"),
                ),
            }
        }
        links.sort_unstable_by_key(|(node, _)| node.0);
        links
    }

    fn problem(&mut self, pointer: &str, keyword: &str, message: String) {
        let mut pointer = pointer.to_owned();
        push_token(&mut pointer, keyword);
        self.problems.push(Problem::at(pointer, message));
    }

    #[allow(clippy::cast_possible_truncation)]
    fn add(&mut self, node: &SchemaNode, pointer: &mut String) -> NodeId {
        let id = NodeId(self.nodes.len() as u32);
        // Reserve the slot so children get later ids; filled below.
        self.nodes.push(CompiledNode {
            id,
            kind: node.kind,
            enum_values: node
                .enum_values
                .as_ref()
                .map(|values| values.iter().map(super::node::Literal::to_value).collect()),
            enum_strings: node
                .enum_values
                .iter()
                .flat_map(|values| values.iter())
                .filter_map(|v| match v {
                    super::node::Literal::Str(s) => Some((NameHead::of(s), Box::from(s.as_ref()))),
                    _ => None,
                })
                .collect(),
            format: node.format.as_deref().and_then(Format::from_name),
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
            composite: false,
            required_count: 0,
            buffered: false,
            string_keywords: node.min_length.is_some()
                || node.max_length.is_some()
                || node.pattern.is_some()
                || node
                    .format
                    .as_deref()
                    .is_some_and(|f| Format::from_name(f).is_some()),
            number_keywords: node.minimum.is_some()
                || node.maximum.is_some()
                || node.exclusive_minimum.is_some()
                || node.exclusive_maximum.is_some()
                || node.multiple_of.is_some(),
            int_bounds: shortcuts::int_bounds(node),
            plain_string_bytes: shortcuts::plain_string_bytes(node),
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
            Some(num) => match pedelec_rules::constraint::check_multiple_of(num) {
                // Every finite number has a decimal form.
                Ok(()) => Decimal::of(num).map(|decimal| MultipleOf { num, decimal }),
                Err(problem) => {
                    self.problem(pointer, "multipleOf", problem.to_string());
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

        let mut properties = Vec::with_capacity(node.properties().len());
        for p in node.properties() {
            let len = pointer.len();
            push_token(pointer, "properties");
            push_token(pointer, p.name());
            let child = self.add(p.schema(), pointer);
            pointer.truncate(len);
            properties.push(CompiledProperty {
                head: NameHead::of(p.name()),
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

        if let Some(name) = &node.reference {
            self.references.push((id, name.clone(), pointer.clone()));
        }
        let required_count = properties.iter().filter(|p| p.required).count();
        let slot = &mut self.nodes[id.0 as usize];
        slot.required_count = required_count;
        slot.composite = one_of.is_some() || node.reference.is_some();
        // A `$ref` is followed by the tree validator only, which bounds the depth.
        slot.buffered = slot.composite
            || slot.unique_items
            || !slot.required_extra.is_empty()
            || slot
                .enum_values
                .as_ref()
                .is_some_and(|values| values.iter().any(|v| v.is_array() || v.is_object()));
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
