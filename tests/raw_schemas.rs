//! Raw schemas (DESIGN §16): a tool schema written by others, in full JSON Schema 2020-12,
//! read by `from_json_lenient`, exported to every provider (verbatim where the provider
//! takes it, its plain form elsewhere, `tests/golden/raw/contact.txt`), and validated by
//! the session against the schema as written.

use std::fmt::Write as _;

use pedelec::export::{ExportOptions, Target};
use pedelec::{Session, SkillsInput, ToolDefinition};
use serde_json::{Value, json};

/// The MCP conformance suite's `json_schema_2020_12_tool` (`tests/data/contact.json`, which
/// the conformance fixture serves), with slips of schemas found in the wild (`default: null`
/// on a string, a non-standard `optional`), a format and a map.
fn contact() -> Value {
    let mut schema: Value = serde_json::from_str(include_str!("data/contact.json")).unwrap();
    let props = &mut schema["properties"];
    props["name"]["default"] = Value::Null;
    props["phone"]["optional"] = Value::Bool(true);
    props["email"]["format"] = json!("email");
    props["tags"] = json!({"type": "object", "additionalProperties": {"type": "string"}});
    schema
}

fn skills() -> (SkillsInput<String>, Vec<String>) {
    let (skills, warnings) = SkillsInput::from_json_lenient(&json!({
        "guidance": "Contacts.",
        "tools": [{"name": "add_contact", "description": "Adds a contact.", "argsSchema": contact()}]
    }))
    .unwrap();
    (skills, warnings.iter().map(ToString::to_string).collect())
}

#[test]
fn warnings_name_what_was_repaired_or_ignored() {
    let (skills, warnings) = skills();
    assert_eq!(
        warnings,
        [
            "tools[0].argsSchema/properties/name/default: `default: null` dropped: it is not of type string",
            "tools[0].argsSchema/properties/phone/optional: `optional` is not a JSON Schema keyword: kept as an annotation, it constrains nothing (a property is optional unless its object lists it in `required`)",
        ]
    );
    let schema = skills.tools()[0].args_schema();
    assert!(schema.is_raw());
    // Kept as written, but for the dropped `default`.
    let mut written = contact();
    written["properties"]["name"] = json!({"type": "string"});
    assert_eq!(schema.to_json(), written);
}

#[test]
fn every_target_gets_what_it_takes() {
    let (skills, _) = skills();
    let mut golden = String::new();
    for target in Target::ALL {
        for strict in [true, false] {
            let export = skills
                .export(target, ExportOptions::default().strict(strict))
                .unwrap_or_else(|e| panic!("{target} strict={strict}: {e}"));
            let schema = declared_schema(target, export.tools());
            // Every export is itself a valid 2020-12 schema.
            jsonschema::meta::validate(schema).unwrap();
            if matches!(target, Target::Mcp | Target::Gemini) {
                assert_eq!(
                    schema["$defs"]["address"]["$anchor"], "addressDef",
                    "{target}"
                );
                assert!(schema.get("if").is_some(), "{target}");
            }
            writeln!(
                golden,
                "== {target} strict={strict}\n{}",
                serde_json::to_string_pretty(schema).unwrap()
            )
            .unwrap();
            for n in export.narrowings() {
                writeln!(golden, "narrowing: {n}").unwrap();
            }
        }
    }
    expect_test::expect_file!["golden/raw/contact.txt"].assert_eq(&golden);
}

/// The argsSchema in a target's tool declaration.
fn declared_schema(target: Target, tools: &Value) -> &Value {
    let tool = match target {
        Target::Gemini | Target::GeminiOpenApi => &tools[0]["functionDeclarations"][0],
        _ => &tools[0],
    };
    [
        "parameters",
        "input_schema",
        "inputSchema",
        "parametersJsonSchema",
    ]
    .iter()
    .find_map(|k| {
        tool.get(*k)
            .or_else(|| tool.get("function").and_then(|f| f.get(*k)))
    })
    .unwrap_or_else(|| panic!("no schema in {tool}"))
}

#[tokio::test]
async fn a_strict_call_is_restored_and_checked_against_the_schema_as_written() {
    let (mut skills, _) = skills();
    let def: ToolDefinition =
        skills
            .tools_mut()
            .remove(0)
            .with_handler(pedelec::call::ToolHandler::json(
                |args: Value, _| async move { Ok::<_, pedelec::ToolError>(args) },
            ));
    skills.tools_mut().push(def);
    let export = skills
        .export(Target::OpenAiResponses, ExportOptions::default())
        .unwrap();
    let session = Session::builder(skills).create().unwrap();

    // What a strict model sends: every property, `null` for those it leaves out, the map as
    // entries.
    let sent = |args: Value| {
        json!({"type": "function_call", "call_id": "c1", "name": "add_contact",
               "arguments": args.to_string()})
    };
    let call = export
        .decode_call(&sent(
            json!({"name": null, "address": null, "contactMethod": "email",
            "phone": null, "email": "ada@example.com",
            "tags": [{"key": "team", "value": "core"}]}),
        ))
        .unwrap();
    assert_eq!(
        call.args,
        json!({"contactMethod": "email", "email": "ada@example.com", "tags": {"team": "core"}})
    );
    let result = session.call(&call.name, call.args).await;
    assert!(result.is_ok(), "{result:?}");

    // `if`/`then`: the phone method without a phone. The export could not say it; the
    // session does.
    let call = export
        .decode_call(&sent(
            json!({"name": null, "address": null, "contactMethod": "phone",
            "phone": null, "email": "ada@example.com", "tags": []}),
        ))
        .unwrap();
    let result = session.call(&call.name, call.args).await;
    let pedelec::ToolResult::Err(error) = result else {
        panic!("{result:?}")
    };
    assert_eq!(error.code(), pedelec::ErrorCode::ToolArgsInvalid);
    assert!(
        error.message().contains("\"phone\" is a required property"),
        "{}",
        error.message()
    );

    // A format the session asserts, by pedelec's own check.
    let result = session
        .call("add_contact", json!({"email": "not an address"}))
        .await;
    assert_eq!(
        result.error_code(),
        Some(pedelec::ErrorCode::ToolArgsInvalid),
        "{result:?}"
    );
}

/// What the lenient reader accepts, a session accepts: schemas as they are published (a
/// `required` name without its property, an array without `items`, an untyped property,
/// a `format` on an integer, a `default: null` on a string) are each a raw schema, and a
/// session takes them and validates calls by the schema as written.
#[tokio::test]
async fn what_the_lenient_reader_accepts_a_session_accepts() {
    let schemas = [
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a", "b"]}),
        json!({"type": "object", "properties": {"ids": {"type": "array"}}}),
        json!({"type": "object", "properties": {"filter": {"description": "Any filter."}}}),
        json!({"type": "object", "properties": {"n": {"type": "integer", "format": "int32"}}}),
        json!({"type": "object", "properties": {"s": {"type": "string", "default": null}}}),
        json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}}),
    ];
    for (i, schema) in schemas.iter().enumerate() {
        let (skills, _) = SkillsInput::<String>::from_json_lenient(&json!({
            "guidance": "Published.",
            "tools": [{"name": "t", "description": "A tool.", "argsSchema": schema}]
        }))
        .unwrap_or_else(|e| panic!("#{i} {schema}: {e}"));
        let session = Session::builder(skills)
            .create()
            .unwrap_or_else(|e| panic!("#{i} {schema}: a session refuses it: {e}"));
        session.on_tool_name("t", |args: Value, _| async move {
            Ok::<_, pedelec::ToolError>(args)
        });
        // Calls are checked against the schema as written.
        let args = match i {
            0 => (json!({"a": "x", "b": 1}), json!({"a": "x"})),
            1 => (json!({"ids": [1, "two"]}), json!({"ids": "one"})),
            2 => (json!({"filter": {"any": ["thing"]}}), json!([])),
            3 => (json!({"n": 7}), json!({"n": "7"})),
            4 => (json!({"s": "x"}), json!({"s": 1})),
            _ => (json!({"m": {"k": [1]}}), json!({"m": 1})),
        };
        let good = session.call("t", args.0.clone()).await;
        assert!(good.is_ok(), "#{i} {}: {good:?}", args.0);
        let bad = serde_json::to_value(session.call("t", args.1.clone()).await).unwrap();
        assert_eq!(
            bad["error"]["code"],
            json!("TOOL_ARGS_INVALID"),
            "#{i} {}",
            args.1
        );
        // A value built in process nesting 100,000 levels, where the schema may say any
        // value: refused before any recursive walk (validation, the handler's JSON).
        let mut deep = json!(1);
        for _ in 0..100_000 {
            deep = Value::Array(vec![deep]);
        }
        let mut args = json!({});
        args["m"] = deep;
        let deep = serde_json::to_value(session.call("t", args).await).unwrap();
        assert_eq!(deep["error"]["code"], json!("TOOL_ARGS_INVALID"), "#{i}");
        assert!(
            deep["error"]["message"]
                .as_str()
                .unwrap()
                .contains("nested too deeply"),
            "#{i} {deep}"
        );
    }
}
