//! Code generation for `#[tool]`: infallible, from a [`Tool`] model.
//!
//! ```text
//! <the function, unchanged>
//! #[allow(non_camel_case_types)] <vis> struct <fn_name> {}     // its doc comment
//! impl Tool for <fn_name> { NAME, DESCRIPTION, TIMEOUT_MS?, TITLE?, ANNOTATIONS?,
//!                            SCOPES?, MAX_CONCURRENCY?, ICON?, TASK?, EXAMPLES?, VERSION?,
//!                            OUTPUT_SCHEMA, Args, Output, call }
//! impl <fn_name> { pub fn definition() -> ToolDefinition }
//! const _: () = check_description(..);                         // description given as an expression
//! const _: () = check_args::<fn_name>();                      // the function takes arguments
//! ```

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::fallback;
use super::model::{Call, Desc, Output, Tool};
use crate::util::Private;

/// The function, then the tool type beside it.
pub fn tool(tool: &Tool) -> TokenStream {
    let item = tool.item;
    let ident = &item.sig.ident;
    let vis = &item.vis;
    let cfgs: Vec<_> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg"))
        .collect();
    let docs: Vec<_> = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    // A deprecated function makes a deprecated tool: naming it warns, implementing it not.
    let deprecated = item
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("deprecated"));
    let struct_docs = if docs.is_empty() {
        let doc = format!(" The `#[tool]` `{}`.", tool.name);
        quote!(#[doc = #doc])
    } else {
        quote!(#(#docs)*)
    };

    let name = &tool.name;
    let description = match &tool.description {
        Desc::Text(text) => quote!(#text),
        Desc::Expr(expr) => quote!(#expr),
    };
    let timeout = tool.timeout_ms.as_ref().map(|ms| {
        quote! {
            const TIMEOUT_MS: #Private::Option<::core::primitive::u64> = #Private::Some(#ms);
        }
    });
    let title = tool.title.as_ref().map(|title| {
        quote! {
            const TITLE: #Private::Option<&'static ::core::primitive::str> = #Private::Some(#title);
        }
    });
    let annotations = (!tool.hints.is_empty()).then(|| {
        let builders = tool.hints.iter().map(|hint| {
            let builder = format_ident!("with_{}", hint.key);
            let value = hint.value;
            quote!(.#builder(#value))
        });
        quote! {
            const ANNOTATIONS: #Private::ToolAnnotations = #Private::ToolAnnotations::NONE #(#builders)*;
        }
    });
    let options = options(tool);
    // `Some` when the output type implements `ToolOutput` (the probe's inherent constant),
    // else `None` (the fallback trait's): the output type is concrete.
    let output_schema = tool.call.as_ref().map(|_| {
        quote! {
            const OUTPUT_SCHEMA: #Private::Option<#Private::OutputSchema> = {
                use #Private::NoToolOutput as _;
                #Private::OutputProbe::<<Self as #Private::Tool>::Output>::OUTPUT_SCHEMA
            };
        }
    });
    let (types, call, span) = match &tool.call {
        Some(call) => {
            let span = call_span(ident, call);
            (associated_types(call), call_body(ident, call, span), span)
        }
        None => {
            let (types, call) = fallback::stub_types_and_call();
            (types, call, Span::call_site())
        }
    };
    // The future's bounds, spanned like the call: what fails there is blamed on the same
    // user token.
    let future = quote_spanned! {span=>
        impl ::core::future::Future<
            Output = #Private::Result<Self::Output, #Private::ToolError>,
        > + ::core::marker::Send + 'static
    };
    let allow_deprecated = item
        .attrs
        .iter()
        .any(|a| a.path().is_ident("deprecated"))
        .then(|| quote!(#[allow(deprecated)]));
    let description_check = match &tool.description {
        Desc::Expr(expr) => {
            let private = Private::at(expr.span());
            Some(quote_spanned! {expr.span()=>
                #(#cfgs)*
                #allow_deprecated
                const _: () = #private::check_description(<#ident as #private::Tool>::DESCRIPTION);
            })
        }
        Desc::Text(_) => None,
    };
    // The argsSchema's whole-schema rules (where MCP header annotations sit, and that they
    // differ), evaluated by `cargo check` and blamed on the argument type.
    let args_check = tool.call.as_ref().and_then(|call| call.args).map(|ty| {
        let private = Private::at(ty.span());
        quote_spanned! {ty.span()=>
            #(#cfgs)*
            #allow_deprecated
            const _: () = #private::check_args::<#ident>();
        }
    });
    let function = fallback::callable(item);
    let args = format_ident!("__pedelec_args", span = Span::mixed_site());
    let ctx = format_ident!("__pedelec_ctx", span = Span::mixed_site());

    quote! {
        #function

        #struct_docs
        #(#cfgs)*
        #(#deprecated)*
        #[allow(non_camel_case_types)]
        #vis struct #ident {}

        #(#cfgs)*
        #allow_deprecated
        #[automatically_derived]
        impl #Private::Tool for #ident {
            const NAME: &'static ::core::primitive::str = #name;
            const DESCRIPTION: &'static ::core::primitive::str = #description;
            #timeout
            #title
            #annotations
            #options
            #output_schema
            #types
            fn call(
                #args: Self::Args,
                #ctx: #Private::ToolCallContext,
            ) -> #future {
                #call
            }
        }

        #(#cfgs)*
        #allow_deprecated
        #[automatically_derived]
        impl #ident {
            /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
            /// description, argsSchema and timeout, with this function as its inline handler.
            #[must_use]
            pub fn definition() -> #Private::ToolDefinition {
                #Private::ToolDefinition::of::<Self>()
            }
        }

        #description_check
        #args_check
    }
}

/// The constants of the keys beyond name, description and timeout that are set: an unset one
/// keeps the trait's default, so a tool that sets none expands as before they existed.
fn options(tool: &Tool) -> TokenStream {
    let mut out = TokenStream::new();
    if !tool.scopes.is_empty() {
        let scopes = &tool.scopes;
        out.extend(quote! {
            const SCOPES: &'static [&'static ::core::primitive::str] = &[#(#scopes),*];
        });
    }
    if let Some(limit) = &tool.max_concurrency {
        out.extend(quote! {
            const MAX_CONCURRENCY: #Private::Option<::core::primitive::u32> = #Private::Some(#limit);
        });
    }
    if let Some(icon) = &tool.icon {
        out.extend(quote! {
            const ICON: #Private::Option<&'static ::core::primitive::str> = #Private::Some(#icon);
        });
    }
    if let Some(variant) = tool.task {
        let variant = format_ident!("{}", variant);
        out.extend(quote! {
            const TASK: #Private::TaskSupport = #Private::TaskSupport::#variant;
        });
    }
    if !tool.examples.is_empty() {
        let examples = &tool.examples;
        out.extend(quote! {
            const EXAMPLES: &'static [&'static ::core::primitive::str] = &[#(#examples),*];
        });
    }
    if tool.defer {
        out.extend(quote!(
            const DEFER: ::core::primitive::bool = true;
        ));
    }
    if let Some(version) = &tool.version {
        out.extend(quote! {
            const VERSION: ::core::primitive::u32 = #version;
        });
    }
    if tool.exactly_once {
        out.extend(quote!(
            const EXACTLY_ONCE: ::core::primitive::bool = true;
        ));
    }
    match &tool.approval {
        None => {}
        Some(super::attr::ApprovalAttr::Always) => out.extend(quote! {
            const APPROVAL: ::core::primitive::bool = true;
        }),
        Some(super::attr::ApprovalAttr::When(path)) => {
            // Spanned at the path: a function of another signature is reported there.
            let private = Private::at(path.span());
            let decide = quote_spanned!(path.span()=>
                let __pedelec_decide: fn(
                    &Self::Args,
                    #private::Option<&#private::Caller>,
                ) -> ::core::primitive::bool = #path;
            );
            out.extend(quote! {
                const APPROVAL: ::core::primitive::bool = true;
                fn needs_approval(
                    __pedelec_args: &Self::Args,
                    __pedelec_caller: #Private::Option<&#private::Caller>,
                ) -> ::core::primitive::bool {
                    #decide
                    __pedelec_decide(__pedelec_args, __pedelec_caller)
                }
            });
        }
    }
    if let Some(callers) = tool.callers {
        let callers = match callers {
            (true, true) => quote!(BOTH),
            (true, false) => quote!(DIRECT),
            _ => quote!(PROGRAM),
        };
        out.extend(quote! {
            const CALLERS: #Private::Option<#Private::Callers> =
                #Private::Some(#Private::Callers::#callers);
        });
    }
    out
}

fn associated_types(call: &Call) -> TokenStream {
    let args = match call.args {
        Some(ty) => quote!(#ty),
        None => quote!(#Private::NoArgs),
    };
    let output = match &call.output {
        Output::Unit => quote!(()),
        Output::Value(ty) | Output::Result { ok: Some(ty), .. } => quote!(#ty),
        Output::Result { ty, ok: None } => {
            quote!(<#ty as #Private::ResultParts>::Ok)
        }
    };
    quote! {
        type Args = #args;
        type Output = #output;
    }
}

/// Where the call is spanned: at the return type when it is a `Result` (so an error type
/// that does not convert is blamed there), else at the function's name (so is a future
/// that is not `Send`).
fn call_span(ident: &syn::Ident, call: &Call) -> Span {
    match call.output {
        Output::Result { ty, .. } => ty.span(),
        _ => ident.span(),
    }
}

/// `async_result(f(args, ctx))`, `blocking_value(move || f(args, ctx))`, …
fn call_body(ident: &syn::Ident, call: &Call, span: Span) -> TokenStream {
    let args = format_ident!("__pedelec_args", span = Span::mixed_site());
    let ctx = format_ident!("__pedelec_ctx", span = Span::mixed_site());
    let mut params = Vec::new();
    if call.args.is_some() {
        params.push(&args);
    }
    if call.ctx {
        params.push(&ctx);
    }
    let private = Private::at(span);
    let result = matches!(call.output, Output::Result { .. });
    let helper = match (call.is_async, result) {
        // An error goes through `IntoToolError` (`into_tool_result`), whose message names
        // `ToolError`; the async call converts it with `map_output` (below).
        (true, false | true) => quote_spanned!(span=> #private::async_value),
        (false, true) => quote_spanned!(span=> #private::blocking_result),
        (false, false) => quote_spanned!(span=> #private::blocking_value),
    };
    if call.is_async {
        // The function is bound to a local first: it *is* used as a value (the tool's
        // handler), and saying so keeps `clippy::unused_async` from asking to drop an
        // `async` that decides how the tool runs (in place, not on the blocking pool).
        // The locals are hygienic but located at `span`, so an error about the call (an
        // error type that does not convert) underlines the user's tokens, not `#[tool]`.
        let here = Span::mixed_site().located_at(span);
        let function = format_ident!("__pedelec_function", span = here);
        let params = params.iter().map(|p| format_ident!("{}", p, span = here));
        if result {
            // The conversion applied to the awaited value, at the return type: rustc then
            // underlines the user's `Result` when the error does not convert (the bound of
            // `into_tool_result` is checked where the function is named). A combinator, not
            // an `async` block: one state machine less per tool to compile. And the function
            // itself, not a closure calling it: no closure body to type-check and borrow-check
            // per tool (`call`'s `typeck` + `mir_borrowck` in `cargo xtask compile-bench
            // --profile`), with the same error.
            let convert = quote_spanned!(span=> #private::into_tool_result);
            let map_output = quote_spanned!(span=> #private::map_output);
            return quote_spanned! {span=>
                let #function = #ident;
                #map_output(#function(#(#params),*), #convert)
            };
        }
        quote_spanned! {span=>
            let #function = #ident;
            #helper(#function(#(#params),*))
        }
    } else if result {
        // As for `async fn`: the function used as a value (a pedantic clippy would ask to
        // unwrap a `Result` that is always `Ok`, which the tool's signature needs), and the
        // conversion at the return type, which rustc then underlines.
        let here = Span::mixed_site().located_at(span);
        let function = format_ident!("__pedelec_function", span = here);
        let convert = quote_spanned!(span=> #private::into_tool_result);
        quote_spanned! {span=>
            let #function = #ident;
            #helper(move || #convert(::core::convert::identity(#function(#(#params),*))))
        }
    } else if params.is_empty() {
        quote_spanned!(span=> #helper(#ident))
    } else {
        quote_spanned!(span=> #helper(move || #ident(#(#params),*)))
    }
}
