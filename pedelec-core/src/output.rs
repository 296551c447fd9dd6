//! What a tool returns, described for MCP hosts: [`ToolOutput`] (the `const` schema of a
//! result type, from its `Serialize` shape), [`OutputSchema`] (the `outputSchema` a tool
//! lists, always an object) and [`ToolAnnotations`] (MCP's behaviour hints).
//!
//! None of this enters Core's manifest: it is MCP-only metadata, read from
//! [`ToolDefinition`](crate::ToolDefinition)'s `title()`, `annotations()` and
//! `output_schema()`.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::fmt;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::schema::{Literal, MapKey, SchemaNode, ToolArgs};

/// A result type whose JSON shape is known at compile time: a tool returning it lists an
/// `outputSchema` over MCP and returns conforming `structuredContent`.
///
/// Derive it with `#[derive(Serialize, ToolOutput)]`; the derive reads serde's attributes
/// (`rename`, `rename_all`, `skip_serializing`, `skip_serializing_if`, enum tagging) so the
/// schema is what serializes. It is implemented here for strings, numbers, booleans,
/// sequences, sets, string-keyed maps, `Option` (the value or `null`), `Box`, `Arc` and
/// `Rc`. `serde_json::Value` and `()` have none: a tool returning them lists no schema
/// (never an empty `{}`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no output schema",
    label = "this type does not implement `ToolOutput`",
    note = "derive it with `#[derive(Serialize, pedelec::ToolOutput)]`, or implement `ToolOutput` by hand"
)]
pub trait ToolOutput: Serialize {
    /// The schema of the serialized value, fully inlined.
    const OUTPUT_SCHEMA: SchemaNode;

    /// `true` for [`Content`]: the value is a list of MCP content blocks (text, images,
    /// audio, resources), which the MCP bridges answer as the call's `content` instead of
    /// JSON text and `structuredContent`.
    const CONTENT: bool = false;
}

/// Leaf types: their output schema is their argument schema (one type mapping).
macro_rules! same_as_args {
    ($($ty:ty),* $(,)?) => {$(
        impl ToolOutput for $ty {
            const OUTPUT_SCHEMA: SchemaNode = <$ty as ToolArgs>::SCHEMA;
        }
    )*};
}

same_as_args!(
    bool, char, String, str, PathBuf, i8, i16, i32, i64, isize, u8, u16, u32, u64, usize, f32, f64,
);

impl ToolOutput for Cow<'_, str> {
    const OUTPUT_SCHEMA: SchemaNode = SchemaNode::string();
}

macro_rules! sequence {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: ToolOutput> ToolOutput for $ty<T> {
            const OUTPUT_SCHEMA: SchemaNode = SchemaNode::array(const { &T::OUTPUT_SCHEMA });
        }
    )*};
}

sequence!(Vec, VecDeque);

impl<T: ToolOutput> ToolOutput for [T] {
    const OUTPUT_SCHEMA: SchemaNode = SchemaNode::array(const { &T::OUTPUT_SCHEMA });
}

impl<T: ToolOutput, const N: usize> ToolOutput for [T; N]
where
    [T; N]: Serialize,
{
    const OUTPUT_SCHEMA: SchemaNode = SchemaNode::array(const { &T::OUTPUT_SCHEMA })
        .with_min_items(N as u64)
        .with_max_items(N as u64);
}

impl<T: ToolOutput, S> ToolOutput for HashSet<T, S> {
    const OUTPUT_SCHEMA: SchemaNode =
        SchemaNode::array(const { &T::OUTPUT_SCHEMA }).with_unique_items(true);
}

impl<T: ToolOutput> ToolOutput for BTreeSet<T> {
    const OUTPUT_SCHEMA: SchemaNode =
        SchemaNode::array(const { &T::OUTPUT_SCHEMA }).with_unique_items(true);
}

impl<K: MapKey + Serialize, V: ToolOutput, S> ToolOutput for HashMap<K, V, S> {
    const OUTPUT_SCHEMA: SchemaNode = SchemaNode::map(const { &V::OUTPUT_SCHEMA });
}

impl<K: MapKey + Serialize, V: ToolOutput> ToolOutput for BTreeMap<K, V> {
    const OUTPUT_SCHEMA: SchemaNode = SchemaNode::map(const { &V::OUTPUT_SCHEMA });
}

/// `{"enum": [null]}`: what `None` serializes to.
const NULL: SchemaNode = SchemaNode::any().with_enum_values(&[Literal::Null]);

/// `Option<T>` serializes as the value or `null`: `{"oneOf": [T, {"enum": [null]}]}`.
impl<T: ToolOutput> ToolOutput for Option<T> {
    const OUTPUT_SCHEMA: SchemaNode = SchemaNode::one_of(const { &[T::OUTPUT_SCHEMA, NULL] });
}

macro_rules! transparent {
    ($($ty:ident),* $(,)?) => {$(
        impl<T: ToolOutput + ?Sized> ToolOutput for $ty<T> {
            const OUTPUT_SCHEMA: SchemaNode = T::OUTPUT_SCHEMA;
        }
    )*};
}

transparent!(Box, Arc, Rc);

impl<T: ToolOutput + ?Sized> ToolOutput for &T {
    const OUTPUT_SCHEMA: SchemaNode = T::OUTPUT_SCHEMA;
}

/// A tool's `outputSchema`: the schema of its result type, always an object. A result whose
/// schema is not an object (`i64`, `Vec<Page>`, an enum) is wrapped as `{"result": …}`, and
/// its `structuredContent` likewise.
#[derive(Clone, Copy)]
pub struct OutputSchema {
    node: &'static SchemaNode,
    content: bool,
}

impl OutputSchema {
    /// The output schema of a result whose serialized form `node` describes.
    #[must_use]
    pub const fn new(node: &'static SchemaNode) -> Self {
        OutputSchema {
            node,
            content: false,
        }
    }

    /// The output schema of `T`.
    #[must_use]
    pub const fn of<T: ToolOutput + ?Sized>() -> Self {
        OutputSchema {
            node: const { &T::OUTPUT_SCHEMA },
            content: T::CONTENT,
        }
    }

    /// `true` when the result is [`Content`] (MCP content blocks): MCP lists no
    /// `outputSchema` for it and answers the blocks themselves.
    #[must_use]
    pub const fn is_content(&self) -> bool {
        self.content
    }

    /// The schema of the result itself (before any wrapping).
    #[must_use]
    pub const fn node(&self) -> &'static SchemaNode {
        self.node
    }

    /// `true` when the result is not an object, so it is wrapped as `{"result": …}`.
    #[must_use]
    pub const fn is_wrapped(&self) -> bool {
        !self.node.is_object()
    }

    /// The `outputSchema` as MCP lists it: the result's object schema, or
    /// `{"type":"object","properties":{"result":…},"required":["result"],
    /// "additionalProperties":false}`.
    #[must_use]
    pub fn to_json(&self) -> Value {
        let node = self.node.to_json();
        if !self.is_wrapped() {
            return node;
        }
        let mut properties = Map::new();
        properties.insert(RESULT.to_owned(), node);
        let mut schema = Map::new();
        schema.insert("type".to_owned(), Value::from("object"));
        schema.insert("properties".to_owned(), Value::Object(properties));
        schema.insert("required".to_owned(), Value::from(vec![RESULT]));
        schema.insert("additionalProperties".to_owned(), Value::Bool(false));
        Value::Object(schema)
    }

    /// The `structuredContent` of a result serialized as `value`: `value` itself, or
    /// `{"result": value}` when the schema is wrapped.
    #[must_use]
    pub fn structured_content(&self, value: Value) -> Value {
        if self.is_wrapped() {
            let mut object = Map::new();
            object.insert(RESULT.to_owned(), value);
            Value::Object(object)
        } else {
            value
        }
    }
}

/// What a tool shows a person or a model beyond JSON: text, images, audio and embedded
/// resources, in any mix (MCP content blocks). A tool returning `Content` is answered over
/// MCP with these blocks as the call's `content`; over JSON Lines and in process its value
/// is the list of blocks in their MCP form.
///
/// ```
/// use pedelec_core::output::Content;
/// let png: &[u8] = &[0x89, b'P', b'N', b'G'];
/// let content = Content::text("Here is the chart:")
///     .and(Content::image(png, "image/png"))
///     .and(Content::resource_text("file:///data.json", "application/json", "{}"));
/// assert_eq!(serde_json::to_value(&content).unwrap()[1]["data"], "iVBORw==");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Content {
    blocks: Vec<Block>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "lowercase")]
enum Block {
    Text {
        text: String,
    },
    Image {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Audio {
        data: String,
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    Resource {
        resource: Resource,
    },
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
struct Resource {
    uri: String,
    #[serde(rename = "mimeType")]
    mime_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    blob: Option<String>,
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

impl Content {
    fn one(block: Block) -> Self {
        Content {
            blocks: vec![block],
        }
    }

    /// Text.
    #[must_use]
    pub fn text(text: impl Into<String>) -> Self {
        Content::one(Block::Text { text: text.into() })
    }

    /// An image: its bytes (sent base64-encoded) and MIME type (`image/png`).
    #[must_use]
    pub fn image(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Content::one(Block::Image {
            data: base64(bytes),
            mime_type: mime_type.into(),
        })
    }

    /// Audio: its bytes (sent base64-encoded) and MIME type (`audio/wav`).
    #[must_use]
    pub fn audio(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Content::one(Block::Audio {
            data: base64(bytes),
            mime_type: mime_type.into(),
        })
    }

    /// An embedded text resource: its URI, MIME type and text.
    #[must_use]
    pub fn resource_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Content::one(Block::Resource {
            resource: Resource {
                uri: uri.into(),
                mime_type: mime_type.into(),
                text: Some(text.into()),
                blob: None,
            },
        })
    }

    /// An embedded binary resource: its URI, MIME type and bytes (sent base64-encoded).
    #[must_use]
    pub fn resource_blob(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        bytes: &[u8],
    ) -> Self {
        Content::one(Block::Resource {
            resource: Resource {
                uri: uri.into(),
                mime_type: mime_type.into(),
                text: None,
                blob: Some(base64(bytes)),
            },
        })
    }

    /// These blocks followed by `more`'s.
    #[must_use]
    pub fn and(mut self, more: Content) -> Self {
        self.blocks.extend(more.blocks);
        self
    }

    /// How many blocks.
    #[must_use]
    pub fn len(&self) -> usize {
        self.blocks.len()
    }

    /// `true` when there is no block.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }
}

impl Serialize for Content {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.blocks.serialize(serializer)
    }
}

/// The schema of a content block: an object with a `type`.
impl ToolOutput for Content {
    const OUTPUT_SCHEMA: SchemaNode = SchemaNode::array(
        const {
            &SchemaNode::object(
                const {
                    &[crate::schema::Property::new(
                        "type",
                        SchemaNode::string(),
                        true,
                    )]
                },
            )
        },
    );
    const CONTENT: bool = true;
}

/// The property a non-object result is wrapped in.
const RESULT: &str = "result";

impl fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OutputSchema")
            .field("node", self.node)
            .field("wrapped", &self.is_wrapped())
            .field("content", &self.content)
            .finish()
    }
}

/// MCP's tool annotations: hints about a tool's behaviour for the host (never enforced, and
/// never sent to Core). `#[tool(read_only, destructive, idempotent, open_world)]` sets them;
/// a `None` hint is left out (the client then assumes MCP's default).
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolAnnotations {
    /// `readOnlyHint`: the tool does not modify its environment.
    pub read_only_hint: Option<bool>,
    /// `destructiveHint`: the tool may perform destructive updates (meaningful when not
    /// read-only).
    pub destructive_hint: Option<bool>,
    /// `idempotentHint`: calling it again with the same arguments has no further effect.
    pub idempotent_hint: Option<bool>,
    /// `openWorldHint`: the tool reaches outside entities (the web, other systems).
    pub open_world_hint: Option<bool>,
}

impl ToolAnnotations {
    /// No hint.
    pub const NONE: ToolAnnotations = ToolAnnotations {
        read_only_hint: None,
        destructive_hint: None,
        idempotent_hint: None,
        open_world_hint: None,
    };

    /// Sets `readOnlyHint`.
    #[must_use]
    pub const fn with_read_only(mut self, hint: bool) -> Self {
        self.read_only_hint = Some(hint);
        self
    }

    /// Sets `destructiveHint`.
    #[must_use]
    pub const fn with_destructive(mut self, hint: bool) -> Self {
        self.destructive_hint = Some(hint);
        self
    }

    /// Sets `idempotentHint`.
    #[must_use]
    pub const fn with_idempotent(mut self, hint: bool) -> Self {
        self.idempotent_hint = Some(hint);
        self
    }

    /// Sets `openWorldHint`.
    #[must_use]
    pub const fn with_open_world(mut self, hint: bool) -> Self {
        self.open_world_hint = Some(hint);
        self
    }

    /// `true` when no hint is set.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.read_only_hint.is_none()
            && self.destructive_hint.is_none()
            && self.idempotent_hint.is_none()
            && self.open_world_hint.is_none()
    }

    /// The MCP `annotations` object (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
    /// `openWorldHint`; unset hints left out), or `None` when no hint is set.
    #[must_use]
    pub fn to_json(&self) -> Option<Value> {
        let mut object = Map::new();
        for (key, hint) in [
            ("readOnlyHint", self.read_only_hint),
            ("destructiveHint", self.destructive_hint),
            ("idempotentHint", self.idempotent_hint),
            ("openWorldHint", self.open_world_hint),
        ] {
            if let Some(hint) = hint {
                object.insert(key.to_owned(), Value::Bool(hint));
            }
        }
        (!object.is_empty()).then_some(Value::Object(object))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn non_objects_are_wrapped() {
        let schema = OutputSchema::of::<i64>();
        assert!(schema.is_wrapped());
        assert_eq!(
            schema.to_json(),
            json!({
                "type": "object",
                "properties": {"result": {"type": "integer"}},
                "required": ["result"],
                "additionalProperties": false
            })
        );
        assert_eq!(schema.structured_content(json!(5)), json!({"result": 5}));
        let map = OutputSchema::of::<BTreeMap<String, u8>>();
        assert!(!map.is_wrapped());
        assert_eq!(map.structured_content(json!({"a": 1})), json!({"a": 1}));
        assert_eq!(
            OutputSchema::of::<Option<Vec<bool>>>().node().to_json(),
            json!({"oneOf": [{"type": "array", "items": {"type": "boolean"}}, {"enum": [null]}]})
        );
    }

    #[test]
    fn annotations_in_mcp_form() {
        assert!(ToolAnnotations::NONE.is_empty());
        assert_eq!(ToolAnnotations::default(), ToolAnnotations::NONE);
        assert_eq!(ToolAnnotations::NONE.to_json(), None);
        const A: ToolAnnotations = ToolAnnotations::NONE
            .with_read_only(true)
            .with_open_world(false);
        assert!(!A.is_empty());
        assert_eq!(
            A.to_json(),
            Some(json!({"readOnlyHint": true, "openWorldHint": false}))
        );
        let all = A.with_destructive(false).with_idempotent(true);
        assert_eq!(
            all.to_json(),
            Some(json!({
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            }))
        );
    }
}
