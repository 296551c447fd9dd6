//! Conformance with the JSON Schema Test Suite (draft 2020-12), on the cases that use only
//! the keywords of the wire form (`in_subset` in `subset-manifest.json`), and the cases of
//! local references (`$defs` and `"$ref": "#/$defs/…"`) listed in
//! `json_schema_suite_refs.txt` beside this file.
//!
//! The suite is not part of the repository: see `support/suite.rs` for where it is read from
//! (absent, the test is skipped with a notice, and fails when `CI` is set).

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use pedelec_core::schema::{CompiledSchema, ParseOptions, SchemaNode, ValidationOptions};
use serde_json::Value;

#[path = "support/suite.rs"]
mod suite;

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON: {e}", path.display()))
}

/// The `(file, case)` pairs of `json_schema_suite_refs.txt`.
fn ref_cases() -> Vec<(String, usize)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/json_schema_suite_refs.txt");
    let text =
        fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let id = line.split_whitespace().next().unwrap_or_default();
            let (file, case) = id
                .split_once('#')
                .unwrap_or_else(|| panic!("`{line}`: expected `<file>#<case>`"));
            let case = case
                .parse()
                .unwrap_or_else(|_| panic!("`{line}`: the case is not an index"));
            (file.to_owned(), case)
        })
        .collect()
}

#[test]
fn json_schema_test_suite_subset() {
    let Some(dir) = suite::suite_dir() else {
        return;
    };
    let manifest = read_json(&dir.join("subset-manifest.json"));
    let mut files: HashMap<String, Value> = HashMap::new();
    let mut passed = 0usize;
    let mut failures: Vec<String> = Vec::new();

    let mut selected: Vec<(String, usize)> = manifest
        .as_array()
        .expect("the manifest is an array")
        .iter()
        .filter(|entry| entry["in_subset"] == Value::Bool(true))
        .map(|entry| {
            let file = entry["file"].as_str().expect("`file` is a string");
            let case = usize::try_from(entry["case"].as_u64().expect("`case` is an index"))
                .expect("case index fits");
            (file.to_owned(), case)
        })
        .collect();
    let refs = ref_cases();
    assert!(!refs.is_empty(), "json_schema_suite_refs.txt lists no case");
    let before = selected.len();
    selected.extend(refs);

    for (n, (file, case_index)) in selected.iter().enumerate() {
        let (file, case_index) = (file.as_str(), *case_index);
        let passed_before = passed;
        let cases = files
            .entry(file.to_owned())
            .or_insert_with(|| read_json(&dir.join("tests").join("draft2020-12").join(file)));
        let case = &cases[case_index];
        let description = case["description"].as_str().unwrap_or("?");
        let tests = case["tests"].as_array().expect("`tests` is an array");
        let options = ValidationOptions::new().assert_formats(file.starts_with("optional/format/"));

        let compiled = SchemaNode::from_json_with(&case["schema"], &ParseOptions::lenient())
            .and_then(|node| CompiledSchema::compile(&node));
        let compiled = match compiled {
            Ok(compiled) => compiled,
            Err(e) => {
                for test in tests {
                    failures.push(format!(
                        "{file} / {description} / {}: schema rejected: {e}",
                        test["description"].as_str().unwrap_or("?")
                    ));
                }
                continue;
            }
        };

        for test in tests {
            let expected = test["valid"].as_bool().expect("`valid` is a boolean");
            let data = &test["data"];
            let fast = compiled.is_valid_with(data, options);
            let full = compiled.validate_with(data, options);
            let test_description = test["description"].as_str().unwrap_or("?");
            if fast != full.is_ok() {
                failures.push(format!(
                    "{file} / {description} / {test_description}: is_valid says {fast} but validate says {full:?}"
                ));
            } else if fast == expected {
                passed += 1;
            } else {
                let detail = match full {
                    Ok(()) => "accepted".to_owned(),
                    Err(errors) => format!("rejected: {errors}"),
                };
                failures.push(format!(
                    "{file} / {description} / {test_description}: expected {}, {detail} (data: {data})",
                    if expected { "valid" } else { "invalid" },
                ));
            }
        }
        if n >= before {
            // A listed case runs every one of its tests.
            assert_eq!(
                passed - passed_before
                    + failures
                        .iter()
                        .filter(|f| f.starts_with(&format!("{file} / {description} /")))
                        .count(),
                tests.len(),
                "{file}#{case_index}"
            );
        }
    }

    println!(
        "json-schema-suite: {passed} passed, {} failed",
        failures.len()
    );
    for failure in &failures {
        println!("  FAIL {failure}");
    }
    assert!(passed > 0, "no test of the suite ran");
    assert!(
        failures.is_empty(),
        "{} of {} suite tests failed (see the list above)",
        failures.len(),
        passed + failures.len()
    );
}
