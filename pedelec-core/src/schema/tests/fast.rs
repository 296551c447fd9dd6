//! The fast path against the reference (parse to `Value`, `validate`, normalize,
//! `serde_json::from_value`): for a corpus of schemas and `#[derive(Deserialize)]` types
//! (with hand-written `ToolArgs` consts, as `#[derive(ToolArgs)]` writes them) and many
//! valid and invalid instances, hand-written and generated, both must give the same value or
//! the same errors. The fast path alone must never accept what the reference rejects, and
//! must accept every valid generated instance without falling back.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::sync::Arc;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::schema::AdditionalProperties;
use crate::schema::json::JsonNumber;
use crate::schema::{
    ArgsError, CompiledSchema, Literal, NoArgs, Number, ParseOptions, Property, SchemaKind,
    SchemaNode, ToolArgs, ToolArgsSchema, ValidationErrors, ValidationOptions,
};

// ----- the reference -----

#[derive(Debug, PartialEq)]
enum Outcome<T> {
    Value(T),
    Syntax(String),
    Invalid(ValidationErrors),
    Mismatch(String),
}

fn outcome<T>(result: Result<T, ArgsError>) -> Outcome<T> {
    match result {
        Ok(value) => Outcome::Value(value),
        Err(ArgsError::Syntax(e)) => Outcome::Syntax(e.to_string()),
        Err(ArgsError::Invalid(errors)) => Outcome::Invalid(errors),
        Err(ArgsError::Mismatch(e)) => Outcome::Mismatch(e.to_string()),
    }
}

/// `validate` + `from_value`, with the documented normalization written out again here,
/// over the schema model rather than the compiled form.
fn reference<T: DeserializeOwned>(
    node: &SchemaNode,
    schema: &CompiledSchema,
    text: &str,
    options: ValidationOptions,
) -> Outcome<T> {
    let mut value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return Outcome::Syntax(e.to_string()),
    };
    if let Err(errors) = schema.validate_with(&value, options) {
        return Outcome::Invalid(errors);
    }
    reference_normalize(node, &mut value, options);
    match serde_json::from_value(value) {
        Ok(value) => Outcome::Value(value),
        Err(e) => Outcome::Mismatch(e.to_string()),
    }
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "integral floats, range-checked"
)]
fn reference_normalize(node: &SchemaNode, value: &mut Value, options: ValidationOptions) {
    if let Some(branches) = node.one_of_branches() {
        let matching: Vec<&SchemaNode> = branches
            .iter()
            .filter(|b| {
                CompiledSchema::compile(b)
                    .unwrap()
                    .is_valid_with(value, options)
            })
            .collect();
        if let [branch] = matching[..] {
            reference_normalize(branch, value, options);
        }
    }
    match value {
        Value::Number(n) if node.kind() == Some(SchemaKind::Integer) && n.is_f64() => {
            let f = n.as_f64().unwrap();
            if f.fract() == 0.0 && (0.0..18_446_744_073_709_551_616.0).contains(&f) {
                *n = serde_json::Number::from(f as u64);
            } else if f.fract() == 0.0 && (-9_223_372_036_854_775_808.0..0.0).contains(&f) {
                *n = serde_json::Number::from(f as i64);
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.items() {
                for v in items {
                    reference_normalize(item, v, options);
                }
            }
        }
        Value::Object(map) => {
            if options.null_as_absent {
                map.retain(|k, v| {
                    !(v.is_null() && node.property(k).is_some_and(|p| !p.is_required()))
                });
            }
            for (k, v) in map.iter_mut() {
                if let Some(p) = node.property(k) {
                    reference_normalize(p.schema(), v, options);
                } else if let Some(AdditionalProperties::Schema(s)) = node.additional_properties() {
                    reference_normalize(s, v, options);
                }
            }
        }
        _ => {}
    }
}

const PLAIN: ValidationOptions = ValidationOptions::new();
const SESSION: ValidationOptions = ValidationOptions::new().null_as_absent(true);
const FORMATS: ValidationOptions = ValidationOptions::new()
    .null_as_absent(true)
    .assert_formats(true);
const OPTIONS: [ValidationOptions; 3] = [PLAIN, SESSION, FORMATS];

#[derive(Default, Debug)]
struct Stats {
    cases: usize,
    /// Accepted by the fast path alone.
    fast: usize,
    /// Valid, but the fast path fell back to the slow path.
    fallback: usize,
    /// Rejected (syntax, invalid or mismatch), identically by both.
    rejected: usize,
}

/// Checks one instance against the reference, with both option sets.
fn check<T>(node: &SchemaNode, schema: &CompiledSchema, text: &str, stats: &mut Stats)
where
    T: DeserializeOwned + PartialEq + Debug,
{
    for options in OPTIONS {
        stats.cases += 1;
        let expected = reference::<T>(node, schema, text, options);
        let got = outcome(schema.deserialize_args_with::<T>(text, options));
        assert_eq!(
            got,
            expected,
            "deserialize_args_with disagrees with the reference\nschema: {}\ninstance: {text}\noptions: {options:?}",
            node.to_json()
        );
        if let Ok(value) = serde_json::from_str::<Value>(text) {
            assert_eq!(
                outcome(schema.deserialize_value_with::<T>(value, options)),
                expected,
                "deserialize_value_with disagrees with the reference\nschema: {}\ninstance: {text}",
                node.to_json()
            );
        }
        // The fast path gives a value or nothing: a type that does not take valid args
        // leaves them to the slow path, which reports the mismatch.
        match (schema.decode_fast::<T>(text, options), &expected) {
            (Some(value), Outcome::Value(reference)) => {
                assert_eq!(&value, reference, "instance: {text}");
                stats.fast += 1;
            }
            (None, Outcome::Value(_)) => stats.fallback += 1,
            (None, _) => stats.rejected += 1,
            (Some(got), other) => panic!(
                "the fast path accepted {text}, giving {got:?}; the reference says {other:?}\nschema: {}\noptions: {options:?}",
                node.to_json()
            ),
        }
    }
}

fn compiled(node: &SchemaNode) -> CompiledSchema {
    assert_eq!(node.problems(), [], "corpus schemas are sound");
    CompiledSchema::compile(node).unwrap()
}

/// Hand-written instances: each must agree with the reference; `valid` ones must be accepted
/// by the fast path alone (under both options).
fn cases<T>(node: &SchemaNode, valid: &[&str], other: &[&str]) -> Stats
where
    T: DeserializeOwned + PartialEq + Debug,
{
    let schema = compiled(node);
    let mut stats = Stats::default();
    for text in valid {
        let before = stats.fast;
        check::<T>(node, &schema, text, &mut stats);
        assert_eq!(
            stats.fast - before,
            OPTIONS.len(),
            "the fast path alone should accept {text} (with every option set)"
        );
    }
    for text in other {
        check::<T>(node, &schema, text, &mut stats);
    }
    stats
}

// ----- the corpus: types and their schemas -----

/// `update_counter`'s arguments.
#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Counter {
    delta: i32,
    label: Option<String>,
    tags: Vec<Tag>,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum Tag {
    Urgent,
    Later,
    VeryLow,
}

impl ToolArgs for Tag {
    const SCHEMA: SchemaNode = SchemaNode::string().with_enum_values(
        const {
            &[
                Literal::str("urgent"),
                Literal::str("later"),
                Literal::str("very_low"),
            ]
        },
    );
}

impl ToolArgs for Counter {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "delta",
                    SchemaNode::integer()
                        .with_minimum(Number::Int(-1000))
                        .with_maximum(Number::Int(1000)),
                    true,
                ),
                Property::new(
                    "label",
                    SchemaNode::string().with_min_length(1).with_max_length(20),
                    false,
                ),
                Property::new(
                    "tags",
                    SchemaNode::array(const { &Tag::SCHEMA }).with_max_items(5),
                    true,
                ),
            ]
        },
    )
    .closed();
}

/// Three levels of nesting, renames, defaults, maps, fixed-size arrays.
#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Plan {
    name: String,
    #[serde(rename = "sections")]
    parts: Vec<Section>,
    #[serde(default)]
    priority: Priority,
    #[serde(default)]
    meta: BTreeMap<String, u16>,
}

#[derive(Deserialize, Debug, PartialEq, Default)]
#[serde(rename_all = "lowercase")]
enum Priority {
    Low,
    #[default]
    Normal,
    High,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Section {
    title: String,
    items: Vec<Item>,
    #[serde(default)]
    collapsed: bool,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Item {
    id: u32,
    qty: f64,
    done: Option<bool>,
    note: Option<String>,
    unit_price: Option<u64>,
    dims: Option<[u8; 3]>,
}

impl ToolArgs for Priority {
    const SCHEMA: SchemaNode = SchemaNode::string().with_enum_values(
        const {
            &[
                Literal::str("low"),
                Literal::str("normal"),
                Literal::str("high"),
            ]
        },
    );
}

impl ToolArgs for Item {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::of::<u32>("id"),
                Property::new(
                    "qty",
                    SchemaNode::number()
                        .with_exclusive_minimum(Number::Int(0))
                        .with_maximum(Number::Int(1000))
                        .with_multiple_of(Number::Float(0.25)),
                    true,
                ),
                Property::of::<Option<bool>>("done"),
                Property::new("note", SchemaNode::string().with_max_length(40), false),
                Property::of::<Option<u64>>("unitPrice"),
                Property::of::<Option<[u8; 3]>>("dims"),
            ]
        },
    )
    .closed();
}

impl ToolArgs for Section {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::of::<String>("title"),
                Property::of::<Vec<Item>>("items"),
                Property::of::<bool>("collapsed").optional(),
            ]
        },
    )
    .closed();
}

impl ToolArgs for Plan {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "name",
                    SchemaNode::string()
                        .with_max_length(32)
                        .with_pattern("^[a-z][a-z0-9_-]*$"),
                    true,
                ),
                Property::new(
                    "sections",
                    SchemaNode::array(const { &Section::SCHEMA }).with_min_items(1),
                    true,
                ),
                Property::of::<Priority>("priority").optional(),
                Property::of::<BTreeMap<String, u16>>("meta").optional(),
            ]
        },
    )
    .closed();
}

/// `oneOf`: externally tagged, internally tagged and untagged enums.
#[derive(Deserialize, Debug, PartialEq)]
#[serde(deny_unknown_fields)]
struct Drawing {
    actions: Vec<Action>,
    shape: Option<Shape>,
    amount: Amount,
}

#[derive(Deserialize, Debug, PartialEq)]
enum Action {
    Stop,
    Move { x: i32, y: i32 },
    Say(String),
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Shape {
    Circle { radius: f64 },
    Empty,
}

#[derive(Deserialize, Debug, PartialEq)]
#[serde(untagged)]
enum Amount {
    Exact(i64),
    Range { min: i64, max: i64 },
}

impl ToolArgs for Action {
    const SCHEMA: SchemaNode = SchemaNode::one_of(
        const {
            &[
                SchemaNode::string().with_enum_values(const { &[Literal::str("Stop")] }),
                SchemaNode::object(
                    const {
                        &[Property::new(
                            "Move",
                            SchemaNode::object(
                                const { &[Property::of::<i32>("x"), Property::of::<i32>("y")] },
                            )
                            .closed(),
                            true,
                        )]
                    },
                )
                .closed(),
                SchemaNode::object(const { &[Property::of::<String>("Say")] }).closed(),
            ]
        },
    );
}

impl ToolArgs for Shape {
    const SCHEMA: SchemaNode = SchemaNode::one_of(
        const {
            &[
                SchemaNode::object(
                    const {
                        &[
                            Property::new(
                                "kind",
                                SchemaNode::string()
                                    .with_enum_values(const { &[Literal::str("circle")] }),
                                true,
                            ),
                            Property::of::<f64>("radius"),
                        ]
                    },
                )
                .closed(),
                SchemaNode::object(
                    const {
                        &[Property::new(
                            "kind",
                            SchemaNode::string()
                                .with_enum_values(const { &[Literal::str("empty")] }),
                            true,
                        )]
                    },
                )
                .closed(),
            ]
        },
    );
}

impl ToolArgs for Amount {
    const SCHEMA: SchemaNode = SchemaNode::one_of(
        const {
            &[
                <i64 as ToolArgs>::SCHEMA,
                SchemaNode::object(
                    const { &[Property::of::<i64>("min"), Property::of::<i64>("max")] },
                )
                .closed(),
            ]
        },
    );
}

impl ToolArgs for Drawing {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new(
                    "actions",
                    SchemaNode::array(const { &Action::SCHEMA }).with_max_items(4),
                    true,
                ),
                Property::of::<Option<Shape>>("shape"),
                Property::of::<Amount>("amount"),
            ]
        },
    )
    .closed();
}

/// Sets (`uniqueItems`), characters, boxes, and non-scalar / numeric enums.
#[derive(Deserialize, Debug, PartialEq)]
struct Bag {
    labels: BTreeSet<String>,
    initial: char,
    boxed: Box<str>,
    shared: Option<Arc<i16>>,
    level: u8,
    pair: Vec<i32>,
    #[serde(default)]
    count: u32,
}

impl ToolArgs for Bag {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::of::<BTreeSet<String>>("labels"),
                Property::of::<char>("initial"),
                Property::new("boxed", SchemaNode::string().with_min_length(2), true),
                Property::of::<Option<Arc<i16>>>("shared"),
                Property::new(
                    "level",
                    <u8 as ToolArgs>::SCHEMA.with_enum_values(
                        const {
                            &[
                                Literal::Num(Number::Int(1)),
                                Literal::Num(Number::Int(2)),
                                Literal::Num(Number::Float(3.0)),
                            ]
                        },
                    ),
                    true,
                ),
                Property::new(
                    "pair",
                    <Vec<i32> as ToolArgs>::SCHEMA.with_enum_values(
                        const {
                            &[
                                Literal::Array(Cow::Borrowed(&[
                                    Literal::Num(Number::Int(1)),
                                    Literal::Num(Number::Int(2)),
                                ])),
                                Literal::Array(Cow::Borrowed(&[
                                    Literal::Num(Number::Int(3)),
                                    Literal::Num(Number::Float(4.0)),
                                ])),
                            ]
                        },
                    ),
                    true,
                ),
                Property::of::<u32>("count").optional(),
            ]
        },
    )
    .closed();
}

/// `serde_json::Value` targets: what the schema checks, the target keeps as JSON.
#[derive(Deserialize, Debug, PartialEq)]
struct Loose {
    data: Value,
    list: Vec<Value>,
    rest: Option<BTreeMap<String, Value>>,
}

const OPEN_DATA: SchemaNode = SchemaNode::object(
    const {
        &[
            Property::new(
                "n",
                SchemaNode::integer().with_multiple_of(Number::Int(3)),
                true,
            ),
            Property::new("s", SchemaNode::string(), false),
        ]
    },
);

impl ToolArgs for Loose {
    const SCHEMA: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("data", OPEN_DATA, true),
                Property::new(
                    "list",
                    SchemaNode::array(const { &SchemaNode::integer() }),
                    true,
                ),
                Property::new(
                    "rest",
                    SchemaNode::map(
                        const { &SchemaNode::number().with_minimum(Number::Float(-1.5)) },
                    ),
                    false,
                ),
            ]
        },
    );
}

/// A schema that allows what the type does not accept: valid arguments can still fail to
/// deserialize (`Mismatch`).
#[derive(Deserialize, Debug, PartialEq)]
struct Disagree {
    code: u32,
    ratio: i8,
}

const DISAGREE: SchemaNode = SchemaNode::object(
    const {
        &[
            Property::new("code", SchemaNode::string(), true),
            Property::new("ratio", SchemaNode::number(), true),
        ]
    },
);

// ----- hand-written instances -----

#[test]
fn counter_cases() {
    let stats = cases::<Counter>(
        &Counter::SCHEMA,
        &[
            r#"{"delta": 2, "tags": []}"#,
            r#"{"delta": -1000, "label": "a", "tags": ["urgent", "very_low"]}"#,
            r#"{"tags": ["later"], "delta": 1000, "label": "exactly twenty chars"}"#,
            r#" { "delta" : 5 , "tags" : [ ] , "label" : "日本語" } "#,
            // 1.0 is an integer, and the i32 field takes it.
            r#"{"delta": 1.0, "tags": []}"#,
            r#"{"delta": -7.0, "tags": []}"#,
            r#"{"delta": 1e2, "tags": []}"#,
            // Twenty code points, forty bytes.
            r#"{"delta": 0, "tags": [], "label": "éééééééééééééééééééé"}"#,
            // Escapes in values.
            r#"{"delta": 0, "tags": [], "label": "a\"b\\c\u00e9"}"#,
        ],
        &[
            r#"{"delta": "5", "tags": []}"#,
            r#"{"delta": 1.5, "tags": []}"#,
            r#"{"delta": 1001, "tags": []}"#,
            r#"{"delta": 18446744073709551615, "tags": []}"#,
            r#"{"delta": 1e300, "tags": []}"#,
            r#"{"delta": 0, "tags": ["soon"]}"#,
            r#"{"delta": 0, "tags": [1]}"#,
            r#"{"delta": 0, "tags": ["urgent", "urgent", "later", "later", "urgent", "later"]}"#,
            r#"{"delta": 0, "tags": [], "label": ""}"#,
            r#"{"delta": 0, "tags": [], "label": "twenty-one characters"}"#,
            r#"{"delta": 0, "tags": [], "label": "ééééééééééééééééééééé"}"#,
            r#"{"delta": 0, "tags": [], "lable": "x"}"#,
            r#"{"delta": 0}"#,
            r#"{"tags": []}"#,
            r"{}",
            r"[]",
            r"null",
            r"5",
            r#"{"delta": 0, "tags": {}}"#,
            // null for an optional property: absent in the session, a type error otherwise.
            r#"{"delta": 0, "tags": [], "label": null}"#,
            r#"{"delta": 0, "tags": [], "label" :null}"#,
            r#"{"delta": 0, "tags": [], "label":
                null}"#,
            // The same without whitespace (the look-ahead's shortcut).
            r#"{"delta":0,"tags":[],"label":null}"#,
            r#"{"delta":0,"tags":[],"label":"null"}"#,
            r#"{"delta":0,"tags":[],"label":nul}"#,
            r#"{"delta":0,"tags":[],"label":nullx}"#,
            r#"{"delta":0,"tags":[],"label":n"#,
            r#"{"delta":0,"tags":[],"label":"#,
            r#"{"delta":0,"tags":[],"label""#,
            r#"{"delta":0,"tags":[],"label":
null}"#,
            r#"{"delta": null, "tags": []}"#,
            r#"{"delta": 0, "tags": null}"#,
            // Repeated names: `Value` keeps the last one, the struct rejects them.
            r#"{"delta": 0, "delta": 1, "tags": []}"#,
            r#"{"delta": "x", "delta": 1, "tags": []}"#,
            r#"{"delta": 0, "tags": [], "label": "x", "label": null}"#,
            // An escaped name.
            r#"{"d\u0065lta": 3, "tags": []}"#,
            r#"{"delta": 3, "tags": [], "l\u0061bel": null}"#,
            r#"{"delta": 3, "tags": [], "l\u0061bel": "ok"}"#,
            // Not JSON.
            r#"{"delta": 0, "tags": []"#,
            r#"{"delta": 0, "tags": []} x"#,
            r#"{"delta": 0, "tags": [], "label": nul}"#,
            r#"{"delta": 0, "tags": [], "label": nullx}"#,
            r#"{"delta": 01, "tags": []}"#,
            "",
        ],
    );
    assert!(stats.rejected > 20, "{stats:?}");
}

#[test]
fn plan_cases() {
    let item = r#"{"id": 1, "qty": 0.25}"#;
    let section = format!(r#"{{"title": "t", "items": [{item}, {item}]}}"#);
    let valid = [
        format!(r#"{{"name": "weekly", "sections": [{section}]}}"#),
        format!(
            r#"{{"name": "a-b_c", "sections": [{section}, {{"title": "", "items": [], "collapsed": true}}], "priority": "high", "meta": {{"x": 65535, "y": 0, "": 1}}}}"#
        ),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 4294967295, "qty": 1000, "done": true, "note": "n", "unitPrice": 18446744073709551615, "dims": [1, 2, 255]}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 3.0, "qty": 999.75, "unitPrice": 0, "dims": [0, 0, 0.0]}]}]}"#.to_owned(),
    ];
    let invalid = [
        format!(r#"{{"name": "Weekly", "sections": [{section}]}}"#),
        r#"{"name": "weekly", "sections": []}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 1, "qty": 0}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 1, "qty": 0.3}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": -1, "qty": 1}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 4294967296, "qty": 1}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 1, "qty": 1, "dims": [1, 2]}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 1, "qty": 1, "dims": [1, 2, 3, 4]}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 1, "qty": 1, "dims": [1, 2, 256]}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 1, "qty": 1, "dims": null, "note": null, "done": null}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [{"id": 1, "qty": 1, "extra": 1}]}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": []}], "priority": "urgent"}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": []}], "priority": null}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": []}], "meta": {"x": -1}}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": []}], "meta": {"x": null}}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": []}], "meta": null}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t", "items": [], "collapsed": null}]}"#.to_owned(),
        r#"{"name": "p", "sections": [{"title": "t"}]}"#.to_owned(),
    ];
    let valid: Vec<&str> = valid.iter().map(String::as_str).collect();
    let invalid: Vec<&str> = invalid.iter().map(String::as_str).collect();
    cases::<Plan>(&Plan::SCHEMA, &valid, &invalid);
}

#[test]
fn one_of_cases() {
    cases::<Drawing>(
        &Drawing::SCHEMA,
        &[
            r#"{"actions": [], "amount": 5}"#,
            r#"{"actions": ["Stop", {"Move": {"x": 1, "y": -2}}, {"Say": "hi"}], "shape": {"kind": "circle", "radius": 2.5}, "amount": {"min": 1, "max": 2}}"#,
            r#"{"actions": [{"Move": {"x": 1.0, "y": 2}}], "shape": {"kind": "empty"}, "amount": 2.0}"#,
            r#"{"actions": [], "shape": {"radius": 1, "kind": "circle"}, "amount": -9223372036854775808}"#,
        ],
        &[
            r#"{"actions": ["Go"], "amount": 5}"#,
            r#"{"actions": [{"Move": {"x": 1}}], "amount": 5}"#,
            r#"{"actions": [{"Move": {"x": 1, "y": 2}, "Say": "x"}], "amount": 5}"#,
            r#"{"actions": [{"Say": null}], "amount": 5}"#,
            r#"{"actions": [], "amount": 5.5}"#,
            r#"{"actions": [], "amount": {"min": 1}}"#,
            r#"{"actions": [], "amount": "5"}"#,
            r#"{"actions": [], "amount": 5, "shape": {"kind": "square"}}"#,
            r#"{"actions": [], "amount": 5, "shape": {"kind": "empty", "radius": 1}}"#,
            r#"{"actions": [], "amount": 5, "shape": null}"#,
            r#"{"actions": ["Stop", "Stop", "Stop", "Stop", "Stop"], "amount": 5}"#,
            r#"{"actions": [], "amount": 9223372036854775808}"#,
        ],
    );
}

#[test]
fn bag_cases() {
    cases::<Bag>(
        &Bag::SCHEMA,
        &[
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2]}"#,
            r#"{"labels": ["a", "b"], "initial": "é", "boxed": "日本", "shared": -32768, "level": 3, "pair": [3, 4.0], "count": 7}"#,
            r#"{"labels": ["b", "a"], "initial": "🎉", "boxed": "ab", "level": 2.0, "pair": [3.0, 4]}"#,
        ],
        &[
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2], "extra": {"any": [null]}}"#,
            r#"{"labels": ["a", "a"], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2]}"#,
            r#"{"labels": [], "initial": "xy", "boxed": "ab", "level": 1, "pair": [1, 2]}"#,
            r#"{"labels": [], "initial": "", "boxed": "ab", "level": 1, "pair": [1, 2]}"#,
            r#"{"labels": [], "initial": "x", "boxed": "é", "level": 1, "pair": [1, 2]}"#,
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 4, "pair": [1, 2]}"#,
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [2, 1]}"#,
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2, 3]}"#,
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2], "shared": 32768}"#,
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2], "count": null}"#,
            r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2], "shared": null}"#,
        ],
    );
}

#[test]
fn value_targets_keep_what_the_schema_checked() {
    cases::<Loose>(
        &Loose::SCHEMA,
        &[
            r#"{"data": {"n": 3}, "list": []}"#,
            r#"{"data": {"n": 6.0, "s": "x", "other": [1.0, {"deep": null}]}, "list": [1, 2.0, -3.0], "rest": {"a": -1.5, "b": 2}}"#,
            r#"{"data": {"n": -0.0}, "list": [18446744073709551615], "unknown": true}"#,
        ],
        &[
            r#"{"data": {"n": 4}, "list": []}"#,
            r#"{"data": {"n": 3, "s": 1}, "list": []}"#,
            r#"{"data": {"s": "x"}, "list": []}"#,
            r#"{"data": [], "list": []}"#,
            r#"{"data": {"n": 3}, "list": [1.5]}"#,
            r#"{"data": {"n": 3}, "list": [], "rest": {"a": -2}}"#,
            r#"{"data": {"n": 3}, "list": [], "rest": {"a": null}}"#,
            r#"{"data": {"n": 3, "s": null}, "list": []}"#,
            r#"{"data": {"n": 3}, "list": [], "rest": null}"#,
        ],
    );
    // Integral floats at integer nodes reach a `Value` target as integers.
    let schema = compiled(&Loose::SCHEMA);
    let loose: Loose = schema
        .deserialize_args(r#"{"data": {"n": 6.0, "x": 1.0}, "list": [2.0], "rest": {"r": 2.0}}"#)
        .unwrap();
    assert_eq!(loose.data, json!({"n": 6, "x": 1.0}));
    assert_eq!(loose.list, [json!(2)]);
    assert_eq!(loose.rest.unwrap()["r"], json!(2.0));
}

#[test]
fn mismatched_types_are_reported_apart_from_invalid_arguments() {
    let schema = compiled(&DISAGREE);
    let stats = cases::<Disagree>(
        &DISAGREE,
        &[],
        &[
            r#"{"code": "abc", "ratio": 1}"#,
            r#"{"code": "1", "ratio": 300}"#,
            r#"{"code": 1, "ratio": 1}"#,
        ],
    );
    assert_eq!(stats.fast, 0);
    let Err(error) = schema.deserialize_args::<Disagree>(r#"{"code": "abc", "ratio": 1}"#) else {
        panic!("a string is not a u32");
    };
    assert!(matches!(error, ArgsError::Mismatch(_)), "{error:?}");
    assert_eq!(
        error.to_string(),
        "the arguments match the schema but cannot be read as the tool's argument type: \
         invalid type: string \"abc\", expected u32 (the argsSchema allows what the type does \
         not accept)"
    );
    let Err(error) = schema.deserialize_args::<Disagree>(r#"{"code": 1, "ratio": 1}"#) else {
        panic!("1 is not a string");
    };
    assert_eq!(error.to_string(), r"/code: expected string, got number 1");
}

#[test]
fn null_as_absent_gives_the_target_a_missing_property() {
    let schema = compiled(&Bag::SCHEMA);
    let text = r#"{"labels": [], "initial": "x", "boxed": "ab", "level": 1, "pair": [1, 2], "count": null, "shared": null}"#;
    let bag: Bag = schema.deserialize_args_with(text, SESSION).unwrap();
    assert_eq!((bag.count, bag.shared), (0, None));
    assert!(schema.decode_fast::<Bag>(text, SESSION).is_some());
    let errors = schema.deserialize_args::<Bag>(text).unwrap_err();
    assert_eq!(
        errors.to_string(),
        "/count: expected integer, got null\n/shared: expected integer, got null"
    );
}

#[test]
fn errors_list_every_problem_and_become_tool_errors() {
    let schema = compiled(&Counter::SCHEMA);
    let error = schema
        .deserialize_args_with::<Counter>(
            r#"{"delta": "5", "tags": ["soon", 1], "lable": "x"}"#,
            SESSION,
        )
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        [
            r#"/delta: expected integer, got string "5""#,
            r#"/tags/0: "soon" is not one of "urgent", "later", "very_low""#,
            "/tags/1: expected string, got number 1",
            r#"/: unknown property "lable"; did you mean "label"?"#,
        ]
        .join("\n")
    );
    // As a call's details (what `TOOL_ARGS_INVALID` carries).
    let details = serde_json::to_value(error.validation_errors().unwrap()).unwrap();
    assert_eq!(details["errors"][0]["pointer"], "/delta");
    assert_eq!(details["truncated"], false);

    let syntax = schema
        .deserialize_args::<Counter>("{\"delta\": ")
        .unwrap_err();
    assert!(matches!(syntax, ArgsError::Syntax(_)));
    assert_eq!(
        syntax.to_string(),
        "the arguments are not valid JSON: EOF while parsing a value at line 1 column 10"
    );
    assert!(syntax.validation_errors().is_none());
}

#[test]
fn tool_args_schema_decodes_through_its_compiled_form() {
    let mut schema = ToolArgsSchema::from_node(Counter::SCHEMA);
    let text = r#"{"delta": 3, "tags": ["later"]}"#;
    let expected = Counter {
        delta: 3,
        label: None,
        tags: vec![Tag::Later],
    };
    // Not compiled yet: `validate` compiles for the one call.
    assert!(schema.compiled().is_none());
    assert!(schema.is_valid(&serde_json::from_str(text).unwrap()));
    let compiled = schema.compile().unwrap();
    assert_eq!(
        compiled.deserialize_args::<Counter>(text).unwrap(),
        expected
    );
    assert_eq!(
        compiled
            .deserialize_value_with::<Counter>(
                json!({"delta": 3.0, "tags": ["later"], "label": null}),
                SESSION
            )
            .unwrap(),
        expected
    );
    // A schema that cannot compile rejects everything, saying why.
    let mut broken = ToolArgsSchema::from_node(SchemaNode::object(
        const {
            &[Property::new(
                "x",
                SchemaNode::string().with_pattern("("),
                true,
            )]
        },
    ));
    let error = broken.validate(&json!({"x": "a"})).unwrap_err();
    assert!(
        error.to_string().contains("the schema itself is invalid"),
        "{error}"
    );
    assert!(!broken.is_valid(&json!({"x": "a"})));
    assert!(broken.compile().is_err());
}

#[test]
fn no_args_and_lenient_schemas() {
    cases::<NoArgs>(
        &NoArgs::SCHEMA,
        &["{}", " { } "],
        &[r#"{"x": 1}"#, "null", "[]"],
    );
    // Keywords without `type`, `required` names that are not properties (buffered), and a
    // `oneOf` at the root of a `Value`.
    let lenient =
        |json: Value| SchemaNode::from_json_with(&json, &ParseOptions::lenient()).unwrap();
    let node = lenient(json!({
        "properties": {"a": {"minimum": 2}, "b": {"maxLength": 2, "enum": ["x", "yy", 3, null]}},
        "required": ["a", "zz"]
    }));
    let schema = CompiledSchema::compile(&node).unwrap();
    let mut stats = Stats::default();
    for text in [
        r#"{"a": 2, "zz": 0}"#,
        r#"{"a": 1, "zz": 0}"#,
        r#"{"a": 2}"#,
        r#"{"a": "text", "zz": 0, "b": "yy"}"#,
        r#"{"a": 2, "zz": 0, "b": 3}"#,
        r#"{"a": 2, "zz": 0, "b": null}"#,
        r#"{"a": 2, "zz": 0, "b": "zzz"}"#,
        r"[1, 2]",
        r#""text""#,
        "7",
    ] {
        check::<Value>(&node, &schema, text, &mut stats);
    }
    let node = lenient(json!({
        "properties": {"v": {"enum": [null, true, 1.5, "s"]}, "w": {"type": "integer", "enum": [1, 2]}}
    }));
    let schema = CompiledSchema::compile(&node).unwrap();
    for text in [
        r#"{"v": null, "w": 1.0}"#,
        r#"{"v": true, "w": 2}"#,
        r#"{"v": false}"#,
        r#"{"v": 1.5}"#,
        r#"{"v": 15e-1}"#,
        r#"{"v": [1.5]}"#,
        r#"{"v": {}}"#,
        r#"{"w": 3}"#,
        r#"{"w": [1]}"#,
    ] {
        check::<Value>(&node, &schema, text, &mut stats);
        check::<BTreeMap<String, Value>>(&node, &schema, text, &mut stats);
    }
    assert!(stats.fast > 5 && stats.rejected > 5, "{stats:?}");
}

#[test]
fn large_objects_and_non_string_keys() {
    // More than 64 properties (the `seen` set spills), more than 8 (hashed lookup).
    let properties: serde_json::Map<String, Value> = (0..70)
        .map(|i| (format!("p{i}"), json!({"type": "integer", "maximum": i})))
        .collect();
    let required: Vec<String> = (0..70).step_by(7).map(|i| format!("p{i}")).collect();
    let node = SchemaNode::from_json(&json!({
        "type": "object", "properties": properties, "required": required, "additionalProperties": false
    }))
    .unwrap();
    let schema = compiled(&node);
    let all: serde_json::Map<String, Value> =
        (0..70).map(|i| (format!("p{i}"), json!(i))).collect();
    let mut stats = Stats::default();
    let full = Value::Object(all.clone()).to_string();
    check::<BTreeMap<String, i64>>(&node, &schema, &full, &mut stats);
    assert_eq!(stats.fast, OPTIONS.len());
    let mut missing = all.clone();
    missing.remove("p63");
    missing.remove("p56");
    check::<BTreeMap<String, i64>>(
        &node,
        &schema,
        &Value::Object(missing).to_string(),
        &mut stats,
    );
    let mut missing = all.clone();
    missing.remove("p28");
    check::<BTreeMap<String, i64>>(
        &node,
        &schema,
        &Value::Object(missing).to_string(),
        &mut stats,
    );
    let mut too_big = all;
    too_big.insert("p69".into(), json!(70));
    check::<BTreeMap<String, i64>>(
        &node,
        &schema,
        &Value::Object(too_big).to_string(),
        &mut stats,
    );
    let repeated = full.replacen("\"p1\"", "\"p65\"", 1);
    check::<BTreeMap<String, i64>>(&node, &schema, &repeated, &mut stats);

    // Maps keyed by numbers and booleans, as `serde_json` reads them.
    let node = SchemaNode::from_json(&json!({
        "type": "object", "additionalProperties": {"type": "string"}
    }))
    .unwrap();
    let schema = compiled(&node);
    for text in [
        r#"{"1": "a", "-2": "b", "30": "c"}"#,
        r#"{"1": "a", "x": "b"}"#,
        r#"{" 1": "a"}"#,
        r#"{"1 ": "a"}"#,
        r#"{"1.5": "a"}"#,
        r#"{"1": 1}"#,
    ] {
        check::<BTreeMap<i32, String>>(&node, &schema, text, &mut stats);
        check::<BTreeMap<i128, String>>(&node, &schema, text, &mut stats);
        check::<BTreeMap<String, String>>(&node, &schema, text, &mut stats);
    }
    for text in [r#"{"true": "a", "false": "b"}"#, r#"{"yes": "a"}"#] {
        check::<BTreeMap<bool, String>>(&node, &schema, text, &mut stats);
    }
}

#[test]
fn integer_bounds_at_the_ends_of_their_range() {
    // Integer bounds become one `i64` range; float bounds, bounds beyond `i64` and exclusive
    // bounds at its ends take the general comparisons. Both must agree with the reference.
    let bounds = [
        json!({"minimum": -3, "maximum": 5}),
        json!({"exclusiveMinimum": -3, "exclusiveMaximum": 5}),
        json!({"minimum": 0, "exclusiveMaximum": 5, "multipleOf": 2}),
        json!({"exclusiveMinimum": i64::MAX}),
        json!({"exclusiveMaximum": i64::MIN}),
        json!({"exclusiveMinimum": i64::MIN, "exclusiveMaximum": i64::MAX}),
        json!({"minimum": i64::MAX, "maximum": u64::MAX}),
        json!({"minimum": u64::MAX}),
        json!({"exclusiveMaximum": 9_223_372_036_854_775_808_u64}),
        json!({"minimum": -2.5, "maximum": 4.5}),
        json!({"minimum": -3, "exclusiveMaximum": 4.5}),
    ];
    let instances = [
        i64::MIN.to_string(),
        (i64::MIN + 1).to_string(),
        "-4".into(),
        "-3".into(),
        "-2".into(),
        "0".into(),
        "2".into(),
        "4".into(),
        "5".into(),
        "6".into(),
        (i64::MAX - 1).to_string(),
        i64::MAX.to_string(),
        "9223372036854775808".into(),
        u64::MAX.to_string(),
        "4.0".into(),
        "4.5".into(),
        "-3.5".into(),
    ];
    let mut stats = Stats::default();
    for bound in &bounds {
        for kind in ["integer", "number"] {
            let mut schema = bound.clone();
            schema["type"] = json!(kind);
            let node = SchemaNode::from_json(&schema).unwrap();
            let compiled = CompiledSchema::compile(&node).unwrap();
            for text in &instances {
                check::<Value>(&node, &compiled, text, &mut stats);
                check::<i64>(&node, &compiled, text, &mut stats);
                check::<u64>(&node, &compiled, text, &mut stats);
                check::<f64>(&node, &compiled, text, &mut stats);
            }
        }
    }
    assert!(stats.fast > 100 && stats.rejected > 100, "{stats:?}");
}

#[test]
fn string_lengths_count_code_points() {
    // Lengths in bytes decide the common case; strings of multi-byte characters near the
    // bounds take the count of code points. Both must agree with the reference.
    let bounds = [
        json!({"minLength": 2, "maxLength": 3}),
        json!({"minLength": 1}),
        json!({"maxLength": 1}),
        json!({"minLength": 3, "maxLength": 3}),
        json!({"minLength": 2, "maxLength": 3, "pattern": "^a"}),
        json!({"maxLength": 2, "enum": ["ab", "abc", "éé", 1]}),
        json!({}),
    ];
    let strings = [
        "",
        "a",
        "é",
        "ab",
        "aé",
        "éé",
        "😀",
        "a😀",
        "😀😀",
        "abc",
        "éééé",
        "😀😀😀",
        "abcd",
        "ab😀",
        "😀😀😀😀",
        "abcdefghijklm",
    ];
    let mut stats = Stats::default();
    for bound in &bounds {
        for kind in [Some("string"), None] {
            let mut schema = bound.clone();
            if let Some(kind) = kind {
                schema["type"] = json!(kind);
            }
            let node = SchemaNode::from_json_with(&schema, &ParseOptions::lenient()).unwrap();
            let compiled = CompiledSchema::compile(&node).unwrap();
            for s in strings {
                let text = Value::from(s).to_string();
                check::<Value>(&node, &compiled, &text, &mut stats);
                check::<String>(&node, &compiled, &text, &mut stats);
            }
        }
    }
    assert!(stats.fast > 100 && stats.rejected > 100, "{stats:?}");
}

#[test]
fn raw_values_get_the_checked_text() {
    #[derive(Deserialize, Debug)]
    struct Raw {
        data: Box<serde_json::value::RawValue>,
    }
    impl PartialEq for Raw {
        fn eq(&self, other: &Self) -> bool {
            self.data.get() == other.data.get()
        }
    }
    let node = SchemaNode::object(const { &[Property::new("data", OPEN_DATA, true)] });
    let schema = compiled(&node);
    let mut stats = Stats::default();
    for text in [
        r#"{"data": {"n": 3,   "s": "x"}}"#,
        r#"{"data": {"s": "x", "n": 3, "a": [1.5, {"z": null, "b": "\u00e9"}]}}"#,
        r#"{"data": {"n": 3.0}}"#,
        r#"{"data": {"n": 4}}"#,
    ] {
        check::<Raw>(&node, &schema, text, &mut stats);
    }
    assert_eq!(stats.fast, 3 * OPTIONS.len());
}

// ----- the generated corpus -----

/// A small deterministic generator (SplitMix64): the corpus is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        usize::try_from(self.next() % n as u64).unwrap()
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "x",
    "ab",
    "run",
    "weekly",
    "a-b_c",
    "Hello",
    "with space",
    "é",
    "日本",
    "🎉",
    "quote\"d",
    "back\\slash",
    "new\nline",
    "urgent",
    "later",
    "very_low",
    "low",
    "high",
    "normal",
    "circle",
    "empty",
    "Stop",
    "exactly twenty chars",
    "twenty-one characters",
    "éééééééééééééééééééé",
    "1",
    "null",
];

fn number(n: Number) -> Value {
    JsonNumber(n).to_json().map_or(Value::Null, Value::Number)
}

#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    reason = "small test numbers"
)]
fn gen_number(node: &SchemaNode, rng: &mut Rng) -> Value {
    let bounds: Vec<Number> = [
        node.minimum(),
        node.maximum(),
        node.exclusive_minimum(),
        node.exclusive_maximum(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let integer = node.kind() == Some(SchemaKind::Integer);
    match rng.below(10) {
        0..=3 if !bounds.is_empty() => {
            let bound = rng.pick(&bounds).as_f64();
            let offset = *rng.pick(&[0.0, 0.0, 1.0, -1.0, 0.5, -0.25, 2.0]);
            let f = bound + offset;
            if integer && f.fract() == 0.0 && f.abs() < 9e18 && rng.chance(80) {
                json!(f as i64)
            } else {
                number(Number::Float(f))
            }
        }
        0..=6 => {
            let i = rng.below(2001) as i64 - 1000;
            let i = if rng.chance(50) { i / 100 } else { i };
            if rng.chance(15) {
                number(Number::Float(i as f64))
            } else {
                json!(i)
            }
        }
        7 => number(Number::Float(
            *rng.pick(&[0.25, 0.5, 1.5, 2.75, -0.0, 999.75, 0.3, 1e-7]),
        )),
        8 => json!(*rng.pick(&[u64::MAX, 4_294_967_296, 65_536, 256])),
        _ => {
            if rng.chance(50) {
                json!(i64::MIN)
            } else {
                number(Number::Float(*rng.pick(&[1e300, -1e300, 1e19, 9.5e18])))
            }
        }
    }
}

fn gen_any(rng: &mut Rng, depth: u32) -> Value {
    match rng.below(if depth > 3 { 5 } else { 7 }) {
        0 => Value::Null,
        1 => json!(rng.chance(50)),
        2 => json!(rng.below(10)),
        3 => json!(1.5),
        4 => json!(*rng.pick(STRINGS)),
        5 => Value::Array((0..rng.below(3)).map(|_| gen_any(rng, depth + 1)).collect()),
        _ => Value::Object(
            (0..rng.below(3))
                .map(|i| (format!("k{i}"), gen_any(rng, depth + 1)))
                .collect(),
        ),
    }
}

/// Generates instances for a schema: in valid mode every choice is checked against its
/// node (so most instances are valid), otherwise mistakes of every kind are sprinkled in.
struct Generator {
    rng: Rng,
    /// Percent chance, per node, of a value of any type instead of a fitting one.
    mistakes: u64,
    /// Compiled nodes by address, to test candidate scalars.
    compiled: std::collections::HashMap<usize, CompiledSchema>,
}

impl Generator {
    fn fits(&mut self, node: &SchemaNode, value: &Value) -> bool {
        let key = std::ptr::from_ref(node).addr();
        self.compiled
            .entry(key)
            .or_insert_with(|| CompiledSchema::compile(node).unwrap())
            .is_valid_with(value, SESSION)
    }

    /// A scalar from `draw`, one that fits `node` unless mistakes are allowed.
    fn scalar(&mut self, node: &SchemaNode, draw: impl Fn(&mut Rng) -> Value) -> Value {
        let mut value = draw(&mut self.rng);
        if self.mistakes > 0 && self.rng.chance(50) {
            return value;
        }
        for _ in 0..40 {
            if self.fits(node, &value) {
                break;
            }
            value = draw(&mut self.rng);
        }
        value
    }

    fn generate(&mut self, node: &SchemaNode, depth: u32) -> Value {
        if self.rng.chance(self.mistakes) || depth > 8 {
            return gen_any(&mut self.rng, depth);
        }
        if let Some(branches) = node.one_of_branches() {
            let branch = self.rng.pick(branches);
            return self.generate(branch, depth);
        }
        if let Some(values) = node.enum_values()
            && !self.rng.chance(self.mistakes * 3)
        {
            return self.rng.pick(values).to_value();
        }
        match node.kind() {
            None => gen_any(&mut self.rng, depth),
            Some(SchemaKind::String) => self.scalar(node, |rng| json!(*rng.pick(STRINGS))),
            Some(SchemaKind::Integer | SchemaKind::Number) => {
                self.scalar(node, |rng| gen_number(node, rng))
            }
            Some(SchemaKind::Boolean) => json!(self.rng.chance(50)),
            Some(SchemaKind::Array) => self.array(node, depth),
            Some(SchemaKind::Object) => self.object(node, depth),
        }
    }

    fn array(&mut self, node: &SchemaNode, depth: u32) -> Value {
        let rng = &mut self.rng;
        let min = usize::try_from(node.min_items().unwrap_or(0)).unwrap();
        let max = node
            .max_items()
            .map_or(min + 4, |m| usize::try_from(m).unwrap())
            .min(min + 4);
        let len = if rng.chance(100 - self.mistakes * 2) {
            min + rng.below(max - min + 1)
        } else {
            (max + 1).saturating_sub(rng.below(max + 3))
        };
        let mut items: Vec<Value> = Vec::with_capacity(len);
        for _ in 0..len {
            let item = match node.items() {
                Some(item) => self.generate(item, depth + 1),
                None => gen_any(&mut self.rng, depth + 1),
            };
            if node.unique_items() == Some(true)
                && self.mistakes == 0
                && items.iter().any(|i| crate::schema::json_equal(i, &item))
            {
                continue;
            }
            items.push(item);
        }
        if !items.is_empty() && self.rng.chance(self.mistakes * 2) {
            let copy = self.rng.pick(&items).clone();
            items.push(copy);
        }
        Value::Array(items)
    }

    fn object(&mut self, node: &SchemaNode, depth: u32) -> Value {
        let mut map = serde_json::Map::new();
        for p in node.properties() {
            let include = if p.is_required() {
                !self.rng.chance(self.mistakes)
            } else {
                self.rng.chance(50)
            };
            if include {
                let value = if !p.is_required() && self.rng.chance(10) {
                    Value::Null
                } else {
                    self.generate(p.schema(), depth + 1)
                };
                map.insert(p.name().to_owned(), value);
            }
        }
        match node.additional_properties() {
            Some(AdditionalProperties::Schema(values)) => {
                for i in 0..self.rng.below(4) {
                    let value = self.generate(values, depth + 1);
                    map.insert(format!("key{i}"), value);
                }
            }
            Some(AdditionalProperties::Bool(false)) if !self.rng.chance(self.mistakes) => {}
            _ => {
                if self.rng.chance(30) {
                    map.insert("unexpected".into(), gen_any(&mut self.rng, depth + 1));
                }
            }
        }
        if self.rng.chance(20) {
            // Another property order.
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.reverse();
            map = entries.into_iter().collect();
        }
        Value::Object(map)
    }
}

fn generated<T>(node: &SchemaNode, seed: u64, count: usize) -> Stats
where
    T: DeserializeOwned + PartialEq + Debug,
{
    let schema = compiled(node);
    let mut generator = Generator {
        rng: Rng(seed),
        mistakes: 0,
        compiled: std::collections::HashMap::new(),
    };
    let mut stats = Stats::default();
    for _ in 0..count {
        // Half meant to be valid, half with mistakes.
        generator.mistakes = if generator.rng.chance(50) { 0 } else { 6 };
        let value = generator.generate(node, 0);
        let rng = &mut generator.rng;
        let mut text = if rng.chance(50) {
            value.to_string()
        } else {
            serde_json::to_string_pretty(&value).unwrap()
        };
        if rng.chance(3) {
            // Not JSON any more.
            let cut = text
                .char_indices()
                .map(|(i, _)| i)
                .nth(rng.below(text.len()));
            text.truncate(cut.unwrap_or(0));
        }
        check::<T>(node, &schema, &text, &mut stats);
    }
    // Every valid instance took the fast path alone: generated instances have neither
    // repeated nor escaped property names.
    assert_eq!(stats.fallback, 0, "{stats:?}");
    assert!(
        stats.fast > stats.cases / 5 && stats.rejected > stats.cases / 5,
        "the corpus mixes valid and invalid instances: {stats:?}"
    );
    eprintln!("{}: {stats:?}", std::any::type_name::<T>());
    stats
}

/// Cases per type (times the two option sets).
const GENERATED: usize = 600;

#[test]
fn generated_counter() {
    generated::<Counter>(&Counter::SCHEMA, 1, GENERATED);
}

#[test]
fn generated_plan() {
    generated::<Plan>(&Plan::SCHEMA, 2, GENERATED);
}

#[test]
fn generated_drawing() {
    generated::<Drawing>(&Drawing::SCHEMA, 3, GENERATED);
}

#[test]
fn generated_bag() {
    generated::<Bag>(&Bag::SCHEMA, 4, GENERATED);
}

#[test]
fn generated_loose_and_values() {
    generated::<Loose>(&Loose::SCHEMA, 5, GENERATED);
    generated::<Value>(&Plan::SCHEMA, 6, GENERATED);
    generated::<Value>(&Drawing::SCHEMA, 7, GENERATED);
}

/// Byte-level damage to valid instances (characters dropped, doubled, replaced): whatever
/// comes out, syntax errors included, both paths agree and nothing panics.
#[test]
fn damaged_text_agrees_and_never_panics() {
    const NOISE: &[&str] = &[
        "", "\"", "\\", "{", "}", "[", "]", ",", ":", "null", "1.0", "é", "\u{0}", " ",
    ];
    fn damage<T: DeserializeOwned + PartialEq + Debug>(node: &SchemaNode, valid: &str, seed: u64) {
        let schema = compiled(node);
        let mut rng = Rng(seed);
        let mut stats = Stats::default();
        let chars: Vec<char> = valid.chars().collect();
        for _ in 0..300 {
            let mut text: Vec<char> = chars.clone();
            for _ in 0..=rng.below(3) {
                let at = rng.below(text.len());
                match rng.below(3) {
                    0 => {
                        text.remove(at);
                    }
                    1 => text.insert(at, text[at]),
                    _ => {
                        text.splice(at..=at, rng.pick(NOISE).chars());
                    }
                }
                if text.is_empty() {
                    break;
                }
            }
            let text: String = text.into_iter().collect();
            check::<T>(node, &schema, &text, &mut stats);
        }
        assert!(stats.rejected > 0, "{stats:?}");
    }
    damage::<Counter>(
        &Counter::SCHEMA,
        r#"{"delta": -5, "label": "morning run", "tags": ["urgent", "later"]}"#,
        11,
    );
    damage::<Plan>(
        &Plan::SCHEMA,
        r#"{"name": "weekly", "sections": [{"title": "t", "items": [{"id": 1, "qty": 0.25, "note": "n", "dims": [1, 2, 3]}]}], "meta": {"a": 1}}"#,
        12,
    );
    damage::<Drawing>(
        &Drawing::SCHEMA,
        r#"{"actions": ["Stop", {"Move": {"x": 1, "y": -2}}], "shape": {"kind": "circle", "radius": 2.5}, "amount": {"min": 1, "max": 2}}"#,
        13,
    );
    damage::<Value>(
        &Loose::SCHEMA,
        r#"{"data": {"n": 3, "s": "x"}, "list": [1, 2.0], "rest": {"a": 1}}"#,
        14,
    );
}

/// Nesting deeper than `serde_json`'s limit, inside a value the schema does not check:
/// both paths report the same syntax error.
#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    // A type-less property (the lenient reader's): anything goes.
    let node = SchemaNode::object(const { &[Property::new("x", SchemaNode::any(), true)] });
    let schema = CompiledSchema::compile(&node).unwrap();
    let mut stats = Stats::default();
    for depth in [100, 127, 128, 200, 5000] {
        let text = format!(r#"{{"x": {}{}}}"#, "[".repeat(depth), "]".repeat(depth));
        check::<Value>(&node, &schema, &text, &mut stats);
        check::<BTreeMap<String, Value>>(&node, &schema, &text, &mut stats);
    }
    assert!(stats.fast > 0 && stats.rejected > 0, "{stats:?}");
}

/// `format` is checked on the way when it is an assertion, and ignored otherwise.
#[test]
fn formats_are_asserted_on_request() {
    #[derive(Deserialize, Debug, PartialEq)]
    struct Meeting {
        day: String,
        host: Option<String>,
    }
    let node = SchemaNode::object(
        const {
            &[
                Property::new("day", SchemaNode::string().with_format("date"), true),
                Property::new("host", SchemaNode::string().with_format("email"), false),
            ]
        },
    )
    .closed();
    let schema = compiled(&node);
    let mut stats = Stats::default();
    for text in [
        r#"{"day": "2024-02-29"}"#,
        r#"{"day": "2024-02-30"}"#,
        r#"{"day": "2024-02-29", "host": "a@example.com"}"#,
        r#"{"day": "2024-02-29", "host": "not an address"}"#,
        r#"{"day": "tomorrow", "host": null}"#,
    ] {
        check::<Meeting>(&node, &schema, text, &mut stats);
    }
    let text = r#"{"day": "2024-02-30"}"#;
    assert!(schema.decode_fast::<Meeting>(text, SESSION).is_some());
    assert!(schema.decode_fast::<Meeting>(text, FORMATS).is_none());
    assert_eq!(
        schema
            .deserialize_args_with::<Meeting>(text, FORMATS)
            .unwrap_err()
            .to_string(),
        r#"/day: "2024-02-30" is not a valid date (RFC 3339 full-date, e.g. "2024-05-17")"#
    );
}
