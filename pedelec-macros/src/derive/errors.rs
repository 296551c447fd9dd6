//! Error accumulation: every problem of an input is reported in one pass.
//!
//! `syn::Error` rather than `darling::Error`: syn's keeps a token *range* (first to last
//! token, so `minimum = 300` is underlined whole on stable), which darling's conversion
//! reduces to one span.

use std::fmt::Display;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;

/// The errors found so far.
#[derive(Default)]
pub struct Errors {
    errors: Option<syn::Error>,
}

impl Errors {
    pub fn new() -> Self {
        Errors::default()
    }

    pub fn push(&mut self, error: syn::Error) {
        match &mut self.errors {
            Some(errors) => errors.combine(error),
            None => self.errors = Some(error),
        }
    }

    /// An error covering `tokens` (first to last token).
    pub fn spanned(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// An error covering `range`.
    pub fn at(&mut self, range: SpanRange, message: impl Display) {
        self.push(range.error(message));
    }

    /// Keeps the value of `result`, or records its error.
    pub fn handle<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    pub fn finish(self) -> syn::Result<()> {
        match self.errors {
            Some(errors) => Err(errors),
            None => Ok(()),
        }
    }
}

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

    pub fn error(self, message: impl Display) -> syn::Error {
        syn::Error::new_spanned(self, message)
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
