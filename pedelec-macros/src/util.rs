//! Small pieces every macro uses: the path to the runtime, "did you mean" suggestions, an
//! error accumulator, and doc comments read as descriptions.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::spanned::Spanned;

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
pub fn one_of(words: &[&str]) -> String {
    let mut out = String::new();
    for (i, word) in words.iter().enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == words.len() { " or " } else { ", " });
        }
        out.push('`');
        out.push_str(word);
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

/// The text of a doc comment, as a description.
pub struct Doc {
    /// The text (see [`doc_text`]); empty when there is no doc comment.
    pub text: String,
    /// The first `#[doc = …]` whose value is not a string literal (`include_str!`, …): its
    /// text cannot be read by a macro.
    pub not_literal: Option<Span>,
}

/// Reads the doc comment among `attrs` as a description: the text with the common
/// indentation removed; the lines of a paragraph joined with a space (they are wrapped for
/// the source file, not for the reader, as Markdown renders them); paragraphs separated by a
/// blank line (`\n\n`). Line breaks are kept inside fenced code blocks and before list items
/// (`- `, `* `, `+ `, `1. `), where Markdown keeps them too.
pub fn doc_text(attrs: &[syn::Attribute]) -> Doc {
    let mut lines = Vec::new();
    let mut not_literal = None;
    for attr in attrs {
        let syn::Meta::NameValue(nv) = &attr.meta else {
            continue;
        };
        if !nv.path.is_ident("doc") {
            continue;
        }
        match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => lines.extend(
                // Not `lines()`: an empty `///` is a blank line, which ends a paragraph.
                s.value()
                    .split('\n')
                    .map(|l| l.strip_suffix('\r').unwrap_or(l).to_owned()),
            ),
            other => {
                not_literal.get_or_insert(other.span());
            }
        }
    }
    Doc {
        text: join_doc_lines(&lines),
        not_literal,
    }
}

fn join_doc_lines(lines: &[String]) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out = String::new();
    let mut blank_before = false;
    let mut in_fence = false;
    // After a code line or a fence, the next line starts on a line of its own.
    let mut break_after = false;
    for line in lines {
        let line = line
            .get(indent..)
            .unwrap_or_else(|| line.trim_start())
            .trim_end();
        if line.is_empty() && !in_fence {
            blank_before = !out.is_empty();
            continue;
        }
        let fence = line.trim_start().starts_with("```");
        if !out.is_empty() {
            out.push_str(if blank_before {
                "\n\n"
            } else if break_after || fence || starts_list_item(line) {
                "\n"
            } else {
                " "
            });
        }
        blank_before = false;
        out.push_str(if in_fence { line } else { line.trim_start() });
        if fence {
            in_fence = !in_fence;
        }
        break_after = in_fence || fence;
    }
    out
}

fn starts_list_item(line: &str) -> bool {
    let line = line.trim_start();
    if ["- ", "* ", "+ "].iter().any(|m| line.starts_with(m)) {
        return true;
    }
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && line[digits..].starts_with(". ")
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

    fn doc(attrs: &[&str]) -> String {
        let attrs: Vec<syn::Attribute> = attrs
            .iter()
            .map(|line| syn::parse_quote!(#[doc = #line]))
            .collect();
        doc_text(&attrs).text
    }

    #[test]
    fn doc_comments_become_descriptions() {
        assert_eq!(doc(&[" Update the counter."]), "Update the counter.");
        assert_eq!(
            doc(&[
                " Update the visible",
                " counter by delta.",
                "",
                " Returns the value."
            ]),
            "Update the visible counter by delta.\n\nReturns the value."
        );
        assert_eq!(
            doc(&["", " Lists:", " - one", " - two", "   continued", "", ""]),
            "Lists:\n- one\n- two continued"
        );
        assert_eq!(
            doc(&[
                " Example:",
                " ```",
                " let x = 1;",
                "",
                "     y",
                " ```",
                " After."
            ]),
            "Example:\n```\nlet x = 1;\n\n    y\n```\nAfter."
        );
        // A block comment: one attribute, several lines, their own indentation.
        assert_eq!(
            doc(&["\n    First line\n    second line\n  "]),
            "First line second line"
        );
        assert_eq!(doc(&[]), "");
        assert_eq!(doc(&[" 1. step", " 2. step"]), "1. step\n2. step");
    }
}
