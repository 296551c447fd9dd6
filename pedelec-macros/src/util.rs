//! Small pieces every macro uses: the path to the runtime, and "did you mean" suggestions.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// `::pedelec::__private`: the only path generated code uses to reach the runtime. Kept in
/// one place so it can change in one place.
#[derive(Clone, Copy)]
pub struct Private;

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggestions() {
        let keys = ["name", "description", "timeout_ms"];
        assert_eq!(did_you_mean("timeout", &keys), Some("timeout_ms"));
        assert_eq!(did_you_mean("descripton", &keys), Some("description"));
        assert_eq!(did_you_mean("zzz", &keys), None);
    }
}
