//! Expansion snapshots: what the macros emit for representative inputs, formatted with
//! prettyplease, compared with `src/tests/snapshots/<name>.rs`. Refresh with
//! `UPDATE_EXPECT=1 cargo test -p pedelec-macros` (or `cargo xtask bless`), then review the
//! diff.

use proc_macro2::TokenStream;

mod skills;
mod tool;

/// Formats `tokens` as a file and compares it with the snapshot `name`.
pub fn snapshot(name: &str, tokens: &TokenStream) {
    let file: syn::File = match syn::parse2(tokens.clone()) {
        Ok(file) => file,
        Err(e) => panic!("expansion of `{name}` is not valid Rust: {e}\n{tokens}"),
    };
    let pretty = prettyplease::unparse(&file);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src/tests/snapshots")
        .join(format!("{name}.rs"));
    expect_test::expect_file![path].assert_eq(&pretty);
}
