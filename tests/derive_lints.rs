//! Expansions of `#[derive(ToolArgs)]` trigger no lint, even strict ones: some generated
//! tokens carry the user's spans (so that errors point at the attribute), which makes
//! clippy treat them as user code.

#![expect(dead_code, reason = "the types exist for their schemas")]
#![deny(
    warnings,
    unused_qualifications,
    unused_lifetimes,
    single_use_lifetimes
)]
#![deny(clippy::all, clippy::pedantic, clippy::nursery)]
#![deny(
    clippy::absolute_paths,
    clippy::std_instead_of_core,
    clippy::std_instead_of_alloc,
    clippy::default_numeric_fallback,
    clippy::as_conversions,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::unwrap_used,
    clippy::panic,
    clippy::missing_docs_in_private_items,
    clippy::allow_attributes,
    clippy::allow_attributes_without_reason
)]

use pedelec::ToolArgs;

/// Every modifier.
#[derive(ToolArgs)]
#[serde(rename_all = "camelCase")]
struct Args {
    /// Bounded.
    #[arg(minimum = -10, maximum = 10.5, multiple_of = 0.5, exclusive_minimum = -11)]
    delta: f64,
    /// Text.
    #[serde(default)]
    #[arg(min_length = 1, max_length = 9, pattern = "^[a-z]+$", default = "abc")]
    text_value: String,
    /// Items.
    #[serde(default)]
    #[arg(min_items = 1, max_items = 3, unique_items, default = [1, 2])]
    items: Vec<u8>,
    /// Format.
    #[arg(format = "uri")]
    link: Option<String>,
    /// Newtype.
    name: Name,
    /// Enum.
    mode: Mode,
}

/// A newtype.
#[derive(ToolArgs)]
struct Name(#[arg(max_length = 5)] String);

/// An enum.
#[derive(ToolArgs)]
#[serde(tag = "t", content = "c")]
enum Mode {
    /// A.
    A(#[arg(minimum = 1)] u8),
    /// B.
    B {
        /// X.
        #[arg(maximum = 3)]
        x: i8,
    },
    /// C.
    C,
}

/// Generic.
#[derive(ToolArgs)]
struct Page<'a, T> {
    /// Items.
    items: Vec<T>,
    /// Cursor.
    cursor: Option<&'a str>,
}

/// Transparent over a generic.
#[derive(ToolArgs)]
#[serde(transparent)]
struct Wrapped<T>(T);

#[test]
fn strict_lints_pass() {
    assert!(pedelec::schema_for::<Args>().is_object());
    assert!(pedelec::schema_for::<Page<'_, Wrapped<Mode>>>().is_object());
}
