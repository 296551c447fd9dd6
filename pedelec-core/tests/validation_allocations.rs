//! `is_valid` and the success path of `validate` allocate nothing once the schema is
//! compiled (the counting allocator of `allocation-counter` replaces the global one in
//! this test binary only).

use pedelec_core::ToolArgsSchema;
use pedelec_core::schema::{CompiledSchema, ParseOptions, SchemaNode, ValidationOptions};
use serde_json::{Value, json};

fn args_schema() -> CompiledSchema {
    let schema = ToolArgsSchema::from_json(&json!({
        "type": "object",
        "properties": {
            "delta": {"type": "integer", "minimum": -100, "maximum": 100, "multipleOf": 0.5},
            "ratio": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.0001},
            "name": {"type": "string", "minLength": 1, "maxLength": 10, "pattern": "^[a-z]+$", "format": "hostname"},
            "mode": {"type": "string", "enum": ["add", "set"]},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": true, "maxItems": 32},
            "meta": {"type": "object", "additionalProperties": {"type": "boolean"}},
            "shape": {"oneOf": [
                {"type": "object", "properties": {"side": {"type": "number"}}, "required": ["side"], "additionalProperties": false},
                {"type": "object", "properties": {"radius": {"type": "number"}}, "required": ["radius"], "additionalProperties": false}
            ]},
            "p1": {"type": "boolean"}, "p2": {"type": "boolean"}, "p3": {"type": "boolean"},
            "p4": {"type": "boolean"}, "p5": {"type": "boolean"}, "p6": {"type": "boolean"}
        },
        "required": ["delta"],
        "additionalProperties": false
    }))
    .unwrap();
    schema.compiled().expect("`from_json` compiles").clone()
}

fn valid_args() -> Value {
    json!({
        "delta": 4.0,
        "ratio": 0.0075,
        "name": "abc",
        "mode": "set",
        "tags": ["a", "b", "c"],
        "meta": {"x": true},
        "shape": {"radius": 1.5},
        "p6": false,
        "p1": null
    })
}

#[test]
fn success_path_allocates_nothing() {
    let schema = args_schema();
    let args = valid_args();
    // A session's options: the `hostname` format is checked too.
    let session = ValidationOptions::new()
        .null_as_absent(true)
        .assert_formats(true);
    // Warm up: the regex engine builds its per-thread cache on first use.
    assert!(schema.is_valid_with(&args, session));

    let info = allocation_counter::measure(|| {
        assert!(schema.is_valid_with(&args, session));
        assert!(schema.validate_with(&args, session).is_ok());
    });
    assert_eq!(info.count_total, 0, "{info:?}");
}

#[test]
fn first_error_of_is_valid_allocates_nothing() {
    let schema = args_schema();
    let mut args = valid_args();
    assert!(schema.is_valid_with(&args, ValidationOptions::new().null_as_absent(true)));
    args["tags"] = json!(["a", "b", "a"]);
    args["extra"] = json!(1);
    let info = allocation_counter::measure(|| {
        assert!(!schema.is_valid(&args));
    });
    assert_eq!(info.count_total, 0, "{info:?}");
}

#[test]
fn any_compiled_node_validates_without_allocating() {
    let node = SchemaNode::from_json_with(
        &json!({"items": {"multipleOf": 0.1, "maximum": 1e308}, "uniqueItems": true}),
        &ParseOptions::lenient(),
    )
    .unwrap();
    let compiled = CompiledSchema::compile(&node).unwrap();
    let value = json!([0.3, 1e300, 7, -2.5, "x", {"a": [1]}]);
    let info = allocation_counter::measure(|| {
        assert!(compiled.is_valid(&value));
    });
    assert_eq!(info.count_total, 0, "{info:?}");
}
