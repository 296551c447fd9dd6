//! `skills![]`: declares a skill set and its `ToolName` enum (`syn → parse → model →
//! expand`; the model leaves out what it reported, so the rest is still generated).

mod expand;
mod model;
mod parse;

use proc_macro2::TokenStream;
use quote::quote;

use crate::util::Errors;

/// Expands `skills![input]`.
pub fn expand(input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let parser = |input: syn::parse::ParseStream| Ok(parse::raw(input, &mut errors));
    // `raw` consumes every token, recording what it cannot read.
    let raw = syn::parse::Parser::parse2(parser, input);
    let Some(raw) = errors.handle(raw) else {
        return errors.into_compile_errors();
    };
    let keys = parse::keys(raw.keys, &mut errors);
    let set = model::SkillSet::new(raw.header, keys, &mut errors);
    let expansion = expand::skills(&set);
    let errors = errors.into_compile_errors();
    quote!(#errors #expansion)
}
