//! `#[arg(pattern = "…")]`: an ECMA-262 regular expression (what JSON Schema's `pattern`
//! is), checked when the macro expands.

use regex::Regex;

/// Compiles `pattern`, or says why it cannot be used.
///
/// The pattern goes through `pedelec_rules::ecma::translate`, the same ECMA-262 → `regex`
/// translation the runtime validator uses, so the macro and the runtime agree on every
/// pattern: ECMA syntax errors, and the constructs a linear-time engine cannot run
/// (lookaround, backreferences), are compile errors here.
pub fn compile(pattern: &str) -> Result<Regex, String> {
    let translated = pedelec_rules::ecma::translate(pattern).map_err(|e| e.to_string())?;
    Regex::new(&translated).map_err(|e| e.to_string())
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
        assert!(compile(r"^\d+$").unwrap().is_match("42"));
        assert!(
            !compile(r"^\d+$").unwrap().is_match("٤٢"),
            "ECMA \\d is ASCII"
        );
        assert!(compile("(a").unwrap_err().contains("at byte"));
        assert!(compile("a(?=b)").unwrap_err().contains("lookahead"));
    }
}
