//! The contract of the counter example's tools, held as a user's crate holds its own: the
//! lock file `tests/tools.lock.json` is committed, and a change to a tool that breaks its
//! callers fails this test unless the tool's `version` went up. After an intended change,
//! `PEDELEC_CONTRACT=update cargo test --test contract` rewrites the lock file; review its
//! diff and commit it.

#[allow(dead_code, reason = "the example's `main` is not called here")]
#[path = "../examples/counter.rs"]
mod counter;

use counter::ToolName;

#[test]
fn the_counter_tools_keep_their_contract() {
    let report = match pedelec::contract::check("tests/tools.lock.json", &ToolName::skills()) {
        Ok(report) => report,
        Err(error) => panic!("{error}"),
    };
    // This repository keeps its lock file current: even a compatible change is recorded.
    assert!(
        report.written() || report.changes().is_empty(),
        "{report}\nrecord the changes: PEDELEC_CONTRACT=update cargo test --test contract"
    );
}
