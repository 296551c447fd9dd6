//! `#[tool]` expansions: the counter example's two tools, then one of each other shape.

use quote::quote;

use super::snapshot;

fn tool(name: &str, args: proc_macro2::TokenStream, item: proc_macro2::TokenStream) {
    snapshot(name, &crate::tool::expand(args, item));
}

#[test]
fn update_counter() {
    tool(
        "tool_update_counter",
        quote!(name = "update_counter", timeout_ms = 5_000),
        quote! {
            /// Update the visible counter by delta.
            pub async fn update_counter(
                args: UpdateCounterArgs,
                ctx: ToolCallContext,
            ) -> Result<CounterValue, ToolError> {
                Ok(CounterValue {
                    value: ctx.state::<Counter>()?.add(args.delta),
                })
            }
        },
    );
}

#[test]
fn get_current_page() {
    tool(
        "tool_get_current_page",
        quote!(),
        quote! {
            /// Read the current page: its title and the visible counter.
            pub fn get_current_page(ctx: ToolCallContext) -> Result<Page, ToolError> {
                Ok(Page {
                    title: "Counter",
                    counter: ctx.state::<Counter>()?.get(),
                })
            }
        },
    );
}

#[test]
fn sync_value_without_context() {
    tool(
        "tool_sync_value",
        quote!(description = concat!("Add two numbers.", " Pure.")),
        quote! {
            fn add(AddArgs { a, b }: AddArgs) -> i64 {
                a + b
            }
        },
    );
}

#[test]
fn async_without_parameters_returning_an_alias() {
    tool(
        "tool_async_alias",
        quote!(description = DESCRIPTION),
        quote! {
            #[cfg(feature = "clock")]
            pub(crate) async fn now() -> std::io::Result<u64> {
                Ok(0)
            }
        },
    );
}

#[test]
fn fallback_keeps_the_function_and_a_nameable_tool() {
    tool(
        "tool_fallback",
        quote!(name = "bad name", timeout_ms = 0),
        quote! {
            /// Checks.
            fn check<T>(args: T) -> bool {
                true
            }
        },
    );
}

#[test]
fn title_and_annotations() {
    tool(
        "tool_title_annotations",
        quote!(
            title = "Open page",
            destructive = false,
            open_world,
            idempotent
        ),
        quote! {
            /// Open a page.
            async fn open_page(args: OpenArgs) -> Result<Page, PageError> {
                open(args.url).await
            }
        },
    );
}

/// Scopes, a concurrency limit, an icon, task support, examples and a version: one constant
/// each, and nothing for a key that is not set (the other snapshots).
#[test]
fn policy_and_mcp_keys() {
    tool(
        "tool_policy_keys",
        quote!(
            scopes = ["counter:read", "counter:write"],
            max_concurrency = 4u32,
            icon = "data:image/svg+xml;base64,PHN2Zy8+",
            task = optional,
            example = r#"{"delta": 2}"#,
            example = r#"{"delta": -1}"#,
            defer,
            version = 2u32,
            approval = large_update,
            exactly_once,
        ),
        quote! {
            /// Update the visible counter by delta.
            async fn update_counter(args: UpdateCounterArgs) -> i64 {
                args.delta
            }
        },
    );
}

/// `callers`: one constant, `Callers::PROGRAM` here (`BOTH` and `DIRECT` for the other
/// lists).
#[test]
fn callers_key() {
    tool(
        "tool_callers",
        quote!(read_only, callers = [program]),
        quote! {
            /// List an invoice's lines.
            fn list_lines(args: InvoiceArgs) -> Vec<String> {
                args.lines
            }
        },
    );
}

/// The body is emitted as written, token for token (it is not parsed); a body with inner
/// attributes takes syn's full parse, and comes out the same.
#[test]
fn bodies_are_emitted_as_written() {
    let body = quote! {
        let n = 1;
        weird_macro!(=> not an expression <=);
        Ok(n)
    };
    let expanded = crate::tool::expand(
        quote!(),
        quote! {
            /// Counts.
            fn count() -> Result<i64, ToolError> { #body }
        },
    );
    assert!(
        expanded.to_string().contains(&body.to_string()),
        "{expanded}"
    );
    let item = quote! {
        /// Counts.
        fn count() -> Result<i64, ToolError> {
            #![allow(unused_variables)]
            let n = 1;
            Ok(n)
        }
    };
    let expanded = crate::tool::expand(quote!(), item).to_string();
    assert!(
        expanded.contains("{ # ! [allow (unused_variables)] let n = 1 ; Ok (n) }"),
        "{expanded}"
    );
}
