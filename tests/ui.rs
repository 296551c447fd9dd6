//! Compile-fail cases: every diagnostic the macros emit, pinned with its `.stderr`.
//! Re-bless with `TRYBUILD=overwrite cargo test --test ui` (or `cargo xtask bless`), then
//! review every changed `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/**/*.rs");
    drop(t);
    // Checks made when generic code is instantiated (`ctx.elicit::<T>`'s form): `cargo
    // check` never instantiates it, so this set builds (trybuild builds a set that has a
    // passing case) and pins what `cargo build` reports.
    let t = trybuild::TestCases::new();
    t.pass("tests/ui-build/pass/*.rs");
    t.compile_fail("tests/ui-build/fail/*.rs");
}
