//! Tools written by others (DESIGN §16), measured on a corpus of real public tool
//! definitions (`tests/data/tool-corpus.json`, built by `xtask/gen_tool_corpus.py`: the
//! `tools/list` of public MCP servers from npm and PyPI, the catalog and trajectories of
//! LiveMCPBench, the functions of BFCL with its ground-truth calls; sources and licenses in
//! `tests/data/README.md`). Each schema is read by `from_json_lenient`, exported strictly
//! to every provider, and validates the corpus' calls (recorded, and mutated from them)
//! the way python-jsonschema (`Draft202012Validator`) judged them when the corpus was
//! built. `cargo test --test tool_corpus -- --nocapture` prints the table.

#![allow(
    clippy::doc_markdown,
    reason = "source and provider names (PyPI, LiveMCPBench, BFCL) are prose here"
)]
#![allow(
    clippy::cast_precision_loss,
    reason = "percentages of a few thousand tools"
)]

use std::collections::BTreeMap;

use pedelec::export::{ExportOptions, Target};
use pedelec::{SkillsInput, ToolArgsSchema, ToolDefinition};
use serde_json::Value;

/// What must load, read by the lenient reader and taken by a session (the rest is
/// refused with a reason).
const LOAD: f64 = 0.995;
/// What must export to each provider's strict mode, of what loaded.
const EXPORT: f64 = 0.95;

#[derive(Default)]
struct Tally {
    tools: usize,
    loaded: usize,
    warned: usize,
    raw: usize,
    exported: BTreeMap<String, usize>,
    calls: usize,
    agreed: usize,
}

#[test]
fn real_tool_definitions_load_export_and_validate_as_the_oracle_does() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tool-corpus.json");
    let corpus: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut by_kind: BTreeMap<String, Tally> = BTreeMap::new();
    let mut refused = Vec::new();
    let mut not_exported: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut disagreements = Vec::new();
    for tool in corpus["tools"].as_array().unwrap() {
        let source = tool["source"].as_str().unwrap();
        let kind = match source {
            s if s.starts_with("npm:") || s.starts_with("pypi:") => "MCP servers (tools/list)",
            s => s,
        };
        let name = format!("{source} {}", tool["name"].as_str().unwrap());
        let tally = by_kind.entry(kind.to_owned()).or_default();
        tally.tools += 1;
        // Loaded: read by the lenient reader, and taken by a session (what the reader
        // accepts, a session must accept).
        let schema = match ToolArgsSchema::from_json_lenient(&tool["inputSchema"])
            .map_err(|e| e.to_string())
            .and_then(|(schema, warnings)| {
                session_takes(&schema, tool).map(|()| (schema, warnings))
            }) {
            Ok((schema, warnings)) => {
                tally.loaded += 1;
                tally.warned += usize::from(!warnings.is_empty());
                tally.raw += usize::from(schema.is_raw());
                schema
            }
            Err(e) => {
                refused.push(format!("{name}: {e}"));
                continue;
            }
        };
        for target in [
            Target::OpenAiResponses,
            Target::Anthropic,
            Target::Gemini,
            Target::GeminiOpenApi,
            Target::Mcp,
        ] {
            match export(&schema, tool, target) {
                Ok(()) => *tally.exported.entry(target.to_string()).or_default() += 1,
                Err(e) => not_exported
                    .entry(target.to_string())
                    .or_default()
                    .push(format!("{name}: {e}")),
            }
        }
        for call in tool["calls"].as_array().unwrap() {
            let Some(valid) = call["valid"].as_bool() else {
                continue;
            };
            tally.calls += 1;
            if schema.is_valid(&call["args"]) == valid {
                tally.agreed += 1;
            } else {
                disagreements.push(format!(
                    "{name}: {} ({}) judged {valid} by the oracle: {:?}",
                    call["args"],
                    call["origin"],
                    schema.validate(&call["args"]).err().map(|e| e.to_string())
                ));
            }
        }
    }

    let total = by_kind.values().fold(Tally::default(), |mut t, k| {
        t.tools += k.tools;
        t.loaded += k.loaded;
        t.warned += k.warned;
        t.raw += k.raw;
        t.calls += k.calls;
        t.agreed += k.agreed;
        for (target, n) in &k.exported {
            *t.exported.entry(target.clone()).or_default() += n;
        }
        t
    });
    println!(
        "{:<28} {:>6} {:>7} {:>7} {:>5} | strict export: {:>7} {:>9} {:>7} {:>8} {:>5} | calls agreed",
        "source",
        "tools",
        "loaded",
        "warned",
        "raw",
        "openai",
        "anthropic",
        "gemini",
        "openapi",
        "mcp"
    );
    for (kind, t) in by_kind.iter().chain([(&"all".to_owned(), &total)]) {
        let pct = |n: usize, of: usize| {
            if of == 0 {
                100.0
            } else {
                100.0 * n as f64 / of as f64
            }
        };
        let e = |target: Target| {
            pct(
                t.exported.get(&target.to_string()).copied().unwrap_or(0),
                t.loaded,
            )
        };
        println!(
            "{kind:<28} {:>6} {:>6.1}% {:>7} {:>5} | {:>21.1}% {:>8.1}% {:>6.1}% {:>7.1}% {:>4.1}% | {}/{}",
            t.tools,
            pct(t.loaded, t.tools),
            t.warned,
            t.raw,
            e(Target::OpenAiResponses),
            e(Target::Anthropic),
            e(Target::Gemini),
            e(Target::GeminiOpenApi),
            e(Target::Mcp),
            t.agreed,
            t.calls,
        );
    }
    for line in refused.iter().take(60) {
        println!("refused: {line}");
    }
    for (target, lines) in &not_exported {
        for line in lines.iter().take(5) {
            println!("not exported to {target}: {line}");
        }
    }
    assert!(total.tools >= 1000, "the corpus has {} tools", total.tools);
    assert!(
        total.loaded as f64 >= LOAD * total.tools as f64,
        "{} of {} loaded; refused:\n{}",
        total.loaded,
        total.tools,
        refused.join("\n")
    );
    for (target, n) in &total.exported {
        assert!(
            *n as f64 >= EXPORT * total.loaded as f64,
            "{n} of {} exported to {target}",
            total.loaded
        );
    }
    assert!(
        total.calls >= 1000,
        "the corpus has {} judged calls",
        total.calls
    );
    assert!(
        disagreements.is_empty(),
        "{} of {} calls judged otherwise than by the oracle:\n{}",
        disagreements.len(),
        total.calls,
        disagreements
            .iter()
            .take(30)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}

/// Whether a session takes the tool alone (`Session::builder(..).create()`).
fn session_takes(schema: &ToolArgsSchema, tool: &Value) -> Result<(), String> {
    let skills = SkillsInput::<String>::new(
        "Corpus.",
        vec![ToolDefinition::new(
            "corpus_tool",
            description(tool),
            schema.clone(),
        )],
    );
    pedelec::Session::builder(skills)
        .create()
        .map(drop)
        .map_err(|e| format!("a session refuses it: {e}"))
}

fn description(tool: &Value) -> String {
    tool["description"]
        .as_str()
        .filter(|d| !d.trim().is_empty())
        .unwrap_or("A tool.")
        .chars()
        .take(1000)
        .collect()
}

/// Exports the tool alone to `target` (strict where the provider has a strict mode), under a
/// name every provider takes: the schema is what is measured. The export must itself be a
/// valid 2020-12 schema.
fn export(schema: &ToolArgsSchema, tool: &Value, target: Target) -> Result<(), String> {
    let description = tool["description"]
        .as_str()
        .filter(|d| !d.trim().is_empty())
        .unwrap_or("A tool.");
    let skills = SkillsInput::new(
        "Corpus.",
        vec![ToolDefinition::new(
            "corpus_tool",
            description.chars().take(1000).collect::<String>(),
            schema.clone(),
        )],
    );
    let export = skills
        .export(target, ExportOptions::default().strict(true))
        .map_err(|e| e.to_string())?;
    let text = export.tools().to_string();
    let declared: Value = serde_json::from_str(&text).unwrap();
    let Some(found) = find_schema(&declared) else {
        // Gemini's OpenAPI form declares no `parameters` for a tool without arguments.
        return if target == Target::GeminiOpenApi
            && schema
                .node()
                .to_json()
                .get("properties")
                .is_none_or(|p| p.as_object().is_some_and(serde_json::Map::is_empty))
        {
            Ok(())
        } else {
            Err("no schema in the declaration".into())
        };
    };
    jsonschema::meta::validate(found).map_err(|e| format!("export is not valid 2020-12: {e}"))
}

fn find_schema(declaration: &Value) -> Option<&Value> {
    match declaration {
        Value::Object(map) => [
            "parameters",
            "input_schema",
            "inputSchema",
            "parametersJsonSchema",
        ]
        .iter()
        .find_map(|k| map.get(*k))
        .or_else(|| map.values().find_map(find_schema)),
        Value::Array(items) => items.iter().find_map(find_schema),
        _ => None,
    }
}
