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
#[derive(Clone, PartialEq)]
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
    /// `$ref`: the name of a `$defs` entry (`"#/$defs/<name>"` on the wire). Only a
    /// recursive type refers to itself this way; every other schema is inlined.
    pub(crate) reference: Option<Str>,
    /// The `$defs` entries this node brings: serialized at the root of whatever schema the
    /// node ends up in (a recursive type carries its own definition wherever it is used).
    pub(crate) defs: Option<Cow<'static, [Def]>>,
    /// `x-mcp-header` (MCP 2026-07-28): the `Mcp-Param-{name}` header an MCP client mirrors
    /// this argument into on the streamable HTTP transport.
    pub(crate) mcp_header: Option<Str>,
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
        }
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
        set(&mut self.enum_values, Some(Cow::Borrowed(values)));
        self
    }

    /// Gives each `enum` value a title, in order: what an elicitation form shows a person
    /// instead of the value (MCP's titled single and multiple choices). The argsSchema is
    /// unchanged: its wire form has no `title`. Strings with an `enum` only, one title per
    /// value.
    #[must_use]
    pub const fn with_enum_titles(mut self, titles: &'static [&'static str]) -> Self {
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
        set(&mut self.default, Some(value));
        self
    }

    /// Sets `format` (`"date-time"`, `"email"`, `"uri"`, …). Strings only.
    #[must_use]
    pub const fn with_format(mut self, format: &'static str) -> Self {
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
        self.kind
    }

    /// `true` when the node is `{"type": "object", …}`: what the root of an argsSchema
    /// must be. Usable in a `const`.
    #[must_use]
    pub const fn is_object(&self) -> bool {
        self.is_kind(SchemaKind::Object)
    }

    /// `true` when the node is a form a person can fill in: an object whose properties
    /// are strings, numbers, integers or booleans, or arrays of strings from an `enum`
    /// (a multiple choice), with no `oneOf` and nothing nested. MCP's elicitation asks only
    /// for such schemas. Usable in a `const`: `ctx.elicit::<T>` checks it at compile time.
    #[must_use]
    pub const fn is_flat_form(&self) -> bool {
        if !self.is_object() || self.one_of.is_some() {
            return false;
        }
        let properties: &[Property] = match &self.properties {
            None => &[],
            Some(Cow::Borrowed(properties)) => properties,
            Some(Cow::Owned(properties)) => properties.as_slice(),
        };
        let mut i = 0;
        while i < properties.len() {
            let node = &properties[i].schema;
            let flat = match node.kind {
                Some(
                    SchemaKind::String
                    | SchemaKind::Number
                    | SchemaKind::Integer
                    | SchemaKind::Boolean,
                ) => node.one_of.is_none(),
                Some(SchemaKind::Array) => match &node.items {
                    Some(SchemaRef::Static(items)) => {
                        items.is_kind(SchemaKind::String) && items.enum_values.is_some()
                    }
                    Some(SchemaRef::Owned(items)) => {
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
        self.description.as_deref()
    }

    /// `enum`
    #[must_use]
    pub fn enum_values(&self) -> Option<&[Literal]> {
        self.enum_values.as_deref()
    }

    /// The titles of the `enum` values, in order, when they have some
    /// ([`with_enum_titles`](Self::with_enum_titles)).
    #[must_use]
    pub const fn enum_titles(&self) -> Option<&'static [&'static str]> {
        self.enum_titles
    }

    /// Whether an elicitation form lists the titles as `enumNames`
    /// ([`with_legacy_enum_names`](Self::with_legacy_enum_names)).
    #[must_use]
    pub const fn lists_enum_names(&self) -> bool {
        self.legacy_enum_names
    }

    /// `default`
    #[must_use]
    pub const fn default_value(&self) -> Option<&Literal> {
        self.default.as_ref()
    }

    /// `format`
    #[must_use]
    pub fn format(&self) -> Option<&str> {
        self.format.as_deref()
    }

    /// `minLength`
    #[must_use]
    pub const fn min_length(&self) -> Option<u64> {
        self.min_length
    }

    /// `maxLength`
    #[must_use]
    pub const fn max_length(&self) -> Option<u64> {
        self.max_length
    }

    /// `pattern`
    #[must_use]
    pub fn pattern(&self) -> Option<&str> {
        self.pattern.as_deref()
    }

    /// `x-mcp-header`: the `Mcp-Param-*` header an MCP client mirrors this argument into.
    #[must_use]
    pub fn mcp_header(&self) -> Option<&str> {
        self.mcp_header.as_deref()
    }

    /// `minimum`
    #[must_use]
    pub const fn minimum(&self) -> Option<Number> {
        self.minimum
    }

    /// `maximum`
    #[must_use]
    pub const fn maximum(&self) -> Option<Number> {
        self.maximum
    }

    /// `exclusiveMinimum`
    #[must_use]
    pub const fn exclusive_minimum(&self) -> Option<Number> {
        self.exclusive_minimum
    }

    /// `exclusiveMaximum`
    #[must_use]
    pub const fn exclusive_maximum(&self) -> Option<Number> {
        self.exclusive_maximum
    }

    /// `multipleOf`
    #[must_use]
    pub const fn multiple_of(&self) -> Option<Number> {
        self.multiple_of
    }

    /// `items`
    #[must_use]
    pub fn items(&self) -> Option<&SchemaNode> {
        self.items.as_deref()
    }

    /// `minItems`
    #[must_use]
    pub const fn min_items(&self) -> Option<u64> {
        self.min_items
    }

    /// `maxItems`
    #[must_use]
    pub const fn max_items(&self) -> Option<u64> {
        self.max_items
    }

    /// `uniqueItems`
    #[must_use]
    pub const fn unique_items(&self) -> Option<bool> {
        self.unique_items
    }

    /// `properties`, in declaration order.
    #[must_use]
    pub fn properties(&self) -> &[Property] {
        self.properties.as_deref().unwrap_or(&[])
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
            .chain(self.required_extra.iter().map(AsRef::as_ref))
    }

    /// `additionalProperties`
    #[must_use]
    pub const fn additional_properties(&self) -> Option<&AdditionalProperties> {
        self.additional_properties.as_ref()
    }

    /// `oneOf`
    #[must_use]
    pub fn one_of_branches(&self) -> Option<&[SchemaNode]> {
        self.one_of.as_deref()
    }

    /// The `$defs` entry `$ref` names (`Filter` for `"#/$defs/Filter"`).
    #[must_use]
    pub fn reference_name(&self) -> Option<&str> {
        self.reference.as_deref()
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
        collect_defs(self, &mut out);
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
fn collect_defs<'a>(node: &'a SchemaNode, out: &mut Vec<&'a Def>) {
    for def in node.defs() {
        if !out.iter().any(|d| d.name == def.name) {
            out.push(def);
            collect_defs(&def.schema, out);
        }
    }
    if let Some(items) = &node.items {
        collect_defs(items, out);
    }
    for p in node.properties() {
        collect_defs(&p.schema, out);
    }
    if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties {
        collect_defs(values, out);
    }
    for b in node.one_of_branches().unwrap_or(&[]) {
        collect_defs(b, out);
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

impl Serialize for SchemaNode {
    /// The wire form: standard JSON Schema keywords only, `properties` in declaration order,
    /// and, when the schema holds a recursive type, its `$defs` last.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        self.serialize_keywords(&mut map)?;
        let defs = self.definitions();
        if !defs.is_empty() {
            map.serialize_entry("$defs", &DefsMap(defs))?;
        }
        map.end()
    }
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
