//! Validation of JSON values against a [`CompiledSchema`]: JSON Schema 2020-12 semantics
//! for exactly the keywords of the wire form, every error collected (bounded) with an
//! instance JSON pointer, the keyword, and a message a model can act on.

use std::cell::Cell;
use std::fmt;

use serde::Serialize;
use serde_json::{Map, Value};

use super::compiled::{Additional, CompiledNode, CompiledSchema, NodeId};
use super::json::{
    JsonNumber, describe, did_you_mean, json_equal, json_hash, list_quoted, number_of, push_token,
    show,
};
use super::node::SchemaKind;
use super::options::ValidationOptions;
use crate::error::Problem;
use pedelec_rules::Number;

/// Every reason a value does not match its schema, in instance order, at most
/// [`ValidationErrors::LIMIT`] of them.
///
/// Serializes as `{"errors": [{"pointer", "keyword", "message"}, …], "truncated": bool}`
/// (the `details` of a `TOOL_ARGS_INVALID` result).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationErrors {
    errors: Vec<Problem>,
    truncated: bool,
}

impl ValidationErrors {
    /// The most errors collected; past it [`truncated`](Self::truncated) is set.
    pub const LIMIT: usize = 100;

    /// The errors (never empty).
    #[must_use]
    pub fn errors(&self) -> &[Problem] {
        &self.errors
    }

    /// `true` when more errors were found than [`LIMIT`](Self::LIMIT).
    #[must_use]
    pub const fn truncated(&self) -> bool {
        self.truncated
    }

    /// Iterates over the errors.
    pub fn iter(&self) -> std::slice::Iter<'_, Problem> {
        self.errors.iter()
    }

    /// The number of errors kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// Always `false`: a `ValidationErrors` holds at least one error.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// The errors, by value.
    #[must_use]
    pub fn into_errors(self) -> Vec<Problem> {
        self.errors
    }

    pub(crate) fn from_errors(errors: Vec<Problem>) -> Self {
        debug_assert!(!errors.is_empty());
        ValidationErrors {
            errors,
            truncated: false,
        }
    }
}

impl fmt::Display for ValidationErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            fmt::Display::fmt(e, f)?;
        }
        if self.truncated {
            write!(f, "\n(more errors after the first {})", self.errors.len())?;
        }
        Ok(())
    }
}

impl std::error::Error for ValidationErrors {}

impl<'a> IntoIterator for &'a ValidationErrors {
    type Item = &'a Problem;
    type IntoIter = std::slice::Iter<'a, Problem>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl IntoIterator for ValidationErrors {
    type Item = Problem;
    type IntoIter = std::vec::IntoIter<Problem>;
    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl CompiledSchema {
    /// Validates `value` with the default options (plain JSON Schema 2020-12).
    ///
    /// # Errors
    /// Every reason `value` does not match (at most [`ValidationErrors::LIMIT`]).
    pub fn validate(&self, value: &Value) -> Result<(), ValidationErrors> {
        self.validate_with(value, ValidationOptions::new())
    }

    /// Validates `value`.
    ///
    /// # Errors
    /// Every reason `value` does not match (at most [`ValidationErrors::LIMIT`]).
    pub fn validate_with(
        &self,
        value: &Value,
        options: ValidationOptions,
    ) -> Result<(), ValidationErrors> {
        if let Some(raw) = &self.raw {
            return raw.validate(value, options);
        }
        // The fast check first: it allocates nothing, and most values are valid.
        let mut first = First { failed: false };
        let checker = Checker {
            schema: self,
            options,
            depth: Cell::new(0),
            too_deep: std::cell::RefCell::new(None),
        };
        checker.check(CompiledSchema::ROOT, value, &Path::Root, &mut first);
        if !first.failed {
            return Ok(());
        }
        // A value nested too deeply gets that one error: the others would follow every
        // level down to it.
        if let Some(error) = checker.too_deep.take() {
            return Err(ValidationErrors {
                errors: vec![error],
                truncated: false,
            });
        }
        let mut sink = Collect {
            errors: Vec::new(),
            truncated: false,
        };
        checker.check(CompiledSchema::ROOT, value, &Path::Root, &mut sink);
        if sink.errors.is_empty() {
            // Unreachable while both passes agree; never report an empty error list.
            return Ok(());
        }
        Err(ValidationErrors {
            errors: sink.errors,
            truncated: sink.truncated,
        })
    }

    /// Whether `value` matches, with the default options. Stops at the first error and
    /// allocates nothing.
    #[must_use]
    pub fn is_valid(&self, value: &Value) -> bool {
        self.is_valid_with(value, ValidationOptions::new())
    }

    /// Whether `value` matches. Stops at the first error and allocates nothing (except to
    /// check `uniqueItems` on arrays longer than 32 items).
    #[must_use]
    pub fn is_valid_with(&self, value: &Value, options: ValidationOptions) -> bool {
        if let Some(raw) = &self.raw {
            return raw.is_valid(value, options);
        }
        self.is_valid_at(CompiledSchema::ROOT, value, options)
    }

    /// Whether `value` matches the node `id` (the fast path checks the subtrees it buffers
    /// with it).
    pub(crate) fn is_valid_at(
        &self,
        id: NodeId,
        value: &Value,
        options: ValidationOptions,
    ) -> bool {
        let mut sink = First { failed: false };
        Checker {
            schema: self,
            options,
            depth: Cell::new(0),
            too_deep: std::cell::RefCell::new(None),
        }
        .check(id, value, &Path::Root, &mut sink);
        !sink.failed
    }
}

/// Where a value sits in the instance, built on the stack while walking it; turned into a
/// JSON pointer only when an error is reported.
#[derive(Clone, Copy)]
enum Path<'a> {
    Root,
    Key(&'a Path<'a>, &'a str),
    Index(&'a Path<'a>, usize),
}

impl Path<'_> {
    fn pointer(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match *self {
            Path::Root => {}
            Path::Key(parent, key) => {
                parent.write(out);
                push_token(out, key);
            }
            Path::Index(parent, i) => {
                parent.write(out);
                push_token(out, &i.to_string());
            }
        }
    }
}

/// Where errors go: the three passes share one walker.
trait Sink {
    /// Whether messages are wanted (only [`Collect`] builds them).
    const MESSAGES: bool;
    /// Records an error; `message` is called only when [`MESSAGES`](Self::MESSAGES).
    fn fail(&mut self, path: &Path<'_>, keyword: &'static str, message: impl FnOnce() -> String);
    /// Whether the walk can stop now.
    fn done(&self) -> bool;
}

/// `is_valid`: stops at the first error.
struct First {
    failed: bool,
}

impl Sink for First {
    const MESSAGES: bool = false;
    fn fail(&mut self, _: &Path<'_>, _: &'static str, _: impl FnOnce() -> String) {
        self.failed = true;
    }
    fn done(&self) -> bool {
        self.failed
    }
}

/// Counts errors (to find the closest `oneOf` branch), up to a cap.
struct Count {
    count: usize,
}

impl Count {
    const CAP: usize = ValidationErrors::LIMIT;
}

impl Sink for Count {
    const MESSAGES: bool = false;
    fn fail(&mut self, _: &Path<'_>, _: &'static str, _: impl FnOnce() -> String) {
        self.count += 1;
    }
    fn done(&self) -> bool {
        self.count >= Count::CAP
    }
}

/// `validate`: every error, up to the limit.
struct Collect {
    errors: Vec<Problem>,
    truncated: bool,
}

impl Sink for Collect {
    const MESSAGES: bool = true;
    fn fail(&mut self, path: &Path<'_>, keyword: &'static str, message: impl FnOnce() -> String) {
        if self.errors.len() >= ValidationErrors::LIMIT {
            self.truncated = true;
            return;
        }
        self.errors
            .push(Problem::at(path.pointer(), message()).rule(keyword));
    }
    fn done(&self) -> bool {
        self.truncated
    }
}

/// Arrays up to this length are checked for `uniqueItems` pairwise (no allocation); longer
/// ones by hashing.
const PAIRWISE_UNIQUE_MAX: usize = 32;

/// How many property names an "unknown property" message lists.
const LIST_LIMIT: usize = 10;

/// How many `$ref`s one path through an instance may follow: a recursive type nested
/// deeper than this is refused (an error, not a stack overflow). JSON text nests at most
/// 128 levels anyway (`serde_json`'s limit); this bounds a `Value` built in memory.
pub const MAX_REF_DEPTH: u32 = 128;

struct Checker<'s> {
    schema: &'s CompiledSchema,
    options: ValidationOptions,
    /// `$ref`s followed on the current path.
    depth: Cell<u32>,
    /// The first place where the value nests deeper than [`MAX_REF_DEPTH`].
    too_deep: std::cell::RefCell<Option<Problem>>,
}

impl Checker<'_> {
    fn check<S: Sink>(&self, id: NodeId, value: &Value, path: &Path<'_>, sink: &mut S) {
        let node = self.schema.node(id);
        // One dispatch on the value's type: its `type` check, `enum`, then the keywords of
        // that type. A value of the wrong type gets only the `type` error: nothing else
        // can be said usefully about it.
        match value {
            Value::String(s) => {
                if Self::kind_and_enum(
                    node,
                    node.type_allows(SchemaKind::String),
                    value,
                    path,
                    sink,
                ) {
                    return;
                }
                self.check_string(node, s, value, path, sink);
            }
            Value::Number(n) => {
                let num = number_of(n);
                if Self::kind_and_enum(node, node.type_allows_number(num), value, path, sink) {
                    return;
                }
                check_number(node, num, value, path, sink);
            }
            Value::Array(items) => {
                if Self::kind_and_enum(node, node.type_allows(SchemaKind::Array), value, path, sink)
                {
                    return;
                }
                self.check_array(node, items, path, sink);
            }
            Value::Object(map) => {
                if Self::kind_and_enum(
                    node,
                    node.type_allows(SchemaKind::Object),
                    value,
                    path,
                    sink,
                ) {
                    return;
                }
                self.check_object(node, map, path, sink);
            }
            Value::Bool(_) => {
                if Self::kind_and_enum(
                    node,
                    node.type_allows(SchemaKind::Boolean),
                    value,
                    path,
                    sink,
                ) {
                    return;
                }
            }
            Value::Null => {
                if Self::kind_and_enum(node, node.type_allows_null(), value, path, sink) {
                    return;
                }
            }
        }
        if sink.done() {
            return;
        }
        if let Some(branches) = &node.one_of {
            self.check_one_of(branches, value, path, sink);
        }
        if node.composite
            && let Some(target) = self.schema.reference(node.id)
        {
            self.check_ref(target, value, path, sink);
        }
    }

    /// A `$ref`: the value must match the `$defs` entry too, at most [`MAX_REF_DEPTH`]
    /// references deep.
    #[cold]
    #[inline(never)]
    fn check_ref<S: Sink>(&self, target: NodeId, value: &Value, path: &Path<'_>, sink: &mut S) {
        let depth = self.depth.get();
        if depth >= MAX_REF_DEPTH {
            let message = || {
                format!(
                    "nested too deeply: a recursive value may nest at most {MAX_REF_DEPTH} levels"
                )
            };
            let mut too_deep = self.too_deep.borrow_mut();
            if too_deep.is_none() {
                *too_deep = Some(Problem::at(path.pointer(), message()).rule("$ref"));
            }
            sink.fail(path, "$ref", message);
            return;
        }
        self.depth.set(depth + 1);
        self.check(target, value, path, sink);
        self.depth.set(depth);
    }

    /// [`check`](Self::check) for an item or a property value: strings, numbers and
    /// booleans (most values) are checked right here, without a call.
    #[inline(always)]
    #[allow(
        clippy::inline_always,
        reason = "measured: the point is to skip the call for leaf values"
    )]
    fn check_child<S: Sink>(&self, id: NodeId, value: &Value, path: &Path<'_>, sink: &mut S) {
        let node = self.schema.node(id);
        if !node.composite {
            match value {
                Value::String(s) => {
                    if !Self::kind_and_enum(
                        node,
                        node.type_allows(SchemaKind::String),
                        value,
                        path,
                        sink,
                    ) {
                        self.check_string(node, s, value, path, sink);
                    }
                    return;
                }
                Value::Number(n) => {
                    let num = number_of(n);
                    if !Self::kind_and_enum(node, node.type_allows_number(num), value, path, sink) {
                        check_number(node, num, value, path, sink);
                    }
                    return;
                }
                Value::Bool(_) => {
                    Self::kind_and_enum(
                        node,
                        node.type_allows(SchemaKind::Boolean),
                        value,
                        path,
                        sink,
                    );
                    return;
                }
                _ => {}
            }
        }
        self.check(id, value, path, sink);
    }

    /// The `type` and `enum` checks of a value (`type_ok`: whether `type` allows it).
    /// `true` when the walk must not go on with this value.
    #[inline]
    fn kind_and_enum<S: Sink>(
        node: &CompiledNode,
        type_ok: bool,
        value: &Value,
        path: &Path<'_>,
        sink: &mut S,
    ) -> bool {
        if !type_ok {
            sink.fail(path, "type", || {
                let expected = node.kind.map_or("nothing", SchemaKind::as_str);
                format!("expected {expected}, got {}", describe(value))
            });
            return true;
        }
        if let Some(values) = &node.enum_values
            && !node.enum_allows(value)
        {
            sink.fail(path, "enum", || enum_message(value, values));
            return sink.done();
        }
        false
    }

    /// The string keywords: decided inline in the common cases (see
    /// [`CompiledNode::string_keywords_allow`]), worded out of line when one fails.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured")]
    fn check_string<S: Sink>(
        &self,
        node: &CompiledNode,
        s: &str,
        value: &Value,
        path: &Path<'_>,
        sink: &mut S,
    ) {
        if !node.string_keywords_allow(s, self.options) {
            self.check_string_keywords(node, s, value, path, sink);
        }
    }

    #[inline(never)]
    fn check_string_keywords<S: Sink>(
        &self,
        node: &CompiledNode,
        s: &str,
        value: &Value,
        path: &Path<'_>,
        sink: &mut S,
    ) {
        for (keyword, allowed, bound, relation) in [
            (
                "minLength",
                node.min_length_allows(s),
                node.min_length,
                "at least",
            ),
            (
                "maxLength",
                node.max_length_allows(s),
                node.max_length,
                "at most",
            ),
        ] {
            if !allowed && let Some(bound) = bound {
                sink.fail(path, keyword, || {
                    format!(
                        "expected {relation} {}, got {}",
                        characters(bound),
                        s.chars().count()
                    )
                });
                if sink.done() {
                    return;
                }
            }
        }
        if !node.pattern_allows(s)
            && let Some(pattern) = &node.pattern
        {
            sink.fail(path, "pattern", || {
                format!(
                    "{} does not match the pattern {}",
                    show(value),
                    show(&Value::String(pattern.source.to_string()))
                )
            });
            if sink.done() {
                return;
            }
        }
        if !node.format_allows(s, self.options)
            && let Some(format) = node.format
        {
            sink.fail(path, "format", || {
                format!("{} {}", show(value), format.explain(s))
            });
        }
    }

    fn check_array<S: Sink>(
        &self,
        node: &CompiledNode,
        items: &[Value],
        path: &Path<'_>,
        sink: &mut S,
    ) {
        let len = items.len() as u64;
        if let Some(min) = node.min_items
            && len < min
        {
            sink.fail(path, "minItems", || {
                format!("expected at least {}, got {len}", plural(min, "item"))
            });
            if sink.done() {
                return;
            }
        }
        if let Some(max) = node.max_items
            && len > max
        {
            sink.fail(path, "maxItems", || {
                format!("expected at most {}, got {len}", plural(max, "item"))
            });
            if sink.done() {
                return;
            }
        }
        if node.unique_items {
            check_unique(items, path, sink);
            if sink.done() {
                return;
            }
        }
        if let Some(item_node) = node.items {
            for (i, item) in items.iter().enumerate() {
                self.check_child(item_node, item, &Path::Index(path, i), sink);
                if sink.done() {
                    return;
                }
            }
        }
    }

    fn check_object<S: Sink>(
        &self,
        node: &CompiledNode,
        map: &Map<String, Value>,
        path: &Path<'_>,
        sink: &mut S,
    ) {
        // Map keys are unique: counting the required properties met tells whether any is
        // missing, without looking each one up.
        let mut required = 0;
        let mut next = 0;
        for (key, value) in map {
            let child = Path::Key(path, key);
            match node.property_after(key, &mut next) {
                Some((_, property)) => {
                    required += usize::from(property.required);
                    if self.options.null_as_absent && value.is_null() && !property.required {
                        continue;
                    }
                    self.check_child(property.node, value, &child, sink);
                }
                None => match node.additional {
                    Additional::Allow => {}
                    Additional::Schema(id) => self.check_child(id, value, &child, sink),
                    Additional::Deny => {
                        sink.fail(path, "additionalProperties", || {
                            unknown_property_message(node, map, key)
                        });
                    }
                },
            }
            if sink.done() {
                return;
            }
        }
        if required == node.required_count && node.required_extra.is_empty() {
            return;
        }
        for property in node.properties.iter().filter(|p| p.required) {
            if !map.contains_key(property.name.as_ref()) {
                sink.fail(path, "required", || {
                    format!("missing required property {}", quoted(&property.name))
                });
                if sink.done() {
                    return;
                }
            }
        }
        for name in &node.required_extra {
            if !map.contains_key(name.as_ref()) {
                sink.fail(path, "required", || {
                    format!("missing required property {}", quoted(name))
                });
                if sink.done() {
                    return;
                }
            }
        }
    }

    fn check_one_of<S: Sink>(
        &self,
        branches: &[NodeId],
        value: &Value,
        path: &Path<'_>,
        sink: &mut S,
    ) {
        let matches = |id: NodeId| {
            let mut first = First { failed: false };
            self.check(id, value, path, &mut first);
            !first.failed
        };
        if !S::MESSAGES {
            // Only validity matters: count matches, stopping at the second.
            let mut count = 0;
            for &id in branches {
                if matches(id) {
                    count += 1;
                    if count > 1 {
                        break;
                    }
                }
            }
            if count != 1 {
                sink.fail(path, "oneOf", String::new);
            }
            return;
        }
        let matching: Vec<usize> = branches
            .iter()
            .enumerate()
            .filter(|&(_, &id)| matches(id))
            .map(|(i, _)| i)
            .collect();
        match matching.len() {
            1 => {}
            0 => {
                // Report the branch that comes closest: a wrong type counts as the worst
                // possible miss, then fewer errors is closer.
                let closest = branches
                    .iter()
                    .enumerate()
                    .min_by_key(|&(_, &id)| {
                        let node = self.schema.node(id);
                        let wrong_type = node.kind.is_some_and(|k| !kind_matches(k, value));
                        let mut count = Count { count: 0 };
                        self.check(id, value, path, &mut count);
                        (wrong_type, count.count)
                    })
                    .map(|(i, &id)| (i, id));
                let Some((index, id)) = closest else {
                    sink.fail(path, "oneOf", || {
                        "no value is allowed here (`oneOf` has no branch)".to_owned()
                    });
                    return;
                };
                sink.fail(path, "oneOf", || {
                    let n = branches.len();
                    if n == 1 {
                        "does not match the only branch of oneOf; its errors follow".to_owned()
                    } else {
                        format!(
                            "matches none of the {n} branches of oneOf; the closest is branch \
                             {index}, whose errors follow"
                        )
                    }
                });
                if !sink.done() {
                    self.check(id, value, path, sink);
                }
            }
            n => sink.fail(path, "oneOf", || {
                let list = matching
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                format!("matches {n} branches of oneOf ({list}); expected exactly one")
            }),
        }
    }
}

/// Whether `value` has the JSON type of `kind` (`1.0` is an integer, any number a number).
fn kind_matches(kind: SchemaKind, value: &Value) -> bool {
    match (kind, value) {
        (SchemaKind::String, Value::String(_))
        | (SchemaKind::Number, Value::Number(_))
        | (SchemaKind::Boolean, Value::Bool(_))
        | (SchemaKind::Array, Value::Array(_))
        | (SchemaKind::Object, Value::Object(_)) => true,
        (SchemaKind::Integer, Value::Number(n)) => number_of(n).is_integer(),
        _ => false,
    }
}

/// The number keywords: decided inline (see [`CompiledNode::number_keywords_allow`]),
/// worded out of line when one fails.
#[inline(always)]
#[allow(clippy::inline_always, reason = "measured")]
fn check_number<S: Sink>(
    node: &CompiledNode,
    n: Number,
    value: &Value,
    path: &Path<'_>,
    sink: &mut S,
) {
    if !node.number_keywords_allow(n) {
        check_number_keywords(node, n, value, path, sink);
    }
}

#[inline(never)]
fn check_number_keywords<S: Sink>(
    node: &CompiledNode,
    n: Number,
    value: &Value,
    path: &Path<'_>,
    sink: &mut S,
) {
    for (keyword, allowed, bound, relation) in [
        ("minimum", node.minimum_allows(n), node.minimum, ">="),
        (
            "exclusiveMinimum",
            node.exclusive_minimum_allows(n),
            node.exclusive_minimum,
            ">",
        ),
        ("maximum", node.maximum_allows(n), node.maximum, "<="),
        (
            "exclusiveMaximum",
            node.exclusive_maximum_allows(n),
            node.exclusive_maximum,
            "<",
        ),
    ] {
        if !allowed && let Some(bound) = bound {
            sink.fail(path, keyword, || {
                format!(
                    "expected a number {relation} {}, got {}",
                    JsonNumber(bound),
                    show(value)
                )
            });
            if sink.done() {
                return;
            }
        }
    }
    if !node.multiple_of_allows(n)
        && let Some(multiple) = node.multiple_of
    {
        sink.fail(path, "multipleOf", || {
            format!(
                "expected a multiple of {}, got {}",
                JsonNumber(multiple.num),
                show(value)
            )
        });
    }
}

fn check_unique<S: Sink>(items: &[Value], path: &Path<'_>, sink: &mut S) {
    let report = |i: usize, j: usize, sink: &mut S| {
        sink.fail(path, "uniqueItems", || {
            format!(
                "items {i} and {j} are equal ({}); expected unique items",
                show(&items[j])
            )
        });
    };
    if items.len() <= PAIRWISE_UNIQUE_MAX {
        for j in 1..items.len() {
            if let Some(i) = (0..j).find(|&i| json_equal(&items[i], &items[j])) {
                report(i, j, sink);
                if sink.done() {
                    return;
                }
            }
        }
        return;
    }
    // Hash every item, sort by hash, and compare only items whose hashes collide.
    let mut hashed: Vec<(u64, usize)> = items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            use std::hash::{DefaultHasher, Hasher};
            let mut h = DefaultHasher::new();
            json_hash(item, &mut h);
            (h.finish(), i)
        })
        .collect();
    hashed.sort_unstable();
    // For each item, the first earlier item equal to it.
    let mut duplicate_of: Vec<(usize, usize)> = Vec::new();
    for group in hashed.chunk_by(|a, b| a.0 == b.0) {
        for (k, &(_, j)) in group.iter().enumerate() {
            if let Some(&(_, i)) = group[..k]
                .iter()
                .filter(|&&(_, i)| i < j && json_equal(&items[i], &items[j]))
                .min_by_key(|&&(_, i)| i)
            {
                duplicate_of.push((j, i));
            }
        }
    }
    duplicate_of.sort_unstable();
    for (j, i) in duplicate_of {
        report(i, j, sink);
        if sink.done() {
            return;
        }
    }
}

fn enum_message(value: &Value, values: &[Value]) -> String {
    if values.is_empty() {
        return format!("no value is allowed here, got {}", show(value));
    }
    let list = values
        .iter()
        .take(LIST_LIMIT)
        .map(show)
        .collect::<Vec<_>>()
        .join(", ");
    let more = if values.len() > LIST_LIMIT {
        format!(", … ({} more)", values.len() - LIST_LIMIT)
    } else {
        String::new()
    };
    if values.len() == 1 {
        format!("expected {list}, got {}", show(value))
    } else {
        format!("{} is not one of {list}{more}", show(value))
    }
}

fn unknown_property_message(node: &CompiledNode, map: &Map<String, Value>, key: &str) -> String {
    let unused = node
        .properties
        .iter()
        .map(|p| p.name.as_ref())
        .filter(|name| !map.contains_key(*name));
    if let Some(suggestion) = did_you_mean(key, unused) {
        return format!(
            "unknown property {}; did you mean {}?",
            quoted(key),
            quoted(suggestion)
        );
    }
    if node.properties.is_empty() {
        return format!(
            "unknown property {}; this object takes no properties",
            quoted(key)
        );
    }
    format!(
        "unknown property {}; expected one of {}",
        quoted(key),
        list_quoted(node.properties.iter().map(|p| p.name.as_ref()), LIST_LIMIT)
    )
}

fn quoted(s: &str) -> String {
    show(&Value::String(s.to_owned()))
}

fn plural(n: u64, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn characters(n: u64) -> String {
    plural(n, "character")
}
