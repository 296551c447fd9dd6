//! The lenient reader and raw schemas (feature `raw-schemas`): what it repairs, keeps and
//! refuses, and how a raw schema validates.

use serde_json::{Value, json};

use crate::ToolArgsSchema;
use crate::schema::ValidationOptions;

fn read(json: Value) -> (ToolArgsSchema, Vec<String>) {
    let (schema, warnings) = ToolArgsSchema::from_json_lenient(&json).unwrap();
    (schema, warnings.iter().map(ToString::to_string).collect())
}

/// A 2020-12 schema beyond the subset: a condition, a union of required sets, a reference
/// with an anchor, a closed object.
fn contact() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {"place": {"$anchor": "place", "type": "object",
            "properties": {"city": {"type": "string"}}}},
        "properties": {
            "via": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"},
            "home": {"$ref": "#/$defs/place"}
        },
        "anyOf": [{"required": ["phone"]}, {"required": ["email"]}],
        "if": {"properties": {"via": {"const": "phone"}}, "required": ["via"]},
        "then": {"required": ["phone"]},
        "additionalProperties": false
    })
}

#[test]
fn a_schema_in_the_subset_stays_plain() {
    let (schema, warnings) =
        read(json!({"type": "object", "properties": {"a": {"type": "integer"}}}));
    assert!(!schema.is_raw());
    assert!(warnings.is_empty());
}

#[test]
fn full_2020_12_is_kept_verbatim_and_validated() {
    let (schema, warnings) = read(contact());
    assert!(schema.is_raw());
    assert_eq!(warnings, Vec::<String>::new());
    assert_eq!(schema.to_json(), contact());
    assert!(schema.is_valid(&json!({"via": "phone", "phone": "1"})));
    assert!(schema.is_valid(&json!({"email": "a@b.c"})));
    // `if`/`then`: phone chosen, no phone.
    let errors = schema
        .validate(&json!({"via": "phone", "email": "a@b.c"}))
        .unwrap_err();
    assert!(errors.iter().any(|e| e.rule == "required"), "{errors}");
    // `anyOf`: neither.
    assert!(!schema.is_valid(&json!({"via": "email"})));
    // `$ref` into `$defs`, and `additionalProperties: false`.
    assert!(!schema.is_valid(&json!({"email": "a", "home": {"city": 1}})));
    let errors = schema
        .validate(&json!({"email": "a", "fax": "1"}))
        .unwrap_err();
    assert_eq!(errors.errors()[0].rule, "additionalProperties");
    // The plain form: the properties, with the rules in words.
    let plain = schema.node().to_json();
    assert_eq!(
        plain["properties"]["home"]["properties"]["city"],
        json!({"type": "string"})
    );
    let description = plain["description"].as_str().unwrap();
    assert!(description.contains("`phone`, or `email`"), "{description}");
    assert!(description.contains("`if`/`then`/`else`"), "{description}");
}

#[test]
fn slips_people_make_are_repaired_with_a_warning() {
    let (schema, warnings) = read(json!({
        "type": "object",
        "properties": {
            "a": {"type": "string", "default": null},
            "b": {"type": "dict", "optional": true},
            "c": {"type": "float", "required": true},
            "d": {"type": "string", "enum": ["x", 1]},
            "e": {"type": "integer", "nullable": true},
            "f": {"$ref": "https://example.com/schema.json"},
            "g": {"type": "string", "x-vendor": 1},
            "h": {"type": "integer", "enum": ["1", "2"]},
            "i": {"type": "array", "enum": ["x", "y"]}
        }
    }));
    assert!(schema.is_raw());
    let raw = schema.raw_json().unwrap();
    assert_eq!(raw["properties"]["a"], json!({"type": "string"}));
    assert_eq!(
        raw["properties"]["b"],
        json!({"type": "object", "optional": true})
    );
    assert_eq!(raw["required"], json!(["c"]));
    assert_eq!(raw["properties"]["d"]["enum"], json!(["x"]));
    assert_eq!(raw["properties"]["e"]["type"], json!(["integer", "null"]));
    assert_eq!(raw["properties"]["f"], json!({}));
    assert_eq!(raw["properties"]["h"], json!({"enum": ["1", "2"]}));
    assert_eq!(
        raw["properties"]["i"],
        json!({"type": "array", "items": {"enum": ["x", "y"]}})
    );
    let at: Vec<&str> = warnings
        .iter()
        .map(|w| w.split(':').next().unwrap())
        .collect();
    assert_eq!(
        at,
        [
            "/properties/c/required",
            "/properties/a/default",
            "/properties/b/type",
            "/properties/b/optional",
            "/properties/c/type",
            "/properties/d/enum",
            "/properties/e/nullable",
            "/properties/f/$ref",
            "/properties/h/type",
            "/properties/i/enum",
        ],
        "{warnings:#?}"
    );
    assert!(schema.is_valid(&json!({"c": 1.5, "e": null, "f": [1]})));
    assert!(!schema.is_valid(&json!({"b": {}})));
}

#[test]
fn what_cannot_hold_any_value_is_still_an_error() {
    for (schema, message) in [
        (json!(false), "no arguments"),
        (
            json!({"type": "string", "allOf": []}),
            "must accept objects",
        ),
        (json!([1]), "must be a JSON object"),
    ] {
        let error = ToolArgsSchema::from_json_lenient(&schema).unwrap_err();
        assert!(error.to_string().contains(message), "{schema}: {error}");
    }
}

#[test]
fn keywords_the_validator_cannot_build_are_dropped() {
    let (schema, warnings) = read(json!({
        "type": "object",
        "properties": {"a": {"type": "string", "minLength": "3"}, "b": {"type": "string", "pattern": "("}}
    }));
    assert!(schema.is_valid(&json!({"a": "", "b": "("})));
    assert_eq!(warnings.len(), 2, "{warnings:#?}");
}

#[test]
fn a_session_takes_null_for_an_optional_property_as_absent() {
    let (schema, _) = read(json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"anyOf": [{"type": "integer"}, {"type": "string"}]}},
        "required": ["a"],
        "additionalProperties": false
    }));
    let compiled = schema.compiled().unwrap();
    let session = ValidationOptions::new()
        .null_as_absent(true)
        .assert_formats(true);
    assert!(!compiled.is_valid(&json!({"a": "x", "b": null})));
    let args = compiled
        .validated(json!({"a": "x", "b": null}), session)
        .unwrap();
    assert_eq!(args, json!({"a": "x"}));
    // A required property's `null` is not absent.
    assert!(compiled.validated(json!({"a": null}), session).is_err());
}

#[test]
fn formats_are_asserted_by_pedelec_s_own_checks_in_a_session() {
    let (schema, _) = read(json!({
        "type": "object",
        "properties": {"to": {"type": "string", "format": "email"}},
        "not": {"required": ["cc"]}
    }));
    let compiled = schema.compiled().unwrap();
    let session = ValidationOptions::new().assert_formats(true);
    assert!(compiled.is_valid(&json!({"to": "nope"})));
    assert!(!compiled.is_valid_with(&json!({"to": "nope"}), session));
    assert!(compiled.is_valid_with(&json!({"to": "a@example.com"}), session));
}

#[test]
fn a_manifest_reads_raw_schemas_back() {
    let (schema, _) = read(contact());
    let back: ToolArgsSchema = serde_json::from_value(schema.to_json()).unwrap();
    assert!(back.is_raw());
    assert_eq!(back.to_json(), contact());
}
