//! What one in-process call costs in allocations, pinned so that a change that adds one to
//! every call shows up here (the counting allocator of `allocation-counter` replaces the
//! global one in this test binary only).
//!
//! The one of a typed call through `call_raw`: the serialized value (which becomes the
//! result text). The call's context (its cancellation flag lives in it) and its handler's
//! future reuse the previous call's allocations, the args are recorded on the stack, and
//! the call id is a number until a handler asks for its text.

#[path = "support/mod.rs"]
mod support;

use pedelec_core::Session;
use pedelec_core::skills::SkillSet;
use serde_json::value::RawValue;
use support::{Counter, ToolName};

#[test]
fn a_typed_call_allocates_once_and_frees_everything_else() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let session = Session::builder(ToolName::skills())
        .state(Counter::default())
        .create()
        .unwrap();
    let args = RawValue::from_string(r#"{"delta":1}"#.to_owned()).unwrap();
    // Warm up: tracing's callsite registration, tokio's thread-local context, and the
    // session's spare context and handler future.
    let first = rt.block_on(session.call_raw("update_counter", &args));
    assert_eq!(first, r#"{"ok":true,"value":{"value":1}}"#);
    let mut result = String::new();
    let info = allocation_counter::measure(|| {
        result = rt.block_on(session.call_raw("update_counter", &args));
    });
    assert_eq!(result, r#"{"ok":true,"value":{"value":2}}"#);
    // The result text is still alive: everything else was freed.
    assert_eq!(info.count_current, 1, "{info:?}");
    assert_eq!(info.count_total, 1, "{info:?}");
}
