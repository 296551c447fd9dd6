//! The check's behaviour with each environment (given, not read: tests share one process),
//! and every change kind, sorted into breaking or compatible.

use serde_json::{Value, json};

use super::*;

fn lock(max: u64, version: u32) -> Lock {
    Lock::from_json_str(
        &json!({"t": {
            "name": "t",
            "description": "T.",
            "argsSchema": {"type": "object", "properties": {"n": {"type": "integer", "maximum": max}}},
            "version": version
        }})
        .to_string(),
    )
    .unwrap()
}

/// A fresh directory per test (tests run in parallel in one process).
fn dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("pedelec-contract-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const LOCAL: Env = Env {
    update: false,
    ci: false,
};
const CI: Env = Env {
    update: false,
    ci: true,
};
const UPDATE: Env = Env {
    update: true,
    ci: false,
};

#[test]
fn a_missing_lock_file_is_written_and_passes() {
    let dir = dir("missing");
    let path = dir.join("nested/tools.lock.json");
    let report = check_in(&path, &lock(10, 1), LOCAL).unwrap();
    assert!(report.written());
    assert!(report.changes().is_empty());
    let written = std::fs::read_to_string(&path).unwrap();
    assert_eq!(Lock::from_json_str(&written).unwrap(), lock(10, 1));
    assert!(
        written.ends_with("}\n") && written.contains("\n  \"t\": {\n"),
        "{written}"
    );
    // Then it is compared: the same tools pass without writing.
    let report = check_in(&path, &lock(10, 1), LOCAL).unwrap();
    assert!(!report.written());
    assert!(report.changes().is_empty());
    assert!(
        report.to_string().ends_with("the tools match it"),
        "{report}"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_missing_lock_file_fails_under_ci() {
    let dir = dir("ci");
    let path = dir.join("tools.lock.json");
    let error = check_in(&path, &lock(10, 1), CI).unwrap_err();
    assert!(matches!(error, ContractError::Missing { .. }), "{error:?}");
    assert!(
        error.to_string().contains("no lock file, and `CI` is set"),
        "{error}"
    );
    assert!(!path.exists());
    // Under CI, an existing lock file is compared as anywhere.
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&path, lock(10, 1).to_json_string()).unwrap();
    assert!(check_in(&path, &lock(20, 1), CI).is_ok());
    assert!(check_in(&path, &lock(5, 1), CI).is_err());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn update_writes_the_lock_file_whatever_changed() {
    let dir = dir("update");
    let path = dir.join("tools.lock.json");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(&path, lock(10, 1).to_json_string()).unwrap();
    // Breaking, but accepted: the report lists what the new file records.
    let report = check_in(&path, &lock(5, 1), UPDATE).unwrap();
    assert!(report.written());
    assert_eq!(report.changes().len(), 1);
    assert!(report.changes()[0].breaking);
    assert_eq!(
        Lock::from_json_str(&std::fs::read_to_string(&path).unwrap()).unwrap(),
        lock(5, 1)
    );
    assert!(
        check_in(&path, &lock(5, 1), LOCAL)
            .unwrap()
            .changes()
            .is_empty()
    );
    // A file that is not a lock is replaced under update, refused otherwise.
    std::fs::write(&path, "not json").unwrap();
    let error = check_in(&path, &lock(5, 1), LOCAL).unwrap_err();
    assert!(
        matches!(error, ContractError::Malformed { .. }),
        "{error:?}"
    );
    assert!(check_in(&path, &lock(5, 1), UPDATE).unwrap().written());
    // Under CI too, update writes.
    std::fs::remove_file(&path).unwrap();
    let both = Env {
        update: true,
        ci: true,
    };
    assert!(check_in(&path, &lock(5, 1), both).unwrap().written());
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn an_unreadable_lock_file_is_an_io_error() {
    let dir = dir("io");
    std::fs::create_dir_all(&dir).unwrap();
    // A directory where the file should be.
    let error = check_in(&dir, &lock(5, 1), LOCAL).unwrap_err();
    assert!(matches!(error, ContractError::Io { .. }), "{error:?}");
    assert!(std::error::Error::source(&error).is_some());
    std::fs::remove_dir_all(dir).unwrap();
}

// ----- every change kind -----

/// A lock of one tool `t` with these schemas and version.
fn entry(args: &Value, output: Option<&Value>, version: u32) -> Lock {
    let mut e = json!({"name": "t", "description": "T.", "argsSchema": args, "version": version});
    if let Some(output) = output {
        e["outputSchema"] = output.clone();
    }
    Lock::from_json_str(&json!({ "t": e }).to_string()).unwrap()
}

/// Each change as `pointer: kind (breaking|compatible)`.
fn shown(changes: &[Change]) -> Vec<String> {
    changes
        .iter()
        .map(|c| {
            let side = if c.breaking { "breaking" } else { "compatible" };
            format!("{}: {} ({side})", c.pointer, c.kind)
        })
        .collect()
}

/// The changes from argsSchema `old` to `new`.
fn args(old: &Value, new: &Value) -> Vec<String> {
    shown(&diff::diff(&entry(old, None, 1), &entry(new, None, 1)))
}

/// The changes from outputSchema `old` to `new` (the argsSchema unchanged).
fn output(old: &Value, new: &Value) -> Vec<String> {
    let a = json!({"type": "object"});
    shown(&diff::diff(
        &entry(&a, Some(old), 1),
        &entry(&a, Some(new), 1),
    ))
}

fn object(properties: &Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": properties, "required": required, "additionalProperties": false})
}

#[test]
fn properties_added_removed_required_optional() {
    let base = object(&json!({"a": {"type": "integer"}}), &["a"]);
    let with_b = |required: &[&str]| {
        object(
            &json!({"a": {"type": "integer"}, "b": {"type": "string"}}),
            required,
        )
    };
    assert_eq!(
        args(&base, &with_b(&["a", "b"])),
        ["/argsSchema/properties/b: property added, required (breaking)"]
    );
    assert_eq!(
        args(&base, &with_b(&["a"])),
        ["/argsSchema/properties/b: property added, optional (compatible)"]
    );
    assert_eq!(
        args(&with_b(&["a"]), &base),
        ["/argsSchema/properties/b: property removed (breaking)"]
    );
    // An open object still takes what an old caller sends.
    let open = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let open_b = json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {}}});
    assert_eq!(
        args(&open_b, &open),
        ["/argsSchema/properties/b: property removed (compatible)"]
    );
    assert_eq!(
        args(&with_b(&["a"]), &with_b(&["a", "b"])),
        ["/argsSchema/properties/b: property made required (breaking)"]
    );
    assert_eq!(
        args(&with_b(&["a", "b"]), &with_b(&["a"])),
        ["/argsSchema/properties/b: property made optional (compatible)"]
    );
    // Results: the other way round.
    assert_eq!(
        output(&with_b(&["a", "b"]), &base),
        ["/outputSchema/properties/b: property removed (breaking)"]
    );
    assert_eq!(
        output(&base, &with_b(&["a", "b"])),
        ["/outputSchema/properties/b: property added, required (compatible)"]
    );
    assert_eq!(
        output(&with_b(&["a", "b"]), &with_b(&["a"])),
        ["/outputSchema/properties/b: property made optional (breaking)"]
    );
    assert_eq!(
        output(&with_b(&["a"]), &with_b(&["a", "b"])),
        ["/outputSchema/properties/b: property made required (compatible)"]
    );
}

#[test]
fn types_widened_narrowed_changed() {
    let at = |t: Value| object(&json!({"a": {"type": t}}), &["a"]);
    assert_eq!(
        args(&at(json!("integer")), &at(json!("string"))),
        ["/argsSchema/properties/a/type: type changed from integer to string (breaking)"]
    );
    assert_eq!(
        args(&at(json!("integer")), &at(json!("number"))),
        ["/argsSchema/properties/a/type: type changed from integer to number (compatible)"]
    );
    assert_eq!(
        args(&at(json!("number")), &at(json!("integer"))),
        ["/argsSchema/properties/a/type: type changed from number to integer (breaking)"]
    );
    assert_eq!(
        args(&at(json!("string")), &at(json!(["string", "null"]))),
        ["/argsSchema/properties/a/type: type changed from string to null or string (compatible)"]
    );
    assert_eq!(
        output(&at(json!("number")), &at(json!("integer"))),
        ["/outputSchema/properties/a/type: type changed from number to integer (compatible)"]
    );
    assert_eq!(
        output(&at(json!("integer")), &at(json!("number"))),
        ["/outputSchema/properties/a/type: type changed from integer to number (breaking)"]
    );
    let none = object(&json!({"a": {}}), &["a"]);
    assert_eq!(
        args(&none, &at(json!("string"))),
        ["/argsSchema/properties/a/type: type changed from any to string (breaking)"]
    );
}

#[test]
fn enum_values_added_and_removed() {
    let e = |values: Value| object(&json!({"unit": {"type": "string", "enum": values}}), &[]);
    assert_eq!(
        args(&e(json!(["m", "km"])), &e(json!(["m"]))),
        ["/argsSchema/properties/unit/enum: enum value \"km\" removed (breaking)"]
    );
    assert_eq!(
        args(&e(json!(["m"])), &e(json!(["m", "mi"]))),
        ["/argsSchema/properties/unit/enum: enum value \"mi\" added (compatible)"]
    );
    assert_eq!(
        output(&e(json!(["m"])), &e(json!(["m", "mi"]))),
        ["/outputSchema/properties/unit/enum: enum value \"mi\" added (breaking)"]
    );
    assert_eq!(
        output(&e(json!(["m", "km"])), &e(json!(["m"]))),
        ["/outputSchema/properties/unit/enum: enum value \"km\" removed (compatible)"]
    );
    let free = object(&json!({"unit": {"type": "string"}}), &[]);
    assert_eq!(
        args(&free, &e(json!(["m"]))),
        ["/argsSchema/properties/unit/enum: bound tightened: `enum` none → [\"m\"] (breaking)"]
    );
    assert_eq!(
        args(&e(json!(["m"])), &free),
        ["/argsSchema/properties/unit/enum: bound loosened: `enum` [\"m\"] → none (compatible)"]
    );
}

#[test]
fn every_bound_tightened_and_loosened() {
    let with = |key: &str, v: Value| {
        let mut s = json!({});
        s[key] = v;
        object(&json!({ "a": s }), &[])
    };
    for (key, low, high) in [
        ("minimum", json!(1), json!(5)),
        ("exclusiveMinimum", json!(0), json!(2.5)),
        ("minLength", json!(1), json!(3)),
        ("minItems", json!(0), json!(1)),
        ("minProperties", json!(1), json!(2)),
    ] {
        assert_eq!(
            args(&with(key, low.clone()), &with(key, high.clone())),
            [format!(
                "/argsSchema/properties/a/{key}: bound tightened: `{key}` {low} → {high} (breaking)"
            )]
        );
        assert_eq!(
            args(&with(key, high.clone()), &with(key, low.clone())),
            [format!(
                "/argsSchema/properties/a/{key}: bound loosened: `{key}` {high} → {low} (compatible)"
            )]
        );
        assert_eq!(
            output(&with(key, high.clone()), &with(key, low.clone())),
            [format!(
                "/outputSchema/properties/a/{key}: bound loosened: `{key}` {high} → {low} (breaking)"
            )]
        );
    }
    for (key, low, high) in [
        ("maximum", json!(10), json!(100)),
        ("exclusiveMaximum", json!(1.5), json!(2)),
        ("maxLength", json!(8), json!(64)),
        ("maxItems", json!(3), json!(10)),
        ("maxProperties", json!(2), json!(5)),
    ] {
        assert_eq!(
            args(&with(key, high.clone()), &with(key, low.clone())),
            [format!(
                "/argsSchema/properties/a/{key}: bound tightened: `{key}` {high} → {low} (breaking)"
            )]
        );
        assert_eq!(
            args(&with(key, low.clone()), &with(key, high.clone())),
            [format!(
                "/argsSchema/properties/a/{key}: bound loosened: `{key}` {low} → {high} (compatible)"
            )]
        );
        assert_eq!(
            output(&with(key, high.clone()), &with(key, low.clone())),
            [format!(
                "/outputSchema/properties/a/{key}: bound tightened: `{key}` {high} → {low} (compatible)"
            )]
        );
    }
    // Added is tighter, removed looser; the same number written otherwise is no change.
    let none = object(&json!({"a": {}}), &[]);
    assert_eq!(
        args(&none, &with("maxLength", json!(5))),
        ["/argsSchema/properties/a/maxLength: bound tightened: `maxLength` none → 5 (breaking)"]
    );
    assert_eq!(
        args(&with("minimum", json!(0)), &none),
        ["/argsSchema/properties/a/minimum: bound loosened: `minimum` 0 → none (compatible)"]
    );
    assert!(args(&with("maximum", json!(1)), &with("maximum", json!(1.0))).is_empty());
}

#[test]
fn patterns_formats_multiples_and_uniqueness() {
    let with = |key: &str, v: Value| {
        let mut s = json!({"type": "string"});
        s[key] = v;
        object(&json!({ "a": s }), &[])
    };
    let plain = object(&json!({"a": {"type": "string"}}), &[]);
    for (key, one, other) in [
        ("pattern", json!("^[a-z]+$"), json!("^[a-z0-9]+$")),
        ("format", json!("email"), json!("uri")),
    ] {
        assert_eq!(
            args(&plain, &with(key, one.clone())),
            [format!(
                "/argsSchema/properties/a/{key}: bound tightened: `{key}` none → {one} (breaking)"
            )]
        );
        assert_eq!(
            args(&with(key, one.clone()), &plain),
            [format!(
                "/argsSchema/properties/a/{key}: bound loosened: `{key}` {one} → none (compatible)"
            )]
        );
        // Which admits more cannot be told: breaking on both sides.
        assert_eq!(
            args(&with(key, one.clone()), &with(key, other.clone())),
            [format!(
                "/argsSchema/properties/a/{key}: bound replaced: `{key}` {one} → {other} (breaking)"
            )]
        );
        assert_eq!(
            output(&with(key, one.clone()), &with(key, other.clone())),
            [format!(
                "/outputSchema/properties/a/{key}: bound replaced: `{key}` {one} → {other} (breaking)"
            )]
        );
    }
    let m = |n: Value| object(&json!({"a": {"type": "integer", "multipleOf": n}}), &[]);
    assert_eq!(
        args(&m(json!(2)), &m(json!(4))),
        ["/argsSchema/properties/a/multipleOf: bound tightened: `multipleOf` 2 → 4 (breaking)"]
    );
    assert_eq!(
        args(&m(json!(4)), &m(json!(2))),
        ["/argsSchema/properties/a/multipleOf: bound loosened: `multipleOf` 4 → 2 (compatible)"]
    );
    assert_eq!(
        args(&m(json!(2)), &m(json!(3))),
        ["/argsSchema/properties/a/multipleOf: bound replaced: `multipleOf` 2 → 3 (breaking)"]
    );
    let u = |unique: bool| {
        object(
            &json!({"a": {"type": "array", "items": {"type": "string"}, "uniqueItems": unique}}),
            &[],
        )
    };
    assert_eq!(
        args(&u(false), &u(true)),
        [
            "/argsSchema/properties/a/uniqueItems: bound tightened: `uniqueItems` false → true (breaking)"
        ]
    );
    assert_eq!(
        args(&u(true), &u(false)),
        [
            "/argsSchema/properties/a/uniqueItems: bound loosened: `uniqueItems` true → false (compatible)"
        ]
    );
}

#[test]
fn closed_and_open_objects() {
    let closed = object(&json!({"a": {"type": "integer"}}), &[]);
    let open = json!({"type": "object", "properties": {"a": {"type": "integer"}}, "required": []});
    assert_eq!(
        args(&open, &closed),
        [
            "/argsSchema/additionalProperties: bound tightened: `additionalProperties` none → false (breaking)"
        ]
    );
    assert_eq!(
        args(&closed, &open),
        [
            "/argsSchema/additionalProperties: bound loosened: `additionalProperties` false → none (compatible)"
        ]
    );
    let map = |t: &str| json!({"type": "object", "additionalProperties": {"type": t}});
    assert_eq!(
        args(&map("integer"), &map("string")),
        ["/argsSchema/additionalProperties/type: type changed from integer to string (breaking)"]
    );
}

#[test]
fn nested_schemas_items_refs_and_variants() {
    // Items, and an object inside an object.
    let list = |t: &str| {
        object(
            &json!({"tags": {"type": "array", "items": {"type": t}}}),
            &[],
        )
    };
    assert_eq!(
        args(&list("string"), &list("integer")),
        ["/argsSchema/properties/tags/items/type: type changed from string to integer (breaking)"]
    );
    let nested = |required: &[&str]| {
        object(
            &json!({"point": object(&json!({"x": {"type": "number"}, "y": {"type": "number"}}), required)}),
            &["point"],
        )
    };
    assert_eq!(
        args(&nested(&["x"]), &nested(&["x", "y"])),
        ["/argsSchema/properties/point/properties/y: property made required (breaking)"]
    );
    // A recursive type: its `$defs` entry is compared, and a `$ref` pointing elsewhere.
    let tree = |max: u64, reference: &str| {
        json!({
            "type": "object",
            "properties": {"root": {"$ref": reference}},
            "required": ["root"],
            "$defs": {
                "Node": object(&json!({"value": {"type": "integer", "maximum": max}, "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}), &["value"]),
                "Leaf": {"type": "integer"}
            }
        })
    };
    assert_eq!(
        args(&tree(10, "#/$defs/Node"), &tree(5, "#/$defs/Node")),
        [
            "/argsSchema/$defs/Node/properties/value/maximum: bound tightened: `maximum` 10 → 5 (breaking)"
        ]
    );
    assert_eq!(
        args(&tree(10, "#/$defs/Node"), &tree(10, "#/$defs/Leaf")),
        [
            "/argsSchema/properties/root/$ref: `$ref` changed from \"#/$defs/Node\" to \"#/$defs/Leaf\" (breaking)"
        ]
    );
    // `oneOf` variants, by position.
    let one_of = |variants: Value| object(&json!({"shape": {"oneOf": variants}}), &[]);
    let circle = json!({"type": "object", "properties": {"r": {"type": "number"}}});
    let square = json!({"type": "object", "properties": {"side": {"type": "number"}}});
    assert_eq!(
        args(&one_of(json!([circle])), &one_of(json!([circle, square]))),
        ["/argsSchema/properties/shape/oneOf/1: variant added (compatible)"]
    );
    assert_eq!(
        args(&one_of(json!([circle, square])), &one_of(json!([circle]))),
        ["/argsSchema/properties/shape/oneOf/1: variant removed (breaking)"]
    );
    assert_eq!(
        output(&one_of(json!([circle])), &one_of(json!([circle, square]))),
        ["/outputSchema/properties/shape/oneOf/1: variant added (breaking)"]
    );
    // A property whose name needs escaping in a pointer.
    let odd = |t: &str| object(&json!({"a/b~c": {"type": t}}), &[]);
    assert_eq!(
        args(&odd("string"), &odd("boolean")),
        ["/argsSchema/properties/a~1b~0c/type: type changed from string to boolean (breaking)"]
    );
}

#[test]
fn annotations_are_compatible_and_unknown_keywords_breaking() {
    let with = |key: &str, v: Value| {
        let mut s = json!({"type": "string"});
        s[key] = v;
        object(&json!({ "a": s }), &[])
    };
    assert_eq!(
        args(
            &with("description", json!("Old.")),
            &with("description", json!("New."))
        ),
        ["/argsSchema/properties/a/description: description changed (compatible)"]
    );
    assert_eq!(
        output(
            &with("description", json!("Old.")),
            &with("description", json!("New."))
        ),
        ["/outputSchema/properties/a/description: description changed (compatible)"]
    );
    assert_eq!(
        args(&with("default", json!("x")), &with("default", json!("y"))),
        ["/argsSchema/properties/a/default: `default` changed (compatible)"]
    );
    assert_eq!(
        args(
            &with("x-mcp-header", json!("Region")),
            &with("x-mcp-header", json!("Zone"))
        ),
        [
            "/argsSchema/properties/a/x-mcp-header: `x-mcp-header` changed: \"Region\" → \"Zone\" (breaking)"
        ]
    );
}

/// A lock of whole entries, from JSON.
fn tools(entries: &[&Value]) -> Lock {
    let map: serde_json::Map<String, Value> = entries
        .iter()
        .map(|e| (e["name"].as_str().unwrap().to_owned(), (*e).clone()))
        .collect();
    Lock::from_json_str(&Value::Object(map).to_string()).unwrap()
}

fn tool(name: &str) -> Value {
    json!({
        "name": name,
        "description": format!("The {name} tool."),
        "argsSchema": object(&json!({"n": {"type": "integer", "maximum": 10}}), &["n"]),
        "version": 1
    })
}

/// Each change as `tool pointer: kind (breaking|compatible)`.
fn tool_changes(old: &Lock, new: &Lock) -> Vec<String> {
    diff::diff(old, new)
        .iter()
        .map(|c| {
            let side = if c.breaking { "breaking" } else { "compatible" };
            format!("{} {}: {} ({side})", c.tool, c.pointer, c.kind)
        })
        .collect()
}

#[test]
fn tools_added_removed_renamed_and_their_own_keys() {
    let (a, b) = (tool("a"), tool("b"));
    assert_eq!(
        tool_changes(&tools(&[&a]), &tools(&[&a, &b])),
        ["b : tool added (compatible)"]
    );
    assert_eq!(
        tool_changes(&tools(&[&a, &b]), &tools(&[&a])),
        ["b : tool removed (breaking)"]
    );
    // Same description and schemas under another name: a rename.
    let mut renamed = a.clone();
    renamed["name"] = json!("a2");
    assert_eq!(
        tool_changes(&tools(&[&a]), &tools(&[&renamed])),
        ["a : tool renamed to `a2` (breaking)"]
    );
    // Something else too: a removal and an addition.
    renamed["description"] = json!("Another.");
    assert_eq!(
        tool_changes(&tools(&[&a]), &tools(&[&renamed])),
        [
            "a : tool removed (breaking)",
            "a2 : tool added (compatible)"
        ]
    );
    let mut changed = a.clone();
    changed["description"] = json!("Now better described.");
    changed["timeoutMs"] = json!(5000);
    changed["outputSchema"] = object(&json!({"value": {"type": "integer"}}), &["value"]);
    assert_eq!(
        tool_changes(&tools(&[&a]), &tools(&[&changed])),
        [
            "a /description: description changed (compatible)",
            "a /timeoutMs: timeout changed from the default to 5000 ms (compatible)",
            "a /outputSchema: output schema added (compatible)",
        ]
    );
    assert_eq!(
        tool_changes(&tools(&[&changed]), &tools(&[&a]))[2],
        "a /outputSchema: output schema removed (breaking)"
    );
    let mut lowered = a.clone();
    lowered["version"] = json!(1);
    let mut higher = a.clone();
    higher["version"] = json!(3);
    assert_eq!(
        tool_changes(&tools(&[&higher]), &tools(&[&lowered])),
        ["a /version: version lowered from 3 to 1 (breaking)"]
    );
}

/// Writes `old` at a fresh path and checks `new` against it.
fn check_against(name: &str, old: &Lock, new: &Lock) -> Result<Report, ContractError> {
    let dir = dir(name);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("tools.lock.json");
    std::fs::write(&path, old.to_json_string()).unwrap();
    let result = check_in(&path, new, LOCAL);
    std::fs::remove_dir_all(dir).unwrap();
    result
}

#[test]
fn a_breaking_change_passes_only_when_its_tools_version_went_up() {
    let (a, b) = (tool("a"), tool("b"));
    let tighter = |t: &Value, version: u32| {
        let mut t = t.clone();
        t["argsSchema"]["properties"]["n"]["maximum"] = json!(5);
        t["version"] = json!(version);
        t
    };
    let old = tools(&[&a, &b]);
    // Breaking, version unchanged: fails.
    let error = check_against("v1", &old, &tools(&[&tighter(&a, 1), &b])).unwrap_err();
    assert_eq!(error.changes().len(), 1);
    // Version raised: passes, both changes reported.
    let report = check_against("v2", &old, &tools(&[&tighter(&a, 2), &b])).unwrap();
    assert!(!report.written());
    assert_eq!(
        shown(report.changes()),
        [
            "/version: version raised from 1 to 2 (compatible)",
            "/argsSchema/properties/n/maximum: bound tightened: `maximum` 10 → 5 (breaking)",
        ]
    );
    // Another tool's version raised does not count.
    let mut b2 = b.clone();
    b2["version"] = json!(2);
    assert!(check_against("v3", &old, &tools(&[&tighter(&a, 1), &b2])).is_err());
    // A rename with the version raised passes; without, it fails.
    let mut renamed = a.clone();
    renamed["name"] = json!("a_v2");
    assert!(check_against("v4", &old, &tools(&[&renamed, &b])).is_err());
    renamed["version"] = json!(2);
    let report = check_against("v5", &old, &tools(&[&renamed, &b])).unwrap();
    assert_eq!(report.changes().len(), 2);
    // A removed tool has no version to raise.
    assert!(check_against("v6", &old, &tools(&[&b])).is_err());
    // Compatible changes pass, and are in the report.
    let mut looser = a.clone();
    looser["argsSchema"]["properties"]["n"]["maximum"] = json!(50);
    let report = check_against("v7", &old, &tools(&[&looser, &b])).unwrap();
    assert_eq!(report.changes().len(), 1);
    assert!(
        report.to_string().contains("1 change(s), none breaking"),
        "{report}"
    );
}

#[test]
fn the_error_lists_every_change() {
    let (a, b, c) = (tool("a"), tool("b"), tool("c"));
    let mut a2 = a.clone();
    a2["argsSchema"]["properties"]["n"]["maximum"] = json!(5);
    a2["argsSchema"]["properties"]["n"]["description"] = json!("How many.");
    let mut b2 = b.clone();
    b2["argsSchema"]["properties"]["m"] = json!({"type": "string"});
    b2["argsSchema"]["required"] = json!(["n", "m"]);
    b2["version"] = json!(2);
    let error = check_against("display", &tools(&[&a, &b, &c]), &tools(&[&a2, &b2])).unwrap_err();
    let text = error.to_string();
    let path = match &error {
        ContractError::Breaking { path, .. } => path.display().to_string(),
        other => panic!("{other:?}"),
    };
    assert_eq!(
        text,
        format!(
            "{path}: 2 breaking change(s) to tools whose version did not go up:
  - `a` at /argsSchema/properties/n/description: description changed (compatible)
  - `a` at /argsSchema/properties/n/maximum: bound tightened: `maximum` 10 → 5 (breaking)
  - `b` at /version: version raised from 1 to 2 (compatible)
  - `b` at /argsSchema/properties/m: property added, required (breaking, allowed: version 1 → 2)
  - `c`: tool removed (breaking)
raise the `version` of each tool with a breaking change (`#[tool(version = 2)]`), or keep its \
old contract; to accept the changes as they are, run the check with `PEDELEC_CONTRACT=update` \
and commit {path}"
        )
    );
    // One change alone reads the same way.
    assert_eq!(
        error.changes()[4].to_string(),
        "`c`: tool removed (breaking)"
    );
    assert_eq!(
        error.changes()[1].to_string(),
        "`a` at /argsSchema/properties/n/maximum: bound tightened: `maximum` 10 → 5 (breaking)"
    );
}
