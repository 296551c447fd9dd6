//! `ToolArgsSchema::from_json` on arbitrary JSON.
//!
//! Invariants:
//! - it never panics; a refusal lists at least one problem, each pointing into the input;
//! - an accepted schema has no problems, compiles, and survives its JSON form:
//!   `from_json(to_json(s))` is accepted with the same JSON form;
//! - every sub-schema of an accepted schema is accepted as a property's schema, and its
//!   `default` and `enum` values are valid for it;
//! - on sample instances (`{}`, the input, the defaults and enum values found in it),
//!   `CompiledSchema::validate_with` and `is_valid_with` agree under every option set, every error's
//!   pointer exists in the instance, and no more than `ValidationErrors::LIMIT` are kept.

use pedelec_core::ToolArgsSchema;
use pedelec_core::schema::ValidationErrors;
use serde_json::{Value, json};

use super::{OPTIONS, node_accepts, schema_nodes};

/// Checks one input; panics when an invariant does not hold.
pub fn check(data: &[u8]) {
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    check_value(&input);
}

/// [`check`] for a parsed input.
pub fn check_value(input: &Value) {
    let schema = match ToolArgsSchema::from_json(input) {
        Ok(schema) => schema,
        Err(e) => {
            assert!(
                !e.problems().is_empty(),
                "refused without a problem: {input}"
            );
            for p in e.problems() {
                assert!(
                    input.pointer(&p.place).is_some(),
                    "the problem {p} points outside the schema {input}"
                );
                assert!(!p.message.is_empty(), "{input}");
            }
            return;
        }
    };
    let context = format!("schema: {input}");
    assert_eq!(schema.problems(), [], "accepted with problems\n{context}");
    let mut fresh = schema.clone();
    let compiled = fresh
        .compile()
        .unwrap_or_else(|e| panic!("accepted but does not compile: {e}\n{context}"));
    let wire = schema.to_json();
    let again = ToolArgsSchema::from_json(&wire)
        .unwrap_or_else(|e| panic!("its own JSON form {wire} is refused: {e}\n{context}"));
    assert_eq!(
        again.to_json(),
        wire,
        "the JSON form is not stable\n{context}"
    );

    let mut samples = vec![json!({}), input.clone(), Value::Null];
    let mut nodes = Vec::new();
    schema_nodes(&wire, String::new(), &mut nodes);
    for (pointer, node) in &nodes {
        let mut values: Vec<&Value> = node.get("default").into_iter().collect();
        if let Some(Value::Array(e)) = node.get("enum") {
            values.extend(e);
        }
        for v in values {
            for options in OPTIONS {
                let ok = node_accepts(node, v, options).unwrap_or_else(|| {
                    panic!("the sub-schema at {pointer:?} is refused as a property\n{context}")
                });
                assert!(
                    ok,
                    "{v} (a default or enum value at {pointer:?}) is invalid there ({options:?})\n{context}"
                );
            }
            samples.push(v.clone());
        }
    }
    for sample in &samples {
        for options in OPTIONS {
            let validated = compiled.validate_with(sample, options);
            assert_eq!(
                validated.is_ok(),
                compiled.is_valid_with(sample, options),
                "validate and is_valid disagree on {sample} ({options:?})\n{context}"
            );
            if let Err(errors) = validated {
                check_errors(&errors, sample, &context);
            }
        }
    }
}

/// Errors are listed, bounded, and point into the instance.
pub fn check_errors(errors: &ValidationErrors, instance: &Value, context: &str) {
    assert!(!errors.is_empty(), "an empty error list\n{context}");
    assert!(errors.len() <= ValidationErrors::LIMIT, "{context}");
    for e in errors {
        assert!(
            instance.pointer(&e.place).is_some(),
            "the error {e:?} points outside the instance {instance}\n{context}"
        );
        assert!(!e.message.is_empty(), "{context}");
    }
}
