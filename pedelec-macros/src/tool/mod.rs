//! `#[tool]`: declares a tool from a function (`syn → attr → model → expand`, with a
//! fallback next to any error).

mod attr;
mod expand;
mod fallback;
mod model;

use proc_macro2::TokenStream;
use quote::quote;
use syn::FnArg;
use syn::ext::IdentExt;

use crate::util::Errors;

/// Expands `#[tool(args)] item`.
pub fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let item = match syn::parse2::<syn::Item>(input.clone()) {
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
