//! URIs and IRIs (RFC 3986, RFC 3987) and URI templates (RFC 6570).

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Uri,
    UriReference,
    Iri,
    IriReference,
}

impl Kind {
    fn iri(self) -> bool {
        matches!(self, Kind::Iri | Kind::IriReference)
    }

    fn reference(self) -> bool {
        matches!(self, Kind::UriReference | Kind::IriReference)
    }
}

fn is_unreserved_ascii(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn is_sub_delim(c: char) -> bool {
    matches!(
        c,
        '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '='
    )
}

/// RFC 3987 `ucschar`.
pub(super) fn is_ucschar(c: char) -> bool {
    let c = u32::from(c);
    matches!(c, 0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF)
        || (c >= 0x10000 && c & 0xFFFF <= 0xFFFD && c < 0xE0000)
        || (0xE1000..=0xEFFFD).contains(&c)
}

/// RFC 3987 `iprivate`.
pub(super) fn is_iprivate(c: char) -> bool {
    matches!(u32::from(c), 0xE000..=0xF8FF | 0xF0000..=0xFFFFD | 0x10_0000..=0x10_FFFD)
}

/// Checks `s` character by character: `allowed` ASCII characters or (for IRIs) `ucschar`,
/// plus `%XX` escapes.
fn chars_ok(s: &str, iri: bool, private: bool, allowed: impl Fn(char) -> bool) -> bool {
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        let ok = if c == '%' {
            matches!((chars.next(), chars.next()), (Some(a), Some(b)) if a.is_ascii_hexdigit() && b.is_ascii_hexdigit())
        } else if c.is_ascii() {
            allowed(c)
        } else {
            iri && (is_ucschar(c) || (private && is_iprivate(c)))
        };
        if !ok {
            return false;
        }
    }
    true
}

fn is_pchar(c: char) -> bool {
    is_unreserved_ascii(c) || is_sub_delim(c) || c == ':' || c == '@'
}

/// `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`.
fn is_scheme(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
}

pub(super) fn is_uri(s: &str, kind: Kind) -> bool {
    let iri = kind.iri();
    let (s, fragment) = match s.split_once('#') {
        Some((s, f)) => (s, Some(f)),
        None => (s, None),
    };
    if let Some(f) = fragment
        && !chars_ok(f, iri, false, |c| is_pchar(c) || c == '/' || c == '?')
    {
        return false;
    }
    let (s, query) = match s.split_once('?') {
        Some((s, q)) => (s, Some(q)),
        None => (s, None),
    };
    if let Some(q) = query
        && !chars_ok(q, iri, true, |c| is_pchar(c) || c == '/' || c == '?')
    {
        return false;
    }
    // A scheme is whatever precedes the first `:` when no `/` comes before it.
    let scheme_end = s.find(':').filter(|&i| !s[..i].contains('/'));
    let rest = match scheme_end {
        Some(i) if is_scheme(&s[..i]) => &s[i + 1..],
        _ if kind.reference() => {
            // relative-ref: a first segment with `:` would read as a scheme (path-noscheme).
            if !s.starts_with('/') && s.split('/').next().is_some_and(|seg| seg.contains(':')) {
                return false;
            }
            s
        }
        _ => return false,
    };
    let path = if let Some(after) = rest.strip_prefix("//") {
        let end = after.find('/').unwrap_or(after.len());
        if !is_authority(&after[..end], iri) {
            return false;
        }
        &after[end..]
    } else {
        rest
    };
    // path-abempty / path-absolute / path-rootless / path-noscheme / path-empty: segments of
    // pchar (the `//` case went to the authority above).
    chars_ok(path, iri, false, |c| is_pchar(c) || c == '/')
}

/// `authority = [ userinfo "@" ] host [ ":" port ]`.
fn is_authority(a: &str, iri: bool) -> bool {
    let (userinfo, hostport) = match a.split_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, a),
    };
    if let Some(u) = userinfo
        && !chars_ok(u, iri, false, |c| {
            is_unreserved_ascii(c) || is_sub_delim(c) || c == ':'
        })
    {
        return false;
    }
    let (host, port) = if let Some(literal) = hostport.strip_prefix('[') {
        let Some(end) = literal.find(']') else {
            return false;
        };
        if !is_ip_literal(&literal[..end]) {
            return false;
        }
        match &literal[end + 1..] {
            "" => return true,
            rest => match rest.strip_prefix(':') {
                Some(port) => ("", port),
                None => return false,
            },
        }
    } else {
        match hostport.split_once(':') {
            Some((h, p)) => (h, p),
            None => (hostport, ""),
        }
    };
    port.bytes().all(|b| b.is_ascii_digit())
        && chars_ok(host, iri, false, |c| {
            is_unreserved_ascii(c) || is_sub_delim(c)
        })
}

/// `IP-literal` without the brackets: an IPv6 address or `IPvFuture`.
fn is_ip_literal(s: &str) -> bool {
    if let Some(future) = s.strip_prefix(['v', 'V']) {
        let Some((version, rest)) = future.split_once('.') else {
            return false;
        };
        return !version.is_empty()
            && version.bytes().all(|b| b.is_ascii_hexdigit())
            && !rest.is_empty()
            && rest
                .chars()
                .all(|c| is_unreserved_ascii(c) || is_sub_delim(c) || c == ':');
    }
    super::is_ipv6(s.as_bytes())
}

/// RFC 6570 URI Template (up to level 4).
pub(super) fn is_uri_template(s: &str) -> bool {
    let mut rest = s;
    while !rest.is_empty() {
        if let Some(expr) = rest.strip_prefix('{') {
            let Some(end) = expr.find('}') else {
                return false;
            };
            if !is_expression(&expr[..end]) {
                return false;
            }
            rest = &expr[end + 1..];
        } else {
            let end = rest.find('{').unwrap_or(rest.len());
            // literals: any ASCII but CTL, SP, `"`, `%` (except in `%XX`), `<`, `>`, `\`, `^`,
            // `` ` ``, `{`, `|`, `}` (the apostrophe is allowed: RFC 6570 erratum 6937), or
            // `ucschar` / `iprivate`.
            let ok = chars_ok(&rest[..end], true, true, |c| {
                c.is_ascii_graphic() && !"\"<>\\^`{|}".contains(c)
            });
            if !ok {
                return false;
            }
            rest = &rest[end..];
        }
    }
    true
}

/// Inside `{…}`: `[ operator ] variable-list`.
fn is_expression(e: &str) -> bool {
    let list = e
        .strip_prefix(['+', '#', '.', '/', ';', '?', '&'])
        .unwrap_or(e);
    !list.is_empty() && list.split(',').all(is_varspec)
}

/// `varname [ ":" max-length / "*" ]`.
fn is_varspec(v: &str) -> bool {
    let (name, modifier) = match v.find([':', '*']) {
        Some(i) => (&v[..i], &v[i..]),
        None => (v, ""),
    };
    let modifier_ok = match modifier {
        "" | "*" => true,
        m => m.strip_prefix(':').is_some_and(|len| {
            (1..=4).contains(&len.len())
                && !len.starts_with('0')
                && len.bytes().all(|b| b.is_ascii_digit())
        }),
    };
    // varname = varchar *( ["."] varchar ); varchar = ALPHA / DIGIT / "_" / pct-encoded.
    modifier_ok
        && !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && chars_ok(part, false, false, |c| {
                    c.is_ascii_alphanumeric() || c == '_'
                })
        })
}
