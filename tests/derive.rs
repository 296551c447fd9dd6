//! `#[derive(ToolArgs)]`: the schemas of many shapes, and a round trip showing that serde
//! accepts exactly what each schema describes.

#![allow(dead_code, missing_docs, clippy::struct_field_names)]

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::Arc;

use pedelec::schema::Number;
use pedelec::schema::{Literal, Property, SchemaNode, ToolArgsRoot};
use pedelec::{ToolArgs, schema_for};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

fn schema<T: ToolArgs + ?Sized>() -> Value {
    schema_for::<T>().to_json()
}

/// Compiles only for root types (the argsSchema of a tool).
fn root<T: ToolArgsRoot + ?Sized>() -> Value {
    schema::<T>()
}

fn names(node: &SchemaNode) -> Vec<&str> {
    node.properties().iter().map(Property::name).collect()
}

// ----- structs -----

/// Update the visible counter by `delta`.
///
/// Use it when the user asks.
#[derive(ToolArgs, Deserialize)]
struct UpdateCounter {
    /// How much to add;
    /// negative to subtract.
    delta: i32,
    /// Why.
    reason: Option<String>,
}

#[test]
fn struct_is_a_closed_object_in_declaration_order() {
    assert_eq!(
        root::<UpdateCounter>(),
        json!({
            "type": "object",
            "description": "Update the visible counter by `delta`.\n\nUse it when the user asks.",
            "properties": {
                "delta": {
                    "type": "integer",
                    "description": "How much to add; negative to subtract.",
                    "minimum": -2_147_483_648,
                    "maximum": 2_147_483_647
                },
                "reason": {"type": "string", "description": "Why."}
            },
            "required": ["delta"],
            "additionalProperties": false
        })
    );
    assert_eq!(names(schema_for::<UpdateCounter>()), ["delta", "reason"]);
}

#[derive(ToolArgs)]
struct Empty {}

#[test]
fn empty_struct_takes_no_arguments() {
    assert_eq!(
        root::<Empty>(),
        json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}

#[derive(ToolArgs)]
struct Nested {
    flag: bool,
}

#[derive(ToolArgs)]
struct TypeMapping<'a> {
    string: String,
    str_ref: &'a str,
    static_str: &'static str,
    letter: char,
    path: PathBuf,
    flag: bool,
    small: i8,
    medium: i16,
    int: i32,
    big: i64,
    byte: u8,
    short: u16,
    unsigned: u32,
    huge: u64,
    index: usize,
    offset: isize,
    ratio: f32,
    precise: f64,
    list: Vec<u8>,
    queue: VecDeque<bool>,
    triple: [f64; 3],
    set: HashSet<String>,
    sorted: BTreeSet<i64>,
    map: HashMap<String, u16>,
    tree: BTreeMap<String, Nested>,
    boxed: Box<str>,
    shared: Arc<Nested>,
    maybe: Option<Box<bool>>,
    nested: Nested,
}

#[test]
fn type_mapping() {
    let nested = json!({
        "type": "object",
        "properties": {"flag": {"type": "boolean"}},
        "required": ["flag"],
        "additionalProperties": false
    });
    let s = schema::<TypeMapping<'static>>();
    let p = &s["properties"];
    assert_eq!(p["string"], json!({"type": "string"}));
    assert_eq!(p["str_ref"], json!({"type": "string"}));
    assert_eq!(p["static_str"], json!({"type": "string"}));
    assert_eq!(
        p["letter"],
        json!({"type": "string", "minLength": 1, "maxLength": 1})
    );
    assert_eq!(p["path"], json!({"type": "string"}));
    assert_eq!(p["flag"], json!({"type": "boolean"}));
    assert_eq!(
        p["small"],
        json!({"type": "integer", "minimum": -128, "maximum": 127})
    );
    assert_eq!(
        p["medium"],
        json!({"type": "integer", "minimum": -32768, "maximum": 32767})
    );
    assert_eq!(p["big"], json!({"type": "integer"}));
    assert_eq!(
        p["byte"],
        json!({"type": "integer", "minimum": 0, "maximum": 255})
    );
    assert_eq!(
        p["short"],
        json!({"type": "integer", "minimum": 0, "maximum": 65535})
    );
    assert_eq!(
        p["unsigned"],
        json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64})
    );
    assert_eq!(p["huge"], json!({"type": "integer", "minimum": 0}));
    assert_eq!(p["index"], json!({"type": "integer", "minimum": 0}));
    assert_eq!(p["offset"], json!({"type": "integer"}));
    assert_eq!(p["ratio"], json!({"type": "number"}));
    assert_eq!(p["precise"], json!({"type": "number"}));
    assert_eq!(
        p["list"],
        json!({"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 255}})
    );
    assert_eq!(
        p["queue"],
        json!({"type": "array", "items": {"type": "boolean"}})
    );
    assert_eq!(
        p["triple"],
        json!({"type": "array", "items": {"type": "number"}, "minItems": 3, "maxItems": 3})
    );
    assert_eq!(
        p["set"],
        json!({"type": "array", "items": {"type": "string"}, "uniqueItems": true})
    );
    assert_eq!(
        p["sorted"],
        json!({"type": "array", "items": {"type": "integer"}, "uniqueItems": true})
    );
    assert_eq!(
        p["map"],
        json!({"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 65535}})
    );
    assert_eq!(
        p["tree"],
        json!({"type": "object", "additionalProperties": nested})
    );
    assert_eq!(p["boxed"], json!({"type": "string"}));
    assert_eq!(p["shared"], nested);
    assert_eq!(p["maybe"], json!({"type": "boolean"}));
    assert_eq!(p["nested"], nested);
    let required: Vec<&str> = schema_for::<TypeMapping<'static>>().required().collect();
    assert!(!required.contains(&"maybe"));
    assert_eq!(required.len(), 28);
}

// ----- descriptions -----

/// The type's own description.
#[derive(ToolArgs)]
struct Documented {
    flag: bool,
}

/// Steps:
/// - read the state,
///   then decide
/// - act
///
/// ```json
/// {"a": 1}
/// ```
#[derive(ToolArgs)]
#[arg(description = "Overrides the doc comment.")]
struct Described {
    /// The field's doc replaces the type's description.
    documented: Documented,
    /// Ignored.
    #[arg(description = "The attribute wins.")]
    attribute: bool,
    plain: Documented,
}

/// Steps:
/// - read the state,
///   then decide
/// - act
///
/// ```json
/// {"a": 1}
/// ```
#[derive(ToolArgs)]
struct Markdown {}

#[test]
fn descriptions() {
    let s = schema::<Described>();
    assert_eq!(s["description"], "Overrides the doc comment.");
    let p = &s["properties"];
    assert_eq!(
        p["documented"]["description"],
        "The field's doc replaces the type's description."
    );
    assert_eq!(p["attribute"]["description"], "The attribute wins.");
    assert_eq!(p["plain"]["description"], "The type's own description.");
    assert_eq!(
        schema::<Markdown>()["description"],
        "Steps:\n- read the state, then decide\n- act\n\n```json\n{\"a\": 1}\n```"
    );
}

// ----- serde attributes -----

#[derive(ToolArgs, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Renamed {
    first_name: String,
    #[serde(rename = "family")]
    last_name: String,
    #[serde(rename(serialize = "ignored", deserialize = "years"))]
    age_years: u8,
    #[serde(alias = "mail")]
    email_address: String,
    r#type: String,
    #[serde(skip)]
    cache: Vec<u8>,
    #[serde(skip_deserializing)]
    computed: u32,
    #[serde(skip_serializing)]
    secret: String,
}

#[test]
fn serde_names_and_skips() {
    assert_eq!(
        names(schema_for::<Renamed>()),
        [
            "firstName",
            "family",
            "years",
            "emailAddress",
            "type",
            "secret"
        ]
    );
}

macro_rules! case_test {
    ($($name:ident: $style:literal => $field:literal, $variant:literal;)*) => {$(
        mod $name {
            use super::*;
            #[derive(ToolArgs, Deserialize)]
            #[serde(rename_all = $style)]
            pub struct S {
                pub very_tasty: u8,
            }
            #[derive(ToolArgs, Deserialize)]
            #[serde(rename_all = $style)]
            pub enum E {
                VeryTasty,
            }
        }
    )*
        #[test]
        fn every_rename_all_style() {$(
            assert_eq!(names(schema_for::<$name::S>()), [$field], $style);
            assert_eq!(schema::<$name::E>()["enum"], json!([$variant]), $style);
            let field_json = format!("{{\"{}\": 1}}", $field);
            serde_json::from_str::<$name::S>(&field_json).unwrap();
            serde_json::from_value::<$name::E>(json!($variant)).unwrap();
        )*}
    };
}

case_test! {
    lower: "lowercase" => "very_tasty", "verytasty";
    upper: "UPPERCASE" => "VERY_TASTY", "VERYTASTY";
    pascal: "PascalCase" => "VeryTasty", "VeryTasty";
    camel: "camelCase" => "veryTasty", "veryTasty";
    snake: "snake_case" => "very_tasty", "very_tasty";
    screaming_snake: "SCREAMING_SNAKE_CASE" => "VERY_TASTY", "VERY_TASTY";
    kebab: "kebab-case" => "very-tasty", "very-tasty";
    screaming_kebab: "SCREAMING-KEBAB-CASE" => "VERY-TASTY", "VERY-TASTY";
}

#[derive(ToolArgs, Deserialize)]
#[serde(rename_all(serialize = "UPPERCASE", deserialize = "kebab-case"))]
struct DeserializeSide {
    two_words: bool,
}

#[derive(ToolArgs, Deserialize)]
#[serde(rename_all(serialize = "UPPERCASE"))]
struct SerializeSideOnly {
    two_words: bool,
}

#[test]
fn only_the_deserialize_side_of_renames_counts() {
    assert_eq!(names(schema_for::<DeserializeSide>()), ["two-words"]);
    assert_eq!(names(schema_for::<SerializeSideOnly>()), ["two_words"]);
}

fn three() -> u8 {
    3
}

#[derive(ToolArgs, Deserialize, Default)]
#[serde(default)]
struct AllDefault {
    a: u8,
    b: String,
}

#[derive(ToolArgs, Deserialize)]
struct SomeDefault {
    #[serde(default)]
    a: u8,
    #[serde(default = "three")]
    b: u8,
    c: u8,
}

#[test]
fn serde_defaults_are_not_required() {
    assert_eq!(schema_for::<AllDefault>().required().count(), 0);
    let required: Vec<&str> = schema_for::<SomeDefault>().required().collect();
    assert_eq!(required, ["c"]);
}

// ----- newtypes, transparent, from, schema overrides -----

/// A name.
#[derive(ToolArgs, Deserialize)]
struct Name(#[arg(min_length = 1, max_length = 40)] String);

#[derive(ToolArgs, Deserialize)]
#[serde(transparent)]
struct MaybeCount(Option<u32>);

#[derive(ToolArgs, Deserialize)]
#[serde(transparent)]
struct Wrapper {
    /// The inner args.
    inner: UpdateCounter,
    #[serde(skip)]
    marker: std::marker::PhantomData<u8>,
}

#[derive(ToolArgs, Deserialize)]
struct Labels(BTreeMap<String, String>);

#[derive(ToolArgs, Deserialize)]
#[serde(try_from = "String")]
struct Email(String);

impl TryFrom<String> for Email {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        if s.contains('@') {
            Ok(Email(s))
        } else {
            Err(format!("not an email: {s}"))
        }
    }
}

/// A point, as `[x, y]`.
#[derive(ToolArgs, Deserialize)]
#[serde(from = "Option<[i32; 2]>")]
struct Point {
    x: i32,
    y: i32,
}

impl From<Option<[i32; 2]>> for Point {
    fn from(p: Option<[i32; 2]>) -> Self {
        let [x, y] = p.unwrap_or_default();
        Point { x, y }
    }
}

const RGB: SchemaNode = SchemaNode::string().with_pattern("^#[0-9a-f]{6}$");

/// A colour.
#[derive(ToolArgs)]
#[arg(schema = RGB)]
struct Colour {
    r: u8,
    g: u8,
    b: u8,
}

const LENIENT_NUMBER: SchemaNode = SchemaNode::one_of(
    const {
        &[
            SchemaNode::number(),
            SchemaNode::string().with_pattern("^[0-9.]+$"),
        ]
    },
);

fn lenient<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        N(f64),
        S(String),
    }
    match Either::deserialize(d)? {
        Either::N(n) => Ok(n),
        Either::S(s) => s.parse().map_err(serde::de::Error::custom),
    }
}

#[derive(ToolArgs, Deserialize)]
struct Overrides {
    #[serde(deserialize_with = "lenient")]
    #[arg(schema = LENIENT_NUMBER, description = "A number, or a string of digits.")]
    amount: f64,
    #[arg(schema = RGB)]
    colour: Option<String>,
    #[serde(default)]
    #[arg(schema = RGB, default = "#000000")]
    background: String,
    /// A `serde_json::Value` needs a schema: any JSON is not in the subset.
    #[arg(schema = ANY_OBJECT)]
    extra: Value,
}

const ANY_OBJECT: SchemaNode = SchemaNode::map(const { &SchemaNode::string() });

#[test]
fn newtypes_and_overrides() {
    assert_eq!(
        schema::<Name>(),
        json!({"type": "string", "description": "A name.", "minLength": 1, "maxLength": 40})
    );
    assert_eq!(
        schema::<MaybeCount>(),
        json!({"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64})
    );
    const { assert!(<MaybeCount as ToolArgs>::OPTIONAL) };
    const { assert!(!<Name as ToolArgs>::OPTIONAL) };
    let wrapper = root::<Wrapper>();
    assert_eq!(wrapper["description"], "The inner args.");
    assert_eq!(wrapper["required"], json!(["delta"]));
    assert_eq!(
        root::<Labels>(),
        json!({"type": "object", "additionalProperties": {"type": "string"}})
    );
    assert_eq!(schema::<Email>(), json!({"type": "string"}));
    assert_eq!(
        schema::<Point>(),
        json!({
            "type": "array",
            "description": "A point, as `[x, y]`.",
            "items": {"type": "integer", "minimum": -2_147_483_648, "maximum": 2_147_483_647},
            "minItems": 2,
            "maxItems": 2
        })
    );
    const { assert!(<Point as ToolArgs>::OPTIONAL) };
    assert_eq!(
        schema::<Colour>(),
        json!({"type": "string", "description": "A colour.", "pattern": "^#[0-9a-f]{6}$"})
    );
    let o = root::<Overrides>();
    assert_eq!(
        o["properties"]["amount"],
        json!({
            "description": "A number, or a string of digits.",
            "oneOf": [{"type": "number"}, {"type": "string", "pattern": "^[0-9.]+$"}]
        })
    );
    assert_eq!(
        o["properties"]["background"],
        json!({"type": "string", "default": "#000000", "pattern": "^#[0-9a-f]{6}$"})
    );
    assert_eq!(o["required"], json!(["amount", "extra"]));
    let o: Overrides =
        serde_json::from_value(json!({"amount": "2.5", "extra": {"k": "v"}})).unwrap();
    assert!((o.amount - 2.5).abs() < f64::EPSILON);
}

// ----- constraints and defaults -----

#[derive(ToolArgs, Deserialize)]
struct Constrained {
    #[arg(minimum = 1, maximum = 10)]
    count: u8,
    #[arg(exclusive_minimum = 0, exclusive_maximum = 1.5, multiple_of = 0.25)]
    ratio: f64,
    #[arg(minimum = -1e3, multiple_of = 5)]
    step: i64,
    #[arg(maximum = 18_446_744_073_709_551_615_u64)]
    huge: u64,
    #[arg(min_length = 2, max_length = 8, pattern = "^[a-z]+$")]
    slug: String,
    #[arg(format = "email")]
    email: String,
    #[arg(min_items = 1, max_items = 3, unique_items)]
    tags: Vec<String>,
    #[arg(pattern = "^[A-Z]$")]
    initial: char,
    #[serde(default)]
    #[arg(default = 5, minimum = 1)]
    retries: u32,
    #[serde(default)]
    #[arg(default = 0.5)]
    threshold: f32,
    #[serde(default)]
    #[arg(default = true)]
    verbose: bool,
    #[serde(default)]
    #[arg(default = 'x')]
    marker: char,
    #[serde(default)]
    #[arg(default = ["a", "b"], unique_items)]
    labels: Vec<String>,
    #[serde(default)]
    #[arg(default = [[1, 2], [3]])]
    matrix: Vec<Vec<u8>>,
    #[arg(default = "fast")]
    mode: Option<String>,
    #[serde(default = "default_speed")]
    #[arg(default = "slow")]
    speed: Speed,
}

fn default_speed() -> Speed {
    Speed::Slow
}

#[test]
fn constraints() {
    let s = schema::<Constrained>();
    let p = &s["properties"];
    assert_eq!(
        p["count"],
        json!({"type": "integer", "minimum": 1, "maximum": 10})
    );
    assert_eq!(
        p["ratio"],
        json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5, "multipleOf": 0.25})
    );
    assert_eq!(
        p["step"],
        json!({"type": "integer", "minimum": -1000.0, "multipleOf": 5})
    );
    assert_eq!(
        p["huge"],
        json!({"type": "integer", "minimum": 0, "maximum": 18_446_744_073_709_551_615_u64})
    );
    assert_eq!(
        p["slug"],
        json!({"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z]+$"})
    );
    assert_eq!(p["email"], json!({"type": "string", "format": "email"}));
    assert_eq!(
        p["tags"],
        json!({"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3, "uniqueItems": true})
    );
    assert_eq!(
        p["initial"],
        json!({"type": "string", "minLength": 1, "maxLength": 1, "pattern": "^[A-Z]$"})
    );
    assert_eq!(
        p["retries"],
        json!({"type": "integer", "default": 5, "minimum": 1, "maximum": 4_294_967_295_u64})
    );
    assert_eq!(p["threshold"], json!({"type": "number", "default": 0.5}));
    assert_eq!(p["verbose"], json!({"type": "boolean", "default": true}));
    assert_eq!(p["marker"]["default"], "x");
    assert_eq!(p["labels"]["default"], json!(["a", "b"]));
    assert_eq!(p["matrix"]["default"], json!([[1, 2], [3]]));
    assert_eq!(p["mode"], json!({"type": "string", "default": "fast"}));
    assert_eq!(
        p["speed"],
        json!({"type": "string", "description": "How fast to go.", "enum": ["slow", "fast"], "default": "slow"})
    );
    let required: Vec<&str> = schema_for::<Constrained>().required().collect();
    assert_eq!(
        required,
        [
            "count", "ratio", "step", "huge", "slug", "email", "tags", "initial"
        ]
    );
}

// ----- enums -----

/// How fast to go.
#[derive(ToolArgs, Deserialize, Debug, PartialEq)]
#[serde(rename_all = "lowercase")]
enum Speed {
    Slow,
    Fast,
}

/// A mode.
#[derive(ToolArgs, Deserialize)]
enum Mode {
    /// Read only.
    ///
    /// Never writes.
    Read,
    Write,
    #[serde(skip)]
    Internal,
    #[serde(rename = "rw")]
    /// Both.
    ReadWrite,
}

#[test]
fn unit_enums_are_string_enums() {
    assert_eq!(
        schema::<Speed>(),
        json!({"type": "string", "description": "How fast to go.", "enum": ["slow", "fast"]})
    );
    assert_eq!(
        schema::<Mode>(),
        json!({
            "type": "string",
            "description": "A mode.\n\n- `Read`: Read only. Never writes.\n- `rw`: Both.",
            "enum": ["Read", "Write", "rw"]
        })
    );
}

/// How sure.
#[derive(ToolArgs, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Certainty {
    /// Never asked.
    #[arg(title = "Not at all")]
    No,
    #[serde(skip)]
    Internal,
    Maybe,
    #[arg(title = "Quite sure")]
    #[serde(rename = "yes")]
    Sure,
}

#[derive(ToolArgs, Deserialize)]
struct Survey {
    #[arg(description = "First answer.")]
    first: Certainty,
    #[arg(enum_names)]
    legacy: Option<Certainty>,
    many: Vec<Certainty>,
}

#[test]
fn variant_titles_are_kept_for_forms_and_left_out_of_the_schema() {
    let node = schema_for::<Certainty>();
    // Untitled variants are titled by their name; skipped ones are not choices.
    assert_eq!(
        node.enum_titles(),
        Some(&["Not at all", "maybe", "Quite sure"][..])
    );
    assert!(!node.lists_enum_names());
    assert_eq!(
        schema::<Certainty>(),
        json!({
            "type": "string",
            "description": "How sure.\n\n- `no`: Never asked.",
            "enum": ["no", "maybe", "yes"]
        })
    );
    // Field attributes keep them; `enum_names` asks for the legacy form.
    let survey = schema_for::<Survey>();
    let [first, legacy, many] = survey.properties() else {
        panic!("three properties")
    };
    assert_eq!(first.schema().description(), Some("First answer."));
    assert_eq!(first.schema().enum_titles(), node.enum_titles());
    assert!(legacy.schema().lists_enum_names());
    assert_eq!(
        many.schema().items().and_then(SchemaNode::enum_titles),
        node.enum_titles()
    );
    assert!(survey.is_flat_form());
    assert!(!schema::<Survey>().to_string().contains("title"));
}

#[derive(ToolArgs, Deserialize, Debug, PartialEq)]
enum Action {
    Stop,
    Pause,
    /// Move by an offset.
    Move {
        x: i32,
        #[serde(default)]
        y: i32,
    },
    Say(#[arg(min_length = 1)] String),
    Nest(Speed),
}

#[test]
fn externally_tagged() {
    assert_eq!(
        schema::<Action>(),
        json!({"oneOf": [
            {"type": "string", "enum": ["Stop"]},
            {"type": "string", "enum": ["Pause"]},
            {
                "type": "object",
                "description": "Move by an offset.",
                "properties": {"Move": {
                    "type": "object",
                    "properties": {
                        "x": {"type": "integer", "minimum": -2_147_483_648, "maximum": 2_147_483_647},
                        "y": {"type": "integer", "minimum": -2_147_483_648, "maximum": 2_147_483_647}
                    },
                    "required": ["x"],
                    "additionalProperties": false
                }},
                "required": ["Move"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"Say": {"type": "string", "minLength": 1}},
                "required": ["Say"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"Nest": {"type": "string", "description": "How fast to go.", "enum": ["slow", "fast"]}},
                "required": ["Nest"],
                "additionalProperties": false
            }
        ]})
    );
}

#[derive(ToolArgs, Deserialize, Debug, PartialEq)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
enum Shape {
    /// Round.
    Circle {
        radius_cm: f64,
    },
    Rectangle {
        width_cm: f64,
        #[serde(rename = "h")]
        height_cm: f64,
    },
    #[serde(rename_all = "UPPERCASE")]
    Labelled {
        label_text: String,
    },
    Empty,
}

#[test]
fn internally_tagged() {
    let tag = |name: &str| json!({"type": "string", "enum": [name]});
    let number = json!({"type": "number"});
    assert_eq!(
        schema::<Shape>(),
        json!({"oneOf": [
            {
                "type": "object",
                "description": "Round.",
                "properties": {"kind": tag("circle"), "radiusCm": number},
                "required": ["kind", "radiusCm"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"kind": tag("rectangle"), "widthCm": number, "h": number},
                "required": ["kind", "widthCm", "h"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"kind": tag("labelled"), "LABEL_TEXT": {"type": "string"}},
                "required": ["kind", "LABEL_TEXT"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"kind": tag("empty")},
                "required": ["kind"],
                "additionalProperties": false
            }
        ]})
    );
}

/// Which way.
#[derive(ToolArgs, Deserialize, Debug, PartialEq)]
#[serde(tag = "dir")]
enum Direction {
    /// Up.
    Up,
    Down,
}

#[test]
fn internally_tagged_unit_enum_is_one_object() {
    assert_eq!(
        schema::<Direction>(),
        json!({
            "type": "object",
            "description": "Which way.\n\n- `Up`: Up.",
            "properties": {"dir": {"type": "string", "enum": ["Up", "Down"]}},
            "required": ["dir"],
            "additionalProperties": false
        })
    );
}

#[derive(ToolArgs, Deserialize, Debug, PartialEq)]
#[serde(tag = "t", content = "c")]
enum Message {
    Text(String),
    Maybe(Option<u8>),
    Ping { seq: u32 },
    Quit,
}

#[test]
fn adjacently_tagged() {
    let tag = |name: &str| json!({"type": "string", "enum": [name]});
    assert_eq!(
        schema::<Message>(),
        json!({"oneOf": [
            {
                "type": "object",
                "properties": {"t": tag("Text"), "c": {"type": "string"}},
                "required": ["t", "c"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"t": tag("Maybe"), "c": {"type": "integer", "minimum": 0, "maximum": 255}},
                "required": ["t"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"t": tag("Ping"), "c": {
                    "type": "object",
                    "properties": {"seq": {"type": "integer", "minimum": 0, "maximum": 4_294_967_295_u64}},
                    "required": ["seq"],
                    "additionalProperties": false
                }},
                "required": ["t", "c"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"t": tag("Quit")},
                "required": ["t"],
                "additionalProperties": false
            }
        ]})
    );
}

#[derive(ToolArgs, Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Target {
    /// By id.
    Id(u64),
    Named {
        name: String,
    },
}

#[derive(ToolArgs, Deserialize, Debug, PartialEq)]
enum Mixed {
    Known {
        id: u8,
    },
    #[serde(untagged)]
    Raw(String),
}

#[test]
fn untagged() {
    assert_eq!(
        schema::<Target>(),
        json!({"oneOf": [
            {"type": "integer", "description": "By id.", "minimum": 0},
            {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
                "additionalProperties": false
            }
        ]})
    );
    let mixed = schema::<Mixed>();
    assert_eq!(mixed["oneOf"][0]["required"], json!(["Known"]));
    assert_eq!(mixed["oneOf"][1], json!({"type": "string"}));
}

const DIGITS: SchemaNode = SchemaNode::string().with_pattern("^[0-9]+$");

/// Ignored.
#[derive(ToolArgs, Deserialize)]
#[arg(description = "A reference to a record.")]
enum Reference {
    /// Ignored.
    #[arg(description = "By id, as digits.", schema = DIGITS)]
    Id(String),
    #[arg(description = "By name.")]
    Name { name: String },
}

#[test]
fn variant_args() {
    assert_eq!(
        schema::<Reference>(),
        json!({
            "description": "A reference to a record.",
            "oneOf": [
                {
                    "type": "object",
                    "description": "By id, as digits.",
                    "properties": {"Id": {"type": "string", "pattern": "^[0-9]+$"}},
                    "required": ["Id"],
                    "additionalProperties": false
                },
                {
                    "type": "object",
                    "description": "By name.",
                    "properties": {"Name": {
                        "type": "object",
                        "properties": {"name": {"type": "string"}},
                        "required": ["name"],
                        "additionalProperties": false
                    }},
                    "required": ["Name"],
                    "additionalProperties": false
                }
            ]
        })
    );
}

// ----- generics -----

#[derive(ToolArgs, Deserialize)]
#[serde(bound(deserialize = "T: DeserializeOwned"))]
struct Page<T> {
    items: Vec<T>,
    cursor: Option<String>,
}

#[derive(ToolArgs)]
struct Keyed<K, V>
where
    K: Ord,
{
    keys: BTreeSet<K>,
    value: Option<V>,
}

#[derive(ToolArgs)]
struct SkippedParam<T> {
    count: u8,
    #[serde(skip)]
    marker: std::marker::PhantomData<T>,
}

trait Store {
    type Item;
}

struct Numbers;
impl Store for Numbers {
    type Item = f64;
}

#[derive(ToolArgs)]
struct Projection<S: Store> {
    items: Vec<S::Item>,
}

#[derive(ToolArgs)]
#[arg(bound = "T: ToolArgs + Clone")]
struct ExplicitBound<T> {
    value: T,
}

#[derive(ToolArgs)]
struct Fixed<const N: usize> {
    values: [u8; N],
}

#[test]
fn generics() {
    assert_eq!(
        root::<Page<Speed>>()["properties"]["items"]["items"]["enum"],
        json!(["slow", "fast"])
    );
    assert_eq!(schema::<Keyed<String, u8>>()["required"], json!(["keys"]));
    // `T` is only in a skipped field: no `T: ToolArgs` bound.
    struct NotArgs;
    assert_eq!(names(schema_for::<SkippedParam<NotArgs>>()), ["count"]);
    assert_eq!(
        schema::<Projection<Numbers>>()["properties"]["items"]["items"],
        json!({"type": "number"})
    );
    assert_eq!(
        schema::<ExplicitBound<bool>>()["properties"]["value"],
        json!({"type": "boolean"})
    );
    assert_eq!(schema::<Fixed<4>>()["properties"]["values"]["minItems"], 4);
}

// ----- round trip: serde accepts what the schema describes -----

/// A value the schema describes: `branch` picks among `oneOf` branches, `full` adds the
/// optional properties too.
fn sample(node: &SchemaNode, branch: usize, full: bool) -> Value {
    if let Some(default) = node.default_value() {
        return default.to_value();
    }
    if let Some(values) = node.enum_values() {
        return values[branch % values.len()].to_value();
    }
    if let Some(branches) = node.one_of_branches() {
        return sample(&branches[branch % branches.len()], 0, full);
    }
    match node.kind().expect("typed node") {
        pedelec::schema::SchemaKind::String => {
            if let Some(pattern) = node.pattern() {
                let sample = match pattern {
                    "^[0-9]{4,6}$" => "12345",
                    "^[0-9]{4}$" => "1234",
                    _ => panic!("no sample for the pattern {pattern:?} in round-trip types"),
                };
                return Value::String(sample.to_owned());
            }
            let len = node.min_length().unwrap_or(1).max(1);
            Value::String("a".repeat(usize::try_from(len).unwrap()))
        }
        pedelec::schema::SchemaKind::Boolean => Value::Bool(true),
        kind @ (pedelec::schema::SchemaKind::Integer | pedelec::schema::SchemaKind::Number) => {
            let n = match (node.minimum(), node.exclusive_minimum()) {
                (Some(Number::Int(i)), _) => i,
                (Some(Number::Uint(u)), _) => i64::try_from(u).unwrap(),
                (_, Some(Number::Int(i))) => i + 1,
                _ => 1,
            };
            let n = match node.multiple_of() {
                Some(Number::Int(m)) => (n + m - 1) / m * m,
                _ => n,
            };
            if kind == pedelec::schema::SchemaKind::Number {
                json!(f64::from(i32::try_from(n).unwrap()))
            } else {
                json!(n)
            }
        }
        pedelec::schema::SchemaKind::Array => {
            let items = node.items().expect("items");
            let count = node.min_items().unwrap_or(1).max(1);
            let count = usize::try_from(count).unwrap();
            Value::Array(
                (0..count)
                    .map(|i| {
                        if node.unique_items() == Some(true) {
                            unique_sample(items, i)
                        } else {
                            sample(items, branch, full)
                        }
                    })
                    .collect(),
            )
        }
        pedelec::schema::SchemaKind::Object => {
            let mut map = serde_json::Map::new();
            for p in node.properties() {
                if p.is_required() || full {
                    map.insert(p.name().to_owned(), sample(p.schema(), branch, full));
                }
            }
            if let Some(pedelec::schema::AdditionalProperties::Schema(values)) =
                node.additional_properties()
            {
                map.insert("key".to_owned(), sample(values, branch, full));
            }
            Value::Object(map)
        }
    }
}

fn unique_sample(node: &SchemaNode, i: usize) -> Value {
    match node.kind() {
        Some(pedelec::schema::SchemaKind::String) if node.max_length() == Some(1) => {
            Value::String(char::from(b'a' + u8::try_from(i).unwrap()).to_string())
        }
        Some(pedelec::schema::SchemaKind::String) => Value::String(format!("s{i}")),
        _ => json!(i),
    }
}

/// The derived schema is sound (the structural checks of `SchemaNode::from_json` find
/// nothing, and it reads back from its JSON unchanged); every sample is valid and
/// deserializes; removing a required property fails both, removing an optional one
/// neither.
fn round_trip<T: ToolArgs + DeserializeOwned>() {
    let node = schema_for::<T>();
    assert_eq!(node.problems(), [], "{node}");
    let reparsed = SchemaNode::from_json(&node.to_json()).unwrap();
    assert_eq!(&reparsed, node);
    let compiled = pedelec::schema::CompiledSchema::compile(node).unwrap();
    let branches = node.one_of_branches().map_or(1, <[SchemaNode]>::len);
    let enums = node.enum_values().map_or(1, <[Literal]>::len);
    for branch in 0..branches.max(enums) {
        for full in [false, true] {
            let value = sample(node, branch, full);
            if let Err(e) = compiled.validate(&value) {
                panic!("the sample {value} does not match {node}: {e:?}");
            }
            if let Err(e) = serde_json::from_value::<T>(value.clone()) {
                panic!("serde rejects {value} (described by {node}): {e}");
            }
            let object = match node.one_of_branches() {
                Some(b) => &b[branch % b.len()],
                None => node,
            };
            let Value::Object(map) = &value else { continue };
            for p in object.properties() {
                let mut without = map.clone();
                if without.remove(p.name()).is_none() {
                    continue;
                }
                let without = Value::Object(without);
                assert_eq!(compiled.is_valid(&without), !p.is_required(), "{without}");
                let result = serde_json::from_value::<T>(without);
                assert_eq!(
                    result.is_ok(),
                    !p.is_required(),
                    "property {:?} of {value}: the schema says required = {}, serde says {result:?}",
                    p.name(),
                    p.is_required(),
                    result = result.err()
                );
            }
        }
    }
}

#[derive(ToolArgs, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RoundTrip {
    #[arg(minimum = 1, maximum = 10)]
    count: u8,
    #[arg(exclusive_minimum = 0, multiple_of = 0.5)]
    weight: f64,
    #[arg(min_length = 3)]
    name: String,
    #[serde(default)]
    #[arg(default = "x")]
    tag: String,
    #[arg(min_items = 2, unique_items)]
    tags: Vec<String>,
    letters: BTreeSet<char>,
    labels: HashMap<String, u32>,
    speed: Speed,
    action: Action,
    shape: Shape,
    message: Message,
    target: Target,
    direction: Direction,
    maybe: Option<Box<Speed>>,
    triple: [u16; 3],
    count_or_none: MaybeCount,
    #[serde(default)]
    flags: Vec<bool>,
    mixed: Mixed,
}

#[test]
fn serde_accepts_what_the_schema_describes() {
    round_trip::<UpdateCounter>();
    round_trip::<TypeMappingOwned>();
    round_trip::<Renamed>();
    round_trip::<AllDefault>();
    round_trip::<SomeDefault>();
    round_trip::<Speed>();
    round_trip::<Mode>();
    round_trip::<Action>();
    round_trip::<Shape>();
    round_trip::<Direction>();
    round_trip::<Message>();
    round_trip::<Target>();
    round_trip::<Mixed>();
    round_trip::<Page<Action>>();
    round_trip::<Wrapper>();
    round_trip::<RoundTrip>();
    for case in [
        json!({"kind": "circle", "radiusCm": 1.5}),
        json!({"kind": "labelled", "LABEL_TEXT": "x"}),
    ] {
        serde_json::from_value::<Shape>(case).unwrap();
    }
    assert_eq!(
        serde_json::from_value::<Action>(json!({"Move": {"x": 1}})).unwrap(),
        Action::Move { x: 1, y: 0 }
    );
}

#[derive(ToolArgs, Deserialize)]
struct TypeMappingOwned {
    string: String,
    letter: char,
    path: PathBuf,
    small: i8,
    huge: u64,
    ratio: f32,
    queue: VecDeque<bool>,
    triple: [f64; 3],
    set: HashSet<String>,
    map: HashMap<String, u16>,
    boxed: Box<str>,
    shared: Arc<String>,
    maybe: Option<Box<bool>>,
}

// ----- golden: the exact wire JSON of a representative argsSchema -----

/// Where to deliver the parcel.
#[derive(ToolArgs, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Address {
    /// Street and number.
    #[arg(min_length = 1, max_length = 120)]
    street: String,
    /// Postal code, digits only.
    #[arg(pattern = "^[0-9]{4,6}$")]
    postal_code: String,
    country: Option<Country>,
}

/// ISO country.
#[derive(ToolArgs, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
enum Country {
    /// Germany.
    De,
    /// France.
    Fr,
}

/// How to pay.
#[derive(ToolArgs, Deserialize)]
#[serde(tag = "method", rename_all = "snake_case")]
enum Payment {
    /// Pay on delivery.
    Cash,
    /// Charge a card.
    Card {
        /// The last four digits, to confirm.
        #[arg(pattern = "^[0-9]{4}$")]
        last_four: String,
    },
}

/// Ship a parcel to an address.
///
/// Call it once per parcel; it books the courier and returns the tracking id.
#[derive(ToolArgs, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ShipParcel {
    /// Weight in kilograms.
    #[arg(exclusive_minimum = 0, maximum = 31.5)]
    weight_kg: f64,
    /// How many identical parcels.
    #[serde(default)]
    #[arg(minimum = 1, maximum = 20, default = 1)]
    count: u8,
    /// Insure the contents.
    insured: bool,
    /// Declared value in cents.
    #[arg(multiple_of = 100)]
    declared_value: Option<u64>,
    destination: Address,
    payment: Payment,
    /// Labels printed on the parcel.
    #[serde(default)]
    #[arg(max_items = 5, unique_items)]
    labels: Vec<String>,
    /// Free-form notes for the courier, by topic.
    notes: Option<BTreeMap<String, String>>,
    /// When to pick up (RFC 3339).
    #[arg(format = "date-time")]
    pickup_at: Option<String>,
    /// One-letter priority class.
    #[serde(default)]
    #[arg(default = 'B', pattern = "^[A-C]$")]
    priority: char,
}

#[test]
fn golden_args_schema() {
    let pretty = serde_json::to_string_pretty(&pedelec::ToolArgsSchema::from_node(
        <ShipParcel as ToolArgs>::SCHEMA,
    ))
    .unwrap();
    expect_test::expect_file!["golden/ship-parcel.json"].assert_eq(&(pretty + "\n"));
    round_trip::<ShipParcel>();
}
