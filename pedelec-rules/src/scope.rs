//! OAuth scopes a tool declares (`#[tool(scopes = [...])]`, `ToolDefinition::with_scopes`):
//! each an RFC 6749 scope token, none listed twice.
//!
//! RFC 6749 §3.3: `scope-token = 1*( %x21 / %x23-5B / %x5D-7E )`: one or more printable
//! ASCII characters other than space, `"` and `\`. A space separates scopes in the `scope`
//! parameter and claim, so a token can never contain one.

use std::fmt;

use crate::Quoted;

/// Why a scope is not an RFC 6749 scope token. The message quotes the scope, so it stands on
/// its own in a list of problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScopeProblem<'a> {
    /// The scope is empty.
    Empty,
    /// The scope contains a space (which separates scopes in OAuth).
    Space {
        /// The scope.
        scope: &'a str,
    },
    /// A character outside `%x21 / %x23-5B / %x5D-7E`: a control character, `"`, `\`, or
    /// anything not ASCII.
    BadChar {
        /// The scope.
        scope: &'a str,
        /// The offending character.
        found: char,
        /// Its byte offset in the scope.
        at: usize,
    },
}

impl fmt::Display for ScopeProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ScopeProblem::Empty => f.write_str("scope is empty"),
            ScopeProblem::Space { scope } => write!(
                f,
                "scope {scope:?} contains a space, which separates scopes in OAuth; each scope \
                 is one token"
            ),
            ScopeProblem::BadChar { scope, found, .. } => write!(
                f,
                "scope {scope:?} may contain only printable ASCII characters other than space, \
                 `\"` and `\\`; found {}",
                Quoted(found)
            ),
        }
    }
}

/// Whether `b` may appear in a scope token (`%x21 / %x23-5B / %x5D-7E`).
#[must_use]
pub const fn is_scope_byte(b: u8) -> bool {
    matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E)
}

/// Checks one scope against RFC 6749's `scope-token`.
///
/// ```
/// use pedelec_rules::scope::{check_scope, ScopeProblem};
/// assert_eq!(check_scope("counter:write"), Ok(()));
/// assert_eq!(check_scope("https://graph.example.com/User.Read"), Ok(()));
/// assert_eq!(check_scope(""), Err(ScopeProblem::Empty));
/// assert_eq!(check_scope("a b"), Err(ScopeProblem::Space { scope: "a b" }));
/// assert_eq!(
///     check_scope("a\"b").unwrap_err().to_string(),
///     "scope \"a\\\"b\" may contain only printable ASCII characters other than space, `\"` and `\\`; found `\"`"
/// );
/// ```
pub const fn check_scope(scope: &str) -> Result<(), ScopeProblem<'_>> {
    let bytes = scope.as_bytes();
    if bytes.is_empty() {
        return Err(ScopeProblem::Empty);
    }
    // A space is reported before any other character: it is the likely mistake (several
    // scopes written as one string, the way OAuth's `scope` parameter joins them).
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b' ' {
            return Err(ScopeProblem::Space { scope });
        }
        i += 1;
    }
    let mut i = 0;
    while i < bytes.len() {
        if !is_scope_byte(bytes[i]) {
            return Err(ScopeProblem::BadChar {
                scope,
                found: crate::first_char(scope, i),
                at: i,
            });
        }
        i += 1;
    }
    Ok(())
}

/// The index of the first scope before `index` equal to `scopes[index]`, if any: a scope is
/// listed once.
#[must_use]
pub const fn earlier_duplicate(scopes: &[&str], index: usize) -> Option<usize> {
    let mut j = 0;
    while j < index {
        if crate::str_eq(scopes[j], scopes[index]) {
            return Some(j);
        }
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_tokens() {
        for ok in [
            "a",
            "counter:write",
            "read:user/*",
            "!#$%&'()*+,-./[]^_`{|}~",
            "openid",
        ] {
            assert_eq!(check_scope(ok), Ok(()), "{ok}");
        }
        assert_eq!(check_scope(""), Err(ScopeProblem::Empty));
        assert_eq!(
            check_scope("x\\y"),
            Err(ScopeProblem::BadChar {
                scope: "x\\y",
                found: '\\',
                at: 1
            })
        );
        assert_eq!(
            check_scope("zähler"),
            Err(ScopeProblem::BadChar {
                scope: "zähler",
                found: 'ä',
                at: 1
            })
        );
        assert_eq!(
            check_scope("a\tb").unwrap_err().to_string(),
            "scope \"a\\tb\" may contain only printable ASCII characters other than space, `\"` \
             and `\\`; found '\\t'"
        );
        // The space wins over an earlier bad character: it is the likely mistake.
        assert_eq!(
            check_scope("\"a b"),
            Err(ScopeProblem::Space { scope: "\"a b" })
        );
        assert_eq!(
            check_scope("read write").unwrap_err().to_string(),
            "scope \"read write\" contains a space, which separates scopes in OAuth; each scope \
             is one token"
        );
        // Every byte of the grammar, and nothing else.
        for b in 0..=255u8 {
            let expected = (0x21..=0x7E).contains(&b) && b != b'"' && b != b'\\';
            assert_eq!(is_scope_byte(b), expected, "{b:#x}");
        }
    }

    #[test]
    fn duplicates() {
        let scopes = ["a", "b", "a", "b"];
        assert_eq!(earlier_duplicate(&scopes, 0), None);
        assert_eq!(earlier_duplicate(&scopes, 1), None);
        assert_eq!(earlier_duplicate(&scopes, 2), Some(0));
        assert_eq!(earlier_duplicate(&scopes, 3), Some(1));
    }
}
