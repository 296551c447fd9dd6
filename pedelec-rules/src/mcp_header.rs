//! `x-mcp-header` (MCP 2026-07-28, SEP-2243): a tool argument a client mirrors into an
//! `Mcp-Param-{name}` HTTP header, so a load balancer or gateway can route on it without
//! reading the body.
//!
//! The transport specification's rules: the name is an RFC 9110 `token` (one or more ASCII
//! letters, digits and the symbols RFC 9110 §5.6.2 lists: no space, no `:`, nothing outside
//! ASCII),
//! unique case-insensitively within a tool; only `string`, `integer` and `boolean`
//! arguments may carry one. A client drops a tool whose annotations break a rule.

/// Why an `x-mcp-header` name is not an RFC 9110 token, or `None` when it is one.
///
/// `const`, so a schema built in a `const` is checked at compile time.
#[must_use]
pub const fn header_name_problem(name: &str) -> Option<&'static str> {
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return Some("an `x-mcp-header` name is empty; name the header, like \"Region\"");
    }
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if !is_token_byte(b) {
            return Some(match b {
                b' ' | b'\t' => {
                    "an `x-mcp-header` name contains whitespace; an HTTP header name is one \
                     token (letters, digits and !#$%&'*+-.^_`|~), like \"TargetRegion\""
                }
                b':' => {
                    "an `x-mcp-header` name contains `:`, which ends an HTTP header name; use \
                     letters, digits and !#$%&'*+-.^_`|~"
                }
                0x80.. => {
                    "an `x-mcp-header` name contains a character outside ASCII; an HTTP header \
                     name is letters, digits and !#$%&'*+-.^_`|~"
                }
                _ => {
                    "an `x-mcp-header` name may contain only letters, digits and \
                     !#$%&'*+-.^_`|~ (an RFC 9110 token)"
                }
            });
        }
        i += 1;
    }
    None
}

/// Whether `b` is an RFC 9110 `tchar`.
#[must_use]
pub const fn is_token_byte(b: u8) -> bool {
    matches!(
        b,
        b'!' | b'#'
            | b'$'
            | b'%'
            | b'&'
            | b'\''
            | b'*'
            | b'+'
            | b'-'
            | b'.'
            | b'^'
            | b'_'
            | b'`'
            | b'|'
            | b'~'
            | b'0'..=b'9'
            | b'a'..=b'z'
            | b'A'..=b'Z'
    )
}

/// Whether two header names are the same header (HTTP field names are case-insensitive).
#[must_use]
pub const fn same_header(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_pass_and_everything_else_is_named() {
        for ok in ["Region", "X-Tenant_1", "a.b~c|d", "!#$%&'*+-.^_`|~09azAZ"] {
            assert_eq!(header_name_problem(ok), None, "{ok}");
        }
        for (bad, says) in [
            ("", "empty"),
            ("My Region", "whitespace"),
            ("Region\t1", "whitespace"),
            ("Region:Primary", "`:`"),
            ("Région", "outside ASCII"),
            ("Re\"gion", "RFC 9110 token"),
            ("Re\ngion", "RFC 9110 token"),
        ] {
            let problem = header_name_problem(bad).unwrap_or_default();
            assert!(problem.contains(says), "{bad:?}: {problem}");
        }
    }

    #[test]
    fn header_names_compare_without_case() {
        assert!(same_header("MyField", "myfield"));
        assert!(!same_header("MyField", "MyFields"));
        assert!(!same_header("Region", "Regioo"));
    }
}
