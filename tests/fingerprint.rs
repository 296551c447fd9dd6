//! Tool fingerprints: the SHA-256 of the RFC 8785 canonical JSON of a tool's manifest entry,
//! pinned (the same on every build and platform), equal for a compile-time tool and a tool
//! read from JSON with the same entry, and changed by exactly what changes the entry.

use pedelec::{SkillsInput, Tool, ToolArgs, tool};
use serde::Deserialize;
use serde_json::json;

#[derive(Deserialize, ToolArgs)]
struct UpdateCounterArgs {
    /// How much to add to the counter (negative to subtract).
    #[arg(minimum = -100, maximum = 100)]
    delta: i64,
}

/// Update the visible counter by delta.
#[tool(timeout_ms = 5_000, title = "Update the counter", version = 2)]
fn update_counter(args: UpdateCounterArgs) -> i64 {
    args.delta
}

/// Read the current page: its title and the visible counter ("ça compte").
#[tool]
fn get_current_page() -> i64 {
    0
}

/// Each value is the SHA-256 of the entry's canonical JSON, computed outside Rust (Python's
/// `hashlib` over `json.dumps(entry, sort_keys=True, separators=(",", ":"),
/// ensure_ascii=False)`, which is RFC 8785 for these entries). For `update_counter`:
///
/// ```text
/// {"argsSchema":{"additionalProperties":false,"properties":{"delta":{"description":"How much
/// to add to the counter (negative to subtract).","maximum":100,"minimum":-100,"type":
/// "integer"}},"required":["delta"],"type":"object"},"description":"Update the visible counter
/// by delta.","name":"update_counter","timeoutMs":5000}
/// ```
#[test]
fn fingerprints_are_pinned() {
    assert_eq!(
        update_counter::FINGERPRINT,
        "ecf0d06212454517d1df70f0948227dcc98e0a2528986d32c0407e445194d2ab"
    );
    assert_eq!(
        get_current_page::FINGERPRINT,
        "be21f47c8373892bf09fa955694347368f68e78a22126f686bf254ed51f1eeea"
    );
    assert_eq!(update_counter::FINGERPRINT.len(), 64);
}

/// A tool read from JSON with the same entry as a `#[tool]` has its fingerprint; what Core
/// does not receive (title, scopes, version, …) does not change it.
#[test]
fn a_json_tool_with_the_same_entry_has_the_same_fingerprint() {
    let entry = serde_json::to_value(update_counter::definition().manifest()).unwrap();
    let mut tool = entry.clone();
    tool["scopes"] = json!(["other:scope"]);
    tool["version"] = json!(7);
    tool["defer"] = json!(true);
    let skills = SkillsInput::from_json(&json!({"guidance": "g", "tools": [tool]})).unwrap();
    let def = &skills.tools()[0];
    assert_eq!(def.version(), 7);
    assert_eq!(def.fingerprint(), update_counter::FINGERPRINT.as_str());
    assert_eq!(
        update_counter::definition().fingerprint(),
        update_counter::FINGERPRINT.to_string()
    );
}

/// Every part of the entry is in the digest.
#[test]
fn any_change_to_the_entry_changes_the_fingerprint() {
    let base = update_counter::definition();
    let fingerprint = base.fingerprint();
    let changed = [
        base.clone().with_timeout_ms(6_000),
        pedelec::ToolDefinition::new(
            "update_counter2",
            base.description().to_owned(),
            base.args_schema().clone(),
        ),
        pedelec::ToolDefinition::new(
            "update_counter",
            "Update the counter.",
            base.args_schema().clone(),
        ),
        pedelec::ToolDefinition::new(
            "update_counter",
            base.description().to_owned(),
            pedelec::ToolArgsSchema::from_json(&json!({"type": "object"})).unwrap(),
        ),
    ];
    for def in changed {
        assert_ne!(def.fingerprint(), fingerprint, "{def:?}");
    }
    // Not in Core's entry: the same fingerprint.
    let same = base
        .clone()
        .with_version(2)
        .with_title("Another title")
        .with_defer(true);
    assert_eq!(same.fingerprint(), fingerprint);
    // A fingerprint reads as text, everywhere a string does.
    let text = format!("{}", update_counter::FINGERPRINT);
    assert_eq!(text, fingerprint);
    assert!(
        text.bytes()
            .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    );
    assert_eq!(
        format!("{:?}", update_counter::FINGERPRINT),
        format!("{fingerprint:?}")
    );
    assert_ne!(update_counter::FINGERPRINT, get_current_page::FINGERPRINT);
}
