//! URI templates (RFC 6570). URIs and IRIs themselves are `fluent_uri`'s (RFC 3986,
//! RFC 3987): it has no templates.

/// RFC 3987 `ucschar`.
fn is_ucschar(c: char) -> bool {
    let c = u32::from(c);
    matches!(c, 0xA0..=0xD7FF | 0xF900..=0xFDCF | 0xFDF0..=0xFFEF)
        || (c >= 0x10000 && c & 0xFFFF <= 0xFFFD && c < 0xE0000)
        || (0xE1000..=0xEFFFD).contains(&c)
}

/// RFC 3987 `iprivate`.
fn is_iprivate(c: char) -> bool {
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
