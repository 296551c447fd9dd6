//! The schema model: one node type for every kind of the Pedelec Tool Args Schema.
//!
//! A [`SchemaNode`] is plain data. It can be built in a `const` (that is what
//! `#[derive(ToolArgs)]` does: nothing is allocated, every slice is `'static`) or at run
//! time from JSON ([`SchemaNode::from_json`](crate::schema::SchemaNode::from_json)), and it
//! serializes to exactly the standard JSON Schema keywords of the wire form.

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;

use pedelec_rules::Number;
use pedelec_rules::constraint::{
    Range, check_item_counts, check_lengths, check_multiple_of, check_range,
};
use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::json::{JsonNumber, number_of};

/// A string that is either `'static` (schemas built in a `const`) or owned (schemas read
/// from JSON).
pub type Str = Cow<'static, str>;

/// The `type` of a schema node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SchemaKind {
    /// `"string"`
    String,
    /// `"number"`: any JSON number.
    Number,
    /// `"integer"`: a JSON number with no fractional part (`1.0` is an integer).
    Integer,
    /// `"boolean"`
    Boolean,
    /// `"array"`
    Array,
    /// `"object"`
    Object,
}

impl SchemaKind {
    /// The kind's name on the wire (`"integer"`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            SchemaKind::String => "string",
            SchemaKind::Number => "number",
            SchemaKind::Integer => "integer",
            SchemaKind::Boolean => "boolean",
            SchemaKind::Array => "array",
            SchemaKind::Object => "object",
        }
    }

    /// The kind named `name` on the wire.
    #[must_use]
    pub fn from_name(name: &str) -> Option<Self> {
        Some(match name {
            "string" => SchemaKind::String,
            "number" => SchemaKind::Number,
            "integer" => SchemaKind::Integer,
            "boolean" => SchemaKind::Boolean,
            "array" => SchemaKind::Array,
            "object" => SchemaKind::Object,
            _ => return None,
        })
    }

    /// `true` for `number` and `integer`.
    #[must_use]
    pub const fn is_numeric(self) -> bool {
        matches!(self, SchemaKind::Number | SchemaKind::Integer)
    }
}

impl fmt::Display for SchemaKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A JSON value that can be written in a `const`: the values of `enum` and `default`.
///
/// Equality is JSON equality: `1` equals `1.0`, and the order of object keys does not matter.
#[derive(Clone, Debug)]
pub enum Literal {
    /// `null`
    Null,
    /// `true` / `false`
    Bool(bool),
    /// A number.
    Num(Number),
    /// A string.
    Str(Str),
    /// An array.
    Array(Cow<'static, [Literal]>),
    /// An object, in its written key order.
    Object(Cow<'static, [(Str, Literal)]>),
}

impl Literal {
    /// A `'static` string literal (usable in a `const`).
    #[must_use]
    pub const fn str(s: &'static str) -> Self {
        Literal::Str(Cow::Borrowed(s))
    }

    /// Converts to a `serde_json::Value` (a non-finite float becomes `null`).
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            Literal::Null => Value::Null,
            Literal::Bool(b) => Value::Bool(*b),
            Literal::Num(n) => JsonNumber(*n).to_json().map_or(Value::Null, Value::Number),
            Literal::Str(s) => Value::String(s.to_string()),
            Literal::Array(items) => Value::Array(items.iter().map(Literal::to_value).collect()),
            Literal::Object(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect(),
            ),
        }
    }

    /// Converts from a `serde_json::Value`.
    #[must_use]
    pub fn from_value(value: &Value) -> Self {
        match value {
            Value::Null => Literal::Null,
            Value::Bool(b) => Literal::Bool(*b),
            Value::Number(n) => Literal::Num(number_of(n)),
            Value::String(s) => Literal::Str(Cow::Owned(s.clone())),
            Value::Array(items) => Literal::Array(items.iter().map(Literal::from_value).collect()),
            Value::Object(map) => Literal::Object(
                map.iter()
                    .map(|(k, v)| (Cow::Owned(k.clone()), Literal::from_value(v)))
                    .collect(),
            ),
        }
    }
}

impl PartialEq for Literal {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Literal::Null, Literal::Null) => true,
            (Literal::Bool(a), Literal::Bool(b)) => a == b,
            (Literal::Num(a), Literal::Num(b)) => a == b,
            (Literal::Str(a), Literal::Str(b)) => a == b,
            (Literal::Array(a), Literal::Array(b)) => a == b,
            (Literal::Object(a), Literal::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(k, v)| b.iter().any(|(k2, v2)| k == k2 && v == v2))
            }
            _ => false,
        }
    }
}

impl Serialize for Literal {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Literal::Null => serializer.serialize_unit(),
            Literal::Bool(b) => serializer.serialize_bool(*b),
            Literal::Num(n) => JsonNumber(*n).serialize(serializer),
            Literal::Str(s) => serializer.serialize_str(s),
            Literal::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items.iter() {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Literal::Object(entries) => {
                let mut map = serializer.serialize_map(Some(entries.len()))?;
                for (k, v) in entries.iter() {
                    map.serialize_entry(k.as_ref(), v)?;
                }
                map.end()
            }
        }
    }
}

/// A pointer to a child schema: `'static` in a `const`, boxed when read from JSON.
#[derive(Clone)]
pub enum SchemaRef {
    /// A schema living in a `const` (built by the derive).
    Static(&'static SchemaNode),
    /// A schema allocated at run time.
    Owned(Box<SchemaNode>),
}

impl Deref for SchemaRef {
    type Target = SchemaNode;
    fn deref(&self) -> &SchemaNode {
        match self {
            SchemaRef::Static(node) => node,
            SchemaRef::Owned(node) => node,
        }
    }
}

impl PartialEq for SchemaRef {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl fmt::Debug for SchemaRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// The node a [`SchemaRef`] points to (`Deref` is not `const`).
pub(crate) const fn deref(r: &SchemaRef) -> &SchemaNode {
    match r {
        SchemaRef::Static(node) => node,
        SchemaRef::Owned(node) => node,
    }
}

/// A [`Str`] in a `const fn` (where `Deref` is not `const`).
#[allow(clippy::ptr_arg, reason = "`Cow::deref` is not `const`")]
pub(crate) const fn str_of(s: &Str) -> &str {
    match s {
        Cow::Borrowed(s) => s,
        Cow::Owned(s) => s.as_str(),
    }
}

/// A `Cow` slice in a `const fn` (where `Deref` is not `const`).
#[allow(
    clippy::ptr_arg,
    reason = "`Deref` is not `const`: the match is the slice"
)]
pub(crate) const fn cow_slice<'a, T: Clone>(s: &'a Cow<'static, [T]>) -> &'a [T] {
    match s {
        Cow::Borrowed(s) => s,
        Cow::Owned(v) => v.as_slice(),
    }
}

/// A node's `properties`, empty when it has none (`const`, unlike `Cow::deref`).
pub(crate) const fn properties(node: &SchemaNode) -> &[Property] {
    match &node.properties {
        Some(Cow::Borrowed(p)) => p,
        Some(Cow::Owned(p)) => p.as_slice(),
        None => &[],
    }
}

/// A node's `oneOf` branches, empty when it has none.
pub(crate) const fn branches(node: &SchemaNode) -> &[SchemaNode] {
    match &node.one_of {
        Some(Cow::Borrowed(b)) => b,
        Some(Cow::Owned(b)) => b.as_slice(),
        None => &[],
    }
}

/// The `additionalProperties` keyword.
#[derive(Clone, Debug, PartialEq)]
pub enum AdditionalProperties {
    /// `true` (any extra property is allowed) or `false` (the object is closed).
    Bool(bool),
    /// Every extra property must match this schema.
    Schema(SchemaRef),
}

/// One entry of an object's `properties`, with whether it is `required`.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    pub(crate) name: Str,
    pub(crate) schema: SchemaNode,
    pub(crate) required: bool,
}

impl Property {
    /// A property named `name` with the given schema.
    #[must_use]
    pub const fn new(name: &'static str, schema: SchemaNode, required: bool) -> Self {
        Property {
            name: Cow::Borrowed(name),
            schema,
            required,
        }
    }

    /// A property whose schema is `T`'s; required unless `T` is optional (`Option<_>`).
    #[must_use]
    pub const fn of<T: crate::ToolArgs + ?Sized>(name: &'static str) -> Self {
        Property::new(name, T::SCHEMA, !T::OPTIONAL)
    }

    /// A property built at run time.
    #[must_use]
    pub fn owned(name: impl Into<Str>, schema: SchemaNode, required: bool) -> Self {
        Property {
            name: name.into(),
            schema,
            required,
        }
    }

    /// Marks the property as not required (`#[serde(default)]`).
    #[must_use]
    pub const fn optional(mut self) -> Self {
        self.required = false;
        self
    }

    /// The property's name on the wire.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The property's schema.
    #[must_use]
    pub const fn schema(&self) -> &SchemaNode {
        &self.schema
    }

    /// Whether the property is listed in `required`.
    #[must_use]
    pub const fn is_required(&self) -> bool {
        self.required
    }
}

/// A node of a tool-args schema: one of the seed's kinds (string, number, integer, boolean,
/// array, object), or a `oneOf` node.
///
/// Build one in a `const` with the constructors ([`SchemaNode::string`], …) and the `const`
/// builder methods, or read one from JSON with [`SchemaNode::from_json`]. The builder methods
/// check at compile time that a keyword fits the node's kind (`min_length` on an integer
/// fails the `const` evaluation with a message) and the rules of `pedelec_rules::constraint`
/// (bounds that leave a value, `min_length <= max_length`, `multiple_of > 0`).
///
/// The builders are meant for constants: a builder that replaces a string or list that was
/// allocated at run time leaks the old value (a `const fn` cannot run destructors).
#[derive(Clone)]
pub struct SchemaNode {
    pub(crate) kind: Option<SchemaKind>,
    pub(crate) description: Option<Str>,
    pub(crate) enum_values: Option<Cow<'static, [Literal]>>,
    /// A title for each `enum` value, in order (`#[arg(title = "…")]` on the variants of a
    /// string enum): shown to a person in an elicitation form (MCP's titled choices), never
    /// written into the argsSchema, whose wire form has no `title`.
    pub(crate) enum_titles: Option<&'static [&'static str]>,
    /// `#[arg(enum_names)]`: an elicitation form lists the titles as the legacy `enumNames`
    /// beside `enum`, rather than as a `oneOf` of `const`/`title` pairs.
    pub(crate) legacy_enum_names: bool,
    pub(crate) default: Option<Literal>,
    pub(crate) format: Option<Str>,
    pub(crate) min_length: Option<u64>,
    pub(crate) max_length: Option<u64>,
    pub(crate) pattern: Option<Str>,
    pub(crate) minimum: Option<Number>,
    pub(crate) maximum: Option<Number>,
    pub(crate) exclusive_minimum: Option<Number>,
    pub(crate) exclusive_maximum: Option<Number>,
    pub(crate) multiple_of: Option<Number>,
    pub(crate) items: Option<SchemaRef>,
    pub(crate) min_items: Option<u64>,
    pub(crate) max_items: Option<u64>,
    pub(crate) unique_items: Option<bool>,
    pub(crate) properties: Option<Cow<'static, [Property]>>,
    /// Names in `required` that are not among `properties` (accepted only by the lenient
    /// parser, for the JSON Schema Test Suite).
    pub(crate) required_extra: Cow<'static, [Str]>,
    pub(crate) additional_properties: Option<AdditionalProperties>,
    pub(crate) one_of: Option<Cow<'static, [SchemaNode]>>,
    /// `$ref`: the name of a `$defs` entry (`"#/$defs/<name>"` on the wire). Only recursive
    /// types refer to themselves this way; every other schema is inlined.
    pub(crate) reference: Option<Str>,
    /// The `$defs` entries this node brings: serialized at the root of whatever schema the
    /// node ends up in (a recursive type carries its own definition wherever it is used).
    pub(crate) defs: Option<Cow<'static, [Def]>>,
    /// `x-mcp-header` (MCP 2026-07-28): the `Mcp-Param-{name}` header an MCP client mirrors
    /// this argument into on the streamable HTTP transport.
    pub(crate) mcp_header: Option<Str>,
    /// A type deriving `ToolArgs` (without generic parameters), by reference to the
    /// `static` holding its schema: what lets types contain each other. Inlined wherever
    /// it is used, except inside itself: see [`Named`].
    pub(crate) named: Option<Named>,
}

/// The schema of a type deriving `ToolArgs`, by reference: its name and the `static` its
/// body lives in (`#[derive(ToolArgs)]` writes `__private::named!("Folder", body)`).
///
/// A `const` cannot contain itself, and the schemas of types that contain each other
/// (`Folder { files: Vec<File> }`, `File { parent: Option<Box<Folder>> }`) would: each
/// type's body is a `static`, and a schema points at it. Every reader treats the node as
/// its body (a node's own `description` replacing the body's), and stops where a type is
/// met again inside itself: there the wire form is `{"$ref": "#/$defs/<name>"}`, and
/// every type of that cycle gets its `$defs` entry at the root. A type on no cycle is
/// inlined as it always was.
#[derive(Clone, Copy)]
pub(crate) struct Named {
    pub(crate) name: &'static str,
    pub(crate) body: *const SchemaNode,
}

// SAFETY: `body` comes from a `&'static SchemaNode` (`SchemaNode::named` takes nothing
// else) of a type without interior mutability: shared reads only, from any thread.
#[allow(
    unsafe_code,
    reason = "the pointer is what lets two types' schemas name each other"
)]
unsafe impl Send for Named {}
// SAFETY: as above.
#[allow(
    unsafe_code,
    reason = "the pointer is what lets two types' schemas name each other"
)]
unsafe impl Sync for Named {}

impl Named {
    /// The type's body (a `const fn`: the `static` is read at compile time too).
    #[must_use]
    #[allow(
        unsafe_code,
        reason = "a reference would put the `static` in the `const`"
    )]
    pub(crate) const fn body(&self) -> &'static SchemaNode {
        // SAFETY: `body` was a `&'static SchemaNode` (see `SchemaNode::named`): valid for
        // the whole program, never mutated.
        unsafe { &*self.body }
    }

    /// The `$defs` name.
    #[must_use]
    pub(crate) const fn name(&self) -> &'static str {
        self.name
    }
}

impl PartialEq for Named {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.body, other.body)
    }
}

impl fmt::Debug for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Named({})", self.name)
    }
}

/// The body a node stands for: itself, or the body of the type it names (through
/// newtypes naming other types; a loop of newtypes stops after 32 steps).
pub(crate) const fn target(node: &SchemaNode) -> &SchemaNode {
    let mut node = node;
    let mut steps = 0;
    while let Some(named) = &node.named {
        if steps == 32 {
            break;
        }
        node = named.body();
        steps += 1;
    }
    node
}

/// The types a `const` walk of a schema is inside, innermost first: a walk reaching one
/// of them again is at a `$ref` (compared by name: a `const fn` cannot compare pointers).
#[derive(Clone, Copy)]
pub(crate) struct Path<'a> {
    name: &'static str,
    body: &'static SchemaNode,
    up: Option<&'a Path<'a>>,
}

impl<'a> Path<'a> {
    /// Inside the type `name`, whose body is `body`, inside `up`.
    pub(crate) const fn inside(
        name: &'static str,
        body: &'static SchemaNode,
        up: Option<&'a Path<'a>>,
    ) -> Self {
        Path { name, body, up }
    }

    /// The type's body.
    pub(crate) const fn body(&self) -> &'static SchemaNode {
        self.body
    }

    /// The entry of the type `name` on the path.
    pub(crate) const fn find<'b>(path: Option<&'b Path<'b>>, name: &str) -> Option<&'b Path<'b>> {
        let mut at = path;
        while let Some(p) = at {
            if pedelec_rules::str_eq(p.name, name) {
                return Some(p);
            }
            at = p.up;
        }
        None
    }

    /// Whether `name` is on the path.
    pub(crate) const fn has(path: Option<&Path<'_>>, name: &str) -> bool {
        Path::find(path, name).is_some()
    }
}

/// One step of a `const` walk into a node.
pub(crate) enum Step<'a> {
    /// The node names no type: read it.
    Plain(&'a SchemaNode),
    /// The node names a type met the first time on this path: read its body inside it.
    Enter(&'static str, &'static SchemaNode),
    /// The node names a type the walk is already inside: a `$ref` to it.
    Ref(&'static str),
}

/// Where a `const` walk along `path` goes at `node`.
pub(crate) const fn step<'a>(node: &'a SchemaNode, path: Option<&Path<'_>>) -> Step<'a> {
    match &node.named {
        None => Step::Plain(node),
        Some(named) if Path::has(path, named.name) => Step::Ref(named.name),
        Some(named) => Step::Enter(named.name, target(named.body())),
    }
}

/// Equality of what the schemas describe: a node naming a type (`SchemaNode::named`) equals the
/// type's schema written out.
impl PartialEq for SchemaNode {
    fn eq(&self, other: &Self) -> bool {
        if self.named.is_some() || other.named.is_some() {
            let (a, b) = (self.resolved(), other.resolved());
            return same_keywords(&a, &b);
        }
        same_keywords(self, other)
    }
}

fn same_keywords(a: &SchemaNode, b: &SchemaNode) -> bool {
    a.kind == b.kind
        && a.description == b.description
        && a.enum_values == b.enum_values
        && a.enum_titles == b.enum_titles
        && a.legacy_enum_names == b.legacy_enum_names
        && a.default == b.default
        && a.format == b.format
        && a.min_length == b.min_length
        && a.max_length == b.max_length
        && a.pattern == b.pattern
        && a.minimum == b.minimum
        && a.maximum == b.maximum
        && a.exclusive_minimum == b.exclusive_minimum
        && a.exclusive_maximum == b.exclusive_maximum
        && a.multiple_of == b.multiple_of
        && a.items == b.items
        && a.min_items == b.min_items
        && a.max_items == b.max_items
        && a.unique_items == b.unique_items
        && a.properties == b.properties
        && a.required_extra == b.required_extra
        && a.additional_properties == b.additional_properties
        && a.one_of == b.one_of
        && a.reference == b.reference
        && a.defs == b.defs
        && a.mcp_header == b.mcp_header
}

/// One `$defs` entry: the definition of a recursive type, named after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Def {
    pub(crate) name: Str,
    pub(crate) schema: SchemaRef,
}

impl Def {
    /// The entry `name` → `schema` (usable in a `const`).
    #[must_use]
    pub const fn new(name: &'static str, schema: &'static SchemaNode) -> Self {
        Def {
            name: Cow::Borrowed(name),
            schema: SchemaRef::Static(schema),
        }
    }

    /// The entry's name (the key under `$defs`).
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The definition.
    #[must_use]
    pub fn schema(&self) -> &SchemaNode {
        &self.schema
    }
}

/// A copy of `node` that borrows everything it holds (a `const fn` cannot clone).
const fn borrowed(node: &'static SchemaNode) -> SchemaNode {
    SchemaNode {
        kind: node.kind,
        description: borrowed_str(node.description.as_ref()),
        enum_values: match &node.enum_values {
            Some(values) => Some(Cow::Borrowed(cow_slice(values))),
            None => None,
        },
        enum_titles: node.enum_titles,
        legacy_enum_names: node.legacy_enum_names,
        default: match &node.default {
            Some(value) => Some(borrowed_literal(value)),
            None => None,
        },
        format: borrowed_str(node.format.as_ref()),
        min_length: node.min_length,
        max_length: node.max_length,
        pattern: borrowed_str(node.pattern.as_ref()),
        minimum: node.minimum,
        maximum: node.maximum,
        exclusive_minimum: node.exclusive_minimum,
        exclusive_maximum: node.exclusive_maximum,
        multiple_of: node.multiple_of,
        items: match &node.items {
            Some(items) => Some(SchemaRef::Static(deref(items))),
            None => None,
        },
        min_items: node.min_items,
        max_items: node.max_items,
        unique_items: node.unique_items,
        properties: match &node.properties {
            Some(p) => Some(Cow::Borrowed(cow_slice(p))),
            None => None,
        },
        required_extra: Cow::Borrowed(cow_slice(&node.required_extra)),
        additional_properties: match &node.additional_properties {
            Some(AdditionalProperties::Bool(b)) => Some(AdditionalProperties::Bool(*b)),
            Some(AdditionalProperties::Schema(values)) => Some(AdditionalProperties::Schema(
                SchemaRef::Static(deref(values)),
            )),
            None => None,
        },
        one_of: match &node.one_of {
            Some(b) => Some(Cow::Borrowed(cow_slice(b))),
            None => None,
        },
        reference: borrowed_str(node.reference.as_ref()),
        defs: match &node.defs {
            Some(d) => Some(Cow::Borrowed(cow_slice(d))),
            None => None,
        },
        mcp_header: borrowed_str(node.mcp_header.as_ref()),
        named: node.named,
    }
}

const fn borrowed_str(s: Option<&'static Str>) -> Option<Str> {
    match s {
        Some(s) => Some(Cow::Borrowed(str_of(s))),
        None => None,
    }
}

const fn borrowed_literal(value: &'static Literal) -> Literal {
    match value {
        Literal::Null => Literal::Null,
        Literal::Bool(b) => Literal::Bool(*b),
        Literal::Num(n) => Literal::Num(*n),
        Literal::Str(s) => Literal::Str(Cow::Borrowed(str_of(s))),
        Literal::Array(items) => Literal::Array(Cow::Borrowed(cow_slice(items))),
        Literal::Object(entries) => Literal::Object(Cow::Borrowed(cow_slice(entries))),
    }
}

/// Replaces a value in a `const fn` without running its destructor (see the type docs).
const fn set<T>(slot: &mut T, value: T) {
    std::mem::forget(std::mem::replace(slot, value));
}

/// Nothing to do beyond dropping the fields, but saying so makes every `const` of this type
/// cheaper to check. rustc's const checker asks, for each constant whose type has drop glue
/// (every `ToolArgs::SCHEMA`, each temporary in a schema's builder chain), whether the type
/// can be dropped in a `const`. Without a `Drop` impl it proves that field by field, through
/// this recursive type (its `Cow`s of properties and branches), again for every constant; a
/// `Drop` impl that is not `const` answers "no" at once, the same answer. Measured with
/// `cargo xtask compile-bench --profile`: `mir_const_qualif` of 100 argument schemas,
/// 64 ms → 42 ms, of a `cargo check` of 100 tools.
impl Drop for SchemaNode {
    fn drop(&mut self) {}
}

impl SchemaNode {
    /// A node with no `type` and no keyword: it accepts every value. Only the lenient
    /// parser produces one; the constructors below are what tool schemas use.
    #[must_use]
    pub const fn any() -> Self {
        SchemaNode {
            kind: None,
            description: None,
            enum_values: None,
            enum_titles: None,
            legacy_enum_names: false,
            default: None,
            format: None,
            min_length: None,
            max_length: None,
            pattern: None,
            minimum: None,
            maximum: None,
            exclusive_minimum: None,
            exclusive_maximum: None,
            multiple_of: None,
            items: None,
            min_items: None,
            max_items: None,
            unique_items: None,
            properties: None,
            required_extra: Cow::Borrowed(&[]),
            additional_properties: None,
            one_of: None,
            reference: None,
            defs: None,
            mcp_header: None,
            named: None,
        }
    }

    /// The schema of a type deriving `ToolArgs`, whose body is the `static` `body` and
    /// whose `$defs` entry, where it contains itself, is `name` (see [`Named`]): what the
    /// derive writes. The node keeps `body`'s address only, so that a `const` holding it
    /// does not hold the `static` (whose value could be this very `const`).
    #[doc(hidden)]
    #[must_use]
    pub const fn named(name: &'static str, body: &'static SchemaNode) -> Self {
        let mut node = SchemaNode::any();
        node.named = Some(Named {
            name,
            body: std::ptr::from_ref(body),
        });
        node
    }

    /// A node naming a type ([`Named`]) becomes a copy of the type's body (its own
    /// `description` kept), so that a keyword can be added to it: each builder but
    /// `with_description` starts here.
    pub(crate) const fn materialize(&mut self) {
        if let Some(named) = self.named {
            let mut body = borrowed(named.body());
            body.materialize();
            if self.description.is_some() {
                std::mem::swap(&mut body.description, &mut self.description);
            }
            set(self, body);
        }
    }

    /// The node, [materialized](Self::materialize).
    pub(crate) const fn materialized(mut self) -> Self {
        self.materialize();
        self
    }

    const fn of_kind(kind: SchemaKind) -> Self {
        let mut node = SchemaNode::any();
        node.kind = Some(kind);
        node
    }

    /// `{"type": "string"}`
    #[must_use]
    pub const fn string() -> Self {
        SchemaNode::of_kind(SchemaKind::String)
    }

    /// `{"type": "number"}`
    #[must_use]
    pub const fn number() -> Self {
        SchemaNode::of_kind(SchemaKind::Number)
    }

    /// `{"type": "integer"}`
    #[must_use]
    pub const fn integer() -> Self {
        SchemaNode::of_kind(SchemaKind::Integer)
    }

    /// `{"type": "boolean"}`
    #[must_use]
    pub const fn boolean() -> Self {
        SchemaNode::of_kind(SchemaKind::Boolean)
    }

    /// `{"type": "array", "items": items}`
    #[must_use]
    pub const fn array(items: &'static SchemaNode) -> Self {
        let mut node = SchemaNode::of_kind(SchemaKind::Array);
        set(&mut node.items, Some(SchemaRef::Static(items)));
        node
    }

    /// `{"type": "object", "properties": …, "required": […]}` with the properties in the
    /// given order. Extra properties are allowed until [`closed`](Self::closed) or
    /// [`additional_properties`](Self::additional_properties) says otherwise.
    #[must_use]
    pub const fn object(properties: &'static [Property]) -> Self {
        let mut node = SchemaNode::of_kind(SchemaKind::Object);
        set(&mut node.properties, Some(Cow::Borrowed(properties)));
        node
    }

    /// `{"type": "object", "additionalProperties": values}`: a map with string keys.
    #[must_use]
    pub const fn map(values: &'static SchemaNode) -> Self {
        let mut node = SchemaNode::of_kind(SchemaKind::Object);
        set(
            &mut node.additional_properties,
            Some(AdditionalProperties::Schema(SchemaRef::Static(values))),
        );
        node
    }

    /// `{"$ref": "#/$defs/<name>"}`: the value must match the `$defs` entry `name` (how a
    /// recursive type refers to itself).
    #[must_use]
    pub const fn reference(name: &'static str) -> Self {
        let mut node = SchemaNode::any();
        set(&mut node.reference, Some(Cow::Borrowed(name)));
        node
    }

    /// The node with the `$defs` entries `defs` attached: they are written at the root of
    /// the schema the node ends up in.
    #[must_use]
    pub const fn with_defs(mut self, defs: &'static [Def]) -> Self {
        set(&mut self.defs, Some(Cow::Borrowed(defs)));
        self
    }

    /// `{"oneOf": [...]}`: exactly one of the branches must match.
    #[must_use]
    pub const fn one_of(branches: &'static [SchemaNode]) -> Self {
        let mut node = SchemaNode::any();
        set(&mut node.one_of, Some(Cow::Borrowed(branches)));
        node
    }

    pub(crate) const fn is_kind(&self, kind: SchemaKind) -> bool {
        match self.kind {
            Some(k) => k as u8 == kind as u8,
            None => false,
        }
    }

    pub(crate) const fn is_numeric_kind(&self) -> bool {
        self.is_kind(SchemaKind::Integer) || self.is_kind(SchemaKind::Number)
    }

    /// `minimum`, `maximum` and the exclusive bounds, for the rules.
    pub(crate) const fn range(&self) -> Range {
        Range {
            minimum: self.minimum,
            maximum: self.maximum,
            exclusive_minimum: self.exclusive_minimum,
            exclusive_maximum: self.exclusive_maximum,
        }
    }

    /// Fails the `const` evaluation when the bounds leave no value (the rule of
    /// `pedelec_rules::constraint::check_range`).
    const fn assert_range(&self) {
        if let Err(problem) = check_range(&self.range(), self.is_kind(SchemaKind::Integer)) {
            panic!("{}", problem.summary());
        }
    }

    /// Sets `description`.
    #[must_use]
    pub const fn with_description(mut self, description: &'static str) -> Self {
        set(&mut self.description, Some(Cow::Borrowed(description)));
        self
    }

    /// Sets `enum`: the instance must equal one of `values`.
    #[must_use]
    pub const fn with_enum_values(mut self, values: &'static [Literal]) -> Self {
        self.materialize();
        set(&mut self.enum_values, Some(Cow::Borrowed(values)));
        self
    }

    /// Gives each `enum` value a title, in order: what an elicitation form shows a person
    /// instead of the value (MCP's titled single and multiple choices). The argsSchema is
    /// unchanged: its wire form has no `title`. Strings with an `enum` only, one title per
    /// value.
    #[must_use]
    pub const fn with_enum_titles(mut self, titles: &'static [&'static str]) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::String),
            "enum titles apply to string schemas only"
        );
        let Some(values) = &self.enum_values else {
            panic!("enum titles need an `enum` to give titles to")
        };
        assert!(
            cow_slice(values).len() == titles.len(),
            "enum titles: give exactly one title per `enum` value"
        );
        self.enum_titles = Some(titles);
        self
    }

    /// Makes an elicitation form list the titles as the legacy `enumNames` beside `enum`
    /// (what clients before MCP 2025-11-25 read) instead of a `oneOf` of `const`/`title`.
    /// Needs [`with_enum_titles`](Self::with_enum_titles).
    #[must_use]
    pub const fn with_legacy_enum_names(mut self) -> Self {
        self.materialize();
        assert!(
            self.enum_titles.is_some(),
            "`enumNames` lists the titles of a string enum's values; this schema has none"
        );
        self.legacy_enum_names = true;
        self
    }

    /// Sets `default` (an annotation for the model).
    #[must_use]
    pub const fn with_default(mut self, value: Literal) -> Self {
        self.materialize();
        set(&mut self.default, Some(value));
        self
    }

    /// Sets `format` (`"date-time"`, `"email"`, `"uri"`, …). Strings only.
    #[must_use]
    pub const fn with_format(mut self, format: &'static str) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::String),
            "`format` applies to string schemas only"
        );
        set(&mut self.format, Some(Cow::Borrowed(format)));
        self
    }

    /// Sets `minLength` (in Unicode code points). Strings only; at most `maxLength`.
    #[must_use]
    pub const fn with_min_length(mut self, n: u64) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::String),
            "`min_length` applies to string schemas only"
        );
        self.min_length = Some(n);
        if let Err(problem) = check_lengths(self.min_length, self.max_length) {
            panic!("{}", problem.summary());
        }
        self
    }

    /// Sets `maxLength` (in Unicode code points). Strings only; at least `minLength`.
    #[must_use]
    pub const fn with_max_length(mut self, n: u64) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::String),
            "`max_length` applies to string schemas only"
        );
        self.max_length = Some(n);
        if let Err(problem) = check_lengths(self.min_length, self.max_length) {
            panic!("{}", problem.summary());
        }
        self
    }

    /// Sets `pattern` (an ECMA-262 regular expression, matched anywhere in the string).
    /// Strings only.
    #[must_use]
    pub const fn with_pattern(mut self, pattern: &'static str) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::String),
            "`pattern` applies to string schemas only"
        );
        set(&mut self.pattern, Some(Cow::Borrowed(pattern)));
        self
    }

    /// Sets `x-mcp-header` (MCP 2026-07-28, SEP-2243): on the streamable HTTP transport, a
    /// client calling the tool sends this argument's value in an `Mcp-Param-{name}` header
    /// too, so a load balancer or gateway can route on it without reading the body, and
    /// [`McpHttp`](crate::bridge::McpHttp) refuses a call whose header and body disagree
    /// (`400`, `-32020`). Strings, integers and booleans only; `name` is an RFC 9110 token
    /// (letters, digits and ``!#$%&'*+-.^_`|~``), unique case-insensitively within the tool,
    /// on a property reached from the root through `properties` alone. Other exports (the
    /// model providers') leave it out. Header values are visible to every intermediary:
    /// never mark a secret this way.
    #[must_use]
    pub const fn with_mcp_header(mut self, name: &'static str) -> Self {
        self.materialize();
        assert!(
            matches!(
                self.kind,
                Some(SchemaKind::String | SchemaKind::Integer | SchemaKind::Boolean)
            ),
            "`mcp_header` applies to string, integer and boolean schemas only (MCP mirrors no number, array or object into a header)"
        );
        if let Some(problem) = pedelec_rules::mcp_header::header_name_problem(name) {
            panic!("{}", problem);
        }
        set(&mut self.mcp_header, Some(Cow::Borrowed(name)));
        self
    }

    /// Sets `minimum`. Numbers and integers only; the bounds must leave a value.
    #[must_use]
    pub const fn with_minimum(mut self, n: Number) -> Self {
        self.materialize();
        assert!(
            self.is_numeric_kind(),
            "`minimum` applies to number and integer schemas only"
        );
        self.minimum = Some(n);
        self.assert_range();
        self
    }

    /// Sets `maximum`. Numbers and integers only; the bounds must leave a value.
    #[must_use]
    pub const fn with_maximum(mut self, n: Number) -> Self {
        self.materialize();
        assert!(
            self.is_numeric_kind(),
            "`maximum` applies to number and integer schemas only"
        );
        self.maximum = Some(n);
        self.assert_range();
        self
    }

    /// Sets `exclusiveMinimum`. Numbers and integers only; the bounds must leave a value.
    #[must_use]
    pub const fn with_exclusive_minimum(mut self, n: Number) -> Self {
        self.materialize();
        assert!(
            self.is_numeric_kind(),
            "`exclusive_minimum` applies to number and integer schemas only"
        );
        self.exclusive_minimum = Some(n);
        self.assert_range();
        self
    }

    /// Sets `exclusiveMaximum`. Numbers and integers only; the bounds must leave a value.
    #[must_use]
    pub const fn with_exclusive_maximum(mut self, n: Number) -> Self {
        self.materialize();
        assert!(
            self.is_numeric_kind(),
            "`exclusive_maximum` applies to number and integer schemas only"
        );
        self.exclusive_maximum = Some(n);
        self.assert_range();
        self
    }

    /// Sets `multipleOf` (must be positive). Numbers and integers only.
    #[must_use]
    pub const fn with_multiple_of(mut self, n: Number) -> Self {
        self.materialize();
        assert!(
            self.is_numeric_kind(),
            "`multiple_of` applies to number and integer schemas only"
        );
        if let Err(problem) = check_multiple_of(n) {
            panic!("{}", problem.summary());
        }
        self.multiple_of = Some(n);
        self
    }

    /// Sets `minItems`. Arrays only; at most `maxItems`.
    #[must_use]
    pub const fn with_min_items(mut self, n: u64) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::Array),
            "`min_items` applies to array schemas only"
        );
        self.min_items = Some(n);
        if let Err(problem) = check_item_counts(self.min_items, self.max_items) {
            panic!("{}", problem.summary());
        }
        self
    }

    /// Sets `maxItems`. Arrays only; at least `minItems`.
    #[must_use]
    pub const fn with_max_items(mut self, n: u64) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::Array),
            "`max_items` applies to array schemas only"
        );
        self.max_items = Some(n);
        if let Err(problem) = check_item_counts(self.min_items, self.max_items) {
            panic!("{}", problem.summary());
        }
        self
    }

    /// Sets `uniqueItems`. Arrays only.
    #[must_use]
    pub const fn with_unique_items(mut self, unique: bool) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::Array),
            "`unique_items` applies to array schemas only"
        );
        self.unique_items = Some(unique);
        self
    }

    /// `additionalProperties: false`: unknown properties are errors. Objects only.
    #[must_use]
    pub const fn closed(mut self) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::Object),
            "`additionalProperties` applies to object schemas only"
        );
        set(
            &mut self.additional_properties,
            Some(AdditionalProperties::Bool(false)),
        );
        self
    }

    /// `additionalProperties: <schema>`: every extra property must match `schema`.
    /// Objects only.
    #[must_use]
    pub const fn with_additional_properties(mut self, schema: &'static SchemaNode) -> Self {
        self.materialize();
        assert!(
            self.is_kind(SchemaKind::Object),
            "`additionalProperties` applies to object schemas only"
        );
        set(
            &mut self.additional_properties,
            Some(AdditionalProperties::Schema(SchemaRef::Static(schema))),
        );
        self
    }

    // ----- accessors -----

    /// The node's `type`; `None` for a `oneOf` node (or a type-less lenient node).
    #[must_use]
    pub const fn kind(&self) -> Option<SchemaKind> {
        target(self).kind
    }

    /// `true` when the node is `{"type": "object", …}`: what the root of an argsSchema
    /// must be. Usable in a `const`.
    #[must_use]
    pub const fn is_object(&self) -> bool {
        target(self).is_kind(SchemaKind::Object)
    }

    /// `true` when the node is a form a person can fill in: an object whose properties
    /// are strings, numbers, integers or booleans, or arrays of strings from an `enum`
    /// (a multiple choice), with no `oneOf` and nothing nested. MCP's elicitation asks only
    /// for such schemas. Usable in a `const`: `ctx.elicit::<T>` checks it at compile time.
    #[must_use]
    pub const fn is_flat_form(&self) -> bool {
        let this = target(self);
        if !this.is_object() || this.one_of.is_some() {
            return false;
        }
        let properties = properties(this);
        let mut i = 0;
        while i < properties.len() {
            let node = target(&properties[i].schema);
            let flat = match node.kind {
                Some(
                    SchemaKind::String
                    | SchemaKind::Number
                    | SchemaKind::Integer
                    | SchemaKind::Boolean,
                ) => node.one_of.is_none(),
                Some(SchemaKind::Array) => match &node.items {
                    Some(items) => {
                        let items = target(deref(items));
                        items.is_kind(SchemaKind::String) && items.enum_values.is_some()
                    }
                    None => false,
                },
                _ => false,
            };
            if !flat {
                return false;
            }
            i += 1;
        }
        true
    }

    /// `description`
    #[must_use]
    pub fn description(&self) -> Option<&str> {
        self.description
            .as_deref()
            .or(target(self).description.as_deref())
    }

    /// `enum`
    #[must_use]
    pub fn enum_values(&self) -> Option<&[Literal]> {
        target(self).enum_values.as_deref()
    }

    /// The titles of the `enum` values, in order, when they have some
    /// ([`with_enum_titles`](Self::with_enum_titles)).
    #[must_use]
    pub const fn enum_titles(&self) -> Option<&'static [&'static str]> {
        target(self).enum_titles
    }

    /// Whether an elicitation form lists the titles as `enumNames`
    /// ([`with_legacy_enum_names`](Self::with_legacy_enum_names)).
    #[must_use]
    pub const fn lists_enum_names(&self) -> bool {
        target(self).legacy_enum_names
    }

    /// `default`
    #[must_use]
    pub const fn default_value(&self) -> Option<&Literal> {
        target(self).default.as_ref()
    }

    /// `format`
    #[must_use]
    pub fn format(&self) -> Option<&str> {
        target(self).format.as_deref()
    }

    /// `minLength`
    #[must_use]
    pub const fn min_length(&self) -> Option<u64> {
        target(self).min_length
    }

    /// `maxLength`
    #[must_use]
    pub const fn max_length(&self) -> Option<u64> {
        target(self).max_length
    }

    /// `pattern`
    #[must_use]
    pub fn pattern(&self) -> Option<&str> {
        target(self).pattern.as_deref()
    }

    /// `x-mcp-header`: the `Mcp-Param-*` header an MCP client mirrors this argument into.
    #[must_use]
    pub fn mcp_header(&self) -> Option<&str> {
        target(self).mcp_header.as_deref()
    }

    /// `minimum`
    #[must_use]
    pub const fn minimum(&self) -> Option<Number> {
        target(self).minimum
    }

    /// `maximum`
    #[must_use]
    pub const fn maximum(&self) -> Option<Number> {
        target(self).maximum
    }

    /// `exclusiveMinimum`
    #[must_use]
    pub const fn exclusive_minimum(&self) -> Option<Number> {
        target(self).exclusive_minimum
    }

    /// `exclusiveMaximum`
    #[must_use]
    pub const fn exclusive_maximum(&self) -> Option<Number> {
        target(self).exclusive_maximum
    }

    /// `multipleOf`
    #[must_use]
    pub const fn multiple_of(&self) -> Option<Number> {
        target(self).multiple_of
    }

    /// `items`
    #[must_use]
    pub fn items(&self) -> Option<&SchemaNode> {
        target(self).items.as_deref()
    }

    /// `minItems`
    #[must_use]
    pub const fn min_items(&self) -> Option<u64> {
        target(self).min_items
    }

    /// `maxItems`
    #[must_use]
    pub const fn max_items(&self) -> Option<u64> {
        target(self).max_items
    }

    /// `uniqueItems`
    #[must_use]
    pub const fn unique_items(&self) -> Option<bool> {
        target(self).unique_items
    }

    /// `properties`, in declaration order.
    #[must_use]
    pub fn properties(&self) -> &[Property] {
        target(self).properties.as_deref().unwrap_or(&[])
    }

    /// The property named `name`.
    #[must_use]
    pub fn property(&self, name: &str) -> Option<&Property> {
        self.properties().iter().find(|p| p.name() == name)
    }

    /// `required`: the required properties in declaration order.
    pub fn required(&self) -> impl Iterator<Item = &str> {
        self.properties()
            .iter()
            .filter(|p| p.required)
            .map(Property::name)
            .chain(target(self).required_extra.iter().map(AsRef::as_ref))
    }

    /// `additionalProperties`
    #[must_use]
    pub const fn additional_properties(&self) -> Option<&AdditionalProperties> {
        target(self).additional_properties.as_ref()
    }

    /// `oneOf`
    #[must_use]
    pub fn one_of_branches(&self) -> Option<&[SchemaNode]> {
        target(self).one_of.as_deref()
    }

    /// The `$defs` entry `$ref` names (`Filter` for `"#/$defs/Filter"`).
    #[must_use]
    pub fn reference_name(&self) -> Option<&str> {
        target(self).reference.as_deref()
    }

    /// The `$defs` entries this node brings (see [`definitions`](Self::definitions) for
    /// every entry of a schema).
    #[must_use]
    pub fn defs(&self) -> &[Def] {
        self.defs.as_deref().unwrap_or(&[])
    }

    /// Every `$defs` entry of the schema rooted here, each name once, in the order they are
    /// met (depth first): what its `$ref`s resolve against. Empty for every schema without
    /// a recursive type.
    #[must_use]
    pub fn definitions(&self) -> Vec<&Def> {
        let mut out = Vec::new();
        collect_defs(self, &mut out, &mut Vec::new());
        out
    }

    /// The `$defs` entry named `name` among [`definitions`](Self::definitions).
    #[must_use]
    pub fn definition(&self, name: &str) -> Option<&SchemaNode> {
        self.definitions()
            .into_iter()
            .find(|d| d.name() == name)
            .map(Def::schema)
    }

    // ----- run-time setters (no leak) -----

    /// Sets `description` at run time.
    pub fn set_description(&mut self, description: impl Into<Str>) {
        self.description = Some(description.into());
    }

    /// The node as its wire JSON.
    #[must_use]
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl fmt::Debug for SchemaNode {
    /// Debug output is the wire JSON: short and readable.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match serde_json::to_string(self) {
            Ok(s) => f.write_str(&s),
            Err(_) => f.write_str("SchemaNode(<unserializable>)"),
        }
    }
}

impl fmt::Display for SchemaNode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Adds the `$defs` entries of the tree rooted at `node` to `out` (each name once).
/// `entered`: the derived types (by their `static` body) already walked into, so that a type
/// that contains itself (a schema before [`resolved`](SchemaNode::resolved)) is walked once.
fn collect_defs<'a>(node: &'a SchemaNode, out: &mut Vec<&'a Def>, entered: &mut Vec<&'a Named>) {
    if let Some(named) = &node.named {
        if entered.contains(&named) {
            return;
        }
        entered.push(named);
    }
    for def in node.defs() {
        if !out.iter().any(|d| d.name == def.name) {
            out.push(def);
            collect_defs(&def.schema, out, entered);
        }
    }
    if let Some(items) = &node.items {
        collect_defs(items, out, entered);
    }
    for p in node.properties() {
        collect_defs(&p.schema, out, entered);
    }
    if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties {
        collect_defs(values, out, entered);
    }
    for b in node.one_of_branches().unwrap_or(&[]) {
        collect_defs(b, out, entered);
    }
}

/// A node inside a schema: its keywords without `$defs` (written once, at the root).
struct Inner<'a>(&'a SchemaNode);

impl Serialize for Inner<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.0.serialize_keywords(&mut map)?;
        map.end()
    }
}

/// The root's `$defs`.
struct DefsMap<'a>(Vec<&'a Def>);

impl Serialize for DefsMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for def in &self.0 {
            map.serialize_entry(def.name(), &Inner(&def.schema))?;
        }
        map.end()
    }
}

/// `"#/$defs/<name>"`
struct RefTarget<'a>(&'a str);

impl Serialize for RefTarget<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&format_args!("#/$defs/{}", EscapedToken(self.0)))
    }
}

/// A JSON pointer token, escaped (`~` → `~0`, `/` → `~1`), in a URI fragment (`%`, `"`,
/// spaces and other characters a fragment cannot hold percent-encoded).
struct EscapedToken<'a>(&'a str);

impl fmt::Display for EscapedToken<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in self.0.chars() {
            match c {
                '~' => f.write_str("~0")?,
                '/' => f.write_str("~1")?,
                c if c.is_ascii_alphanumeric() || "-._!$&'()*+,;=:@".contains(c) => {
                    fmt::Write::write_char(f, c)?;
                }
                c => {
                    let mut buf = [0u8; 4];
                    for b in c.encode_utf8(&mut buf).bytes() {
                        write!(f, "%{b:02X}")?;
                    }
                }
            }
        }
        Ok(())
    }
}

struct PropertiesMap<'a>(&'a [Property]);

impl Serialize for PropertiesMap<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for p in self.0 {
            map.serialize_entry(p.name(), &Inner(p.schema()))?;
        }
        map.end()
    }
}

struct RequiredList<'a>(&'a SchemaNode);

impl Serialize for RequiredList<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.required())
    }
}

impl Serialize for AdditionalProperties {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            AdditionalProperties::Bool(b) => serializer.serialize_bool(*b),
            AdditionalProperties::Schema(s) => Inner(s).serialize(serializer),
        }
    }
}

/// The wire form of `node`, a schema naming no type (see `resolve`).
pub(crate) fn serialize_root<S: Serializer>(
    node: &SchemaNode,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(None)?;
    node.serialize_keywords(&mut map)?;
    let defs = node.definitions();
    if !defs.is_empty() {
        map.serialize_entry("$defs", &DefsMap(defs))?;
    }
    map.end()
}

impl SchemaNode {
    fn serialize_keywords<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        if let Some(name) = &self.reference {
            map.serialize_entry("$ref", &RefTarget(name))?;
        }
        if let Some(kind) = self.kind {
            map.serialize_entry("type", kind.as_str())?;
        }
        if let Some(d) = &self.description {
            map.serialize_entry("description", d.as_ref())?;
        }
        if let Some(h) = &self.mcp_header {
            map.serialize_entry("x-mcp-header", h.as_ref())?;
        }
        if let Some(e) = &self.enum_values {
            map.serialize_entry("enum", e.as_ref())?;
        }
        if let Some(d) = &self.default {
            map.serialize_entry("default", d)?;
        }
        if let Some(f) = &self.format {
            map.serialize_entry("format", f.as_ref())?;
        }
        if let Some(n) = self.min_length {
            map.serialize_entry("minLength", &n)?;
        }
        if let Some(n) = self.max_length {
            map.serialize_entry("maxLength", &n)?;
        }
        if let Some(p) = &self.pattern {
            map.serialize_entry("pattern", p.as_ref())?;
        }
        if let Some(n) = self.minimum {
            map.serialize_entry("minimum", &JsonNumber(n))?;
        }
        if let Some(n) = self.maximum {
            map.serialize_entry("maximum", &JsonNumber(n))?;
        }
        if let Some(n) = self.exclusive_minimum {
            map.serialize_entry("exclusiveMinimum", &JsonNumber(n))?;
        }
        if let Some(n) = self.exclusive_maximum {
            map.serialize_entry("exclusiveMaximum", &JsonNumber(n))?;
        }
        if let Some(n) = self.multiple_of {
            map.serialize_entry("multipleOf", &JsonNumber(n))?;
        }
        if let Some(items) = &self.items {
            map.serialize_entry("items", &Inner(items))?;
        }
        if let Some(n) = self.min_items {
            map.serialize_entry("minItems", &n)?;
        }
        if let Some(n) = self.max_items {
            map.serialize_entry("maxItems", &n)?;
        }
        if let Some(u) = self.unique_items {
            map.serialize_entry("uniqueItems", &u)?;
        }
        if let Some(props) = &self.properties {
            map.serialize_entry("properties", &PropertiesMap(props))?;
        }
        if self.required().next().is_some() {
            map.serialize_entry("required", &RequiredList(self))?;
        }
        if let Some(a) = &self.additional_properties {
            map.serialize_entry("additionalProperties", a)?;
        }
        if let Some(branches) = &self.one_of {
            map.serialize_entry("oneOf", &Branches(branches))?;
        }
        Ok(())
    }
}

struct Branches<'a>(&'a [SchemaNode]);

impl Serialize for Branches<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(Inner))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const ITEM: SchemaNode = SchemaNode::string().with_min_length(1);
    const ARGS: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "delta",
                    SchemaNode::integer()
                        .with_minimum(Number::Int(-100))
                        .with_maximum(Number::Int(100)),
                    true,
                ),
                Property::new(
                    "tags",
                    SchemaNode::array(const { &ITEM }).with_unique_items(true),
                    false,
                ),
            ]
        },
    )
    .with_description("Counter args.")
    .closed();

    #[test]
    fn builders_enforce_the_constraint_rules() {
        let message = |build: fn() -> SchemaNode| {
            let payload = std::panic::catch_unwind(build).expect_err("the builder must refuse");
            payload
                .downcast_ref::<&str>()
                .map(ToString::to_string)
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_default()
        };
        assert_eq!(
            message(|| SchemaNode::integer()
                .with_minimum(Number::Int(10))
                .with_maximum(Number::Int(1))),
            "`minimum` is greater than `maximum`: no number can match"
        );
        assert_eq!(
            message(|| SchemaNode::integer()
                .with_exclusive_minimum(Number::Float(1.5))
                .with_maximum(Number::Float(1.9))),
            "`exclusive_minimum` and `maximum` leave no integer that can match"
        );
        assert_eq!(
            message(|| SchemaNode::string().with_max_length(1).with_min_length(2)),
            "`min_length` is greater than `max_length`: no string can match"
        );
        assert_eq!(
            message(|| SchemaNode::number().with_multiple_of(Number::Int(0))),
            "`multiple_of` must be greater than 0"
        );
        // The same bounds on a number schema leave a value.
        let _ = SchemaNode::number()
            .with_exclusive_minimum(Number::Float(1.5))
            .with_maximum(Number::Float(1.9));
    }

    #[test]
    fn const_node_serializes_to_wire_form() {
        assert_eq!(
            serde_json::to_string(&ARGS).unwrap(),
            json!({
                "type": "object",
                "description": "Counter args.",
                "properties": {
                    "delta": {"type": "integer", "minimum": -100, "maximum": 100},
                    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "uniqueItems": true}
                },
                "required": ["delta"],
                "additionalProperties": false
            })
            .to_string()
        );
        // Declaration order survives a trip through `Value` (serde_json's `preserve_order`).
        assert_eq!(
            ARGS.to_json().to_string(),
            serde_json::to_string(&ARGS).unwrap()
        );
    }

    #[test]
    fn literal_equality_is_json_equality() {
        let a = Literal::from_value(&json!({"a": 1, "b": [1.0, "x"]}));
        let b = Literal::from_value(&json!({"b": [1, "x"], "a": 1.0}));
        assert_eq!(a, b);
        assert_ne!(Literal::Bool(false), Literal::Num(Number::Int(0)));
    }
}
