//! What `#[tool]` emits next to its errors, so that one mistake gives one error: the
//! function stays callable, and the tool type still exists (with stand-ins for what was
//! wrong), so code naming the tool (a `skills![]` list, `update_counter::definition()`)
//! compiles on.

use std::borrow::Cow;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::spanned::Spanned;
use syn::{Item, ItemFn};

use crate::util::{Errors, Private};

/// The function as emitted: as written, with two exceptions.
///
/// - `#[allow(clippy::needless_pass_by_value)]` on a plain `fn` with parameters: `#[tool]`
///   requires the argument struct and the context by value (they are moved into the call),
///   so a pedantic clippy must not ask the user to take them by reference, which `#[tool]`
///   would then refuse. An `async fn` moves its parameters into its future, so clippy never
///   asks there, and nothing is added.
/// - A variadic parameter (already reported) is dropped, so rustc does not report it a
///   second time.
pub fn callable(item: &ItemFn) -> Cow<'_, ItemFn> {
    if item.sig.variadic.is_none() && item.sig.inputs.is_empty() {
        return Cow::Borrowed(item);
    }
    let mut item = item.clone();
    item.sig.variadic = None;
    if item.sig.asyncness.is_none() && !item.sig.inputs.is_empty() {
        item.attrs
            .push(syn::parse_quote!(#[allow(clippy::needless_pass_by_value)]));
    }
    Cow::Owned(item)
}

/// The associated types and call of a tool whose signature is not a tool's: no arguments,
/// no result, a call that never completes (it is never run: the crate does not compile).
pub fn stub_types_and_call() -> (TokenStream, TokenStream) {
    (
        quote! {
            type Args = #Private::NoArgs;
            type Output = ();
        },
        quote!(::core::future::pending()),
    )
}

/// `#[tool]` on something that is not a function: the error, and the item unchanged.
pub fn not_a_fn(item: &Item, input: TokenStream, mut errors: Errors) -> TokenStream {
    errors.at_span(
        keyword_span(item),
        "`#[tool]` goes on a function with a body: \
         `#[tool] async fn my_tool(args: MyArgs) -> Output { … }`",
    );
    let errors = errors.into_compile_errors();
    quote!(#errors #input)
}

/// The span of the item's keyword (`struct`, `impl`, …), to point at what it is.
fn keyword_span(item: &Item) -> Span {
    match item {
        Item::Struct(i) => i.struct_token.span,
        Item::Enum(i) => i.enum_token.span,
        Item::Union(i) => i.union_token.span,
        Item::Impl(i) => i.impl_token.span,
        Item::Trait(i) => i.trait_token.span,
        Item::Mod(i) => i.mod_token.span,
        Item::Const(i) => i.const_token.span,
        Item::Static(i) => i.static_token.span,
        Item::Type(i) => i.type_token.span,
        Item::Use(i) => i.use_token.span,
        Item::ForeignMod(i) => i.abi.extern_token.span,
        Item::Macro(i) => i.mac.path.span(),
        other => other.span(),
    }
}
