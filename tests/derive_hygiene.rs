//! The expansion of `#[derive(ToolArgs)]` uses only absolute paths and triggers no lint:
//! it compiles in a module that shadows the prelude (serde's `test_gen.rs` trick, plus
//! `mod core {}`), under `#![deny(warnings, missing_docs, unused_qualifications)]`.

#![deny(warnings, missing_docs, unused_qualifications)]
#![allow(dead_code)]

#[macro_use]
mod shadows;

/// Types deriving `ToolArgs` among shadowed prelude names.
pub mod shadowed {
    #![allow(clippy::module_name_repetitions)]

    shadow!(struct Result, Option, Some, Ok, Err, None, Vec, bool);
    shadow!(mod core, std, pedelec);
    /// A user const named like the generated local.
    #[allow(non_upper_case_globals)]
    pub const __pedelec_schema: u8 = 0;
    /// Another.
    #[allow(non_upper_case_globals)]
    pub const schema: u8 = 0;

    /// A recursive type (a `$defs` entry and `$ref`s).
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    pub struct Tree {
        /// The label.
        pub label: ::std::string::String,
        /// The children.
        pub children: ::std::vec::Vec<Tree>,
        /// The parent.
        pub parent: ::core::option::Option<::std::boxed::Box<Self>>,
    }

    /// Every field shape.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    pub struct Args {
        /// Bounded.
        #[arg(minimum = -10, maximum = 10, multiple_of = 2)]
        pub delta: i32,
        /// Optional text.
        #[arg(min_length = 1, pattern = "^[a-z]+$")]
        pub note: ::core::option::Option<::std::string::String>,
        /// With a default.
        #[serde(default)]
        #[arg(default = ["a"], max_items = 3)]
        pub tags: ::std::vec::Vec<::std::string::String>,
        /// Nested.
        pub mode: Mode,
        /// Borrowed through a generic.
        pub page: Page<u8>,
        /// Through a newtype.
        pub name: Name,
    }

    /// A unit enum.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    pub enum Mode {
        /// Fast.
        Fast,
        /// Slow.
        Slow,
    }

    /// Adjacently tagged.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    #[serde(tag = "t", content = "c")]
    pub enum Adjacent {
        /// A.
        A(u8),
        /// B.
        B {
            /// X.
            x: ::std::string::String,
        },
        /// C.
        C,
    }

    /// Internally tagged.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    #[serde(tag = "t")]
    pub enum Internal {
        /// A.
        A {
            /// X.
            x: u8,
        },
        /// B.
        B,
    }

    /// Untagged.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    #[serde(untagged)]
    pub enum Untagged {
        /// A.
        A(::std::string::String),
        /// B.
        B {
            /// X.
            x: u8,
        },
    }

    /// Externally tagged, with data.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    pub enum External {
        /// A.
        A(u8),
        /// B.
        B,
    }

    /// Generic, with a lifetime.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    pub struct Page<T> {
        /// Items.
        pub items: ::std::vec::Vec<T>,
    }

    /// Borrowing.
    #[derive(::pedelec::ToolArgs)]
    pub struct Borrowed<'a> {
        /// Text.
        pub text: &'a str,
    }

    /// A newtype.
    #[derive(::pedelec::ToolArgs, ::serde::Deserialize)]
    #[serde(transparent)]
    pub struct Name(#[arg(max_length = 64)] pub ::std::string::String);
}

#[test]
fn expansions_compile_under_shadowed_names() {
    use pedelec::schema::ToolArgsRoot;
    fn root<T: ToolArgsRoot>() -> &'static pedelec::schema::SchemaNode {
        pedelec::schema_for::<T>()
    }
    let args = root::<shadowed::Args>().to_json();
    assert_eq!(args["properties"]["delta"]["multipleOf"], 2);
    assert_eq!(
        args["properties"]["tags"]["default"],
        serde_json::json!(["a"])
    );
    assert!(
        pedelec::schema_for::<shadowed::Adjacent>()
            .one_of_branches()
            .is_some()
    );
    assert!(
        pedelec::schema_for::<shadowed::Internal>()
            .one_of_branches()
            .is_some()
    );
    assert!(
        pedelec::schema_for::<shadowed::Untagged>()
            .one_of_branches()
            .is_some()
    );
    assert!(
        pedelec::schema_for::<shadowed::External>()
            .one_of_branches()
            .is_some()
    );
    assert!(pedelec::schema_for::<shadowed::Borrowed<'_>>().is_object());
}
