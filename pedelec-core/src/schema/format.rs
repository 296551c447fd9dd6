//! The `format` assertion: whether a string is a valid `date-time`, `email`, `uri`, ….
//!
//! JSON Schema 2020-12 names the formats and the RFCs that define them; [`check_format`]
//! follows those RFCs (as the JSON Schema Test Suite reads them). Formats that pedelec does
//! not know are annotations only: [`check_format`] returns `None` for them.
//!
//! Where a maintained crate agrees with the JSON Schema Test Suite, the check is the
//! crate's: `std::net` for IP addresses, `fluent_uri` for URIs and IRIs. The others are
//! parsers written here (no allocation on the common paths, no regex), each saying why no
//! crate serves.

mod idna;
mod idna_tables;
mod template;

/// The formats [`check_format`] asserts: every format JSON Schema 2020-12 defines, in the
/// order of its validation specification.
pub const ASSERTED_FORMATS: &[&str] = pedelec_rules::FORMATS;

/// Whether `value` is valid for `format`; `None` when pedelec does not know the format (it is
/// then an annotation, and every string is valid).
///
/// | format | definition |
/// |---|---|
/// | `date-time`, `date`, `time` | RFC 3339 §5.6 (`T`/`Z` in either case, leap seconds only at 23:59:60 UTC) |
/// | `duration` | RFC 3339 appendix A (ISO 8601 durations) |
/// | `email`, `idn-email` | RFC 5321 §4.1.2 mailbox, RFC 6531 for the internationalized one |
/// | `hostname`, `idn-hostname` | RFC 1123 §2.1, with A-labels and U-labels checked against IDNA2008 (RFC 5890–5893) |
/// | `ipv4`, `ipv6` | RFC 2673 §3.2 dotted quad, RFC 4291 §2.2 (`std::net`) |
/// | `uri`, `uri-reference`, `iri`, `iri-reference` | RFC 3986, RFC 3987 (`fluent_uri`) |
/// | `uuid` | RFC 9562 (any version and variant) |
/// | `uri-template` | RFC 6570 (level 4) |
/// | `json-pointer`, `relative-json-pointer` | RFC 6901, draft-handrews-relative-json-pointer-01 |
/// | `regex` | ECMA-262 syntax (unicode mode), see [`pedelec_rules::ecma::check_syntax`] |
///
/// ```
/// use pedelec_core::schema::format::check_format;
/// assert_eq!(check_format("date", "2024-02-29"), Some(true));
/// assert_eq!(check_format("date", "2023-02-29"), Some(false));
/// assert_eq!(check_format("int32", "anything"), None);
/// ```
#[must_use]
pub fn check_format(format: &str, value: &str) -> Option<bool> {
    Some(match format {
        "date-time" => is_date_time(value),
        "date" => is_date(value.as_bytes()),
        "time" => is_time(value.as_bytes()),
        "duration" => is_duration(value.as_bytes()),
        "email" => is_email(value, false),
        "idn-email" => is_email(value, true),
        "hostname" => idna::is_hostname(value),
        "idn-hostname" => idna::is_idn_hostname(value),
        "ipv4" => is_ipv4(value),
        "ipv6" => is_ipv6(value),
        "uri" => fluent_uri::Uri::parse(value).is_ok(),
        "uri-reference" => fluent_uri::UriRef::parse(value).is_ok(),
        "iri" => fluent_uri::Iri::parse(value).is_ok(),
        "iri-reference" => fluent_uri::IriRef::parse(value).is_ok(),
        "uuid" => is_uuid(value.as_bytes()),
        "uri-template" => template::is_uri_template(value),
        "json-pointer" => is_json_pointer(value.as_bytes()),
        "relative-json-pointer" => is_relative_json_pointer(value.as_bytes()),
        "regex" => pedelec_rules::ecma::check_syntax(value).is_ok(),
        _ => return None,
    })
}

// ---------------------------------------------------------------------------------------
// Dates and times (RFC 3339 §5.6)

/// `n` ASCII digits at the start of `b`, as a number.
fn digits(b: &[u8], n: usize) -> Option<u32> {
    let digits = b.get(..n)?;
    digits.iter().try_fold(0, |acc, &d| {
        d.is_ascii_digit().then(|| acc * 10 + u32::from(d - b'0'))
    })
}

fn is_leap_year(year: u32) -> bool {
    year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400))
}

/// `full-date = date-fullyear "-" date-month "-" date-mday`.
fn is_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) =
        (digits(b, 4), digits(&b[5..], 2), digits(&b[8..], 2))
    else {
        return false;
    };
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap_year(year) => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// `full-time = partial-time time-offset`; a leap second (`:60`) only where it is 23:59:60
/// in UTC.
fn is_time(b: &[u8]) -> bool {
    if b.len() < 9 || b[2] != b':' || b[5] != b':' {
        return false;
    }
    let (Some(hour), Some(minute), Some(second)) =
        (digits(b, 2), digits(&b[3..], 2), digits(&b[6..], 2))
    else {
        return false;
    };
    if hour > 23 || minute > 59 || second > 60 {
        return false;
    }
    let mut rest = &b[8..];
    if let [b'.', fraction @ ..] = rest {
        let n = fraction.iter().take_while(|d| d.is_ascii_digit()).count();
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    // Minutes to add to local time to get UTC.
    let to_utc: i64 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), offset @ ..] => {
            if offset.len() != 5 || offset[2] != b':' {
                return false;
            }
            let (Some(h), Some(m)) = (digits(offset, 2), digits(&offset[3..], 2)) else {
                return false;
            };
            if h > 23 || m > 59 {
                return false;
            }
            let minutes = i64::from(h * 60 + m);
            if *sign == b'+' { -minutes } else { minutes }
        }
        _ => return false,
    };
    if second == 60 {
        let utc = (i64::from(hour * 60 + minute) + to_utc).rem_euclid(24 * 60);
        return utc == 23 * 60 + 59;
    }
    true
}

/// `date-time = full-date "T" full-time` (`T` in either case).
fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() > 11 && matches!(b[10], b'T' | b't') && is_date(&b[..10]) && is_time(&b[11..])
}

/// RFC 3339 appendix A: `P` then weeks alone, or date units then `T` and time units, each a
/// number and a unit, in order and without gaps (`P1Y2D` is not valid, `P1M2D` is).
fn is_duration(b: &[u8]) -> bool {
    let [b'P', rest @ ..] = b else { return false };
    if rest.is_empty() {
        return false;
    }
    if let Some(weeks) = rest.strip_suffix(b"W") {
        return !weeks.is_empty() && weeks.iter().all(u8::is_ascii_digit);
    }
    let (date, time) = match rest.iter().position(|&c| c == b'T') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    units_in_order(date, b"YMD") && time.is_none_or(|t| !t.is_empty() && units_in_order(t, b"HMS"))
}

/// `(digits unit)*` where the units are a contiguous run of `order`.
fn units_in_order(mut s: &[u8], order: &[u8]) -> bool {
    let mut next: Option<usize> = None; // index in `order` the next unit must have
    while !s.is_empty() {
        let n = s.iter().take_while(|d| d.is_ascii_digit()).count();
        if n == 0 || n == s.len() {
            return false;
        }
        let Some(i) = order.iter().position(|&u| u == s[n]) else {
            return false;
        };
        if next.is_some_and(|expected| expected != i) {
            return false;
        }
        next = Some(i + 1);
        s = &s[n + 1..];
    }
    true
}

// ---------------------------------------------------------------------------------------
// Email (RFC 5321 §4.1.2, RFC 6531 §3.3)

fn is_atext(c: char, international: bool) -> bool {
    c.is_ascii_alphanumeric()
        || "!#$%&'*+-/=?^_`{|}~".contains(c)
        || (international && !c.is_ascii())
}

/// A mailbox. Not `email_address`: it accepts what RFC 5321 and the suite reject, a domain
/// that is no hostname (`joe.bloggs@invalid=domain.com`) and an address literal that is
/// no IPv4 address (`joe.bloggs@[127.0.0.300]`), and it has no switch between `email`
/// (ASCII, RFC 5321) and `idn-email` (RFC 6531).
fn is_email(s: &str, international: bool) -> bool {
    let (local, domain) = if s.starts_with('"') {
        // Quoted-string: the closing quote is the first one not escaped.
        let mut escaped = false;
        let mut end = None;
        for (i, c) in s.char_indices().skip(1) {
            if escaped {
                let printable = (' '..='~').contains(&c) || (international && !c.is_ascii());
                if !printable {
                    return false;
                }
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                end = Some(i);
                break;
            } else {
                // qtextSMTP (RFC 6531 adds every non-ASCII character).
                let qtext = matches!(c, ' ' | '!' | '#'..='[' | ']'..='~')
                    || (international && !c.is_ascii());
                if !qtext {
                    return false;
                }
            }
        }
        let Some(end) = end else { return false };
        let Some(domain) = s[end + 1..].strip_prefix('@') else {
            return false;
        };
        (&s[..=end], domain)
    } else {
        let Some((local, domain)) = s.split_once('@') else {
            return false;
        };
        if !local
            .split('.')
            .all(|atom| !atom.is_empty() && atom.chars().all(|c| is_atext(c, international)))
        {
            return false;
        }
        (local, domain)
    };
    // RFC 5321 §4.5.3.1: a local part is at most 64 octets, a domain at most 255.
    if local.len() > 64 || domain.len() > 255 {
        return false;
    }
    if let Some(literal) = domain.strip_prefix('[') {
        let Some(literal) = literal.strip_suffix(']') else {
            return false;
        };
        // Address literals: IPv4, or `IPv6:` and an IPv6 address (no other tag is registered).
        return match literal.get(..5) {
            Some(tag) if tag.eq_ignore_ascii_case("IPv6:") => is_ipv6(&literal[5..]),
            _ => is_ipv4(literal),
        };
    }
    if international {
        idna::is_idn_hostname(domain)
    } else {
        idna::is_hostname(domain)
    }
}

// ---------------------------------------------------------------------------------------
// IP addresses

/// Dotted-quad IPv4 address (RFC 2673 §3.2: four decimal octets, no leading zeros):
/// exactly what `std::net::Ipv4Addr` parses.
fn is_ipv4(s: &str) -> bool {
    s.parse::<std::net::Ipv4Addr>().is_ok()
}

/// IPv6 address in RFC 4291 §2.2 text form (with `::` and a trailing IPv4 part), no zone,
/// no brackets: exactly what `std::net::Ipv6Addr` parses.
fn is_ipv6(s: &str) -> bool {
    s.parse::<std::net::Ipv6Addr>().is_ok()
}

// ---------------------------------------------------------------------------------------
// UUID, JSON pointers

/// `8-4-4-4-12` hex digits (RFC 9562 §4: any version, any variant, either case).
fn is_uuid(b: &[u8]) -> bool {
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// RFC 6901: empty, or `/`-separated reference tokens where `~` is always `~0` or `~1`.
fn is_json_pointer(b: &[u8]) -> bool {
    if b.is_empty() {
        return true;
    }
    if b[0] != b'/' {
        return false;
    }
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'~' {
            if !matches!(b.get(i + 1), Some(b'0' | b'1')) {
                return false;
            }
            i += 1;
        }
        i += 1;
    }
    true
}

/// A non-negative integer (no leading zeros), then `#` or a JSON pointer.
fn is_relative_json_pointer(b: &[u8]) -> bool {
    let n = b.iter().take_while(|d| d.is_ascii_digit()).count();
    if n == 0 || (n > 1 && b[0] == b'0') {
        return false;
    }
    let rest = &b[n..];
    rest == b"#" || is_json_pointer(rest)
}

#[cfg(test)]
mod tests;
