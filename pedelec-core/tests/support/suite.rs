//! Where the JSON Schema Test Suite is, for the tests that run it
//! (`json_schema_suite*.rs` include this file with `#[path]`).
//!
//! The suite is not part of the repository. It is read from
//! `$PEDELEC_JSON_SCHEMA_SUITE` when that is set, else from
//! `shared/json-schema-test-suite/` beside the clone (where CI puts it). Without it the
//! tests print a notice and pass on a developer's machine, but fail when `CI` is set: a
//! conformance check that silently checks nothing is worse than none.

use std::path::{Path, PathBuf};

/// The environment variable that points at the suite's root (the directory holding
/// `subset-manifest.json` and `tests/`).
pub const SUITE_ENV: &str = "PEDELEC_JSON_SCHEMA_SUITE";

/// The suite's root, or `None` (with a notice) when it is absent outside CI.
///
/// # Panics
///
/// When the suite is absent and the environment variable `CI` is set (to anything but
/// `false` or `0`).
pub fn suite_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os(SUITE_ENV) {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/json-schema-test-suite"),
    };
    if dir.join("subset-manifest.json").is_file() {
        return Some(dir);
    }
    let in_ci = std::env::var("CI").is_ok_and(|v| !matches!(v.as_str(), "" | "0" | "false"));
    assert!(
        !in_ci,
        "the JSON Schema Test Suite is not at {} and `CI` is set: put a copy of `shared/` beside the clone, or point `{SUITE_ENV}` at the suite",
        dir.display()
    );
    println!(
        "notice: the JSON Schema Test Suite is not at {} (set `{SUITE_ENV}`); skipping",
        dir.display()
    );
    None
}
