//! Compile-fail cases: every diagnostic the macros emit, pinned with its `.stderr`.
//! Re-bless with `TRYBUILD=overwrite cargo test --test ui` (or `cargo xtask bless`), then
//! review every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/**/*.rs");
}
