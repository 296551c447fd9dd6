//! `#[tool]`: declares a tool from a function (`syn → attr → model → expand`, with a
//! fallback next to any error).

mod attr;
mod expand;
mod fallback;
mod model;

use proc_macro2::TokenStream;
use quote::quote;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, Block, FnArg, ItemFn, Signature, Stmt, Token, Visibility, braced};

use crate::util::Errors;

/// Expands `#[tool(args)] item`.
pub fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let parsed = match function_with_opaque_body.parse2(input.clone()) {
        Ok(item) => Ok(syn::Item::Fn(item)),
        Err(_) => syn::parse2::<syn::Item>(input.clone()),
    };
    let item = match parsed {
        Ok(syn::Item::Fn(item)) => item,
        Ok(other) => {
            attr::parse(args, None, &mut errors);
            return fallback::not_a_fn(&other, input, errors);
        }
        Err(error) => {
            errors.push(error);
            let errors = errors.into_compile_errors();
            return quote!(#errors #input);
        }
    };
    let fn_name = item.sig.ident.unraw().to_string();
    let valid_fn_name = pedelec_rules::check_tool_name(&fn_name).is_ok();
    let attr = attr::parse(args, valid_fn_name.then_some(fn_name.as_str()), &mut errors);
    let tool = model::Tool::new(attr, &item, &mut errors);
    // A method lives in an `impl` block, where no type can be declared beside it: emit it
    // alone (the error says to make it a free function).
    let method = item
        .sig
        .inputs
        .iter()
        .any(|i| matches!(i, FnArg::Receiver(_)));
    let expansion = if method {
        quote!(#item)
    } else {
        expand::tool(&tool)
    };
    let errors = errors.into_compile_errors();
    quote!(#errors #expansion)
}

/// A function whose body is kept as the tokens written: `#[tool]` reads only its
/// attributes and signature, and emits the body unchanged. syn's `ItemFn` parses every
/// statement of the body, and printing it back re-creates every token: in a proc macro,
/// which `cargo check` and `cargo build` run unoptimized, that is most of the expansion
/// time of a tool with a long body. The body is one verbatim statement of the block.
///
/// Anything else (not a function, a body with inner attributes, which syn's `ItemFn`
/// moves to the attributes) fails here and goes through `syn::Item`, errors included.
fn function_with_opaque_body(input: ParseStream) -> syn::Result<ItemFn> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    let sig: Signature = input.parse()?;
    let content;
    let brace_token = braced!(content in input);
    if content.peek(Token![#]) && content.peek2(Token![!]) {
        return Err(content.error("inner attributes: parsed by `syn::Item`"));
    }
    let body: TokenStream = content.parse()?;
    Ok(ItemFn {
        attrs,
        vis,
        modifiers: syn::FnModifiers::default(),
        sig,
        block: Box::new(Block {
            brace_token,
            stmts: vec![Stmt::Item(syn::Item::Verbatim(body))],
        }),
    })
}
