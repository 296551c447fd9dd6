//! The `format` assertion: whether a string is a valid `date-time`, `email`, `uri`, ….
//!
//! JSON Schema 2020-12 names the formats and the RFCs that define them; [`check_format`]
//! follows those RFCs (as the JSON Schema Test Suite reads them). Formats that pedelec does
//! not know are annotations only: [`check_format`] returns `None` for them.
//!
//! A session asserts the formats a tool's schema declares (`docs/formats.md` says why);
//! plain validation does with [`ValidationOptions::assert_formats`](super::ValidationOptions::assert_formats).
//! A refused value's error says what the format is, by which rule, with an example, and
//! for the usual near-misses what to change.
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
    Format::from_name(format).map(|format| format.check(value))
}

/// A format pedelec asserts, resolved once when a schema is compiled (a compiled node holds
/// `Option<Format>`: `None` for no `format` or one pedelec does not know).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    DateTime,
    Date,
    Time,
    Duration,
    Email,
    IdnEmail,
    Hostname,
    IdnHostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Iri,
    IriReference,
    Uuid,
    UriTemplate,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    /// Every format, in the order of [`ASSERTED_FORMATS`].
    const ALL: [Format; 19] = [
        Format::DateTime,
        Format::Date,
        Format::Time,
        Format::Duration,
        Format::Email,
        Format::IdnEmail,
        Format::Hostname,
        Format::IdnHostname,
        Format::Ipv4,
        Format::Ipv6,
        Format::Uri,
        Format::UriReference,
        Format::Iri,
        Format::IriReference,
        Format::Uuid,
        Format::UriTemplate,
        Format::JsonPointer,
        Format::RelativeJsonPointer,
        Format::Regex,
    ];

    /// The format named `name` in a schema.
    pub(crate) fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The format's name in a schema.
    pub(crate) const fn name(self) -> &'static str {
        self.about().0
    }

    /// Whether `value` is valid.
    pub(crate) fn check(self, value: &str) -> bool {
        match self {
            Format::DateTime => is_date_time(value),
            Format::Date => is_date(value.as_bytes()),
            Format::Time => is_time(value.as_bytes()),
            Format::Duration => is_duration(value.as_bytes()),
            Format::Email => is_email(value, false),
            Format::IdnEmail => is_email(value, true),
            Format::Hostname => idna::is_hostname(value),
            Format::IdnHostname => idna::is_idn_hostname(value),
            Format::Ipv4 => is_ipv4(value),
            Format::Ipv6 => is_ipv6(value),
            Format::Uri => fluent_uri::Uri::parse(value).is_ok(),
            Format::UriReference => fluent_uri::UriRef::parse(value).is_ok(),
            Format::Iri => fluent_uri::Iri::parse(value).is_ok(),
            Format::IriReference => fluent_uri::IriRef::parse(value).is_ok(),
            Format::Uuid => is_uuid(value.as_bytes()),
            Format::UriTemplate => template::is_uri_template(value),
            Format::JsonPointer => is_json_pointer(value.as_bytes()),
            Format::RelativeJsonPointer => is_relative_json_pointer(value.as_bytes()),
            Format::Regex => pedelec_rules::ecma::check_syntax(value).is_ok(),
        }
    }

    /// The name, what a valid value is called in a message, the rule that defines it, and
    /// a valid example.
    const fn about(self) -> (&'static str, &'static str, &'static str, &'static str) {
        match self {
            Format::DateTime => ("date-time", "date-time", "RFC 3339", "2024-05-17T09:30:00Z"),
            Format::Date => ("date", "date", "RFC 3339 full-date", "2024-05-17"),
            Format::Time => (
                "time",
                "time",
                "RFC 3339 full-time, with a time zone offset",
                "09:30:00Z",
            ),
            Format::Duration => ("duration", "duration", "ISO 8601", "P3DT12H30M"),
            Format::Email => (
                "email",
                "email address",
                "RFC 5321 mailbox",
                "name@example.com",
            ),
            Format::IdnEmail => (
                "idn-email",
                "email address",
                "RFC 6531 mailbox",
                "jörg@bücher.example",
            ),
            Format::Hostname => ("hostname", "hostname", "RFC 1123", "api.example.com"),
            Format::IdnHostname => (
                "idn-hostname",
                "hostname",
                "RFC 5890 IDNA2008",
                "bücher.example",
            ),
            Format::Ipv4 => ("ipv4", "IPv4 address", "dotted quad", "192.0.2.1"),
            Format::Ipv6 => ("ipv6", "IPv6 address", "RFC 4291", "2001:db8::1"),
            Format::Uri => (
                "uri",
                "URI",
                "RFC 3986, with a scheme",
                "https://example.com/a?b=c",
            ),
            Format::UriReference => ("uri-reference", "URI reference", "RFC 3986", "/a?b=c"),
            Format::Iri => (
                "iri",
                "IRI",
                "RFC 3987, with a scheme",
                "https://bücher.example/ü",
            ),
            Format::IriReference => ("iri-reference", "IRI reference", "RFC 3987", "/ü?b=c"),
            Format::Uuid => (
                "uuid",
                "UUID",
                "RFC 9562, 8-4-4-4-12 hex digits",
                "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
            ),
            Format::UriTemplate => (
                "uri-template",
                "URI template",
                "RFC 6570",
                "https://example.com/items/{id}",
            ),
            Format::JsonPointer => ("json-pointer", "JSON pointer", "RFC 6901", "/items/0"),
            Format::RelativeJsonPointer => (
                "relative-json-pointer",
                "relative JSON pointer",
                "draft-handrews-relative-json-pointer-01",
                "1/name",
            ),
            Format::Regex => ("regex", "regular expression", "ECMA-262", "^[a-z]+$"),
        }
    }

    /// Why `value` (which [`check`](Self::check) refused) is not valid, worded for the one
    /// who wrote it, a model as often as not: what the format is, by which rule, an
    /// example, and for the usual near-misses what to change. Follows the quoted value:
    /// `"bob@" is not a valid email address (RFC 5321 mailbox, e.g. "name@example.com"):
    /// the domain after "@" is missing`.
    pub(crate) fn explain(self, value: &str) -> String {
        let (_, noun, rule, example) = self.about();
        let mut message = format!("is not a valid {noun} ({rule}, e.g. {example:?})");
        if let Some(hint) = self.hint(value) {
            message.push_str(": ");
            message.push_str(hint);
        }
        message
    }

    /// What to change, for the near-misses that have one answer.
    fn hint(self, value: &str) -> Option<&'static str> {
        let with_utc = || format!("{value}Z");
        match self {
            Format::DateTime => {
                let b = value.as_bytes();
                if b.get(10) == Some(&b' ') {
                    let mut t = value.to_owned();
                    t.replace_range(10..11, "T");
                    if is_date_time(&t) || is_date_time(&format!("{t}Z")) {
                        return Some("separate the date and the time with \"T\"");
                    }
                }
                if is_date_time(&with_utc()) {
                    return Some(
                        "add a time zone offset: \"Z\" for UTC, or one such as \"+02:00\"",
                    );
                }
                is_date(b).then_some("add a time, such as \"T00:00:00Z\"")
            }
            Format::Time => is_time(with_utc().as_bytes())
                .then_some("add a time zone offset: \"Z\" for UTC, or one such as \"+02:00\""),
            Format::Date => (value.len() > 10 && is_date(&value.as_bytes()[..10]))
                .then_some("give the date alone, without a time"),
            Format::Email | Format::IdnEmail => {
                if !value.contains('@') {
                    Some("an address has a local part, \"@\" and a domain")
                } else if value.ends_with('@') {
                    Some("the domain after \"@\" is missing")
                } else {
                    None
                }
            }
            Format::Uri => fluent_uri::UriRef::parse(value)
                .is_ok()
                .then_some("it has no scheme: give an absolute URI, such as \"https://…\""),
            Format::Iri => fluent_uri::IriRef::parse(value)
                .is_ok()
                .then_some("it has no scheme: give an absolute IRI, such as \"https://…\""),
            _ => None,
        }
    }
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

/// `Dot-string`: atoms of `atext` separated by single dots (one pass, no splitting).
fn is_dot_atom(s: &str, international: bool) -> bool {
    let mut atom_empty = true;
    for c in s.chars() {
        if c == '.' {
            if atom_empty {
                return false;
            }
            atom_empty = true;
        } else if is_atext(c, international) {
            atom_empty = false;
        } else {
            return false;
        }
    }
    !atom_empty
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
        if !is_dot_atom(local, international) {
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
