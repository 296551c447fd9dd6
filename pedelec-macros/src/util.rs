//! Small pieces every macro uses: the path to the runtime, "did you mean" suggestions, and
//! an error accumulator.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::parse::ParseStream;

/// `::pedelec::__private`: the only path generated code uses to reach the runtime. Kept in
/// one place so it can change in one place.
#[derive(Clone, Copy)]
pub struct Private;

impl Private {
    /// The path with every token at `span`, so that rustc blames the user's tokens for a
    /// bound of the item it leads to (`quote_spanned!` does not re-span interpolations).
    pub fn at(span: Span) -> TokenStream {
        quote::quote_spanned!(span=> ::pedelec::__private)
    }
}

impl ToTokens for Private {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(quote!(::pedelec::__private));
    }
}

/// The tokens up to the next top-level comma (commas inside groups do not count), for
/// `key = value, …` lists whose values are parsed later, each with its own errors.
pub fn until_comma(input: ParseStream) -> syn::Result<TokenStream> {
    input.step(|cursor| {
        let mut rest = *cursor;
        let mut tokens = TokenStream::new();
        while let Some((tt, next)) = rest.token_tree() {
            if matches!(&tt, TokenTree::Punct(p) if p.as_char() == ',') {
                break;
            }
            tokens.extend([tt]);
            rest = next;
        }
        Ok((tokens, rest))
    })
}

/// The candidate closest to `word`, when it is close enough to be what the user meant.
pub fn did_you_mean<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(word, c), *c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `` `a`, `b` or `c` ``: a list of code words for a message.
pub fn one_of<S: AsRef<str>>(words: &[S]) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == words.len() { " or " } else { ", " });
        }
        out.push('`');
        out.push_str(word.as_ref());
        out.push('`');
    }
    out
}

/// Collects every error of one macro invocation, so they are all reported in one pass
/// (serde's `Ctxt`, darling's accumulator). `syn::Error` rather than `darling::Error`
/// because it keeps a span *range* (`Vec<String>` is underlined whole, not just `Vec`).
///
/// Dropping it with errors that were never taken is a bug in the macro: it panics, as
/// serde's and darling's accumulators do.
#[derive(Default)]
pub struct Errors {
    errors: Vec<syn::Error>,
}

impl Errors {
    /// Records an error.
    pub fn push(&mut self, error: syn::Error) {
        self.errors.push(error);
    }

    /// Records an error spanning `tokens`.
    pub fn at(&mut self, tokens: impl ToTokens, message: impl std::fmt::Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records an error at `span`.
    pub fn at_span(&mut self, span: Span, message: impl std::fmt::Display) {
        self.push(syn::Error::new(span, message));
    }

    /// The value of `result`, recording its error.
    pub fn handle<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|e| self.push(e)).ok()
    }

    /// All errors combined into one, or `Ok` when there is none.
    pub fn finish(mut self) -> syn::Result<()> {
        let mut errors = std::mem::take(&mut self.errors).into_iter();
        match errors.next() {
            None => Ok(()),
            Some(mut first) => {
                first.extend(errors);
                Err(first)
            }
        }
    }

    /// Every error as `compile_error!` invocations (empty when there is none).
    pub fn into_compile_errors(mut self) -> TokenStream {
        std::mem::take(&mut self.errors)
            .into_iter()
            .map(syn::Error::into_compile_error)
            .collect()
    }
}

impl Drop for Errors {
    fn drop(&mut self) {
        assert!(
            self.errors.is_empty() || std::thread::panicking(),
            "pedelec-macros bug: errors dropped without being reported"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let keys = ["name", "description", "timeout_ms"];
        assert_eq!(did_you_mean("timeout", &keys), Some("timeout_ms"));
        assert_eq!(did_you_mean("descripton", &keys), Some("description"));
        assert_eq!(did_you_mean("zzz", &keys), None);
        assert_eq!(one_of(&["a"]), "`a`");
        assert_eq!(one_of(&["a", "b", "c"]), "`a`, `b` or `c`");
    }
}
