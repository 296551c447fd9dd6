//! Provider exports: golden files per target for the counter skills and a rich skill set
//! (refresh with `UPDATE_EXPECT=1 cargo test --test export` and review the diff), the
//! run-time rules listing every problem, the call adapters, and a property test: 10,000+
//! random instances of the rich set round-trip through every target's provider form.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]
#![allow(dead_code, reason = "the tools' bodies are not called")]
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_precision_loss,
    reason = "the seeded generator's numbers are small"
)]

use std::collections::{BTreeSet, HashMap};
use std::fmt::Write as _;

use pedelec::context::Caller;
use pedelec::export::{
    CacheControl, Choice, Export, ExportError, ExportOptions, ProviderCall, ProviderCaller, Search,
    Target,
};
use pedelec::{
    CallOptions, SkillsInput, ToolArgs, ToolArgsSchema, ToolDefinition, ToolError, ToolResult,
    skills, tool,
};
use serde::Deserialize;
use serde_json::{Value, json};

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/counter.rs"]
mod counter;

/// Where to deliver.
#[derive(Debug, Deserialize, ToolArgs)]
struct Address {
    /// Street and number.
    #[arg(min_length = 1, max_length = 200)]
    street: String,
    /// ISO 3166 country code.
    #[arg(pattern = "^[A-Z]{2}$")]
    country: String,
    /// Floor, when there is one.
    #[arg(minimum = -5, maximum = 200)]
    floor: Option<i32>,
}

/// How urgent.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(rename_all = "snake_case")]
enum Priority {
    Low,
    Normal,
    Express,
}

/// The parcel's shape (internally tagged).
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A box.
    Box {
        #[arg(exclusive_minimum = 0, maximum = 300)]
        width_cm: f64,
        #[arg(exclusive_minimum = 0, maximum = 300)]
        height_cm: f64,
    },
    /// A tube.
    Tube {
        #[arg(minimum = 1, multiple_of = 5)]
        length_cm: u32,
    },
    /// An envelope.
    Envelope,
}

/// How to pay (adjacently tagged).
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(tag = "method", content = "details", rename_all = "snake_case")]
enum Payment {
    /// By card.
    Card {
        #[arg(pattern = "^[0-9]{4}$")]
        last4: String,
    },
    /// On account.
    Invoice {
        #[arg(format = "email")]
        billing_email: String,
    },
}

/// A notification (externally tagged).
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(rename_all = "snake_case")]
enum Notify {
    /// Do not notify.
    Never,
    /// Send an SMS.
    Sms(String),
    /// Send an email.
    Email {
        #[arg(format = "email")]
        to: String,
    },
}

/// A customs declaration.
#[derive(Debug, Deserialize, ToolArgs)]
struct Customs {
    /// Declared value in euros.
    #[arg(minimum = 0)]
    value_eur: f64,
    /// Country of origin.
    #[arg(pattern = "^[A-Z]{2}$")]
    origin: Option<String>,
}

/// One item of the parcel.
#[derive(Debug, Deserialize, ToolArgs)]
struct Item {
    /// Stock keeping unit.
    #[arg(min_length = 3, max_length = 12)]
    sku: String,
    /// How many.
    #[arg(minimum = 1, maximum = 99)]
    quantity: u8,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct ShipParcelArgs {
    /// The recipient.
    address: Address,
    /// How urgent.
    priority: Priority,
    /// The parcel's shape.
    shape: Shape,
    /// How to pay.
    payment: Option<Payment>,
    /// Whom to notify.
    notify: Option<Notify>,
    /// What is inside.
    #[arg(min_items = 1, max_items = 5)]
    items: Vec<Item>,
    /// Labels printed on the parcel.
    #[arg(max_items = 4)]
    labels: BTreeSet<String>,
    /// Insured value in euros.
    #[serde(default)]
    #[arg(default = 0, minimum = 0, maximum = 10000)]
    insured_eur: u32,
    /// When to pick it up.
    #[arg(format = "date-time")]
    pickup_at: Option<String>,
    /// Ship as a gift.
    #[serde(default)]
    #[arg(default = false)]
    gift: bool,
    /// Customs declarations, by SKU.
    customs: Option<HashMap<String, Customs>>,
}

/// Ship a parcel.
#[tool(name = "shipping.ship_parcel")]
fn ship_parcel(args: ShipParcelArgs) -> bool {
    let _ = args;
    true
}

#[derive(Debug, Deserialize, ToolArgs)]
struct OpenUrlArgs {
    /// The URL.
    #[arg(format = "uri")]
    url: String,
    /// Open in a new tab.
    new_tab: Option<bool>,
}

/// Open a URL.
#[tool(
    name = "nav.open_url",
    example = r#"{"url": "https://example.com/docs"}"#,
    example = r#"{"url": "https://example.com/", "new_tab": true}"#
)]
fn open_url(args: OpenUrlArgs) -> bool {
    let _ = args;
    true
}

skills![
    pub enum Rich,
    guidance = "Ship parcels and open pages.",
    tools = [ship_parcel, open_url],
    targets = [openai, anthropic, gemini, gemini_openapi, mcp],
];

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/export");

fn options(strict: bool) -> ExportOptions {
    ExportOptions::default().strict(strict)
}

/// The goldens of a skill set, exported with its examples; the manifest (which has none)
/// exports the same declarations without `input_examples`.
fn golden<N>(set: &str, skills: &SkillsInput<N>) {
    // The manifest, read back as a skill set: what a manifest from elsewhere exports.
    let manifest =
        SkillsInput::from_json(&serde_json::to_value(skills.manifest()).unwrap()).unwrap();
    for target in Target::ALL {
        for strict in [true, false] {
            if !strict && !target.provider().has_strict_mode() {
                continue;
            }
            let export = skills.export(target, options(strict)).unwrap();
            let mut without_examples = export.tools().clone();
            strip_definition_fields(&mut without_examples);
            assert_eq!(
                manifest.export(target, options(strict)).unwrap().tools(),
                &without_examples
            );
            let mut text = serde_json::to_string_pretty(export.tools()).unwrap();
            text.push('\n');
            let suffix = if strict { "" } else { "-lax" };
            let path = format!("{GOLDEN}/{set}/{target}{suffix}.json");
            expect_test::expect_file![path].assert_eq(&text);
        }
    }
}

/// Removes what only a `ToolDefinition` carries (examples, output schemas, callers) from
/// an export's `tools`, leaving what the manifest's export has.
fn strip_definition_fields(tools: &mut Value) {
    const KEYS: [&str; 6] = [
        "input_examples",
        "output_schema",
        "responseJsonSchema",
        "response",
        "outputSchema",
        "allowed_callers",
    ];
    for declaration in tools.as_array_mut().unwrap() {
        if let Some(d) = declaration.as_object_mut() {
            for key in KEYS {
                d.remove(key);
            }
            if let Some(Value::Array(inner)) = d.get_mut("functionDeclarations") {
                for f in inner {
                    for key in KEYS {
                        f.as_object_mut().unwrap().remove(key);
                    }
                }
            }
        }
    }
}

#[test]
fn counter_goldens() {
    golden("counter", &counter::ToolName::skills());
}

#[test]
fn rich_goldens() {
    golden("rich", &Rich::skills());
}

#[test]
fn exports_are_deterministic_and_the_manifest_may_come_from_json() {
    let json = serde_json::to_string(&Rich::manifest()).unwrap();
    let manifest = SkillsInput::from_json_str(&json).unwrap();
    let from_json = SkillsInput::from_json_str(&json).unwrap();
    for target in Target::ALL {
        let a = manifest.export(target, options(true)).unwrap();
        let b = from_json.export(target, options(true)).unwrap();
        assert_eq!(
            serde_json::to_string(a.tools()).unwrap(),
            serde_json::to_string(b.tools()).unwrap()
        );
    }
}

#[test]
fn names_map_reversibly_where_the_provider_rejects_dots() {
    let manifest = Rich::skills().untyped();
    for target in Target::ALL {
        let export = manifest.export(target, options(true)).unwrap();
        let expected = match target {
            Target::OpenAiChat | Target::OpenAiResponses | Target::Anthropic => "nav_open_url",
            _ => "nav.open_url",
        };
        assert_eq!(export.provider_name("nav.open_url"), Some(expected));
        assert_eq!(export.tool_name(expected), Some("nav.open_url"));
        assert_eq!(export.provider_name("nav.close"), None);
    }
}

/// A skill set read from Core's JSON (what a manifest from elsewhere becomes to export).
fn manifest(tools: Value) -> SkillsInput {
    SkillsInput::from_json(&json!({"guidance": "g", "tools": tools})).unwrap()
}

/// Each problem's tool and rule, in order.
fn rules(error: &ExportError) -> Vec<(String, &'static str)> {
    error
        .problems()
        .iter()
        .map(|p| (p.tool.clone().unwrap_or_default(), p.rule))
        .collect()
}

/// A closed object schema with `optional` optional string properties (`p0`, `p1`, …).
fn closed_object(optional: usize) -> Value {
    let props: serde_json::Map<String, Value> = (0..optional)
        .map(|i| (format!("p{i}"), json!({"type": "string"})))
        .collect();
    json!({"type": "object", "properties": props, "additionalProperties": false})
}

fn tool_json(name: &str, description: &str, schema: Value) -> Value {
    json!({"name": name, "description": description, "argsSchema": schema})
}

#[test]
fn only_the_mcp_export_lists_mcp_headers() {
    let schema = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "target": {
                "type": "object",
                "properties": {"zone": {"type": "integer", "x-mcp-header": "Zone"}},
                "required": ["zone"],
                "additionalProperties": false,
            },
        },
        "required": ["region", "target"],
        "additionalProperties": false,
    });
    let m = manifest(json!([tool_json("route", "Route work.", schema)]));
    for target in Target::ALL {
        let export = m.export(target, ExportOptions::default()).unwrap();
        let text = serde_json::to_string(export.tools()).unwrap();
        let expected = if target == Target::Mcp { 2 } else { 0 };
        assert_eq!(
            text.matches("x-mcp-header").count(),
            expected,
            "{target:?}: {text}"
        );
    }
}

const EMPTY: fn() -> Value =
    || json!({"type": "object", "properties": {}, "additionalProperties": false});

#[test]
fn export_errors_list_every_problem() {
    let long = "a".repeat(65);
    let deep = (0..11).fold(
        json!({"type": "object", "properties": {}, "additionalProperties": false}),
        |inner, _| {
            json!({"type": "object", "properties": {"x": inner}, "required": ["x"], "additionalProperties": false})
        },
    );
    let m = manifest(json!([
        tool_json("nav.open", "Open.", EMPTY()),
        tool_json("nav_open", "Open too.", EMPTY()),
        tool_json(&long, &"d".repeat(1025), EMPTY()),
        tool_json("deep", "Deep.", deep),
        tool_json(
            "open",
            "An open object.",
            json!({
                "type": "object",
                "properties": {"tags": {"type": "object", "properties": {"a": {"type": "string"}}}},
                "required": ["tags"],
                "additionalProperties": false
            })
        ),
        tool_json(
            "union",
            "Untagged.",
            json!({
                "type": "object",
                "properties": {"v": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 1}]}},
                "required": ["v"],
                "additionalProperties": false
            })
        ),
    ]));
    let error = m
        .export(Target::OpenAiChat, ExportOptions::default())
        .unwrap_err();
    let got: Vec<_> = error
        .problems()
        .iter()
        .map(|p| (p.tool.as_deref().unwrap_or(""), p.place.as_str(), p.rule))
        .collect();
    assert_eq!(
        got,
        [
            ("nav_open", "", "name-collision"),
            (long.as_str(), "", "name-length"),
            (long.as_str(), "", "description-length"),
            ("deep", "", "strict-depth"),
            ("open", "/properties/tags", "strict-open-object"),
            ("union", "/properties/v", "ambiguous-one-of"),
        ]
    );
    expect_test::expect_file![format!("{GOLDEN}/errors-openai.txt")]
        .assert_eq(&format!("{error}\n"));

    // Without strict mode, only the name and description rules remain.
    let error = m.export(Target::OpenAiChat, options(false)).unwrap_err();
    let rules: Vec<_> = error.problems().iter().map(|p| p.rule).collect();
    assert_eq!(
        rules,
        ["name-collision", "name-length", "description-length"]
    );
    // Gemini takes dots and open objects, but not an ambiguous `oneOf`, nor a name longer
    // than 64 characters.
    let error = m
        .export(Target::Gemini, ExportOptions::default())
        .unwrap_err();
    let rules: Vec<_> = error.problems().iter().map(|p| p.rule).collect();
    assert_eq!(rules, ["name-length", "ambiguous-one-of"]);
    // MCP keeps `oneOf`: only the name is too long (for the official conformance suite).
    let error = m.export(Target::Mcp, ExportOptions::default()).unwrap_err();
    let rules: Vec<_> = error.problems().iter().map(|p| p.rule).collect();
    assert_eq!(rules, ["name-length"]);
}

#[test]
fn names_longer_than_64_characters_fail_every_target() {
    for (len, ok) in [(64, true), (65, false)] {
        let m = manifest(json!([tool_json(&"a".repeat(len), "Long.", EMPTY())]));
        for target in Target::ALL {
            match m.export(target, ExportOptions::default()) {
                Ok(_) => assert!(ok, "{target}"),
                Err(error) => {
                    assert!(!ok, "{target}: {error}");
                    assert_eq!(error.problems()[0].rule, "name-length", "{target}");
                    assert!(
                        error
                            .to_string()
                            .contains("its name is 65 characters long; at most 64"),
                        "{error}"
                    );
                }
            }
        }
    }
}

#[test]
fn openai_takes_at_most_128_tools() {
    let tools = |n: usize| {
        Value::Array(
            (0..n)
                .map(|i| tool_json(&format!("t{i}"), "T.", EMPTY()))
                .collect(),
        )
    };
    for target in Target::ALL {
        assert!(manifest(tools(128)).export(target, options(false)).is_ok());
    }
    for strict in [true, false] {
        for target in [Target::OpenAiChat, Target::OpenAiResponses] {
            let error = manifest(tools(130))
                .export(target, options(strict))
                .unwrap_err();
            assert_eq!(
                rules(&error),
                [("t128".to_owned(), "tool-count")],
                "{target}"
            );
            assert_eq!(
                error.to_string(),
                format!(
                    "{} ({target}): tool `t128`: it is tool number 129 of the set, and at most \
                     128 tools are accepted in one request: split the set into smaller ones, or \
                     send only the tools a turn needs (rule `tool-count`)",
                    target.title()
                )
            );
        }
    }
    // No documented count elsewhere (Gemini's sources disagree).
    for target in [
        Target::Anthropic,
        Target::Gemini,
        Target::GeminiOpenApi,
        Target::Mcp,
    ] {
        assert!(
            manifest(tools(130)).export(target, options(false)).is_ok(),
            "{target}"
        );
    }
}

#[test]
fn examples_go_to_anthropic_only_and_must_match_the_args_schema() {
    let export = Rich::skills()
        .export(Target::Anthropic, ExportOptions::default())
        .unwrap();
    assert_eq!(
        export.tools()[1]["input_examples"],
        json!([
            {"url": "https://example.com/docs"},
            {"url": "https://example.com/", "new_tab": true}
        ])
    );
    assert!(export.tools()[0].get("input_examples").is_none());
    for target in Target::ALL {
        let tools = Rich::skills()
            .export(target, options(true))
            .unwrap()
            .tools()
            .to_string();
        assert_eq!(
            tools.contains("example.com/docs"),
            target == Target::Anthropic,
            "{target}"
        );
    }

    let schema = ToolArgsSchema::from_json(&json!({
        "type": "object",
        "properties": {"delta": {"type": "integer"}},
        "required": ["delta"],
        "additionalProperties": false
    }))
    .unwrap();
    let skills = SkillsInput::new(
        "Count.",
        vec![
            ToolDefinition::new("update_counter", "Update.", schema).with_examples([
                r#"{"delta": 2}"#,
                r#"{"delta": "2"}"#,
                "[]",
            ]),
        ],
    );
    let error = skills
        .export(Target::Anthropic, ExportOptions::default())
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot export to Anthropic Messages (anthropic): 2 problems\n\
         - tool `update_counter`: example 1: /delta: expected integer, got string \"2\" (rule \
         `input-example`)\n\
         - tool `update_counter`: example 2: an example is the tool's arguments, a JSON object, \
         not an array (rule `input-example`)"
    );
    // Where they are not exported, they are not checked (a session still checks them).
    assert!(
        skills
            .export(Target::OpenAiChat, ExportOptions::default())
            .is_ok()
    );
}

#[test]
fn anthropic_strict_limits_count_across_the_set() {
    let tools: Vec<Value> = (0..21)
        .map(|i| {
            tool_json(
                &format!("t{i}"),
                "T.",
                closed_object(if i < 5 { 5 } else { 0 }),
            )
        })
        .collect();
    let error = manifest(Value::Array(tools.clone()))
        .export(Target::Anthropic, ExportOptions::default())
        .unwrap_err();
    assert_eq!(
        rules(&error),
        [
            ("t4".to_owned(), "strict-optional-parameters"),
            ("t20".to_owned(), "strict-tools"),
        ]
    );
    assert!(
        manifest(Value::Array(tools))
            .export(Target::Anthropic, options(false))
            .is_ok()
    );
}

/// Anthropic builds its strict grammar over every tool in the request, deferred ones
/// (`defer_loading: true`) included: searched tools count toward the strict limits.
#[test]
fn anthropic_strict_limits_count_deferred_tools() {
    let schema = |optional: usize| ToolArgsSchema::from_json(&closed_object(optional)).unwrap();
    // 12 tools declared in full, 10 deferred: 22 strict tools in the request.
    let tools: Vec<ToolDefinition> = (0..22)
        .map(|i| ToolDefinition::new(format!("t{i}"), "T.", schema(0)).with_defer(i >= 12))
        .collect();
    for search in [Search::Provider, Search::Client] {
        let error = SkillsInput::new("g", tools.clone())
            .export(Target::Anthropic, ExportOptions::default().search(search))
            .unwrap_err();
        assert_eq!(
            rules(&error),
            [("t20".to_owned(), "strict-tools")],
            "{search:?}"
        );
    }
    // Optional parameters of deferred tools count too (5 tools of 5, the 5th past 24).
    let tools: Vec<ToolDefinition> = (0..5)
        .map(|i| ToolDefinition::new(format!("o{i}"), "T.", schema(5)).with_defer(i >= 1))
        .collect();
    let error = SkillsInput::new("g", tools.clone())
        .export(
            Target::Anthropic,
            ExportOptions::default().search(Search::Provider),
        )
        .unwrap_err();
    assert_eq!(error.problems()[0].rule, "strict-optional-parameters");
    // Not strict, nothing is over.
    assert!(
        SkillsInput::new("g", tools.clone())
            .export(Target::Anthropic, options(false).search(Search::Provider))
            .is_ok()
    );
}

fn rich_export(target: Target) -> Export {
    Rich::skills()
        .untyped()
        .export(target, ExportOptions::default())
        .unwrap()
}

/// `tool_choice`: each target's request field, under the provider's names, and what a
/// target cannot say refused with the rule that says so.
#[test]
fn tool_choice_in_each_providers_form() {
    let export = |target, strict| Rich::export(target, options(strict)).unwrap();
    let refused = |result: Result<Value, ExportError>| result.unwrap_err().problems()[0].rule;
    let chat = export(Target::OpenAiChat, true);
    assert_eq!(
        chat.tool_choice(&[Rich::OpenUrl], Choice::Required)
            .unwrap(),
        json!({"type": "allowed_tools", "allowed_tools": {
            "mode": "required",
            "tools": [{"type": "function", "function": {"name": "nav_open_url"}}]
        }})
    );
    let responses = export(Target::OpenAiResponses, true);
    assert_eq!(
        responses
            .tool_choice(
                &[Rich::OpenUrl, Rich::ShipParcel, Rich::OpenUrl],
                Choice::Auto
            )
            .unwrap(),
        json!({"type": "allowed_tools", "mode": "auto", "tools": [
            {"type": "function", "name": "nav_open_url"},
            {"type": "function", "name": "shipping_ship_parcel"}
        ]})
    );
    let anthropic = export(Target::Anthropic, true);
    let open_url = anthropic.provider_name("nav.open_url").unwrap();
    assert_eq!(
        anthropic
            .tool_choice(&[Rich::OpenUrl], Choice::Required)
            .unwrap(),
        json!({"type": "tool", "name": open_url})
    );
    assert_eq!(
        anthropic
            .tool_choice(&[Rich::ShipParcel, Rich::OpenUrl], Choice::Auto)
            .unwrap(),
        json!({"type": "auto"})
    );
    // One named tool, or all: nothing between.
    assert_eq!(
        refused(anthropic.tool_choice(&[Rich::ShipParcel, Rich::OpenUrl], Choice::Required)),
        "tool-choice-subset"
    );
    assert_eq!(
        refused(anthropic.tool_choice(&[Rich::OpenUrl], Choice::Auto)),
        "tool-choice-subset"
    );
    for target in [Target::Gemini, Target::GeminiOpenApi] {
        let gemini = export(target, true);
        let name = gemini.provider_name("nav.open_url").unwrap();
        assert_eq!(
            gemini
                .tool_choice(&[Rich::OpenUrl], Choice::Required)
                .unwrap(),
            json!({"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [name]}})
        );
        assert_eq!(
            gemini.tool_choice(&[Rich::OpenUrl], Choice::Auto).unwrap(),
            json!({"functionCallingConfig": {"mode": "VALIDATED", "allowedFunctionNames": [name]}})
        );
    }
    assert_eq!(
        refused(export(Target::Mcp, true).tool_choice(&[Rich::OpenUrl], Choice::Auto)),
        "tool-choice-mcp"
    );
    assert_eq!(
        refused(chat.tool_choice(&[], Choice::Auto)),
        "tool-choice-empty"
    );
    // The export is typed by the skill set: the same tools, named by its enum.
    assert_eq!(
        chat.tools(),
        Rich::skills()
            .untyped()
            .export(Target::OpenAiChat, options(true))
            .unwrap()
            .tools()
    );
}

#[test]
fn decoding_each_providers_payload() {
    let args = json!({"url": "https://example.com", "new_tab": null});
    let text = args.to_string();
    let cases = [
        (
            Target::OpenAiChat,
            json!({"id": "call_1", "type": "function", "function": {"name": "nav_open_url", "arguments": text}}),
        ),
        (
            Target::OpenAiResponses,
            json!({"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "nav_open_url", "arguments": text}),
        ),
        (
            Target::Anthropic,
            json!({"type": "tool_use", "id": "call_1", "name": "nav_open_url", "input": {"url": "https://example.com"}}),
        ),
        (
            Target::Gemini,
            json!({"functionCall": {"id": "call_1", "name": "nav.open_url", "args": {"url": "https://example.com"}}}),
        ),
        (
            Target::GeminiOpenApi,
            json!({"id": "call_1", "name": "nav.open_url", "args": {"url": "https://example.com"}}),
        ),
    ];
    for (target, payload) in cases {
        let call = rich_export(target).decode_call(&payload).unwrap();
        assert_eq!(
            call,
            ProviderCall {
                id: Some("call_1".into()),
                name: "nav.open_url".into(),
                args: json!({"url": "https://example.com"}),
                caller: ProviderCaller::Direct,
            },
            "{target}"
        );
    }
    let mcp = rich_export(Target::Mcp)
        .decode_call(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "nav.open_url", "arguments": {"url": "x"}}}))
        .unwrap();
    assert_eq!(
        (mcp.name.as_str(), mcp.args),
        ("nav.open_url", json!({"url": "x"}))
    );
}

#[test]
fn malformed_payloads_say_what_is_wrong() {
    let openai = rich_export(Target::OpenAiChat);
    let message =
        |export: &Export, payload: Value| export.decode_call(&payload).unwrap_err().to_string();
    expect_test::expect!["OpenAI Chat Completions (openai): /function/arguments: `arguments` is not valid JSON text: EOF while parsing an object at line 1 column 1 (rule `arguments`)"]
        .assert_eq(&message(&openai, json!({"id": "c", "type": "function", "function": {"name": "nav_open_url", "arguments": "{"}})));
    expect_test::expect!["OpenAI Chat Completions (openai): /function/arguments: `arguments` must be JSON text (a string holding an object), got an object (rule `arguments`)"]
        .assert_eq(&message(&openai, json!({"id": "c", "type": "function", "function": {"name": "nav_open_url", "arguments": {}}})));
    expect_test::expect!["OpenAI Chat Completions (openai): /function/arguments: the arguments must be a JSON object, got an array (rule `arguments`)"]
        .assert_eq(&message(&openai, json!({"id": "c", "type": "function", "function": {"name": "nav_open_url", "arguments": "[1]"}})));
    expect_test::expect!["OpenAI Chat Completions (openai): unknown tool `nav_open_ur`; did you mean `nav_open_url`? (rule `unknown-tool`)"]
        .assert_eq(&message(&openai, json!({"id": "c", "type": "function", "function": {"name": "nav_open_ur", "arguments": "{}"}})));
    expect_test::expect![[r#"OpenAI Chat Completions (openai): /function: `function` is missing or not an object; expected one element of `message.tool_calls`, like `{"id": "call_…", "type": "function", "function": {"name": "…", "arguments": "{…}"}}` (rule `payload`)"#]]
        .assert_eq(&message(&openai, json!({"role": "assistant", "content": "hi"})));
    let anthropic = rich_export(Target::Anthropic);
    expect_test::expect![[r#"Anthropic Messages (anthropic): /type: this is not a `tool_use` (its `type` is "text"); expected one `tool_use` content block, like `{"type": "tool_use", "id": "toolu_…", "name": "…", "input": {…}}` (rule `payload`)"#]]
        .assert_eq(&message(&anthropic, json!({"type": "text", "text": "hi"})));
    let gemini = rich_export(Target::Gemini);
    expect_test::expect![[r#"Gemini (gemini): there is no `functionCall`; expected one `functionCall` part, like `{"functionCall": {"name": "…", "args": {…}}}` (rule `payload`)"#]]
        .assert_eq(&message(&gemini, json!({"text": "hi"})));
    expect_test::expect![[r#"Gemini (gemini): the payload is a string; expected one `functionCall` part, like `{"functionCall": {"name": "…", "args": {…}}}` (rule `payload`)"#]]
        .assert_eq(&message(&gemini, json!("call")));
}

#[tokio::test]
async fn call_provider_raw_answers_what_call_provider_answers() {
    // Two sessions given the same calls in the same order: one through the `Value` route,
    // one through the text route; every message must be the same text.
    let by_value = counter::demo_session().unwrap();
    let by_text = counter::demo_session().unwrap();
    let editor = || CallOptions::new().caller(Caller::new("editor").with_scopes(["counter:write"]));
    let manifest = counter::ToolName::skills().untyped();
    let cases: [(Target, &[&str]); 4] = [
        (
            Target::OpenAiChat,
            &[
                r#"{"id":"call_1","type":"function","function":{"name":"update_counter","arguments":"{\"delta\":2}"}}"#,
                r#"{"id":"call_\"2\"","function":{"arguments":" {\"delta\": -1} ","name":"update_counter"}}"#,
                r#"{"id":"call_3","type":"function","function":{"name":"update_counter","arguments":"{\"delta\":\"2\"}"}}"#,
                r#"{"id":"call_4","type":"function","function":{"name":"reset","arguments":"{}"}}"#,
                r#"{"id":7,"type":"function","function":{"name":"update_counter","arguments":"{\"delta\":1}"}}"#,
                r#"{"id":null,"type":"function","function":{"name":"get_current_page","arguments":"{}"}}"#,
                r#"{"id":"call_5","type":"function","function":{"name":"update_counter","arguments":"[1]"}}"#,
                r#"{"id":"call_6","type":"function","function":{"name":"update_counter","arguments":"{\"delta\":"}}"#,
                r#"{"id":"call_7","type":"custom","function":{"name":"update_counter","arguments":"{}"}}"#,
                r#"{"id":"call_8","id":"call_9","type":"function","function":{"name":"update_counter","arguments":"{\"delta\":1}"}}"#,
                r#"{"role":"assistant","content":"hi"}"#,
                "[1, 2]",
                r#"{"id": "call_"#,
                "",
            ],
        ),
        (
            Target::OpenAiResponses,
            &[
                r#"{"type":"function_call","call_id":"call_1","name":"update_counter","arguments":"{\"delta\":3}"}"#,
                r#"{"type":"function_call","name":"update_counter","arguments":"{\"delta\":3}"}"#,
                r#"{"type":"message","call_id":"call_2","name":"update_counter","arguments":"{}"}"#,
                r#"{"type":"function_call","call_id":"call_3","name":"update_counte","arguments":"{}"}"#,
            ],
        ),
        (
            Target::Anthropic,
            &[
                r#"{"type":"tool_use","id":"toolu_1","name":"update_counter","input":{"delta":2}}"#,
                r#"{"id":"toolu_2","name":"update_counter","input":{ "delta" : 5 }}"#,
                r#"{"type":"tool_use","id":"toolu_3","name":"update_counter","input":{"delta":"two"}}"#,
                r#"{"type":"tool_use","id":"toolu_4","name":"update_counter","input":[]}"#,
                r#"{"type":"tool_use","id":"toolu_5","name":"render_page","input":{"name":null}}"#,
                r#"{"type":"text","text":"hi"}"#,
                "null",
            ],
        ),
        (
            Target::Gemini,
            &[
                r#"{"functionCall":{"name":"update_counter","args":{"delta":2}}}"#,
                r#"{"text":"hi"}"#,
            ],
        ),
    ];
    for (target, payloads) in cases {
        let export = manifest.export(target, ExportOptions::default()).unwrap();
        for payload in payloads {
            let text = by_text
                .call_provider_raw_with(&export, payload, editor())
                .await;
            let value = match serde_json::from_str::<Value>(payload) {
                Ok(payload) => {
                    by_value
                        .call_provider_with(&export, &payload, editor())
                        .await
                }
                // Not JSON: the text route alone can be given it.
                Err(_) => {
                    let message: Value = serde_json::from_str(&text).unwrap();
                    let content = message["content"].as_str().unwrap();
                    assert!(
                        content.contains("INVALID_INPUT"),
                        "{target}: {payload}: {text}"
                    );
                    assert!(content.contains("not JSON"), "{target}: {payload}: {text}");
                    continue;
                }
            };
            assert_eq!(
                text,
                serde_json::to_string(&value).unwrap(),
                "{target}: {payload}"
            );
        }
    }
}

#[tokio::test]
async fn call_provider_answers_every_payload_in_the_providers_form() {
    let session = counter::demo_session().unwrap();
    // `update_counter` requires `counter:write`: the calls are the editor's.
    let editor = || CallOptions::new().caller(Caller::new("editor").with_scopes(["counter:write"]));
    let manifest = counter::ToolName::skills().untyped();
    let export = manifest
        .export(Target::Anthropic, ExportOptions::default())
        .unwrap();
    let ok = session
        .call_provider_with(&export, &json!({"type": "tool_use", "id": "toolu_1", "name": "update_counter", "input": {"delta": 2}}), editor())
        .await;
    assert_eq!(
        ok,
        json!({"type": "tool_result", "tool_use_id": "toolu_1", "content": "{\"ok\":true,\"value\":{\"value\":2}}"})
    );
    let bad = session
        .call_provider_with(&export, &json!({"type": "tool_use", "id": "toolu_2", "name": "update_counter", "input": {"delta": "2"}}), editor())
        .await;
    assert_eq!(bad["is_error"], true);
    assert_eq!(bad["tool_use_id"], "toolu_2");
    assert!(
        bad["content"]
            .as_str()
            .unwrap()
            .contains("TOOL_ARGS_INVALID")
    );
    let unknown = session
        .call_provider_with(
            &export,
            &json!({"type": "tool_use", "id": "toolu_3", "name": "reset", "input": {}}),
            editor(),
        )
        .await;
    assert_eq!(unknown["tool_use_id"], "toolu_3");
    assert!(
        unknown["content"]
            .as_str()
            .unwrap()
            .contains("TOOL_HANDLER_NOT_FOUND")
    );
    let garbage = session
        .call_provider_with(&export, &json!([1, 2]), editor())
        .await;
    assert_eq!(garbage["is_error"], true);
    assert!(
        garbage["content"]
            .as_str()
            .unwrap()
            .contains("INVALID_INPUT")
    );

    let export = manifest
        .export(Target::OpenAiChat, ExportOptions::default())
        .unwrap();
    let not_json = session
        .call_provider_with(&export, &json!({"id": "call_9", "type": "function", "function": {"name": "update_counter", "arguments": "{\"delta\": 2"}}), editor())
        .await;
    assert_eq!(not_json["tool_call_id"], "call_9");
    assert!(
        not_json["content"]
            .as_str()
            .unwrap()
            .contains("TOOL_ARGS_INVALID")
    );
}

#[test]
fn results_encode_in_each_providers_form() {
    let ok = ToolResult::Ok(json!({"value": 1}));
    let err = ToolResult::Err(ToolError::new("boom"));
    let call = ProviderCall {
        id: Some("c1".into()),
        name: "nav.open_url".into(),
        args: json!({}),
        caller: ProviderCaller::Direct,
    };
    let mut out = String::new();
    for target in Target::ALL {
        let export = rich_export(target);
        for result in [&ok, &err] {
            writeln!(out, "{target}: {}", export.encode_result(&call, result)).unwrap();
        }
    }
    expect_test::expect_file![format!("{GOLDEN}/results.txt")].assert_eq(&out);
}

// ---------------------------------------------------------------------------------------
// Property test: random instances of the rich set, through every target and back.

/// A small seeded generator (splitmix64): deterministic, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn chance(&mut self) -> bool {
        self.next() & 1 == 0
    }
    fn string(&mut self, alphabet: &[u8], min: u64, max: u64) -> String {
        let len = min + self.below(max - min + 1);
        (0..len)
            .map(|_| alphabet[self.below(alphabet.len() as u64) as usize] as char)
            .collect()
    }
}

/// A valid instance of the rich set's `ship_parcel` args, built from its Rust types' rules.
fn ship_parcel_instance(rng: &mut Rng) -> Value {
    let upper = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let text = b"abcdefghijklmnopqrstuvwxyz0123456789 -";
    let mut address = json!({
        "street": rng.string(text, 1, 30),
        "country": rng.string(upper, 2, 2),
    });
    if rng.chance() {
        address["floor"] = json!(rng.below(206) as i64 - 5);
    }
    let shape = match rng.below(3) {
        0 => {
            json!({"kind": "box", "width_cm": (rng.below(3000) + 1) as f64 / 10.0, "height_cm": rng.below(300) + 1})
        }
        1 => json!({"kind": "tube", "length_cm": 5 * (rng.below(40) + 1)}),
        _ => json!({"kind": "envelope"}),
    };
    let items: Vec<Value> = (0..=rng.below(5))
        .map(|_| json!({"sku": rng.string(upper, 3, 12), "quantity": rng.below(99) + 1}))
        .collect();
    let labels: BTreeSet<String> = (0..rng.below(5))
        .map(|_| rng.string(text, 0, 8))
        .take(4)
        .collect();
    let priority = ["low", "normal", "express"][rng.below(3) as usize];
    let mut args = json!({
        "address": address,
        "priority": priority,
        "shape": shape,
        "items": items,
        "labels": labels,
    });
    if rng.chance() {
        args["payment"] = if rng.chance() {
            json!({"method": "card", "details": {"last4": rng.string(b"0123456789", 4, 4)}})
        } else {
            json!({"method": "invoice", "details": {"billing_email": format!("{}@example.com", rng.string(upper, 1, 8))}})
        };
    }
    if rng.chance() {
        args["notify"] = match rng.below(3) {
            0 => json!("never"),
            1 => json!({"sms": rng.string(b"0123456789+", 3, 12)}),
            _ => json!({"email": {"to": "a@b.example"}}),
        };
    }
    if rng.chance() {
        args["insured_eur"] = json!(rng.below(10_001));
    }
    if rng.chance() {
        args["pickup_at"] = json!(format!(
            "2026-12-{:02}T{:02}:30:00Z",
            rng.below(28) + 1,
            rng.below(24)
        ));
    }
    if rng.chance() {
        args["gift"] = json!(rng.chance());
    }
    if rng.chance() {
        // Keys in no particular order: the round trip must keep it.
        let mut customs = serde_json::Map::new();
        for _ in 0..rng.below(4) {
            let mut declaration = json!({"value_eur": rng.below(10_000) as f64 / 4.0});
            if rng.chance() {
                declaration["origin"] = json!(rng.string(upper, 2, 2));
            }
            customs.insert(rng.string(text, 0, 6), declaration);
        }
        args["customs"] = Value::Object(customs);
    }
    args
}

/// Breaks a valid instance in one of several ways.
fn break_instance(rng: &mut Rng, mut args: Value) -> Value {
    match rng.below(8) {
        0 => args["address"]["country"] = json!("usa"),
        1 => args["items"] = json!([]),
        2 => args["shape"] = json!({"kind": "sphere"}),
        3 => args["priority"] = json!(1),
        4 => args["unknown"] = json!(true),
        5 => {
            args["address"].as_object_mut().unwrap().remove("street");
        }
        6 => args["customs"] = json!({"x": {"value_eur": -1}}),
        _ => args["insured_eur"] = json!(-1),
    }
    args
}

/// The provider form of an instance: for strict OpenAI every absent optional property is
/// an explicit `null`, at every level, and in strict modes a map is a list of
/// `{"key", "value"}` entries (found through the exported schema itself; `root` is the
/// exported argsSchema, whose `$defs` the `$ref`s name).
fn provider_form(root: &Value, exported: &Value, value: &Value) -> Value {
    let exported = select(root, exported, value);
    match value {
        Value::Object(map) if entries_value(exported).is_some() => {
            let value_schema = entries_value(exported).unwrap();
            Value::Array(
                map.iter()
                    .map(|(k, v)| json!({"key": k, "value": provider_form(root, value_schema, v)}))
                    .collect(),
            )
        }
        Value::Object(map) => {
            let mut out = map.clone();
            if let Some(props) = exported.get("properties").and_then(Value::as_object) {
                for (name, sub) in props {
                    match map.get(name) {
                        Some(v) => {
                            out.insert(name.clone(), provider_form(root, sub, v));
                        }
                        None if nullable(sub) => {
                            out.insert(name.clone(), Value::Null);
                        }
                        None => {}
                    }
                }
            }
            if let Some(values) = exported
                .get("additionalProperties")
                .filter(|v| v.is_object())
            {
                for (name, v) in map {
                    if exported.pointer(&format!("/properties/{name}")).is_none() {
                        out.insert(name.clone(), provider_form(root, values, v));
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => {
            let item = exported.get("items").cloned().unwrap_or(json!({}));
            Value::Array(
                items
                    .iter()
                    .map(|v| provider_form(root, &item, v))
                    .collect(),
            )
        }
        v => v.clone(),
    }
}

/// The schema that decides for `value`: `$ref`s followed, union branches picked.
fn select<'a>(root: &'a Value, schema: &'a Value, value: &Value) -> &'a Value {
    let mut s = schema;
    for _ in 0..16 {
        let next = match s.get("$ref").and_then(Value::as_str) {
            Some(r) => &root["$defs"][r.trim_start_matches("#/$defs/")],
            None => pick_branch(root, s, value),
        };
        if std::ptr::eq(next, s) {
            break;
        }
        s = next;
    }
    s
}

/// The value schema of an exported map in the entries form.
fn entries_value(schema: &Value) -> Option<&Value> {
    let props = schema.pointer("/items/properties")?.as_object()?;
    (props.len() == 2 && props.contains_key("key"))
        .then(|| props.get("value"))
        .flatten()
}

fn nullable(schema: &Value) -> bool {
    schema
        .get("type")
        .and_then(Value::as_array)
        .is_some_and(|t| t.contains(&json!("null")))
        || schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|b| b.contains(&json!({"type": "null"})))
}

thread_local! {
    /// Compiled branch validators, by the branch's address in its (long-lived) export.
    static BRANCHES: std::cell::RefCell<HashMap<usize, jsonschema::Validator>> =
        std::cell::RefCell::default();
}

/// The branch of a union schema a value belongs to (the one it is valid against; the
/// root's `$defs` go with it).
fn pick_branch<'a>(root: &Value, schema: &'a Value, value: &Value) -> &'a Value {
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            for b in branches {
                // A nullable reference (`anyOf: [{"$ref"}, {"type": "null"}]`): its entry
                // may hold a map in the entries form, which the value is not in yet.
                if b.get("$ref").is_some() && !value.is_null() && branches.len() == 2 {
                    return b;
                }
                let valid = BRANCHES.with_borrow_mut(|cache| {
                    cache
                        .entry(std::ptr::from_ref(b) as usize)
                        .or_insert_with(|| {
                            let mut b = b.clone();
                            if let (Some(defs), Some(o)) = (root.get("$defs"), b.as_object_mut()) {
                                o.insert("$defs".into(), defs.clone());
                            }
                            jsonschema::validator_for(&b).unwrap()
                        })
                        .is_valid(value)
                });
                if valid {
                    return b;
                }
            }
        }
    }
    schema
}

fn decode_payload(target: Target, export: &Export, args: &Value) -> Value {
    let name = export.provider_name("shipping.ship_parcel").unwrap();
    let text = args.to_string();
    match target {
        Target::OpenAiChat => {
            json!({"id": "c", "type": "function", "function": {"name": name, "arguments": text}})
        }
        Target::OpenAiResponses => {
            json!({"type": "function_call", "call_id": "c", "name": name, "arguments": text})
        }
        Target::Anthropic => json!({"type": "tool_use", "id": "c", "name": name, "input": args}),
        Target::Gemini | Target::GeminiOpenApi => {
            json!({"functionCall": {"name": name, "args": args}})
        }
        Target::Mcp => json!({"name": name, "arguments": args}),
    }
}

#[test]
fn random_instances_round_trip_through_every_target() {
    let manifest = Rich::skills().untyped();
    let original: &ToolArgsSchema = manifest.tools()[0].args_schema();
    let exports: Vec<(Target, Export, Value, jsonschema::Validator)> = Target::ALL
        .into_iter()
        .flat_map(|t| [(t, true), (t, false)])
        // Providers without a strict mode export the same schema either way.
        .filter(|(t, strict)| *strict || t.provider().has_strict_mode())
        .map(|(target, strict)| {
            let export = manifest.export(target, options(strict)).unwrap();
            let schema = match target {
                Target::OpenAiChat => export.tools()[0]["function"]["parameters"].clone(),
                Target::OpenAiResponses => export.tools()[0]["parameters"].clone(),
                Target::Anthropic => export.tools()[0]["input_schema"].clone(),
                Target::Gemini => {
                    export.tools()[0]["functionDeclarations"][0]["parametersJsonSchema"].clone()
                }
                Target::GeminiOpenApi => {
                    export.tools()[0]["functionDeclarations"][0]["parameters"].clone()
                }
                Target::Mcp => export.tools()[0]["inputSchema"].clone(),
            };
            let validator = jsonschema::validator_for(&schema).unwrap();
            (target, export, schema, validator)
        })
        .collect();
    let mut rng = Rng(0x5EED_0008);
    let (mut valid, mut invalid) = (0, 0);
    for i in 0..10_000 {
        let instance = ship_parcel_instance(&mut rng);
        assert!(original.is_valid(&instance), "generator: {instance}");
        let base = ship_parcel_instance(&mut rng);
        let broken = break_instance(&mut rng, base);
        let broken_is_invalid = !original.is_valid(&broken);
        for (target, export, schema, validator) in &exports {
            let form = provider_form(schema, schema, &instance);
            assert!(
                validator.is_valid(&form),
                "{target} #{i}: {form} against {schema}"
            );
            let call = export
                .decode_call(&decode_payload(*target, export, &form))
                .unwrap();
            assert_eq!(call.name, "shipping.ship_parcel");
            // Exactly, key order included (a map's keys come back in their order).
            assert_eq!(call.args.to_string(), instance.to_string(), "{target} #{i}");
            if broken_is_invalid {
                let form = provider_form(schema, schema, &broken);
                let back = export
                    .decode_call(&decode_payload(*target, export, &form))
                    .unwrap();
                assert!(!original.is_valid(&back.args), "{target} #{i}: {broken}");
            }
        }
        valid += 1;
        invalid += usize::from(broken_is_invalid);
    }
    assert_eq!(valid, 10_000);
    assert!(invalid > 9_000, "{invalid}");
}

#[test]
fn map_entries_decode_back_in_order_and_refuse_repeated_keys() {
    let m = manifest(json!([tool_json(
        "tag",
        "Tag.",
        json!({
            "type": "object",
            "properties": {
                "labels": {"type": "object", "additionalProperties": {"type": "integer"}},
                "nested": {"type": "array", "items": {"type": "object", "additionalProperties": {"type": "string"}}}
            },
            "required": ["labels"],
            "additionalProperties": false
        })
    )]));
    for target in [Target::OpenAiChat, Target::Anthropic] {
        let export = m.export(target, ExportOptions::default()).unwrap();
        let payload = |args: Value| match target {
            Target::OpenAiChat => {
                json!({"id": "c", "type": "function", "function": {"name": "tag", "arguments": args.to_string()}})
            }
            _ => json!({"type": "tool_use", "id": "c", "name": "tag", "input": args}),
        };
        let call = export
            .decode_call(&payload(json!({
                "labels": [{"key": "z", "value": 1}, {"key": "a", "value": 2}, {"key": "", "value": 3}],
                "nested": [[{"key": "k", "value": "v"}], []]
            })))
            .unwrap();
        assert_eq!(
            call.args.to_string(),
            r#"{"labels":{"z":1,"a":2,"":3},"nested":[{"k":"v"},{}]}"#,
            "{target}"
        );
        let args_at = if target == Target::Anthropic {
            "/input"
        } else {
            "/function/arguments"
        };
        let error = export
            .decode_call(&payload(json!({
                "labels": [{"key": "a", "value": 1}],
                "nested": [[], [{"key": "k/1", "value": "v"}, {"key": "k/1", "value": "w"}]]
            })))
            .unwrap_err();
        let problem = &error.problems()[0];
        assert_eq!(
            (problem.place.as_str(), problem.rule),
            (format!("{args_at}/nested/1/1/key").as_str(), "map-entries")
        );
        assert_eq!(
            problem.message,
            r#"duplicate key "k/1": each key of a map may appear in one entry only"#
        );
        assert_eq!(error.code(), pedelec::ErrorCode::ToolArgsInvalid);
        let error = export
            .decode_call(&payload(json!({"labels": [{"key": 1, "value": 1}]})))
            .unwrap_err();
        assert_eq!(error.problems()[0].place, format!("{args_at}/labels/0"));
        let error = export
            .decode_call(&payload(json!({"labels": [["a", 1]]})))
            .unwrap_err();
        assert!(
            error.problems()[0].message.contains("got an array"),
            "{error}"
        );
    }
    // Without strict mode the map stays an object, and is left as sent.
    let export = m.export(Target::Anthropic, options(false)).unwrap();
    assert_eq!(
        export.tools()[0]["input_schema"]["properties"]["labels"],
        json!({"type": "object", "additionalProperties": {"type": "integer"}})
    );
    let call = export
        .decode_call(
            &json!({"type": "tool_use", "name": "tag", "input": {"labels": {"b": 1, "a": 2}}}),
        )
        .unwrap();
    assert_eq!(call.args.to_string(), r#"{"labels":{"b":1,"a":2}}"#);
}

#[tokio::test]
async fn call_provider_restores_maps_before_the_session_validates() {
    let session = pedelec::Session::builder(Rich::skills()).create().unwrap();
    let export = rich_export(Target::Anthropic);
    let mut rng = Rng(7);
    let mut args = ship_parcel_instance(&mut rng);
    args["customs"] = json!({"b": {"value_eur": 1.5}, "a": {"value_eur": 2, "origin": "FR"}});
    let input = {
        let mut a = args.clone();
        a["customs"] = json!([
            {"key": "b", "value": {"value_eur": 1.5}},
            {"key": "a", "value": {"value_eur": 2, "origin": "FR"}}
        ]);
        a
    };
    let name = export.provider_name("shipping.ship_parcel").unwrap();
    let reply = session
        .call_provider(
            &export,
            &json!({"type": "tool_use", "id": "t", "name": name, "input": input}),
        )
        .await;
    let content: Value = serde_json::from_str(reply["content"].as_str().unwrap()).unwrap();
    // The inline handler ran: the entries became the map its `HashMap` reads.
    assert_eq!(content, json!({"ok": true, "value": true}));
    let payload = json!({"type": "tool_use", "id": "t", "name": name, "input": input});
    let raw = session
        .call_provider_raw(&export, &payload.to_string())
        .await;
    assert_eq!(raw, reply.to_string(), "the text route restores maps too");
    let mut dup = input.clone();
    dup["customs"] = json!([
        {"key": "a", "value": {"value_eur": 1}},
        {"key": "a", "value": {"value_eur": 2}}
    ]);
    let reply = session
        .call_provider(
            &export,
            &json!({"type": "tool_use", "id": "t", "name": name, "input": dup}),
        )
        .await;
    assert_eq!(reply["is_error"], json!(true));
    let content: Value = serde_json::from_str(reply["content"].as_str().unwrap()).unwrap();
    assert_eq!(content["error"]["code"], json!("TOOL_ARGS_INVALID"));
    assert_eq!(
        content["error"]["message"],
        json!(
            r#"/input/customs/1/key: duplicate key "a": each key of a map may appear in one entry only"#
        )
    );
}

// ---------------------------------------------------------------------------------------
// Recursive arguments: a `$defs` entry and `$ref`s, on every target that takes them.

/// An arithmetic expression.
#[derive(Debug, Deserialize, ToolArgs)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Expr {
    /// A number.
    Num { value: f64 },
    /// The sum of two expressions.
    Add { left: Box<Expr>, right: Box<Expr> },
    /// The negation of an expression.
    Neg {
        /// What to negate.
        of: Box<Expr>,
    },
}

/// A filter over records.
#[derive(Debug, Deserialize, ToolArgs)]
struct Filter {
    /// The field to compare.
    field: Option<String>,
    /// Every one of these must hold.
    and: Option<Vec<Filter>>,
    /// Named sub-filters, any of which may hold.
    any: Option<HashMap<String, Filter>>,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct EvaluateArgs {
    /// The expression.
    expr: Expr,
    /// Round to this many digits.
    digits: Option<u8>,
}

/// Evaluate an expression.
#[tool(name = "calc.evaluate")]
fn evaluate(args: EvaluateArgs) -> bool {
    let _ = args;
    true
}

/// Find records.
#[tool(name = "records.find")]
fn find(args: Filter) -> bool {
    let _ = args;
    true
}

/// A node of a graph: it may lead a group of nodes (types that contain each other).
#[derive(Debug, Deserialize, ToolArgs)]
struct Node {
    label: String,
    /// The group it leads.
    group: Option<Group>,
}

/// Nodes led together.
#[derive(Debug, Deserialize, ToolArgs)]
struct Group {
    members: Vec<Node>,
    /// Named sub-groups.
    sub: Option<HashMap<String, Group>>,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct WalkArgs {
    /// Where to start.
    start: Node,
}

/// Walk a graph.
#[tool(name = "graph.walk")]
fn walk(args: WalkArgs) -> bool {
    let _ = args;
    true
}

skills![
    pub enum Calc,
    guidance = "Compute and find.",
    tools = [evaluate, find, walk],
    targets = [openai, gemini, mcp],
];

/// The exports of `Calc` that take recursive schemas, with the exported argsSchemas.
fn recursive_exports() -> Vec<(Target, bool, Export)> {
    let manifest = Calc::skills().untyped();
    Target::ALL
        .into_iter()
        .flat_map(|t| [(t, true), (t, false)])
        .filter(|(t, strict)| *strict || t.provider().has_strict_mode())
        .filter(|(t, strict)| {
            t.provider()
                .accepts_refs(*strict && t.provider().has_strict_mode())
        })
        .map(|(t, strict)| (t, strict, manifest.export(t, options(strict)).unwrap()))
        .collect()
}

fn exported_schema(target: Target, export: &Export, index: usize) -> Value {
    let tools = export.tools();
    match target {
        Target::OpenAiChat => tools[index]["function"]["parameters"].clone(),
        Target::OpenAiResponses => tools[index]["parameters"].clone(),
        Target::Anthropic => tools[index]["input_schema"].clone(),
        Target::Gemini => tools[0]["functionDeclarations"][index]["parametersJsonSchema"].clone(),
        Target::GeminiOpenApi => tools[0]["functionDeclarations"][index]["parameters"].clone(),
        Target::Mcp => tools[index]["inputSchema"].clone(),
    }
}

#[test]
fn recursive_goldens() {
    let exports = recursive_exports();
    let targets: Vec<String> = exports
        .iter()
        .map(|(t, strict, _)| format!("{t}{}", if *strict { "" } else { "-lax" }))
        .collect();
    assert_eq!(
        targets,
        [
            "openai",
            "openai-lax",
            "openai-responses",
            "openai-responses-lax",
            "anthropic-lax",
            "gemini",
            "mcp"
        ]
    );
    for ((_, _, export), name) in exports.iter().zip(&targets) {
        let mut text = serde_json::to_string_pretty(export.tools()).unwrap();
        text.push('\n');
        expect_test::expect_file![format!("{GOLDEN}/recursive/{name}.json")].assert_eq(&text);
    }
    // The others cannot express a `$ref`: an error naming the tool and the pointer.
    let mut out = String::new();
    for target in [Target::Anthropic, Target::GeminiOpenApi] {
        let error = Calc::skills()
            .untyped()
            .export(target, ExportOptions::default())
            .unwrap_err();
        let got: Vec<_> = error
            .problems()
            .iter()
            .map(|p| (p.tool.clone().unwrap_or_default(), p.place.clone(), p.rule))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "calc.evaluate".to_owned(),
                    "/properties/expr/oneOf/1/properties/left".to_owned(),
                    "recursive-schema"
                ),
                (
                    "records.find".to_owned(),
                    "/properties/and/items".to_owned(),
                    "recursive-schema"
                ),
                (
                    "graph.walk".to_owned(),
                    "/properties/start/properties/group".to_owned(),
                    "recursive-schema"
                ),
            ],
            "{target}"
        );
        writeln!(out, "{error}").unwrap();
    }
    expect_test::expect_file![format!("{GOLDEN}/recursive/refused.txt")].assert_eq(&out);
}

fn expr_instance(rng: &mut Rng, depth: u32) -> Value {
    match if depth == 0 { 0 } else { rng.below(3) } {
        0 => json!({"op": "num", "value": rng.below(2001) as f64 / 8.0 - 125.0}),
        1 => {
            json!({"op": "add", "left": expr_instance(rng, depth - 1), "right": expr_instance(rng, depth - 1)})
        }
        _ => json!({"op": "neg", "of": expr_instance(rng, depth - 1)}),
    }
}

fn filter_instance(rng: &mut Rng, depth: u32) -> Value {
    let mut filter = serde_json::Map::new();
    if rng.chance() {
        filter.insert("field".into(), json!(rng.string(b"abcxyz", 1, 5)));
    }
    if depth > 0 && rng.chance() {
        let and: Vec<Value> = (0..rng.below(3))
            .map(|_| filter_instance(rng, depth - 1))
            .collect();
        filter.insert("and".into(), Value::Array(and));
    }
    if depth > 0 && rng.chance() {
        let mut any = serde_json::Map::new();
        for _ in 0..rng.below(3) {
            any.insert(rng.string(b"pqrs", 0, 3), filter_instance(rng, depth - 1));
        }
        filter.insert("any".into(), Value::Object(any));
    }
    Value::Object(filter)
}

fn node_instance(rng: &mut Rng, depth: u32) -> Value {
    let mut node = json!({"label": rng.string(b"abc", 0, 3)});
    if depth > 0 && rng.chance() {
        node["group"] = group_instance(rng, depth - 1);
    }
    node
}

fn group_instance(rng: &mut Rng, depth: u32) -> Value {
    let members: Vec<Value> = (0..rng.below(3))
        .map(|_| node_instance(rng, depth))
        .collect();
    let mut group = json!({"members": members});
    if depth > 0 && rng.chance() {
        let mut sub = serde_json::Map::new();
        for _ in 0..rng.below(3) {
            sub.insert(rng.string(b"xy", 0, 2), group_instance(rng, depth - 1));
        }
        group["sub"] = Value::Object(sub);
    }
    group
}

#[test]
fn random_recursive_instances_round_trip_through_every_target_that_takes_them() {
    let manifest = Calc::skills().untyped();
    let originals: Vec<&ToolArgsSchema> = manifest
        .tools()
        .iter()
        .map(ToolDefinition::args_schema)
        .collect();
    let exports: Vec<(Target, Export, [Value; 3], [jsonschema::Validator; 3])> =
        recursive_exports()
            .into_iter()
            .map(|(target, _, export)| {
                let schemas = [0, 1, 2].map(|i| exported_schema(target, &export, i));
                let validators = [0, 1, 2].map(|i| jsonschema::validator_for(&schemas[i]).unwrap());
                (target, export, schemas, validators)
            })
            .collect();
    let mut rng = Rng(0x5EED_0021);
    for i in 0..10_000 {
        let mut evaluate = json!({"expr": expr_instance(&mut rng, 4)});
        if rng.chance() {
            evaluate["digits"] = json!(rng.below(10));
        }
        let instances = [
            evaluate,
            filter_instance(&mut rng, 3),
            json!({"start": node_instance(&mut rng, 3)}),
        ];
        for (t, instance) in instances.iter().enumerate() {
            assert!(originals[t].is_valid(instance), "generator: {instance}");
            for (target, export, schemas, validators) in &exports {
                let form = provider_form(&schemas[t], &schemas[t], instance);
                assert!(
                    validators[t].is_valid(&form),
                    "{target} #{i}: {form} against {}",
                    schemas[t]
                );
                let name = export.provider_name(manifest.tools()[t].name()).unwrap();
                let payload = match target {
                    Target::OpenAiChat => {
                        json!({"type": "function", "function": {"name": name, "arguments": form.to_string()}})
                    }
                    Target::OpenAiResponses => {
                        json!({"type": "function_call", "call_id": "c", "name": name, "arguments": form.to_string()})
                    }
                    Target::Anthropic => json!({"type": "tool_use", "name": name, "input": form}),
                    Target::Gemini | Target::GeminiOpenApi => {
                        json!({"functionCall": {"name": name, "args": form}})
                    }
                    Target::Mcp => json!({"name": name, "arguments": form}),
                };
                let call = export.decode_call(&payload).unwrap();
                assert_eq!(call.name, manifest.tools()[t].name());
                assert_eq!(call.args.to_string(), instance.to_string(), "{target} #{i}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Programmatic callers, output schemas and Anthropic's request options (DESIGN §14).

/// An invoice's totals.
#[derive(Debug, serde::Serialize, pedelec::ToolOutput)]
struct Totals {
    /// Net amount, in cents.
    net_cents: i64,
    /// ISO 4217 currency code.
    currency: String,
}

#[derive(Debug, Deserialize, ToolArgs)]
struct InvoiceArgs {
    /// The invoice, like `INV-1042`.
    #[arg(pattern = "^INV-[0-9]+$")]
    invoice_id: String,
}

/// Read an invoice's totals.
#[tool(name = "billing.totals", read_only, callers = [direct, program])]
fn totals(args: InvoiceArgs) -> Totals {
    let _ = args;
    Totals {
        net_cents: 1200,
        currency: "EUR".into(),
    }
}

/// List an invoice's line descriptions (for programs that sum many invoices).
#[tool(name = "billing.lines", read_only, callers = [program])]
fn lines(args: InvoiceArgs) -> Vec<String> {
    let _ = args;
    vec!["Bike".into(), "Bell".into()]
}

/// Void an invoice (asked for by the model itself, never from a program).
#[tool(name = "billing.void", destructive, callers = [direct])]
fn void_invoice(args: InvoiceArgs) -> bool {
    let _ = args;
    true
}

/// Ping (no `callers`: both may call it, and no export says so).
#[tool]
fn ping() -> String {
    "pong".into()
}

skills![
    pub enum Programs,
    guidance = "Invoices, read by the model or by programs it writes.",
    tools = [totals, lines, void_invoice, ping],
];

/// Sum an invoice's lines (an example shows the model a call).
#[tool(
    name = "billing.summary",
    read_only,
    callers = [direct, program],
    example = r#"{"invoice_id": "INV-7"}"#
)]
fn summary(args: InvoiceArgs) -> Totals {
    totals(args)
}

/// Find an invoice's history (deferred: the long tail of a large catalog).
#[tool(name = "billing.history", read_only, defer)]
fn history(args: InvoiceArgs) -> Vec<String> {
    lines(args)
}

skills![
    pub enum Kept,
    guidance = "Invoices.",
    tools = [summary, history],
];

/// The export a user reaches first (`ToolName::export`, the README's) carries what the
/// definitions say beyond Core's manifest, on every target that has a field for it: the
/// output schema, `allowed_callers`, examples, and deferral (a search reaches the deferred
/// tool; without one it is declared in full).
#[test]
fn the_first_export_path_keeps_outputs_callers_examples_and_deferral() {
    for target in Target::ALL {
        for search in [Search::Off, Search::Client, Search::Provider] {
            let export = Kept::export(target, ExportOptions::default().search(search)).unwrap();
            let text = serde_json::to_string(export.tools()).unwrap();
            let has = |key: &str| text.contains(&format!("\"{key}\""));
            let output = match target {
                Target::OpenAiResponses => Some("output_schema"),
                Target::Gemini => Some("responseJsonSchema"),
                Target::GeminiOpenApi => Some("response"),
                Target::Mcp => Some("outputSchema"),
                _ => None,
            };
            if let Some(key) = output {
                assert!(has(key), "{target} {search:?}: no `{key}` in {text}");
            }
            assert_eq!(
                has("allowed_callers"),
                matches!(target, Target::OpenAiResponses | Target::Anthropic),
                "{target} {search:?}: {text}"
            );
            assert_eq!(
                has("input_examples"),
                target == Target::Anthropic,
                "{target} {search:?}: {text}"
            );
            assert_eq!(
                export.search() == Search::Off,
                search == Search::Off,
                "{target} {search:?}: the deferred tool is searched for"
            );
        }
    }
}

/// Every target's export of a set with `callers`, output schemas, a cache breakpoint and
/// eager input streaming: each field where the target's reference documents it.
#[test]
fn callers_and_output_schemas_goldens() {
    let options = ExportOptions::default()
        .cache_control(CacheControl::Ephemeral)
        .eager_input_streaming(true);
    for target in Target::ALL {
        let export = Programs::skills().export(target, options).unwrap();
        let mut text = serde_json::to_string_pretty(export.tools()).unwrap();
        text.push('\n');
        expect_test::expect_file![format!("{GOLDEN}/callers/{target}.json")].assert_eq(&text);
    }
}

#[test]
fn callers_reach_the_definition() {
    use pedelec::tool::Callers;
    let skills = Programs::skills();
    let declared: Vec<_> = skills
        .tools()
        .iter()
        .map(ToolDefinition::declared_callers)
        .collect();
    assert_eq!(
        declared,
        [
            Some(Callers::BOTH),
            Some(Callers::PROGRAM),
            Some(Callers::DIRECT),
            None
        ]
    );
    assert_eq!(skills.tools()[3].callers(), Callers::BOTH);
    assert_eq!(<lines as pedelec::Tool>::CALLERS, Some(Callers::PROGRAM));
}

/// A receipt, whose discount may be missing.
#[derive(Debug, serde::Serialize, pedelec::ToolOutput)]
struct Receipt {
    /// Net amount, in cents.
    net_cents: i64,
    /// The discount granted, in cents, if any.
    discount_cents: Option<i64>,
}

/// Read an invoice's receipt.
#[tool]
fn receipt(args: InvoiceArgs) -> Receipt {
    let _ = args;
    Receipt {
        net_cents: 1200,
        discount_cents: None,
    }
}

skills![
    pub enum Receipts,
    guidance = "Receipts.",
    tools = [receipt],
];

/// Gemini's OpenAPI export keeps an output schema with an optional (`Option<T>`) field,
/// written as OpenAPI's `nullable`.
#[test]
fn gemini_openapi_keeps_output_schemas_with_optional_fields() {
    let export = Receipts::skills()
        .export(Target::GeminiOpenApi, ExportOptions::default())
        .unwrap();
    let declaration = &export.tools()[0]["functionDeclarations"][0];
    let response = declaration
        .get("response")
        .unwrap_or_else(|| panic!("no `response`: {declaration}"));
    let value = &response["properties"]["value"];
    assert_eq!(
        value["properties"]["discount_cents"],
        json!({
            "type": "integer",
            "description": "The discount granted, in cents, if any.",
            "nullable": true
        }),
        "{response}"
    );
    assert_eq!(value["properties"]["net_cents"]["type"], json!("integer"));
}

/// The cache breakpoint goes on the last tool the request declares: with provider search,
/// the search tool (the deferred tools before it are not in the prompt).
#[test]
fn cache_control_marks_the_last_declared_tool() {
    let deferred = ToolDefinition::new(
        "later",
        "A tool loaded by search.",
        ToolArgsSchema::from_json(
            &json!({"type": "object", "properties": {}, "additionalProperties": false}),
        )
        .unwrap(),
    )
    .with_defer(true);
    let now = ToolDefinition::new(
        "now",
        "A tool declared in full.",
        ToolArgsSchema::from_json(
            &json!({"type": "object", "properties": {}, "additionalProperties": false}),
        )
        .unwrap(),
    );
    let skills = SkillsInput::new("g", vec![now, deferred]);
    let options = ExportOptions::default().cache_control(CacheControl::EphemeralOneHour);
    let tools = skills
        .export(Target::Anthropic, options)
        .unwrap()
        .tools()
        .clone();
    let marked: Vec<_> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.get("cache_control").cloned())
        .collect();
    assert_eq!(
        marked,
        [None, Some(json!({"type": "ephemeral", "ttl": "1h"}))]
    );
    let tools = skills
        .export(Target::Anthropic, options.search(Search::Provider))
        .unwrap()
        .tools()
        .clone();
    let marked: Vec<_> = tools
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.get("cache_control").cloned())
        .collect();
    assert_eq!(
        marked,
        [None, None, Some(json!({"type": "ephemeral", "ttl": "1h"}))]
    );
    // Other targets have no such field.
    for target in [
        Target::OpenAiChat,
        Target::OpenAiResponses,
        Target::Gemini,
        Target::Mcp,
    ] {
        let text = skills.export(target, options).unwrap().tools().to_string();
        assert!(!text.contains("cache_control"), "{target}: {text}");
    }
}

/// `decode_call` reports who called: a program's calls carry its id (OpenAI Responses
/// `caller_id`, Anthropic `tool_id`); a call without a caller, or a direct one, is direct.
#[test]
fn decode_call_reports_a_program_caller() {
    let options = ExportOptions::default();
    let responses = Programs::skills()
        .export(Target::OpenAiResponses, options)
        .unwrap();
    let anthropic = Programs::skills()
        .export(Target::Anthropic, options)
        .unwrap();
    let args = json!({"invoice_id": "INV-1"});
    let program = ProviderCaller::Program {
        id: "call_program_1".into(),
    };
    let cases = [
        (
            &responses,
            json!({"type": "function_call", "call_id": "call_2", "name": "billing_totals",
                   "arguments": args.to_string(),
                   "caller": {"type": "program", "caller_id": "call_program_1"}}),
            program.clone(),
        ),
        (
            &responses,
            json!({"type": "function_call", "call_id": "call_2", "name": "billing_totals",
                   "arguments": args.to_string(), "caller": {"type": "direct"}}),
            ProviderCaller::Direct,
        ),
        (
            &responses,
            json!({"type": "function_call", "call_id": "call_2", "name": "billing_totals",
                   "arguments": args.to_string()}),
            ProviderCaller::Direct,
        ),
        (
            &anthropic,
            json!({"type": "tool_use", "id": "toolu_2", "name": "billing_totals", "input": args,
                   "caller": {"type": "code_execution_20260120", "tool_id": "srvtoolu_1"}}),
            ProviderCaller::Program {
                id: "srvtoolu_1".into(),
            },
        ),
        (
            &anthropic,
            json!({"type": "tool_use", "id": "toolu_2", "name": "billing_totals", "input": args,
                   "caller": {"type": "direct"}}),
            ProviderCaller::Direct,
        ),
    ];
    for (export, payload, caller) in cases {
        let call = export.decode_call(&payload).unwrap();
        assert_eq!(call.caller, caller, "{payload}");
        assert_eq!((call.name.as_str(), &call.args), ("billing.totals", &args));
    }
    let message = |export: &Export<Programs>, payload: Value| {
        export.decode_call(&payload).unwrap_err().to_string()
    };
    expect_test::expect![[r#"OpenAI Responses (openai-responses): /caller/caller_id: the `program` caller has no string `caller_id`; expected one `function_call` output item, like `{"type": "function_call", "call_id": "call_…", "name": "…", "arguments": "{…}"}` (rule `payload`)"#]]
        .assert_eq(&message(&responses, json!({"type": "function_call", "call_id": "c", "name": "billing_totals", "arguments": "{}", "caller": {"type": "program"}})));
    expect_test::expect![[r#"Anthropic Messages (anthropic): /caller: `caller` must be an object, got a string; expected one `tool_use` content block, like `{"type": "tool_use", "id": "toolu_…", "name": "…", "input": {…}}` (rule `payload`)"#]]
        .assert_eq(&message(&anthropic, json!({"type": "tool_use", "id": "t", "name": "billing_totals", "input": {}, "caller": "code_execution"})));
}

/// A program's call runs like any other (the quick routes ignore `caller`), and a tool only
/// programs may call is still callable in process.
#[tokio::test]
async fn program_calls_run_like_direct_ones() {
    let session = pedelec::Session::builder(Programs::skills())
        .create()
        .unwrap();
    let responses = Programs::skills()
        .export(Target::OpenAiResponses, ExportOptions::default())
        .unwrap();
    let payload = json!({"type": "function_call", "call_id": "call_2", "name": "billing_lines",
        "arguments": "{\"invoice_id\":\"INV-7\"}",
        "caller": {"type": "program", "caller_id": "call_program_1"}});
    let expected = json!({"type": "function_call_output", "call_id": "call_2",
        "output": "{\"ok\":true,\"value\":[\"Bike\",\"Bell\"]}"});
    assert_eq!(session.call_provider(&responses, &payload).await, expected);
    let raw = session
        .call_provider_raw(&responses, &payload.to_string())
        .await;
    assert_eq!(serde_json::from_str::<Value>(&raw).unwrap(), expected);
    let anthropic = Programs::skills()
        .export(Target::Anthropic, ExportOptions::default())
        .unwrap();
    let payload = json!({"type": "tool_use", "id": "toolu_2", "name": "billing_lines",
        "input": {"invoice_id": "INV-7"},
        "caller": {"type": "code_execution_20260120", "tool_id": "srvtoolu_1"}});
    let answer = session.call_provider(&anthropic, &payload).await;
    assert_eq!(
        answer["content"],
        "{\"ok\":true,\"value\":[\"Bike\",\"Bell\"]}"
    );
    let result = session
        .call("billing.lines", json!({"invoice_id": "INV-7"}))
        .await;
    assert_eq!(result, ToolResult::Ok(json!(["Bike", "Bell"])));
}

/// MCP lists the `outputSchema` and answers `structuredContent` by it (wrapped as
/// `{"result": …}` for a result that is not an object).
#[test]
fn mcp_results_carry_structured_content() {
    let export = Programs::skills()
        .export(Target::Mcp, ExportOptions::default())
        .unwrap();
    let call = |name: &str| ProviderCall {
        id: None,
        name: name.into(),
        args: json!({}),
        caller: ProviderCaller::Direct,
    };
    let answer = export.encode_result(
        &call("billing.totals"),
        &ToolResult::Ok(json!({"net_cents": 1, "currency": "EUR"})),
    );
    assert_eq!(
        answer["structuredContent"],
        json!({"net_cents": 1, "currency": "EUR"})
    );
    let answer = export.encode_result(&call("billing.lines"), &ToolResult::Ok(json!(["a"])));
    assert_eq!(answer["structuredContent"], json!({"result": ["a"]}));
    let answer = export.encode_result(
        &call("billing.lines"),
        &ToolResult::Err(ToolError::new("x")),
    );
    assert!(answer.get("structuredContent").is_none());
}
