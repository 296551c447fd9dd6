//! The counter example's manifest, byte for byte: `tests/golden/counter_manifest.json` is
//! what `cargo run --example counter` prints (and `cargo xtask manifest`). Refresh it with
//! `UPDATE_EXPECT=1 cargo test --test skills_manifest` (or `cargo xtask bless`) and review
//! the diff.

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/counter.rs"]
mod counter;

use serde_json::json;

const GOLDEN: &str = "tests/golden/counter_manifest.json";

#[test]
fn the_counter_manifest_matches_the_golden_file_byte_for_byte() {
    let actual = counter::manifest_json();
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(GOLDEN);
    if std::env::var_os("UPDATE_EXPECT").is_some() {
        std::fs::write(&path, &actual).unwrap();
    }
    let expected = std::fs::read_to_string(&path).unwrap();
    assert!(
        actual == expected,
        "the counter manifest changed; if that is intended, run \
         `UPDATE_EXPECT=1 cargo test --test skills_manifest` and review the diff\n\
         --- {GOLDEN}\n{expected}\n+++ actual\n{actual}"
    );
}

#[test]
fn the_manifest_has_exactly_the_seed_shape() {
    let value = serde_json::to_value(counter::ToolName::manifest()).unwrap();
    assert_eq!(
        value,
        json!({
            "guidance": "Read current state before making changes.",
            "tools": [
                {
                    "name": "get_current_page",
                    "description": "Read the current page: its title and the visible counter.",
                    "argsSchema": {"type": "object", "properties": {}, "additionalProperties": false}
                },
                {
                    "name": "update_counter",
                    "description": "Update the visible counter by delta.",
                    "argsSchema": {
                        "type": "object",
                        "properties": {
                            "delta": {
                                "type": "integer",
                                "description": "How much to add to the counter (negative to subtract)."
                            }
                        },
                        "required": ["delta"],
                        "additionalProperties": false
                    },
                    "timeoutMs": 5000
                }
            ]
        })
    );
    // Keys in the seed's order, `timeoutMs` omitted when unset, no handler.
    let text = counter::manifest_json();
    let first = &value["tools"][0];
    assert!(first.get("timeoutMs").is_none());
    let order = [
        "\"name\"",
        "\"description\"",
        "\"argsSchema\"",
        "\"timeoutMs\"",
    ];
    let second = &text[text.rfind("\"name\"").unwrap()..];
    let positions: Vec<_> = order.iter().map(|k| second.find(k).unwrap()).collect();
    assert!(positions.is_sorted(), "{positions:?}");
}

#[test]
fn the_manifest_reads_back_and_every_definition_is_sound() {
    let text = counter::manifest_json();
    let back: pedelec::manifest::SerializableSkillsManifest = serde_json::from_str(&text).unwrap();
    assert_eq!(back, counter::ToolName::manifest());
    for def in counter::ToolName::skills().tools() {
        assert!(
            def.problems().is_empty(),
            "{}: {:?}",
            def.name(),
            def.problems()
        );
    }
}

/// A skill set with a deferred tool (`#[tool(defer)]`, DESIGN §12).
mod back_office {
    use pedelec::{skills, tool};

    /// Refund an invoice.
    #[tool(defer)]
    pub fn refund_invoice() {}

    /// Check that the service answers.
    #[tool]
    pub fn ping() {}

    skills![guidance = "Back office.", tools = [refund_invoice, ping]];
}

#[test]
fn a_deferred_tool_says_so_in_its_definition_not_in_cores_manifest() {
    use back_office::ToolName;
    let skills = ToolName::skills();
    let deferred: Vec<(&str, bool)> = skills
        .tools()
        .iter()
        .map(|t| (t.name(), t.defer()))
        .collect();
    assert_eq!(deferred, [("refund_invoice", true), ("ping", false)]);
    let manifest = serde_json::to_value(ToolName::manifest()).unwrap();
    assert!(
        manifest["tools"][0].get("defer").is_none(),
        "Core's manifest stays exact"
    );
}

#[test]
fn a_skill_sets_index_finds_its_tools() {
    use back_office::ToolName;
    let hits = ToolName::INDEX.search("give a customer their money back for an invoice", 2);
    assert_eq!(hits[0].name, "refund_invoice");
    assert!(ToolName::INDEX.search("does the service answer", 1)[0].name == "ping");
    // Built once: every search reads the same index.
    assert!(std::ptr::eq(ToolName::INDEX.get(), ToolName::INDEX.get()));
    assert_eq!(ToolName::INDEX.get().len(), 2);
}
