//! Validation: one test per message, JSON equality, numeric edge cases, `null_as_absent`,
//! the error bound, and the compiled form's reuse.

use std::sync::Arc;

use serde_json::{Value, json};

use crate::schema::{
    CompiledSchema, Number, ParseOptions, Property, SchemaNode, ToolArgsSchema, ValidationErrors,
    ValidationOptions, json_equal,
};

fn compile(schema: Value) -> CompiledSchema {
    let node = SchemaNode::from_json(&schema).unwrap_or_else(|e| panic!("{e}"));
    CompiledSchema::compile(&node).unwrap()
}

fn lenient(schema: Value) -> CompiledSchema {
    let node = SchemaNode::from_json_with(&schema, &ParseOptions::lenient())
        .unwrap_or_else(|e| panic!("{e}"));
    CompiledSchema::compile(&node).unwrap()
}

/// The errors of `value` as display lines, checking that `is_valid` agrees.
fn errors_with(schema: &CompiledSchema, value: &Value, options: ValidationOptions) -> Vec<String> {
    let result = schema.validate_with(value, options);
    assert_eq!(
        schema.is_valid_with(value, options),
        result.is_ok(),
        "is_valid and validate disagree on {value}"
    );
    match result {
        Ok(()) => Vec::new(),
        Err(errors) => errors.iter().map(ToString::to_string).collect(),
    }
}

fn errors(schema: &CompiledSchema, value: Value) -> Vec<String> {
    errors_with(schema, &value, ValidationOptions::new())
}

fn valid(schema: &CompiledSchema, value: Value) -> bool {
    errors(schema, value).is_empty()
}

fn counter() -> CompiledSchema {
    compile(json!({
        "type": "object",
        "properties": {
            "delta": {"type": "integer", "minimum": -100, "maximum": 100},
            "name": {"type": "string", "maxLength": 10},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}}
        },
        "required": ["delta"],
        "additionalProperties": false
    }))
}

#[test]
fn type_errors_name_expected_and_received() {
    let schema = counter();
    assert_eq!(
        errors(&schema, json!({"delta": "5"})),
        [r#"/delta: expected integer, got string "5""#]
    );
    assert_eq!(
        errors(&schema, json!({"delta": 1.5})),
        ["/delta: expected integer, got number 1.5"]
    );
    assert_eq!(
        errors(&schema, json!([1])),
        ["/: expected object, got array [1]"]
    );
    assert_eq!(
        errors(&schema, json!({"delta": null})),
        ["/delta: expected integer, got null"]
    );
    // 1.0 is an integer; any number is a number.
    assert!(valid(&schema, json!({"delta": 1.0})));
    let number = compile(json!({"type": "number"}));
    assert!(valid(&number, json!(7)));
    assert!(valid(&number, json!(-0.0)));
    assert_eq!(
        errors(&number, json!(true)),
        ["/: expected number, got boolean true"]
    );
}

#[test]
fn enum_errors_list_the_allowed_values() {
    let schema = counter();
    assert_eq!(
        errors(&schema, json!({"delta": 1, "tags": ["a", "b", "c", "d"]})),
        [r#"/tags/3: "d" is not one of "a", "b", "c""#]
    );
    let one = compile(json!({"type": "string", "enum": ["only"]}));
    assert_eq!(
        errors(&one, json!("other")),
        [r#"/: expected "only", got "other""#]
    );
    let many = compile(json!({"type": "integer", "enum": (0..15).collect::<Vec<_>>()}));
    assert_eq!(
        errors(&many, json!(99)),
        ["/: 99 is not one of 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, … (5 more)"]
    );
    let nothing = lenient(json!({"enum": []}));
    assert_eq!(
        errors(&nothing, json!(1)),
        ["/: no value is allowed here, got 1"]
    );
}

#[test]
fn enum_uses_json_equality() {
    let schema = lenient(json!({"enum": [1, {"a": [1, 2], "b": null}, [0.5]]}));
    assert!(valid(&schema, json!(1.0)));
    assert!(valid(&schema, json!({"b": null, "a": [1.0, 2]})));
    assert!(valid(&schema, json!([0.5])));
    assert!(!valid(&schema, json!(true)));
    assert!(!valid(&schema, json!({"a": [2, 1], "b": null})));
    assert!(!valid(&schema, json!({"a": [1, 2]})));
    let falsy = lenient(json!({"enum": [false, 0, ""]}));
    assert!(!valid(&falsy, json!(null)));
    assert!(!valid(&falsy, json!([])));
    assert!(json_equal(&json!({"x": [1, 2.0]}), &json!({"x": [1.0, 2]})));
}

#[test]
fn unknown_properties_suggest_the_intended_name() {
    let schema = counter();
    assert_eq!(
        errors(&schema, json!({"dleta": 1})),
        [
            r#"/: unknown property "dleta"; did you mean "delta"?"#,
            r#"/: missing required property "delta""#,
        ]
    );
    assert_eq!(
        errors(&schema, json!({"delta": 1, "zzz": true})),
        [r#"/: unknown property "zzz"; expected one of "delta", "name", "tags""#]
    );
    // A property already given is not suggested.
    assert_eq!(
        errors(&schema, json!({"delta": 1, "deltas": 2})),
        [r#"/: unknown property "deltas"; expected one of "delta", "name", "tags""#]
    );
    let empty = compile(json!({"type": "object", "additionalProperties": false}));
    assert_eq!(
        errors(&empty, json!({"x": 1})),
        [r#"/: unknown property "x"; this object takes no properties"#]
    );
}

#[test]
fn missing_required_properties_are_named() {
    assert_eq!(
        errors(&counter(), json!({})),
        [r#"/: missing required property "delta""#]
    );
    let extra = lenient(json!({"required": ["a", "b"]}));
    assert_eq!(
        errors(&extra, json!({"b": 1})),
        [r#"/: missing required property "a""#]
    );
    assert!(valid(&extra, json!("not an object")));
}

#[test]
fn lengths_count_code_points() {
    let schema = counter();
    assert_eq!(
        errors(&schema, json!({"delta": 0, "name": "abcdefghijkl"})),
        ["/name: expected at most 10 characters, got 12"]
    );
    // Ten emoji are forty bytes but ten characters.
    assert!(valid(&schema, json!({"delta": 0, "name": "😀".repeat(10)})));
    let min = compile(json!({"type": "string", "minLength": 2}));
    assert_eq!(
        errors(&min, json!("é")),
        ["/: expected at least 2 characters, got 1"]
    );
    assert!(valid(&min, json!("éé")));
    let one = compile(json!({"type": "string", "minLength": 1, "maxLength": 1}));
    assert_eq!(
        errors(&one, json!("ab")),
        ["/: expected at most 1 character, got 2"]
    );
}

#[test]
fn patterns_search_anywhere() {
    let schema = compile(json!({"type": "string", "pattern": "[0-9]+"}));
    assert!(valid(&schema, json!("abc123def")));
    assert_eq!(
        errors(&schema, json!("abc")),
        [r#"/: "abc" does not match the pattern "[0-9]+""#]
    );
    let anchored = compile(json!({"type": "string", "pattern": "^a$"}));
    assert!(!valid(&anchored, json!("a\n")));
}

#[test]
fn numeric_bounds_have_clear_messages() {
    let schema = compile(
        json!({"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 10, "multipleOf": 0.5}),
    );
    assert_eq!(
        errors(&schema, json!(0)),
        ["/: expected a number > 0, got 0"]
    );
    assert_eq!(
        errors(&schema, json!(10)),
        ["/: expected a number < 10, got 10"]
    );
    assert_eq!(
        errors(&schema, json!(1.25)),
        ["/: expected a multiple of 0.5, got 1.25"]
    );
    let inclusive = compile(json!({"type": "integer", "minimum": 1, "maximum": 3}));
    assert_eq!(
        errors(&inclusive, json!(0)),
        ["/: expected a number >= 1, got 0"]
    );
    assert_eq!(
        errors(&inclusive, json!(4)),
        ["/: expected a number <= 3, got 4"]
    );
}

#[test]
fn numbers_compare_exactly_across_representations() {
    // u64::MAX against the floats around 2^64.
    let below_max = compile(json!({"type": "integer", "maximum": 18_446_744_073_709_551_614_u64}));
    assert!(!valid(&below_max, json!(u64::MAX)));
    assert!(valid(&below_max, json!(18_446_744_073_709_551_614_u64)));
    let float_max = compile(json!({"type": "number", "maximum": 18_446_744_073_709_551_615.0_f64}));
    // The float is 2^64, above u64::MAX.
    assert!(valid(&float_max, json!(u64::MAX)));
    let excl = compile(json!({"type": "number", "exclusiveMaximum": u64::MAX}));
    assert!(!valid(&excl, json!(18_446_744_073_709_551_616.0_f64)));
    assert!(valid(&excl, json!(18_446_744_073_709_549_568.0_f64)));
    // -0.0 equals 0.
    let non_negative = compile(json!({"type": "number", "minimum": 0}));
    assert!(valid(&non_negative, json!(-0.0)));
    let positive = compile(json!({"type": "number", "exclusiveMinimum": 0}));
    assert!(!valid(&positive, json!(-0.0)));
    // Bignums are read as floats: still integers, still comparable.
    let bignum: Value =
        serde_json::from_str("12345678910111213141516171819202122232425262728293031").unwrap();
    let integer = compile(json!({"type": "integer"}));
    assert!(valid(&integer, bignum.clone()));
    assert!(!valid(&below_max, bignum.clone()));
    assert!(valid(&non_negative, bignum));
    // 1e308: an integer, a multiple of 0.5, not of 0.123456789.
    let half = compile(json!({"type": "integer", "multipleOf": 0.5}));
    assert!(valid(&half, json!(1e308)));
    let odd = compile(json!({"type": "integer", "multipleOf": 0.123_456_789}));
    assert!(!valid(&odd, json!(1e308)));
    let tiny = compile(json!({"type": "number", "multipleOf": 0.0001}));
    assert!(valid(&tiny, json!(0.0075)));
    assert!(!valid(&tiny, json!(0.00751)));
    let large = compile(json!({"type": "integer", "multipleOf": 3}));
    assert!(valid(&large, json!(u64::MAX)));
    assert!(!valid(&large, json!(i64::MIN)));
    assert!(valid(&large, json!(i64::MIN + 2)));
    // `Number`s built in code compare the same way.
    assert_eq!(Number::Int(-1), Number::Float(-1.0));
}

#[test]
fn array_counts_and_uniqueness() {
    let schema = compile(
        json!({"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 3, "uniqueItems": true}),
    );
    assert_eq!(
        errors(&schema, json!([1])),
        ["/: expected at least 2 items, got 1"]
    );
    assert_eq!(
        errors(&schema, json!([1, 2, 3, 4])),
        ["/: expected at most 3 items, got 4"]
    );
    assert_eq!(
        errors(&schema, json!([1, 2, 1.0])),
        ["/: items 0 and 2 are equal (1.0); expected unique items"]
    );
    assert_eq!(
        errors(&schema, json!([1, "x"])),
        [r#"/1: expected integer, got string "x""#]
    );
    let objects = lenient(json!({"uniqueItems": true}));
    assert!(!valid(
        &objects,
        json!([{"a": 1, "b": 2}, {"b": 2, "a": 1}])
    ));
    assert!(valid(
        &objects,
        json!([{"a": 1}, {"a": 2}, [1], [[1]], 0, false, null, ""])
    ));
    assert!(valid(
        &lenient(json!({"uniqueItems": false})),
        json!([1, 1])
    ));
}

#[test]
fn uniqueness_of_long_arrays_is_checked_by_hashing() {
    let schema = lenient(json!({"uniqueItems": true}));
    let mut items: Vec<Value> = (0..100)
        .map(|i| json!({"n": i, "tags": [i, "x"]}))
        .collect();
    assert!(valid(&schema, Value::Array(items.clone())));
    items.push(json!({"tags": [17.0, "x"], "n": 17}));
    items.push(json!(5));
    items.push(json!(5.0));
    assert_eq!(
        errors(&schema, Value::Array(items)),
        [
            r#"/: items 17 and 100 are equal ({"tags":[17.0,"x"],"n":17}); expected unique items"#,
            "/: items 101 and 102 are equal (5.0); expected unique items",
        ]
    );
}

#[test]
fn additional_properties_schema_checks_each_extra() {
    let schema = compile(
        json!({"type": "object", "properties": {"id": {"type": "string"}}, "additionalProperties": {"type": "boolean"}}),
    );
    assert!(valid(&schema, json!({"id": "x", "flag": true})));
    assert_eq!(
        errors(&schema, json!({"id": "x", "a/b": 1, "c": false})),
        ["/a~1b: expected boolean, got number 1"]
    );
}

#[test]
fn one_of_wants_exactly_one_branch() {
    let schema =
        lenient(json!({"oneOf": [{"type": "integer"}, {"type": "string"}, {"minimum": 2}]}));
    assert!(valid(&schema, json!(1)));
    assert!(valid(&schema, json!(2.5)));
    assert_eq!(
        errors(&schema, json!(3)),
        ["/: matches 2 branches of oneOf (0, 2); expected exactly one"]
    );
    // `minimum` ignores strings, so a string matches two branches.
    assert_eq!(
        errors(&schema, json!("x")),
        ["/: matches 2 branches of oneOf (1, 2); expected exactly one"]
    );
    assert_eq!(
        errors(&schema, json!(1.5)),
        [
            "/: matches none of the 3 branches of oneOf; the closest is branch 2, whose errors follow",
            "/: expected a number >= 2, got 1.5",
        ]
    );
}

#[test]
fn one_of_without_a_match_reports_the_closest_branch() {
    let shape = compile(json!({
        "type": "object",
        "properties": {
            "shape": {"oneOf": [
                {"type": "object", "properties": {"kind": {"type": "string", "enum": ["square"]}, "side": {"type": "number"}}, "required": ["kind", "side"], "additionalProperties": false},
                {"type": "object", "properties": {"kind": {"type": "string", "enum": ["circle"]}, "radius": {"type": "number"}}, "required": ["kind", "radius"], "additionalProperties": false},
                {"type": "string"}
            ]}
        }
    }));
    assert_eq!(
        errors(&shape, json!({"shape": {"kind": "circle", "radius": "2"}})),
        [
            "/shape: matches none of the 3 branches of oneOf; the closest is branch 1, whose errors follow",
            r#"/shape/radius: expected number, got string "2""#,
        ]
    );
    // A branch of the right type is closer than one of the wrong type.
    assert_eq!(
        errors(&shape, json!({"shape": 5})),
        [
            "/shape: matches none of the 3 branches of oneOf; the closest is branch 0, whose errors follow",
            "/shape: expected object, got number 5",
        ]
    );
}

#[test]
fn null_as_absent_skips_optional_nulls_only() {
    let schema = counter();
    let session = ValidationOptions::new().null_as_absent(true);
    assert!(errors_with(&schema, &json!({"delta": 1, "name": null}), session).is_empty());
    assert_eq!(
        errors(&schema, json!({"delta": 1, "name": null})),
        ["/name: expected string, got null"]
    );
    // A required property may not be null, and an unknown one is still unknown.
    assert_eq!(
        errors_with(&schema, &json!({"delta": null}), session),
        ["/delta: expected integer, got null"]
    );
    assert_eq!(
        errors_with(&schema, &json!({"delta": 1, "nmae": null}), session),
        [r#"/: unknown property "nmae"; did you mean "name"?"#]
    );
}

#[test]
fn errors_are_bounded() {
    let schema = compile(json!({"type": "array", "items": {"type": "string"}}));
    let many = Value::Array((0..150).map(Value::from).collect());
    let errors = schema.validate(&many).unwrap_err();
    assert_eq!(errors.len(), ValidationErrors::LIMIT);
    assert!(errors.truncated());
    assert_eq!(errors.errors()[99].place, "/99");
    assert!(
        errors
            .to_string()
            .ends_with("/99: expected string, got number 99\n(more errors after the first 100)")
    );
    let exactly = Value::Array((0..100).map(Value::from).collect());
    let errors = schema.validate(&exactly).unwrap_err();
    assert_eq!(errors.len(), 100);
    assert!(!errors.truncated());
}

#[test]
fn long_received_values_are_cut() {
    let schema = compile(json!({"type": "integer"}));
    let long = "x".repeat(1000);
    let message = &errors(&schema, Value::String(long))[0];
    assert!(message.ends_with("xxx…"), "{message}");
    assert!(message.chars().count() < 100, "{message}");
}

#[test]
fn errors_serialize_for_tool_results() {
    let errors = counter().validate(&json!({"delta": "5"})).unwrap_err();
    assert_eq!(
        serde_json::to_value(&errors).unwrap(),
        json!({
            "errors": [{"pointer": "/delta", "keyword": "type", "message": "expected integer, got string \"5\""}],
            "truncated": false
        })
    );
    let root = counter().validate(&json!({})).unwrap_err();
    assert_eq!(root.errors()[0].place, "");
    assert_eq!(root.to_string(), r#"/: missing required property "delta""#);
    let _: &dyn std::error::Error = &root;
}

#[test]
fn format_is_an_annotation_unless_asserted() {
    let schema = compile(
        json!({"type": "object", "properties": {"at": {"type": "string", "format": "date-time"}}}),
    );
    let bad = json!({"at": "yesterday"});
    assert!(valid(&schema, bad.clone()));
    let assert = ValidationOptions::new().assert_formats(true);
    assert_eq!(
        errors_with(&schema, &bad, assert),
        [r#"/at: "yesterday" is not a valid date-time (RFC 3339, e.g. "2024-05-17T09:30:00Z")"#]
    );
    assert!(errors_with(&schema, &json!({"at": "2024-02-29T12:00:00Z"}), assert).is_empty());
    // Unknown formats are valid even when asserted, and formats ignore non-strings.
    let unknown = compile(json!({"type": "string", "format": "x-unknown"}));
    assert!(errors_with(&unknown, &json!("anything"), assert).is_empty());
    let any = lenient(json!({"format": "email"}));
    assert!(errors_with(&any, &json!(12), assert).is_empty());
    assert!(!any.is_valid_with(&json!("no at sign"), assert));
}

#[test]
fn patterns_are_ecma_262() {
    // `\d` is ASCII only, as in ECMA-262 (not every Unicode digit as in the regex crate).
    let digits = compile(json!({"type": "string", "pattern": "^\\d+$"}));
    assert!(valid(&digits, json!("042")));
    assert!(!valid(&digits, json!("৪২")));
    // ECMA-only syntax is understood.
    let control = compile(json!({"type": "string", "pattern": "^\\cC$"}));
    assert!(valid(&control, json!("\u{3}")));
}

#[test]
fn keywords_apply_only_to_their_json_type() {
    let schema = lenient(json!({"minLength": 3, "minimum": 5, "minItems": 1, "required": ["a"]}));
    for value in [
        json!(null),
        json!(true),
        json!("abc"),
        json!(7),
        json!([1]),
        json!({"a": 1}),
    ] {
        assert!(valid(&schema, value.clone()), "{value}");
    }
    assert!(!valid(&schema, json!("ab")));
    assert!(!valid(&schema, json!(4)));
    assert!(!valid(&schema, json!([])));
    assert!(!valid(&schema, json!({})));
}

const ARGS: SchemaNode = SchemaNode::object(
    const {
        &[
            Property::new("delta", SchemaNode::integer(), true),
            Property::new("note", SchemaNode::string().with_pattern("^[a-z]*$"), false),
        ]
    },
)
.closed();

#[test]
fn tool_args_schema_compiles_once_and_shares_it() {
    const SCHEMA: ToolArgsSchema = ToolArgsSchema::from_node(ARGS);
    // Not compiled: validation still works (compiling for the call).
    assert!(SCHEMA.compiled().is_none());
    assert!(SCHEMA.is_valid(&json!({"delta": 1})));
    assert_eq!(
        SCHEMA
            .validate(&json!({"delta": 1, "note": "ABC"}))
            .unwrap_err()
            .to_string(),
        r#"/note: "ABC" does not match the pattern "^[a-z]*$""#
    );
    let mut schema = SCHEMA;
    let first: *const CompiledSchema = schema.compile().unwrap();
    let second: *const CompiledSchema = schema.compile().unwrap();
    assert_eq!(first, second);
    let clone = schema.clone();
    assert!(std::ptr::eq(clone.compiled().unwrap(), first));
    assert_eq!(clone, SCHEMA);
    assert!(clone.compiled().unwrap().is_valid_with(
        &json!({"delta": 1, "note": null}),
        ValidationOptions::new().null_as_absent(true)
    ));
    let _ = Arc::new(clone);
}

const BROKEN: SchemaNode = SchemaNode::object(
    const {
        &[Property::new(
            "id",
            SchemaNode::string().with_pattern("("),
            true,
        )]
    },
);

#[test]
fn a_schema_that_cannot_compile_rejects_everything_and_says_why() {
    let mut schema = ToolArgsSchema::from_node(BROKEN);
    assert!(!schema.is_valid(&json!({"id": "x"})));
    let errors = schema.validate(&json!({"id": "x"})).unwrap_err();
    assert_eq!(errors.errors()[0].rule, "pattern");
    assert!(
        errors.to_string().starts_with(
            "/: the schema itself is invalid and accepts nothing: /properties/id/pattern: invalid regular expression"
        ),
        "{errors}"
    );
    assert!(schema.compile().is_err());
}
