//! The expansions of `#[derive(ToolOutput)]` and of `#[tool]` with a title, annotations and
//! an output schema compile in a module that shadows the prelude (serde's `test_gen.rs`
//! trick, plus `mod core {}`), under the lints a demanding crate denies. Compiling this
//! file is most of the test; clippy (pedantic) checks it too.

#![deny(warnings, missing_docs, unused_qualifications, unused_results)]
#![deny(clippy::pedantic)]

#[macro_use]
mod shadows;

/// Outputs and tools among shadowed prelude names.
pub mod shadowed {
    #![allow(non_camel_case_types)]

    shadow!(struct Result, Option, Some, None, Ok, Err, Vec, Box, Send, bool, str);
    shadow!(mod core, pedelec);
    /// A trait named like the generated fallback, in scope.
    pub trait NoToolOutput {
        /// Would be ambiguous if the expansion relied on names in scope.
        const OUTPUT_SCHEMA: ::core::primitive::u8 = 0;
    }
    impl<T: ?::core::marker::Sized> NoToolOutput for T {}

    pub use super::{Args, Page, Status};
    use ::pedelec::{ToolError, tool};

    /// Reads a page.
    ///
    /// # Errors
    /// Never.
    #[tool(title = "Read page", read_only, open_world = false)]
    pub async fn read_page(args: Args) -> ::core::result::Result<Page, ToolError> {
        ::core::result::Result::Ok(Page {
            title: ::std::string::ToString::to_string("t"),
            count: args.n,
            status: Status::Ready,
            note: ::core::option::Option::None,
        })
    }

    /// Counts.
    #[must_use]
    #[tool(destructive, idempotent)]
    pub fn count() -> ::core::primitive::i64 {
        1
    }
}

/// Arguments.
#[derive(::serde::Deserialize, ::pedelec::ToolArgs)]
pub struct Args {
    /// A number.
    pub n: i64,
}

/// A page (serde's derive does not survive shadowed `bool`/`str`: declared outside, with
/// the derive's expansion checked by `derive_hygiene.rs`-style lints here).
#[derive(::serde::Serialize, ::pedelec::ToolOutput)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// The title.
    pub title: String,
    /// How many.
    #[arg(minimum = 0)]
    pub count: i64,
    /// Its status.
    pub status: Status,
    /// Left out when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A status.
#[derive(::serde::Serialize, ::pedelec::ToolOutput)]
#[serde(tag = "state")]
pub enum Status {
    /// Ready.
    Ready,
    /// Failed.
    Failed {
        /// Why.
        reason: String,
    },
}

#[test]
fn the_shadowed_expansions_work() {
    use pedelec::Tool;
    use pedelec::output::ToolAnnotations;
    let definition = shadowed::read_page::definition();
    assert_eq!(definition.title(), Some("Read page"));
    assert_eq!(
        definition.annotations(),
        ToolAnnotations::NONE
            .with_read_only(true)
            .with_open_world(false)
    );
    let schema = definition
        .output_schema()
        .expect("Page has an output schema");
    assert_eq!(
        schema.to_json()["required"],
        serde_json::json!(["title", "count", "status"])
    );
    assert!(<shadowed::count as Tool>::OUTPUT_SCHEMA.is_some_and(|s| s.is_wrapped()));
    assert_eq!(
        <shadowed::count as Tool>::ANNOTATIONS.to_json(),
        Some(serde_json::json!({"destructiveHint": true, "idempotentHint": true}))
    );
}
