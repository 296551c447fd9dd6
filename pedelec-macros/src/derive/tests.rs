//! Expansion snapshots of `#[derive(ToolArgs)]` (`src/tests/snapshots/derive_*.rs`).
//! Refresh with `UPDATE_EXPECT=1 cargo test -p pedelec-macros`, then review the diff.

use quote::quote;

use crate::tests::snapshot;

#[test]
fn small_struct() {
    snapshot(
        "derive_small_struct",
        &super::derive(quote! {
            /// Update the visible counter by `delta`.
            #[serde(rename_all = "camelCase")]
            struct UpdateCounterArgs {
                /// How much to add; negative to subtract.
                #[arg(minimum = -100, maximum = 100)]
                delta: i32,
                /// Shown next to the counter.
                reason_text: Option<String>,
            }
        }),
    );
}

#[test]
fn recursive_struct() {
    snapshot(
        "derive_recursive_struct",
        &super::derive(quote! {
            /// A filter over records.
            struct Filter {
                field: Option<String>,
                and: Option<Vec<Filter>>,
                not: Option<Box<Self>>,
            }
        }),
    );
}

#[test]
fn struct_with_every_modifier() {
    snapshot(
        "derive_struct_modifiers",
        &super::derive(quote! {
            #[serde(default)]
            struct Search {
                #[arg(min_length = 1, max_length = 200, pattern = "\\S", default = "rust")]
                query: String,
                #[arg(exclusive_minimum = 0, multiple_of = 0.5)]
                weight: f64,
                #[arg(min_items = 1, max_items = 5, unique_items)]
                tags: Vec<String>,
                #[arg(format = "date-time", description = "Not before.")]
                since: Option<String>,
                #[serde(rename = "type")]
                kind: Kind,
                #[arg(schema = crate::LOOSE)]
                #[serde(deserialize_with = "loose")]
                extra: std::collections::BTreeMap<String, String>,
                #[serde(skip)]
                cache: Vec<u8>,
            }
        }),
    );
}

#[test]
fn generic_struct() {
    snapshot(
        "derive_generic_struct",
        &super::derive(quote! {
            struct Page<'a, T: Clone, const N: usize>
            where
                T: Send,
            {
                items: [T; N],
                cursor: Option<&'a str>,
                next: Option<T::Next>,
            }
        }),
    );
}

#[test]
fn newtype_struct() {
    snapshot(
        "derive_newtype_struct",
        &super::derive(quote! {
            /// A name, as people write it.
            struct Name(#[arg(min_length = 1)] String);
        }),
    );
}

#[test]
fn unit_enum() {
    snapshot(
        "derive_unit_enum",
        &super::derive(quote! {
            /// How fast to go.
            #[serde(rename_all = "snake_case")]
            enum Speed {
                /// Careful.
                Slow,
                VeryFast,
            }
        }),
    );
}

#[test]
fn externally_tagged_enum() {
    snapshot(
        "derive_external_enum",
        &super::derive(quote! {
            enum Action {
                Stop,
                Move { x: i32, y: i32 },
                /// Say something.
                Say(String),
            }
        }),
    );
}

#[test]
fn internally_tagged_enum() {
    snapshot(
        "derive_internal_enum",
        &super::derive(quote! {
            #[serde(tag = "kind", rename_all = "lowercase")]
            enum Shape {
                Circle { radius: f64 },
                Empty,
            }
        }),
    );
}

#[test]
fn adjacently_tagged_enum() {
    snapshot(
        "derive_adjacent_enum",
        &super::derive(quote! {
            #[serde(tag = "t", content = "c")]
            enum Message {
                Text(String),
                Ping { seq: u32 },
                Quit,
            }
        }),
    );
}

#[test]
fn untagged_enum() {
    snapshot(
        "derive_untagged_enum",
        &super::derive(quote! {
            #[serde(untagged)]
            enum Target {
                Id(u64),
                Named { name: String },
            }
        }),
    );
}

#[test]
fn errors_and_fallback() {
    snapshot(
        "derive_errors_fallback",
        &super::derive(quote! {
            struct Broken<T> {
                #[arg(min_length = 1)]
                count: u32,
                #[serde(flatten)]
                rest: T,
            }
        }),
    );
}

#[test]
fn output_struct() {
    snapshot(
        "derive_output_struct",
        &super::derive_output(quote! {
            /// A page.
            #[serde(rename_all(serialize = "camelCase", deserialize = "snake_case"))]
            struct Page<T> {
                #[arg(max_length = 80)]
                title: String,
                last_editor: Option<String>,
                #[serde(skip_serializing_if = "Vec::is_empty")]
                tags: Vec<T>,
                #[serde(skip_serializing)]
                cache: Vec<u8>,
            }
        }),
    );
}

#[test]
fn output_internal_enum() {
    snapshot(
        "derive_output_internal_enum",
        &super::derive_output(quote! {
            #[serde(tag = "kind")]
            enum Event {
                Idle,
                Moved { to: String },
            }
        }),
    );
}
