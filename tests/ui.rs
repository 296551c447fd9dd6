//! Compile-fail cases: every error the macros report, pinned with its message and span.
//! One mistake per file, under `tests/ui/<area>/`. Refresh with `cargo xtask bless`
//! (`TRYBUILD=overwrite`) and review the diff.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("tests/ui/**/*.rs");
}
