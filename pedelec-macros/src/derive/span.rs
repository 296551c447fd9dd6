//! Span ranges: what an error underlines (first to last token, so `minimum = 300` is
//! underlined whole on stable), and where generated code that may fail during const
//! evaluation is placed.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;

/// The first and last span of some tokens: what an error underlines, and where generated
/// code that may fail during const evaluation is placed.
#[derive(Clone, Copy)]
pub struct SpanRange {
    pub first: Span,
    pub last: Span,
}

impl SpanRange {
    pub fn of(tokens: impl ToTokens) -> Self {
        let mut iter = tokens.into_token_stream().into_iter();
        let first = iter.next().map_or_else(Span::call_site, |t| t.span());
        let last = iter.last().map_or(first, |t| t.span());
        SpanRange { first, last }
    }

    /// From the start of `self` to the end of `other`.
    pub fn to(self, other: SpanRange) -> Self {
        SpanRange {
            first: self.first,
            last: other.last,
        }
    }
}

impl ToTokens for SpanRange {
    /// Two placeholder tokens carrying the spans (for `syn::Error::new_spanned`).
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend([
            TokenTree::Ident(proc_macro2::Ident::new("first", self.first)),
            TokenTree::Ident(proc_macro2::Ident::new("last", self.last)),
        ]);
    }
}
