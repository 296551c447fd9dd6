//! `#[arg(pattern = "…")]`: an ECMA-262 regular expression (what JSON Schema's `pattern`
//! is), checked when the macro expands.

use regex::Regex;

/// Compiles `pattern`, or says why it is not a valid regular expression.
///
/// Today the pattern is read with Rust's regex syntax, which accepts the ECMA-262 subset
/// tool schemas use. When `pedelec_rules::ecma` (the translation the runtime validator
/// uses) is available, this is the one place to call it, so that the macro and the runtime
/// agree on every pattern.
pub fn compile(pattern: &str) -> Result<Regex, String> {
    if let Err(error) = regex_syntax::Parser::new().parse(pattern) {
        let (kind, offset) = match &error {
            regex_syntax::Error::Parse(e) => (e.kind().to_string(), e.span().start.offset),
            regex_syntax::Error::Translate(e) => (e.kind().to_string(), e.span().start.offset),
            other => (other.to_string(), 0),
        };
        return Err(format!("{kind} (at byte {offset})"));
    }
    Regex::new(pattern).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns() {
        assert!(compile("^[a-z]+$").unwrap().is_match("abc"));
        assert!(
            compile("b").unwrap().is_match("abc"),
            "unanchored, like JSON Schema"
        );
        assert_eq!(compile("(a").unwrap_err(), "unclosed group (at byte 0)");
        assert_eq!(
            compile("a{2,1}").unwrap_err(),
            "invalid repetition count range, the start must be <= the end (at byte 1)"
        );
    }
}
