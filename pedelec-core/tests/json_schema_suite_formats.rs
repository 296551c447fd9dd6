//! The JSON Schema Test Suite (draft 2020-12) cases for `pattern` and `format`, run against
//! `pedelec_rules::ecma::translate` + the `regex` crate and against `check_format`.
//!
//! Only the cases `subset-manifest.json` marks `in_subset` count. Where the suite is read
//! from, and what happens without it (a notice; a failure when `CI` is set): `support/suite.rs`.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use pedelec_core::schema::format::check_format;
use pedelec_rules::ecma::translate;
use serde_json::Value;

#[path = "support/suite.rs"]
mod suite;

fn read_json(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// One in-subset case: its file (relative to `tests/draft2020-12`), index and JSON.
struct Case {
    file: String,
    index: usize,
    json: Value,
}

fn in_subset_cases(dir: &Path, wanted: impl Fn(&str) -> bool) -> Vec<Case> {
    let manifest = read_json(&dir.join("subset-manifest.json"));
    let mut cases = Vec::new();
    for entry in manifest.as_array().expect("manifest is an array") {
        let file = entry["file"].as_str().expect("file");
        if entry["in_subset"] != Value::Bool(true) || !wanted(file) {
            continue;
        }
        let index = usize::try_from(entry["case"].as_u64().expect("case")).unwrap();
        let cases_of_file = read_json(&dir.join("tests/draft2020-12").join(file));
        let case = cases_of_file[index].clone();
        assert_eq!(
            case["description"], entry["description"],
            "manifest out of date for {file} #{index}"
        );
        assert_eq!(
            case["tests"].as_array().map(Vec::len),
            entry["tests"]
                .as_u64()
                .and_then(|n| usize::try_from(n).ok()),
            "manifest out of date for {file} #{index}"
        );
        cases.push(Case {
            file: file.to_owned(),
            index,
            json: case,
        });
    }
    cases
}

/// Runs every test of every case through `valid`, prints the tally, and fails on any failure.
fn run(label: &str, cases: &[Case], valid: impl Fn(&Value, &Value) -> Result<bool, String>) {
    let (mut passed, mut failed) = (0, 0);
    let mut report = String::new();
    for Case {
        file,
        index,
        json: case,
    } in cases
    {
        for test in case["tests"].as_array().expect("tests") {
            let expected = test["valid"].as_bool().expect("valid");
            let outcome = valid(&case["schema"], &test["data"]);
            if outcome.as_ref() == Ok(&expected) {
                passed += 1;
            } else {
                failed += 1;
                let _ = writeln!(
                    report,
                    "  {file} #{index} ({}): {}: expected {expected}, got {outcome:?} for {}",
                    case["description"].as_str().unwrap_or_default(),
                    test["description"].as_str().unwrap_or_default(),
                    test["data"],
                );
            }
        }
    }
    println!("{label}: {passed} passed, {failed} failed");
    assert!(failed == 0, "{label} failures:\n{report}");
}

fn format_valid(schema: &Value, data: &Value) -> Result<bool, String> {
    let format = schema["format"].as_str().ok_or("schema has no format")?;
    Ok(match data.as_str() {
        // Unknown formats are annotations: every string is valid.
        Some(s) => check_format(format, s).unwrap_or(true),
        None => true,
    })
}

#[test]
fn ecma_patterns() {
    let Some(dir) = suite::suite_dir() else {
        return;
    };
    let cases = in_subset_cases(&dir, |file| {
        matches!(
            file,
            "pattern.json" | "optional/ecmascript-regex.json" | "optional/non-bmp-regex.json"
        )
    });
    assert!(!cases.is_empty(), "no pattern cases in the manifest");
    run("ecma-patterns", &cases, |schema, data| {
        if schema.get("pattern").is_none() {
            return format_valid(schema, data);
        }
        let pattern = schema["pattern"]
            .as_str()
            .ok_or("pattern is not a string")?;
        let translated = translate(pattern).map_err(|e| e.to_string())?;
        let regex = regex::Regex::new(&translated).map_err(|e| e.to_string())?;
        Ok(data.as_str().is_none_or(|s| regex.is_match(s)))
    });
}

#[test]
fn formats() {
    let Some(dir) = suite::suite_dir() else {
        return;
    };
    let cases = in_subset_cases(&dir, |file| file.starts_with("optional/format/"));
    assert!(!cases.is_empty(), "no format cases in the manifest");
    run("formats", &cases, format_valid);
}
