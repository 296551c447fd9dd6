//! Remote tool names as wire names: `namespace.tool`, the remote's name kept when it
//! follows pedelec's tool name rule, mapped reversibly when it does not.
//!
//! The mapping: every character outside `[A-Za-z0-9_.-]` becomes `_` followed by its
//! Unicode scalar value in lowercase hex and `_`, and a `_` that would otherwise start such
//! a sequence (`_` + hex digits + `_`) is written `_5f_`, so that every mapped name reads
//! back to exactly one remote name (`page:read` → `page_3a_read`, `a b` → `a_20_b`). A name
//! that follows the rule and holds no such sequence is its own wire name, which is the
//! usual case. The namespace makes the first character a letter, so a remote name may
//! start with anything.

use std::fmt::Write as _;

/// The wire name of the remote tool `remote` under `namespace`.
pub(crate) fn wire_name(namespace: &str, remote: &str) -> String {
    let mut out = String::with_capacity(namespace.len() + 1 + remote.len());
    out.push_str(namespace);
    out.push('.');
    let chars: Vec<char> = remote.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let allowed = c.is_ascii_alphanumeric() || c == '.' || c == '-';
        if allowed {
            out.push(c);
        } else if c == '_' && !looks_escaped(&chars[i..]) {
            out.push('_');
        } else {
            let _ = write!(out, "_{:x}_", u32::from(c));
        }
    }
    out
}

/// The remote name of a wire name under `namespace`, or `None` when the wire name is not
/// one [`wire_name`] writes. (The gateway keeps each tool's remote name beside it; this
/// inverse proves the mapping reversible.)
#[cfg(test)]
fn remote_name(namespace: &str, wire: &str) -> Option<String> {
    let rest = wire.strip_prefix(namespace)?.strip_prefix('.')?;
    let chars: Vec<char> = rest.chars().collect();
    let mut out = String::with_capacity(rest.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '_'
            && let Some(len) = escape_len(&chars[i..])
        {
            let hex: String = chars[i + 1..i + len - 1].iter().collect();
            out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            i += len;
        } else {
            out.push(c);
            i += 1;
        }
    }
    (wire_name(namespace, &out) == wire).then_some(out)
}

/// Whether `chars` starts with `_hex_` (which a literal `_` must not be read as).
fn looks_escaped(chars: &[char]) -> bool {
    escape_len(chars).is_some()
}

/// The length of an escape `_` + 1 to 6 lowercase hex digits + `_` at the start of `chars`.
fn escape_len(chars: &[char]) -> Option<usize> {
    if chars.first() != Some(&'_') {
        return None;
    }
    let digits = chars[1..]
        .iter()
        .take(7)
        .take_while(|c| c.is_ascii_digit() || ('a'..='f').contains(*c))
        .count();
    ((1..=6).contains(&digits) && chars.get(1 + digits) == Some(&'_')).then_some(digits + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for remote in [
            "echo",
            "get-weather",
            "snake_case_name",
            "a.b.c",
            "page:read",
            "a b",
            "_5f_",
            "x_1_y",
            "2fast",
            "Größe",
            "tool/with/slashes",
            "_",
            "__",
            "emoji🚲",
            "",
        ] {
            let wire = wire_name("ns", remote);
            assert!(
                pedelec_rules::check_tool_name(&wire).is_ok(),
                "{remote:?} → {wire:?} breaks the rule"
            );
            assert_eq!(remote_name("ns", &wire).as_deref(), Some(remote), "{wire}");
        }
        assert_eq!(wire_name("ns", "get-weather"), "ns.get-weather");
        assert_eq!(wire_name("ns", "page:read"), "ns.page_3a_read");
        assert_eq!(wire_name("ns", "x_1_y"), "ns.x_5f_1_y");
        assert_eq!(remote_name("ns", "other.echo"), None);
        assert_eq!(remote_name("ns", "ns.a_3a_b"), Some("a:b".to_owned()));
    }

    #[test]
    fn distinct_remote_names_have_distinct_wire_names() {
        let names = ["a:b", "a_3a_b", "a_b", "a b", "a-b", "a.b"];
        let wires: std::collections::HashSet<String> =
            names.iter().map(|n| wire_name("ns", n)).collect();
        assert_eq!(wires.len(), names.len());
    }
}
