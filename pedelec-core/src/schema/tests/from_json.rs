//! Reading schemas from JSON: one test per kind of structural problem, the lenient reader,
//! and `problems()` on schemas built in code.

use serde_json::{Value, json};

use crate::schema::{Literal, ParseOptions, Property, SchemaError, SchemaNode, ToolArgsSchema};

/// The problems of a strict read, as `pointer: message` lines.
fn problems(json: Value) -> Vec<String> {
    match SchemaNode::from_json(&json) {
        Ok(node) => panic!("expected problems, got {node}"),
        Err(e) => e.problems().iter().map(ToString::to_string).collect(),
    }
}

/// The single problem of a strict read.
fn problem(json: Value) -> String {
    let all = problems(json);
    assert_eq!(all.len(), 1, "expected one problem, got {all:#?}");
    all.into_iter().next().unwrap()
}

fn string(extra: Value) -> Value {
    let mut schema = json!({"type": "string"});
    schema
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    schema
}

#[test]
fn a_sound_schema_reads_and_round_trips() {
    let json = json!({
        "type": "object",
        "description": "Counter args.",
        "properties": {
            "delta": {"type": "integer", "minimum": -100, "maximum": 100, "default": 1},
            "mode": {"type": "string", "enum": ["add", "set"], "description": "How."},
            "tags": {"type": "array", "items": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$", "format": "hostname"}, "uniqueItems": true, "maxItems": 5},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1.5, "multipleOf": 0.25},
            "meta": {"type": "object", "additionalProperties": {"type": "boolean"}},
            "shape": {"oneOf": [{"type": "string"}, {"type": "integer"}], "description": "Either."}
        },
        "required": ["delta", "mode"],
        "additionalProperties": false
    });
    let node = SchemaNode::from_json(&json).unwrap();
    // The same wire JSON (keywords are written in a fixed order; properties keep theirs).
    assert_eq!(node.to_json(), json);
    assert!(node.problems().is_empty(), "{:?}", node.problems());
    let names: Vec<&str> = node.properties().iter().map(Property::name).collect();
    assert_eq!(names, ["delta", "mode", "tags", "ratio", "meta", "shape"]);
    assert_eq!(node.required().collect::<Vec<_>>(), ["delta", "mode"]);
    // Through serde too.
    let again: SchemaNode = serde_json::from_value(json.clone()).unwrap();
    assert_eq!(again, node);
    let tool: ToolArgsSchema = serde_json::from_value(json).unwrap();
    assert!(tool.compiled().is_some());
}

#[test]
fn lengths_given_as_integral_floats_are_integers() {
    let node = SchemaNode::from_json(&string(json!({"minLength": 2.0, "maxLength": 3}))).unwrap();
    assert_eq!(node.min_length(), Some(2));
}

#[test]
fn root_must_be_an_object_schema() {
    let err = ToolArgsSchema::from_json(&json!({"type": "string"})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid schema: /: the root of an argsSchema must be an object (`\"type\": \"object\"`), not string"
    );
    let err = ToolArgsSchema::from_json(&json!("object")).unwrap_err();
    assert_eq!(
        err.problems()[0].to_string(),
        r#"/: expected a schema object such as {"type": "string"}, got string "object""#
    );
    // Reported beside the other problems of the document.
    let err = ToolArgsSchema::from_json(&json!({"type": "array", "items": {"type": "strin"}}))
        .unwrap_err();
    let all: Vec<String> = err.problems().iter().map(ToString::to_string).collect();
    assert_eq!(
        all,
        [
            "/: the root of an argsSchema must be an object (`\"type\": \"object\"`), not array",
            r#"/items/type: unknown type "strin"; did you mean "string"?"#,
        ]
    );
    let err = ToolArgsSchema::from_json(&json!({"oneOf": [{"type": "object"}]})).unwrap_err();
    assert!(err.problems()[0].message.contains("not a `oneOf`"), "{err}");
}

#[test]
fn unknown_type_suggests_the_closest() {
    assert_eq!(
        problem(json!({"type": "boolen"})),
        r#"/type: unknown type "boolen"; did you mean "boolean"?"#
    );
    assert_eq!(
        problem(json!({"type": "Integer"})),
        r#"/type: unknown type "Integer"; did you mean "integer"?"#
    );
    assert_eq!(
        problem(json!({"type": "date"})),
        r#"/type: unknown type "date"; expected one of "string", "number", "integer", "boolean", "array", "object""#
    );
    assert!(problem(json!({"type": "null"})).contains("leave it out of `required`"));
    assert!(problem(json!({"type": ["string", "null"]})).contains("not a list"));
    assert_eq!(
        problem(json!({"type": 3})),
        r#"/type: `type` must be a type name such as "string", got number 3"#
    );
}

#[test]
fn unknown_keywords_are_problems_never_dropped() {
    assert_eq!(
        problem(string(json!({"minLenght": 3}))),
        "/minLenght: unknown keyword `minLenght`; did you mean `minLength`?"
    );
    // Local references only: a root `$defs` entry, named by `"#/$defs/<name>"`.
    assert_eq!(
        problem(json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a"}}})),
        r##"/properties/a/$ref: `$ref` names "#/$defs/a", which is not an entry of the root's `$defs`"##
    );
    assert_eq!(
        problem(json!({"type": "object", "properties": {"a": {"$ref": "#"}}, "$defs": {}})),
        r##"/properties/a/$ref: `$ref` must name an entry of the root's `$defs` as "#/$defs/<name>" (no remote or other references), got string "#""##
    );
    assert!(
        problem(json!({"type": "object", "properties": {"a": {"type": "object", "$defs": {}}}}))
            .contains("`$defs` is allowed only at the root")
    );
    let schema = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/a~1b"}},
        "$defs": {"a/b": {"type": "string"}}});
    assert_eq!(SchemaNode::from_json(&schema).unwrap().to_json(), schema);
    // Other unsupported keywords do not stand for a `type`.
    assert_eq!(problems(json!({"title": "Name"})).len(), 2);
    assert_eq!(
        problem(string(json!({"title": "Name"}))),
        "/title: `title` is not supported; put the text in `description`"
    );
    assert_eq!(
        problem(string(
            json!({"$schema": "https://json-schema.org/draft/2020-12/schema"})
        )),
        "/$schema: `$schema` is not supported; the wire form declares no dialect; remove it"
    );
    assert!(problem(string(json!({"const": "a"}))).contains("write `enum` with one value"));
    assert!(problem(string(json!({"zzzz": 1}))).contains("allows only the standard keywords"));
}

#[test]
fn keywords_must_have_the_right_json_type() {
    assert_eq!(
        problem(string(json!({"description": 5}))),
        "/description: `description` must be a string, got number 5"
    );
    assert_eq!(
        problem(string(json!({"minLength": "3"}))),
        r#"/minLength: `minLength` must be a non-negative integer, got string "3""#
    );
    assert_eq!(
        problem(json!({"type": "integer", "minimum": "1"})),
        r#"/minimum: `minimum` must be a number, got string "1""#
    );
    assert_eq!(
        problem(json!({"type": "array", "items": {"type": "string"}, "uniqueItems": "yes"})),
        r#"/uniqueItems: `uniqueItems` must be true or false, got string "yes""#
    );
    assert_eq!(
        problem(string(json!({"pattern": 1}))),
        "/pattern: `pattern` must be a string, got number 1"
    );
    assert_eq!(
        problem(string(json!({"format": null}))),
        "/format: `format` must be a string, got null"
    );
}

#[test]
fn lengths_and_counts_are_non_negative_integers() {
    assert_eq!(
        problem(string(json!({"maxLength": -1}))),
        "/maxLength: `maxLength` must be a non-negative integer, got number -1"
    );
    assert_eq!(
        problem(json!({"type": "array", "items": {"type": "string"}, "minItems": 1.5})),
        "/minItems: `minItems` must be a non-negative integer, got number 1.5"
    );
    assert!(problem(string(json!({"maxLength": 1e30}))).contains("too large"));
}

#[test]
fn required_must_name_declared_properties_once() {
    let all = problems(json!({
        "type": "object",
        "properties": {"delta": {"type": "integer"}},
        "required": ["delta", "dleta", "delta", 3]
    }));
    assert_eq!(
        all,
        [
            r#"/required/1: `required` names "dleta", which is not in `properties`; add the property or remove the name"#,
            r#"/required/2: "delta" is listed twice in `required`"#,
            "/required/3: `required` lists property names (strings), got number 3",
        ]
    );
    assert_eq!(
        problem(json!({"type": "object", "required": "delta"})),
        r#"/required: `required` must be an array of property names, got string "delta""#
    );
}

#[test]
fn numeric_ranges_must_not_be_empty() {
    assert_eq!(
        problem(json!({"type": "number", "minimum": 5, "maximum": 1})),
        "/minimum: `minimum` (5) is greater than `maximum` (1): no number can match"
    );
    assert_eq!(
        problem(json!({"type": "number", "exclusiveMinimum": 3, "maximum": 3})),
        "/exclusiveMinimum: `exclusiveMinimum` (3) is not less than `maximum` (3): no number can match"
    );
    assert_eq!(
        problem(json!({"type": "number", "minimum": 2.5, "exclusiveMaximum": 2.5})),
        "/minimum: `minimum` (2.5) is not less than `exclusiveMaximum` (2.5): no number can match"
    );
    // The tighter of two lower bounds decides.
    assert_eq!(
        problem(json!({"type": "number", "minimum": 0, "exclusiveMinimum": 10, "maximum": 5})),
        "/exclusiveMinimum: `exclusiveMinimum` (10) is greater than `maximum` (5): no number can match"
    );
    assert_eq!(
        problem(json!({"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2})),
        "/exclusiveMinimum: `exclusiveMinimum` (1) and `exclusiveMaximum` (2) leave no integer that can match"
    );
    assert_eq!(
        problem(json!({"type": "integer", "minimum": 1.2, "maximum": 1.8})),
        "/minimum: `minimum` (1.2) and `maximum` (1.8) leave no integer that can match"
    );
    // Exact across representations: u64::MAX is above the f64 just below 2^64.
    assert!(
        SchemaNode::from_json(&json!({"type": "integer", "minimum": 18_446_744_073_709_549_568.0_f64, "maximum": u64::MAX}))
            .is_ok()
    );
    assert!(SchemaNode::from_json(&json!({"type": "number", "minimum": 1, "maximum": 1})).is_ok());
    assert!(
        SchemaNode::from_json(&json!({"type": "integer", "minimum": 1.5, "maximum": 2})).is_ok()
    );
}

#[test]
fn length_and_count_ranges_must_not_be_empty() {
    assert_eq!(
        problem(string(json!({"minLength": 5, "maxLength": 3}))),
        "/minLength: `minLength` (5) is greater than `maxLength` (3): no string can match"
    );
    assert_eq!(
        problem(
            json!({"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 1})
        ),
        "/minItems: `minItems` (2) is greater than `maxItems` (1): no array can match"
    );
}

#[test]
fn multiple_of_must_be_positive() {
    assert_eq!(
        problem(json!({"type": "number", "multipleOf": 0})),
        "/multipleOf: `multipleOf` must be greater than 0, got 0"
    );
    assert_eq!(
        problem(json!({"type": "number", "multipleOf": -0.5})),
        "/multipleOf: `multipleOf` must be greater than 0, got -0.5"
    );
}

#[test]
fn patterns_must_compile() {
    let p = problem(
        json!({"type": "object", "properties": {"id": {"type": "string", "pattern": "([a-z]+"}}}),
    );
    assert!(
        p.starts_with("/properties/id/pattern: invalid regular expression: "),
        "{p}"
    );
    assert!(p.contains("unclosed group"), "{p}");
    // Valid ECMA-262 that a linear-time engine cannot run is refused with the reason.
    let p = problem(string(json!({"pattern": "(?<=a)b"})));
    assert!(
        p.starts_with("/pattern: invalid regular expression: lookbehind `(?<=…)` is not supported"),
        "{p}"
    );
}

#[test]
fn arrays_need_items() {
    assert_eq!(
        problem(json!({"type": "array", "minItems": 1})),
        "/: an array schema needs `items`, the schema of its elements"
    );
}

#[test]
fn properties_and_additional_properties_have_fixed_shapes() {
    assert_eq!(
        problem(json!({"type": "object", "properties": ["a"]})),
        r#"/properties: `properties` must be an object mapping each property name to its schema, got array ["a"]"#
    );
    assert_eq!(
        problem(json!({"type": "object", "additionalProperties": "no"})),
        r#"/additionalProperties: `additionalProperties` must be true, false or a schema, got string "no""#
    );
    assert_eq!(
        problem(json!({"type": "object", "additionalProperties": {"type": "nope"}})),
        "/additionalProperties/type: unknown type \"nope\"; expected one of \"string\", \"number\", \"integer\", \"boolean\", \"array\", \"object\""
    );
    assert_eq!(
        problem(json!({"type": "object", "properties": {"a": true}})),
        r#"/properties/a: expected a schema object such as {"type": "string"}, got boolean true"#
    );
}

#[test]
fn enums_are_non_empty_arrays_of_the_type() {
    assert_eq!(
        problem(string(json!({"enum": "a"}))),
        r#"/enum: `enum` must be an array of values, got string "a""#
    );
    assert_eq!(
        problem(string(json!({"enum": []}))),
        "/enum: `enum` must list at least one value"
    );
    assert_eq!(
        problems(json!({"type": "integer", "enum": [1, 2.0, 2.5, "3"]})),
        [
            "/enum/2: 2.5 is not an integer; every `enum` value must match the schema's `type`",
            r#"/enum/3: "3" is not an integer; every `enum` value must match the schema's `type`"#,
        ]
    );
}

#[test]
fn defaults_must_match_their_schema() {
    assert_eq!(
        problem(json!({"type": "integer", "minimum": 0, "default": -1})),
        "/default: `default` does not match the schema: /: expected a number >= 0, got -1"
    );
    assert_eq!(
        problem(
            json!({"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}, "default": ["a", 1]}}})
        ),
        "/properties/tags/default: `default` does not match the schema: /1: expected string, got number 1"
    );
    // A node that already has a problem is not also blamed for its default.
    assert_eq!(
        problems(json!({"type": "string", "pattern": "(", "default": "x"})).len(),
        1
    );
}

#[test]
fn one_of_is_a_non_empty_array_of_schemas_on_its_own_node() {
    assert_eq!(
        problem(json!({"oneOf": {"type": "string"}})),
        r#"/oneOf: `oneOf` must be an array of schemas, got object {"type":"string"}"#
    );
    assert_eq!(
        problem(json!({"oneOf": []})),
        "/oneOf: `oneOf` must list at least one branch"
    );
    assert_eq!(
        problem(json!({"type": "string", "oneOf": [{"type": "string"}]})),
        "/oneOf: `oneOf` cannot be combined with `type`; give each branch its own `type`"
    );
    assert_eq!(
        problem(json!({"oneOf": [{"type": "string"}], "minLength": 1})),
        "/minLength: `minLength` cannot sit beside `oneOf`; move it into each branch"
    );
    assert!(
        SchemaNode::from_json(
            &json!({"oneOf": [{"type": "string"}, {"type": "integer"}], "description": "d", "default": 3})
        )
        .is_ok()
    );
    assert_eq!(
        problem(json!({"oneOf": [{"type": "string"}], "default": 3})),
        "/default: `default` does not match the schema: /: does not match the only branch of oneOf; its errors follow; /: expected string, got number 3"
    );
}

#[test]
fn type_is_required() {
    assert_eq!(
        problem(json!({"minLength": 1})),
        "/: missing `type`; write one of \"string\", \"number\", \"integer\", \"boolean\", \"array\", \"object\", or list alternatives with `oneOf`"
    );
    assert_eq!(
        problem(json!({"type": "object", "properties": {"a": {}}})),
        "/properties/a: missing `type`; write one of \"string\", \"number\", \"integer\", \"boolean\", \"array\", \"object\", or list alternatives with `oneOf`"
    );
}

#[test]
fn keywords_must_fit_the_type() {
    assert_eq!(
        problem(json!({"type": "integer", "minLength": 1})),
        "/minLength: `minLength` applies to string schemas, not to integer ones"
    );
    assert_eq!(
        problem(json!({"type": "array", "items": {"type": "string"}, "maxLength": 3})),
        "/maxLength: `maxLength` applies to string schemas, not to array ones; use `maxItems`"
    );
    assert_eq!(
        problem(json!({"type": "integer", "format": "int32"})),
        "/format: `format` applies to string schemas, not to integer ones; use `minimum` and `maximum` for the range"
    );
    assert_eq!(
        problem(string(json!({"properties": {}}))),
        "/properties: `properties` applies to object schemas, not to string ones"
    );
    assert_eq!(
        problem(json!({"type": "boolean", "multipleOf": 2})),
        "/multipleOf: `multipleOf` applies to number and integer schemas, not to boolean ones"
    );
}

#[test]
fn every_problem_is_collected_in_one_pass_with_escaped_pointers() {
    let all = problems(json!({
        "type": "object",
        "properties": {
            "a/b": {"type": "strng"},
            "m~n": {"type": "integer", "minimum": 3, "maximum": 2},
            "list": {"type": "array"},
            "ok": {"type": "boolean"}
        },
        "required": ["zzz"],
        "additionalProperties": 1,
        "descripton": "x"
    }));
    assert_eq!(
        all,
        [
            r#"/properties/a~1b/type: unknown type "strng"; did you mean "string"?"#,
            "/properties/m~0n/minimum: `minimum` (3) is greater than `maximum` (2): no number can match",
            "/properties/list: an array schema needs `items`, the schema of its elements",
            "/additionalProperties: `additionalProperties` must be true, false or a schema, got number 1",
            "/descripton: unknown keyword `descripton`; did you mean `description`?",
            r#"/required/0: `required` names "zzz", which is not in `properties`; add the property or remove the name"#,
        ]
    );
}

#[test]
fn schema_error_display_lists_every_problem() {
    let err: SchemaError =
        SchemaNode::from_json(&json!({"type": "strin", "minLength": -1})).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid schema: 2 problems\n  - /type: unknown type \"strin\"; did you mean \"string\"?\n  - /minLength: `minLength` must be a non-negative integer, got number -1"
    );
}

#[test]
fn lenient_reading_accepts_any_wire_keyword_schema() {
    let lenient = ParseOptions::lenient();
    let node = SchemaNode::from_json_with(
        &json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "minLength": 2,
            "minimum": 1,
            "properties": {"a": true, "b": false},
            "required": ["a", "c"],
            "items": false
        }),
        &lenient,
    )
    .unwrap();
    assert_eq!(node.kind(), None);
    assert_eq!(node.required().collect::<Vec<_>>(), ["a", "c"]);
    assert_eq!(node.items().unwrap().enum_values(), Some(&[][..]));
    // Still never drops an unknown keyword, and still checks what validation needs.
    let err =
        SchemaNode::from_json_with(&json!({"allOf": [], "pattern": "("}), &lenient).unwrap_err();
    assert_eq!(err.problems().len(), 2, "{err}");
    // The lenient node is not a sound tool schema.
    let problems: Vec<String> = node.problems().iter().map(ToString::to_string).collect();
    assert!(problems.contains(&"/: missing `type`; write one of \"string\", \"number\", \"integer\", \"boolean\", \"array\", \"object\", or list alternatives with `oneOf`".to_owned()), "{problems:#?}");
    assert!(
        problems.contains(&r#"/required: `required` names "c", which is not in `properties`; add the property or remove the name"#.to_owned()),
        "{problems:#?}"
    );
}

const BAD_PATTERN: SchemaNode = SchemaNode::string().with_pattern("[a-");
// The builders refuse contradictory bounds (`pedelec_rules::constraint`), so the number
// here is wrong in a way only `problems()` sees: an `enum` value of another type.
const BAD_ENUM: SchemaNode =
    SchemaNode::integer().with_enum_values(const { &[Literal::str("ten")] });
const BAD_DEFAULT: SchemaNode = SchemaNode::string()
    .with_min_length(3)
    .with_default(Literal::str("ab"));
const HAND_WRITTEN: SchemaNode = SchemaNode::object(
    const {
        &[
            Property::new("id", BAD_PATTERN, true),
            Property::new("n", BAD_ENUM, false),
            Property::new("name", BAD_DEFAULT, false),
        ]
    },
);

#[test]
fn problems_checks_schemas_built_in_code() {
    let schema = ToolArgsSchema::from_node(HAND_WRITTEN);
    let problems: Vec<String> = schema.problems().iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].starts_with("/properties/id/pattern: invalid regular expression"));
    assert_eq!(
        problems[1],
        "/properties/n/enum/0: \"ten\" is not an integer; every `enum` value must match the schema's `type`"
    );
    assert_eq!(
        problems[2],
        "/properties/name/default: `default` does not match the schema: /: expected at least 3 characters, got 2"
    );
    assert!(
        ToolArgsSchema::from_node(SchemaNode::object(&[]))
            .problems()
            .is_empty()
    );
    // A node with no type, built in code.
    assert_eq!(SchemaNode::any().problems().len(), 1);
}
