//! `SkillsInput::from_json` on arbitrary JSON.
//!
//! Invariants:
//! - it never panics; a refusal is `INVALID_INPUT` with at least one problem, each with a
//!   message;
//! - an accepted skill set creates a session; its manifest, read back with `from_json`, is
//!   accepted and gives the same manifest;
//! - every tool of that session answers a call (no handler is registered: the answer is
//!   `TOOL_ARGS_INVALID` or `TOOL_HANDLER_NOT_FOUND`) with a well-formed result.

use pedelec_core::{ErrorCode, Session, SkillsInput};
use serde_json::{Value, json};

use super::{block_on, check_result_shape};

/// Checks one input; panics when an invariant does not hold.
pub fn check(data: &[u8]) {
    let Ok(input) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    check_value(&input);
}

/// [`check`] for a parsed input.
pub fn check_value(input: &Value) {
    let skills = match SkillsInput::from_json(input) {
        Ok(skills) => skills,
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::InvalidInput, "{input}");
            assert!(
                !e.problems().is_empty(),
                "refused without a problem: {input}"
            );
            for p in e.problems() {
                assert!(!p.message.is_empty(), "{p:?}: {input}");
            }
            return;
        }
    };
    let context = format!("skills: {input}");
    let manifest = skills.manifest();
    let names: Vec<String> = skills.tools().iter().map(|t| t.name().to_owned()).collect();
    let session = Session::builder(skills)
        .create()
        .unwrap_or_else(|e| panic!("accepted, yet no session: {e}\n{context}"));
    assert_eq!(session.manifest(), manifest, "{context}");
    let wire = serde_json::to_value(&manifest).expect("a manifest serializes");
    let again = SkillsInput::from_json(&wire)
        .unwrap_or_else(|e| panic!("its own manifest {wire} is refused: {e}\n{context}"));
    assert_eq!(again.manifest(), manifest, "{context}");

    block_on(async {
        for name in &names {
            for args in [json!({}), input.clone()] {
                let result = session.call(name, args).await;
                let result = serde_json::to_value(&result).expect("a result serializes");
                check_result_shape(&result, &context);
                let code = result["error"]["code"].as_str().unwrap_or_default();
                assert!(
                    matches!(code, "TOOL_ARGS_INVALID" | "TOOL_HANDLER_NOT_FOUND"),
                    "{name}: {result}\n{context}"
                );
            }
        }
    });
}
