//! The ECMA-262 pattern translator (`pedelec_rules::ecma`) against `regress`, an ECMA-262
//! engine (unicode mode).
//!
//! Input: the pattern, then up to four subject strings, separated by NUL bytes (UTF-8;
//! patterns up to 64 bytes and subjects up to 16 characters, so that the backtracking
//! reference stays fast).
//!
//! Invariants:
//! - `check_syntax` accepts exactly what regress accepts, except where regress departs from
//!   the ECMA-262 grammar (see [`regress_departs`]);
//! - an error's span lies within the pattern, on character boundaries;
//! - `translate` succeeds only on patterns `check_syntax` accepts; its output compiles with
//!   the `regex` crate (unless over `regex`'s size limit) and matches each subject exactly
//!   when regress finds a match in it.

use pedelec_rules::ecma::{PatternError, check_syntax, translate};

/// Where regress 0.12 departs from the ECMA-262 grammar (unicode mode), so that a
/// disagreement there is not ours:
/// - it lets `\b` and `\B` take a quantifier, which unicode mode forbids;
/// - it refuses a lead surrogate escape `\uD8xx` followed by a `\u{…}` escape.
pub fn regress_departs(pattern: &str) -> bool {
    let bytes = pattern.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let next = bytes.get(i + 1).copied();
            if matches!(next, Some(b'b' | b'B'))
                && matches!(bytes.get(i + 2), Some(b'*' | b'+' | b'?' | b'{'))
            {
                return true;
            }
            if matches!(next, Some(b'u'))
                && bytes.get(i + 2..i + 4).is_some_and(|h| {
                    h.eq_ignore_ascii_case(b"d8")
                        || h.eq_ignore_ascii_case(b"d9")
                        || h.eq_ignore_ascii_case(b"da")
                        || h.eq_ignore_ascii_case(b"db")
                })
                && bytes.get(i + 6..i + 9) == Some(b"\\u{")
            {
                return true;
            }
            i += 2;
        } else {
            i += 1;
        }
    }
    false
}

fn check_span(pattern: &str, e: &PatternError) {
    let span = e.span();
    assert!(
        span.start <= span.end && span.end <= pattern.len(),
        "{pattern:?}: span {span:?} outside the pattern ({e})"
    );
    assert!(
        pattern.is_char_boundary(span.start) && pattern.is_char_boundary(span.end),
        "{pattern:?}: span {span:?} not on character boundaries ({e})"
    );
    assert!(!e.message().is_empty(), "{pattern:?}: an empty message");
}

/// Checks one input; panics when an invariant does not hold.
pub fn check(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let mut parts = text.split('\0');
    let pattern = parts.next().unwrap_or_default();
    if pattern.len() > 64 {
        return;
    }
    let subjects: Vec<&str> = parts.take(4).filter(|s| s.chars().count() <= 16).collect();

    let ours = check_syntax(pattern);
    let theirs = regress::Regex::with_flags(pattern, "u");
    if let Err(e) = &ours {
        check_span(pattern, e);
    }
    assert!(
        ours.is_ok() == theirs.is_ok() || regress_departs(pattern),
        "{pattern:?}: check_syntax says {ours:?}, regress says {:?}",
        theirs.as_ref().err()
    );
    let translated = translate(pattern);
    let t = match translated {
        Err(e) => {
            check_span(pattern, &e);
            return;
        }
        Ok(t) => t,
    };
    assert!(
        ours.is_ok(),
        "{pattern:?} translates to {t:?} but check_syntax refuses it: {ours:?}"
    );
    let ours = match regex::Regex::new(&t) {
        Ok(re) => re,
        Err(regex::Error::CompiledTooBig(_)) => return,
        Err(e) => panic!("{pattern:?} translates to {t:?}, which regex refuses: {e}"),
    };
    let Ok(theirs) = theirs else {
        return; // a regress departure
    };
    for subject in subjects {
        assert_eq!(
            ours.is_match(subject),
            theirs.find(subject).is_some(),
            "{pattern:?} (as {t:?}) on {subject:?}: regex and regress disagree"
        );
    }
}
