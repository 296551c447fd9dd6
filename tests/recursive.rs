//! Recursive types: one local `$defs` entry and `$ref`s to it, validated with the same
//! pointers as inline schemas, with the depth of an instance bounded; types that contain
//! each other: one entry for each type of the cycle.

#![allow(dead_code, reason = "the types are read through their schemas")]

use std::collections::BTreeMap;

use pedelec::{ToolArgs, schema_for, skills, tool};
use serde::Deserialize;
use serde_json::{Value, json};

/// An arithmetic expression.
#[derive(Debug, Deserialize, ToolArgs, PartialEq)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Expr {
    /// A number.
    Num { value: f64 },
    /// The sum of two expressions.
    Add { left: Box<Expr>, right: Box<Expr> },
}

/// A filter over records.
#[derive(Debug, Deserialize, ToolArgs)]
struct Filter {
    /// The field to compare.
    field: Option<String>,
    /// Every one of these must hold.
    and: Option<Vec<Filter>>,
    /// At least one of these must hold.
    or: Option<Vec<Self>>,
    /// Named sub-filters.
    named: Option<BTreeMap<String, Filter>>,
}

/// The arguments of `evaluate`.
#[derive(Debug, Deserialize, ToolArgs)]
struct EvaluateArgs {
    /// The expression to evaluate.
    expr: Expr,
}

/// Evaluates an expression.
#[tool]
fn evaluate(args: EvaluateArgs) -> f64 {
    fn eval(e: &Expr) -> f64 {
        match e {
            Expr::Num { value } => *value,
            Expr::Add { left, right } => eval(left) + eval(right),
        }
    }
    eval(&args.expr)
}

/// Finds records.
#[tool]
fn find(args: Filter) -> usize {
    args.and.map_or(0, |a| a.len())
}

skills![
    pub enum Calc,
    guidance = "Compute.",
    tools = [evaluate, find],
    targets = [openai, gemini, mcp],
];

#[test]
fn an_expression_tree_is_one_def_and_refs_to_it() {
    let body = json!({
        "description": "An arithmetic expression.",
        "oneOf": [
            {
                "type": "object",
                "description": "A number.",
                "properties": {
                    "op": {"type": "string", "enum": ["num"]},
                    "value": {"type": "number"}
                },
                "required": ["op", "value"],
                "additionalProperties": false
            },
            {
                "type": "object",
                "description": "The sum of two expressions.",
                "properties": {
                    "op": {"type": "string", "enum": ["add"]},
                    "left": {"$ref": "#/$defs/Expr"},
                    "right": {"$ref": "#/$defs/Expr"}
                },
                "required": ["op", "left", "right"],
                "additionalProperties": false
            }
        ]
    });
    let mut expected = body.clone();
    expected["$defs"] = json!({"Expr": body});
    assert_eq!(schema_for::<Expr>().to_json(), expected);
    // Written as text, key for key.
    assert_eq!(
        serde_json::to_string(schema_for::<Expr>()).unwrap(),
        expected.to_string()
    );
    // Used as a property: the entry moves to the root of the argsSchema.
    let mut inner = body.clone();
    inner["description"] = json!("The expression to evaluate.");
    assert_eq!(
        evaluate::definition().args_schema().to_json(),
        json!({
            "type": "object",
            "description": "The arguments of `evaluate`.",
            "properties": {"expr": inner},
            "required": ["expr"],
            "additionalProperties": false,
            "$defs": {"Expr": body}
        })
    );
}

#[test]
fn a_filter_refers_to_itself_through_vec_option_self_and_a_map() {
    let r = json!({"$ref": "#/$defs/Filter"});
    let body = json!({
        "type": "object",
        "description": "A filter over records.",
        "properties": {
            "field": {"type": "string", "description": "The field to compare."},
            "and": {"type": "array", "description": "Every one of these must hold.", "items": r},
            "or": {"type": "array", "description": "At least one of these must hold.", "items": r},
            "named": {"type": "object", "description": "Named sub-filters.", "additionalProperties": r}
        },
        "additionalProperties": false
    });
    let mut expected = body.clone();
    expected["$defs"] = json!({"Filter": body});
    assert_eq!(schema_for::<Filter>().to_json(), expected);
    assert!(find::definition().args_schema().problems().is_empty());
    // Read back from JSON, it is the same schema.
    let read = pedelec::ToolArgsSchema::from_json(&expected).unwrap();
    assert_eq!(read.to_json(), expected);
}

#[test]
fn validation_follows_refs_with_the_same_pointers() {
    let mut schema = evaluate::definition().args_schema().clone();
    let compiled = schema.compile().unwrap();
    let good = json!({"expr": {"op": "add", "left": {"op": "num", "value": 1}, "right":
        {"op": "add", "left": {"op": "num", "value": 2}, "right": {"op": "num", "value": 3}}}});
    assert!(compiled.is_valid(&good));
    let bad = json!({"expr": {"op": "add", "left": {"op": "num", "value": 1}, "right":
        {"op": "add", "left": {"op": "num", "value": "2"}, "right": {"op": "num", "value": 3}}}});
    let errors = compiled.validate(&bad).unwrap_err();
    let pointers: Vec<&str> = errors.iter().map(|e| e.place.as_str()).collect();
    assert!(pointers.contains(&"/expr/right/left/value"), "{errors}");
    assert_eq!(
        compiled
            .deserialize_args::<EvaluateArgs>(&good.to_string())
            .unwrap()
            .expr,
        Expr::Add {
            left: Box::new(Expr::Num { value: 1.0 }),
            right: Box::new(Expr::Add {
                left: Box::new(Expr::Num { value: 2.0 }),
                right: Box::new(Expr::Num { value: 3.0 })
            })
        }
    );
}

/// `{"expr": {"op": "add", "left": …` nested `depth` times.
fn deep_text(depth: usize) -> String {
    let mut text = String::with_capacity(depth * 40);
    text.push_str(r#"{"expr":"#);
    for _ in 0..depth {
        text.push_str(r#"{"op":"add","right":{"op":"num","value":1},"left":"#);
    }
    text.push_str(r#"{"op":"num","value":1}"#);
    for _ in 0..depth {
        text.push('}');
    }
    text.push('}');
    text
}

/// `{"expr": …}`, an `add` `depth` levels deep. Each level takes the one below it by
/// move (`json!` would copy it, recursively).
fn deep_value(depth: usize) -> Value {
    let mut value = json!({"op": "num", "value": 1});
    for _ in 0..depth {
        let mut node = json!({"op": "add", "right": {"op": "num", "value": 1}});
        node["left"] = value;
        value = node;
    }
    let mut args = json!({});
    args["expr"] = value;
    args
}

#[tokio::test]
async fn a_hostile_deep_instance_is_an_error_result_not_a_crash() {
    let session = pedelec::Session::builder(Calc::skills()).create().unwrap();
    // Within the limits, the call runs.
    let result = session
        .call_raw_with("evaluate", &deep_text(20), pedelec::CallOptions::default())
        .await;
    assert_eq!(result, r#"{"ok":true,"value":21.0}"#);
    // 100,000 levels as text: refused while parsing.
    let result = session
        .call_raw_with(
            "evaluate",
            &deep_text(100_000),
            pedelec::CallOptions::default(),
        )
        .await;
    let result: Value = serde_json::from_str(&result).unwrap();
    assert_eq!(result["ok"], json!(false));
    assert_eq!(
        result["error"]["code"],
        json!("TOOL_ARGS_INVALID"),
        "{result}"
    );
    // As a `Value` built in memory, deeper than the validator follows `$ref`s.
    let value = deep_value(pedelec::schema::MAX_REF_DEPTH as usize + 10);
    let result = session.call("evaluate", value).await;
    assert_too_deep(&result);
    // 100,000 levels as a `Value`: refused before any recursive walk, and dropped
    // without recursion (either used to overflow the stack and abort the process).
    let result = session.call("evaluate", deep_value(100_000)).await;
    assert_too_deep(&result);
    // Deep where the schema stops looking (a wrong type at the first level): still
    // refused as too deep, and dropped without recursion.
    let result = session.call("find", deep_array(100_000)).await;
    assert_too_deep(&result);
}

/// `{"and": [[[…]]]}`, `depth` arrays deep.
fn deep_array(depth: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..depth {
        value = Value::Array(vec![value]);
    }
    let mut args = json!({});
    args["and"] = value;
    args
}

/// The answer to a call whose arguments nest deeper than the validator follows `$ref`s.
fn assert_too_deep(result: &impl serde::Serialize) {
    let result = serde_json::to_value(result).unwrap();
    assert_eq!(
        result["error"]["code"],
        json!("TOOL_ARGS_INVALID"),
        "{result}"
    );
    assert!(
        result["error"]["message"]
            .as_str()
            .unwrap()
            .contains("nested too deeply"),
        "{result}"
    );
}

#[test]
fn parsing_a_deep_instance_is_an_error() {
    let mut schema = evaluate::definition().args_schema().clone();
    let compiled = schema.compile().unwrap();
    let error = compiled
        .deserialize_args::<EvaluateArgs>(&deep_text(100_000))
        .unwrap_err();
    assert!(error.to_string().contains("recursion limit"), "{error}");
    // A deep `Value` is refused by validation (the depth of `$ref`s it follows).
    let value = deep_value(1_000);
    assert!(!compiled.is_valid(&value));
    std::mem::forget(value); // dropping it recursively is the caller's business
}

// ----- types that contain each other -----

/// A node of a graph.
#[derive(Debug, Deserialize, ToolArgs, PartialEq)]
struct Node {
    /// The node's label.
    label: String,
    /// The group it leads.
    group: Option<Group>,
}

/// Nodes led together.
#[derive(Debug, Deserialize, ToolArgs, PartialEq)]
struct Group {
    members: Vec<Node>,
}

/// A folder.
#[derive(Debug, Deserialize, ToolArgs)]
struct Folder {
    files: Vec<File>,
}

/// A file.
#[derive(Debug, Deserialize, ToolArgs)]
struct File {
    name: String,
    /// The folder it stands for, if it is a link.
    parent: Option<Box<Folder>>,
}

/// The arguments of `walk`.
#[derive(Debug, Deserialize, ToolArgs)]
struct WalkArgs {
    /// Where to start.
    start: Node,
    folder: Option<Folder>,
}

/// Walks a graph.
#[tool]
fn walk(args: WalkArgs) -> usize {
    fn count(n: &Node) -> usize {
        1 + n
            .group
            .as_ref()
            .map_or(0, |g| g.members.iter().map(count).sum())
    }
    count(&args.start)
}

skills![
    pub enum Graphs,
    guidance = "Walk.",
    tools = [walk],
    targets = [openai, gemini, mcp],
];

fn node_body() -> Value {
    json!({
        "type": "object",
        "description": "A node of a graph.",
        "properties": {
            "label": {"type": "string", "description": "The node's label."},
            "group": {"$ref": "#/$defs/Group", "description": "The group it leads."}
        },
        "required": ["label"],
        "additionalProperties": false
    })
}

fn group_body() -> Value {
    json!({
        "type": "object",
        "description": "Nodes led together.",
        "properties": {
            "members": {"type": "array", "items": {"$ref": "#/$defs/Node"}}
        },
        "required": ["members"],
        "additionalProperties": false
    })
}

#[test]
fn types_that_contain_each_other_have_one_entry_each() {
    let mut node = node_body();
    node["$defs"] = json!({"Node": node_body(), "Group": group_body()});
    assert_eq!(schema_for::<Node>().to_json(), node);
    // Entered from the other side, the other type comes first.
    let mut group = group_body();
    group["$defs"] = json!({"Group": group_body(), "Node": node_body()});
    assert_eq!(schema_for::<Group>().to_json(), group);
    let text = serde_json::to_string(&schema_for::<Group>()).unwrap();
    assert!(text.ends_with(r##""$defs":{"Group":{"type":"object","description":"Nodes led together.","properties":{"members":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["members"],"additionalProperties":false},"Node":{"type":"object","description":"A node of a graph.","properties":{"label":{"type":"string","description":"The node's label."},"group":{"$ref":"#/$defs/Group","description":"The group it leads."}},"required":["label"],"additionalProperties":false}}}"##), "{text}");
    // Read back from JSON, it is the same schema.
    let read = pedelec::ToolArgsSchema::from_json(&node).unwrap();
    assert_eq!(read.to_json(), node);
}

#[test]
fn a_cycle_inside_the_arguments_brings_its_entries_to_the_root() {
    let schema = walk::definition().args_schema().to_json();
    let mut start = node_body();
    start["description"] = json!("Where to start.");
    assert_eq!(schema["properties"]["start"], start);
    assert_eq!(
        schema["properties"]["folder"],
        json!({
            "type": "object",
            "description": "A folder.",
            "properties": {"files": {"type": "array", "items": {"$ref": "#/$defs/File"}}},
            "required": ["files"],
            "additionalProperties": false
        })
    );
    let defs: Vec<&String> = schema["$defs"].as_object().unwrap().keys().collect();
    assert_eq!(defs, ["Node", "Group", "Folder", "File"]);
    assert_eq!(
        schema["$defs"]["File"]["properties"]["parent"],
        json!({"$ref": "#/$defs/Folder", "description": "The folder it stands for, if it is a link."})
    );
    assert!(walk::definition().args_schema().problems().is_empty());
    let read = pedelec::ToolArgsSchema::from_json(&schema).unwrap();
    assert_eq!(read.to_json(), schema);
}

#[test]
fn validation_follows_refs_between_the_types() {
    let mut schema = walk::definition().args_schema().clone();
    let compiled = schema.compile().unwrap();
    let good = json!({"start": {"label": "a", "group": {"members": [
        {"label": "b"},
        {"label": "c", "group": {"members": [{"label": "d"}]}}
    ]}}});
    assert!(compiled.is_valid(&good));
    let bad = json!({"start": {"label": "a", "group": {"members": [
        {"label": "b", "group": {"members": [{"label": 4}]}}
    ]}}});
    let errors = compiled.validate(&bad).unwrap_err();
    let pointers: Vec<&str> = errors.iter().map(|e| e.place.as_str()).collect();
    assert_eq!(
        pointers,
        ["/start/group/members/0/group/members/0/label"],
        "{errors}"
    );
    let args = compiled
        .deserialize_args::<WalkArgs>(&good.to_string())
        .unwrap();
    assert_eq!(args.start.group.unwrap().members.len(), 2);
}

#[tokio::test]
async fn a_deep_cycle_is_an_error_result_not_a_crash() {
    let session = pedelec::Session::builder(Graphs::skills())
        .create()
        .unwrap();
    let good = json!({"start": {"label": "a", "group": {"members": [{"label": "b"}]}}});
    let result = serde_json::to_value(session.call("walk", good).await).unwrap();
    assert_eq!(result["value"], json!(2), "{result}");
    let mut node = json!({"label": "z"});
    for _ in 0..pedelec::schema::MAX_REF_DEPTH {
        node = json!({"label": "n", "group": {"members": [node]}});
    }
    let result = session.call("walk", json!({"start": node})).await;
    assert_too_deep(&result);
}

#[test]
fn the_code_signature_declares_the_type_met_again() {
    let signature = pedelec::code::signature(&Graphs::skills().tools()[0]);
    expect_test::expect![[r"
        type Node = {
          /** The node's label. */
          label: string;
          /** The group it leads. */
          group?: Group;
        };
        type Group = {
          members: Node[];
        };
        type Folder = {
          files: File[];
        };
        type File = {
          name: string;
          /** The folder it stands for, if it is a link. */
          parent?: Folder;
        };
        (args: {
          /** Where to start. */
          start: {
            /** The node's label. */
            label: string;
            /** The group it leads. */
            group?: Group;
          };
          /** A folder. */
          folder?: {
            files: File[];
          };
        }): Promise<number>"]]
    .assert_eq(&signature);
}
