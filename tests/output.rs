//! `#[derive(ToolOutput)]` and the MCP metadata of `#[tool]`: golden output schemas (read
//! from serde's serialize side), checked against what the values really serialize to, and
//! the title, annotations and outputSchema a tool's definition carries.

use std::collections::BTreeMap;

use pedelec::output::{OutputSchema, ToolAnnotations};
use pedelec::{Tool, ToolArgs, ToolError, ToolOutput, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

fn schema_of<T: ToolOutput + ?Sized>() -> Value {
    OutputSchema::of::<T>().node().to_json()
}

/// Validates `value`'s serialized form against `T`'s output schema, both wrapped as MCP
/// sends them, with an independent JSON Schema validator (as MCP clients do).
fn conforms<T: ToolOutput>(value: &T) -> Result<(), String> {
    let schema = OutputSchema::of::<T>();
    let content = schema.structured_content(serde_json::to_value(value).unwrap());
    let validator = jsonschema::validator_for(&schema.to_json()).map_err(|e| e.to_string())?;
    validator
        .validate(&content)
        .map_err(|e| format!("{content}: {e}"))
}

/// A page as the tool returns it.
#[derive(Serialize, ToolOutput)]
#[serde(rename_all = "camelCase")]
struct Page {
    /// The page's title.
    title: String,
    #[arg(minimum = 0)]
    visit_count: i64,
    /// Serialized as `null` when absent: required, and nullable.
    last_editor: Option<String>,
    /// Left out when empty: not required.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    #[serde(rename(serialize = "ID", deserialize = "id"))]
    id: u32,
    #[serde(skip_serializing)]
    #[allow(dead_code)]
    cache: Vec<u8>,
    #[serde(skip)]
    #[allow(dead_code)]
    secret: String,
}

#[test]
fn structs_follow_the_serialize_side() {
    assert_eq!(
        schema_of::<Page>(),
        json!({
            "type": "object",
            "description": "A page as the tool returns it.",
            "properties": {
                "title": {"type": "string", "description": "The page's title."},
                "visitCount": {"type": "integer", "minimum": 0},
                "lastEditor": {
                    "description": "Serialized as `null` when absent: required, and nullable.",
                    "oneOf": [{"type": "string"}, {"enum": [null]}]
                },
                "tags": {
                    "type": "array",
                    "description": "Left out when empty: not required.",
                    "items": {"type": "string"}
                },
                "ID": {"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u32}
            },
            "required": ["title", "visitCount", "lastEditor", "ID"],
            "additionalProperties": false
        })
    );
    let mut page = Page {
        title: "Home".into(),
        visit_count: 3,
        last_editor: None,
        tags: Vec::new(),
        id: 7,
        cache: vec![1],
        secret: "s".into(),
    };
    conforms(&page).unwrap();
    page.last_editor = Some("ann".into());
    page.tags = vec!["a".into()];
    conforms(&page).unwrap();
    assert!(!OutputSchema::of::<Page>().is_wrapped());
}

/// `rename_all` on the serialize side only: the args derive reads the other side.
#[derive(Serialize, Deserialize, ToolArgs, ToolOutput)]
#[serde(rename_all(serialize = "SCREAMING_SNAKE_CASE", deserialize = "camelCase"))]
struct Both {
    max_items: u8,
}

#[test]
fn one_type_two_directions() {
    assert_eq!(
        schema_of::<Both>()["properties"],
        json!({"MAX_ITEMS": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
    assert_eq!(
        pedelec::schema_for::<Both>().to_json()["properties"],
        json!({"maxItems": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
    conforms(&Both { max_items: 9 }).unwrap();
}

#[derive(Serialize, ToolOutput)]
#[serde(rename_all = "snake_case")]
enum Status {
    /// Everything works.
    AllGood,
    Degraded,
}

#[derive(Serialize, ToolOutput)]
enum External {
    Idle,
    Moved { to: String },
    Count(u8),
}

#[derive(Serialize, ToolOutput)]
#[serde(tag = "kind")]
enum Internal {
    Idle,
    Moved { to: String },
}

#[derive(Serialize, ToolOutput)]
#[serde(tag = "t", content = "c")]
enum Adjacent {
    Idle,
    Count(u8),
}

#[derive(Serialize, ToolOutput)]
#[serde(untagged)]
enum Untagged {
    Number(f64),
    Named { name: String },
}

#[test]
fn enums_by_their_tagging() {
    assert_eq!(
        schema_of::<Status>(),
        json!({
            "type": "string",
            "description": "- `all_good`: Everything works.",
            "enum": ["all_good", "degraded"]
        })
    );
    assert!(OutputSchema::of::<Status>().is_wrapped());
    conforms(&Status::Degraded).unwrap();
    conforms(&Status::AllGood).unwrap();

    assert_eq!(
        schema_of::<External>(),
        json!({"oneOf": [
            {"type": "string", "enum": ["Idle"]},
            {"type": "object", "properties": {"Moved": {
                "type": "object",
                "properties": {"to": {"type": "string"}},
                "required": ["to"],
                "additionalProperties": false
            }}, "required": ["Moved"], "additionalProperties": false},
            {"type": "object", "properties": {"Count": {"type": "integer", "minimum": 0, "maximum": 255}},
             "required": ["Count"], "additionalProperties": false}
        ]})
    );
    for value in [
        External::Idle,
        External::Moved { to: "x".into() },
        External::Count(2),
    ] {
        conforms(&value).unwrap();
    }

    assert_eq!(
        schema_of::<Internal>()["oneOf"][1],
        json!({
            "type": "object",
            "properties": {"kind": {"type": "string", "enum": ["Moved"]}, "to": {"type": "string"}},
            "required": ["kind", "to"],
            "additionalProperties": false
        })
    );
    conforms(&Internal::Idle).unwrap();
    conforms(&Internal::Moved { to: "y".into() }).unwrap();
    // A `oneOf` is not an object schema: wrapped.
    assert!(OutputSchema::of::<Internal>().is_wrapped());

    conforms(&Adjacent::Idle).unwrap();
    conforms(&Adjacent::Count(1)).unwrap();
    assert_eq!(
        schema_of::<Adjacent>()["oneOf"][1]["properties"]["c"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );

    assert_eq!(
        schema_of::<Untagged>(),
        json!({"oneOf": [
            {"type": "number"},
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"], "additionalProperties": false}
        ]})
    );
    conforms(&Untagged::Number(1.5)).unwrap();
    conforms(&Untagged::Named { name: "n".into() }).unwrap();
}

// Newtypes, `into` and generics.

#[derive(Serialize, ToolOutput)]
struct Meters(f64);

#[derive(Clone, Serialize, ToolOutput)]
#[serde(into = "String")]
struct Code(u32);

impl From<Code> for String {
    fn from(code: Code) -> String {
        format!("C{}", code.0)
    }
}

#[derive(Serialize, ToolOutput)]
struct Listing<T> {
    items: Vec<T>,
    by_name: BTreeMap<String, T>,
}

#[test]
fn newtypes_into_and_generics() {
    assert_eq!(schema_of::<Meters>(), json!({"type": "number"}));
    assert_eq!(schema_of::<Code>(), json!({"type": "string"}));
    conforms(&Code(4)).unwrap();
    assert_eq!(
        schema_of::<Listing<bool>>()["properties"]["by_name"],
        json!({"type": "object", "additionalProperties": {"type": "boolean"}})
    );
    conforms(&Listing {
        items: vec![Meters(1.0)],
        by_name: BTreeMap::new(),
    })
    .unwrap();
}

#[test]
fn std_types_and_wrapping() {
    assert_eq!(schema_of::<Vec<u8>>()["items"]["maximum"], json!(255));
    assert_eq!(
        OutputSchema::of::<Option<i64>>().to_json(),
        json!({
            "type": "object",
            "properties": {"result": {"oneOf": [{"type": "integer"}, {"enum": [null]}]}},
            "required": ["result"],
            "additionalProperties": false
        })
    );
    conforms(&None::<i64>).unwrap();
    conforms(&Some(3_i64)).unwrap();
    conforms(&vec!["a".to_owned()]).unwrap();
}

// ----- #[tool]: outputSchema, title, annotations -----

#[derive(Deserialize, ToolArgs)]
struct OpenArgs {
    url: String,
}

/// Open a page.
#[tool(title = "Open page", open_world, idempotent, destructive = false)]
async fn open_page(args: OpenArgs) -> Result<Page, ToolError> {
    Ok(Page {
        title: args.url,
        visit_count: 1,
        last_editor: None,
        tags: Vec::new(),
        id: 1,
        cache: Vec::new(),
        secret: String::new(),
    })
}

/// Count the pages.
#[allow(
    clippy::unnecessary_wraps,
    reason = "a tool's result, wrapped on purpose"
)]
#[tool(read_only)]
fn count_pages() -> Result<i64, ToolError> {
    Ok(3)
}

/// Anything goes.
#[tool]
fn raw() -> Value {
    json!({"a": 1})
}

/// Aliases work too.
#[allow(
    clippy::unnecessary_wraps,
    reason = "a tool's result, wrapped on purpose"
)]
#[tool]
fn aliased() -> std::io::Result<Vec<String>> {
    Ok(Vec::new())
}

#[test]
fn tools_list_their_output_schema_title_and_annotations() {
    let open = open_page::definition();
    assert_eq!(open.title(), Some("Open page"));
    assert_eq!(
        open.annotations().to_json(),
        Some(json!({"destructiveHint": false, "idempotentHint": true, "openWorldHint": true}))
    );
    let schema = open.output_schema().expect("Page implements ToolOutput");
    assert!(!schema.is_wrapped());
    assert_eq!(schema.to_json(), schema_of::<Page>());
    assert_eq!(<open_page as Tool>::TITLE, Some("Open page"));

    let count = count_pages::definition();
    assert_eq!(count.title(), None);
    assert_eq!(
        count.annotations(),
        ToolAnnotations::NONE.with_read_only(true)
    );
    assert_eq!(
        count.output_schema().unwrap().to_json(),
        json!({
            "type": "object",
            "properties": {"result": {"type": "integer"}},
            "required": ["result"],
            "additionalProperties": false
        })
    );

    // No schema for `Value` (never an empty `{}`), one through an alias.
    assert!(raw::definition().output_schema().is_none());
    assert!(raw::definition().annotations().is_empty());
    assert_eq!(
        aliased::definition()
            .output_schema()
            .unwrap()
            .node()
            .to_json(),
        json!({"type": "array", "items": {"type": "string"}})
    );
    // Core's manifest does not change.
    assert_eq!(
        serde_json::to_value(open.manifest()).unwrap(),
        json!({
            "name": "open_page",
            "description": "Open a page.",
            "argsSchema": {
                "type": "object",
                "properties": {"url": {"type": "string"}},
                "required": ["url"],
                "additionalProperties": false
            }
        })
    );
}

#[tokio::test]
async fn structured_content_conforms() {
    let value = open_page::call(OpenArgs { url: "u".into() }, test_ctx())
        .await
        .unwrap();
    conforms(&value).unwrap();
}

fn test_ctx() -> pedelec::ToolCallContext {
    pedelec::ToolCallContext::detached("open_page")
}

/// An untagged enum whose unit variant serializes to `null`.
#[derive(Serialize, ToolOutput)]
#[serde(untagged)]
enum Maybe {
    /// Nothing found.
    Nothing,
    Found(u8),
}

#[test]
fn untagged_unit_variants_are_null() {
    assert_eq!(
        schema_of::<Maybe>(),
        json!({"description": "An untagged enum whose unit variant serializes to `null`.", "oneOf": [
            {"description": "Nothing found.", "enum": [null]},
            {"type": "integer", "minimum": 0, "maximum": 255}
        ]})
    );
    conforms(&Maybe::Nothing).unwrap();
    conforms(&Maybe::Found(1)).unwrap();
}
