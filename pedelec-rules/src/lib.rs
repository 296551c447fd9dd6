//! The rules pedelec checks in two places: at compile time, in `pedelec-macros` (so a bad
//! `#[tool(name = "...")]` is a spanned compile error), and at run time, in `pedelec-core`
//! (for tools defined from JSON). One implementation serves both.
//!
//! Everything here is `const fn` where it can be, so generated code can also run a rule in a
//! `const` item when the value is only known after name resolution (a `description` given
//! as a path to a constant, say).

pub mod constraint;
pub mod ecma;
pub mod icon;
pub mod mcp_header;
mod number;
pub mod provider;
pub mod scope;

pub use number::Number;

use std::fmt;

/// Why a tool name breaks the Pedelec rule: it must start with an ASCII letter and contain
/// only ASCII letters, digits, `_`, `.` and `-`. The message quotes the name, so it stands
/// on its own in a list of problems.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameProblem<'a> {
    /// The name is empty.
    Empty,
    /// The first character is not an ASCII letter.
    BadStart {
        /// The name.
        name: &'a str,
        /// The offending character.
        found: char,
    },
    /// A character other than an ASCII letter, digit, `_`, `.` or `-`.
    BadChar {
        /// The name.
        name: &'a str,
        /// The offending character.
        found: char,
        /// Its byte offset in the name.
        at: usize,
    },
}

impl fmt::Display for NameProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            NameProblem::Empty => {
                f.write_str("tool name is empty; it must start with an ASCII letter")
            }
            NameProblem::BadStart { name, found } => write!(
                f,
                "tool name {name:?} must start with an ASCII letter, not {}",
                Quoted(found)
            ),
            NameProblem::BadChar { name, found, .. } => write!(
                f,
                "tool name {name:?} may contain only ASCII letters, digits, `_`, `.` and `-`; found {}",
                Quoted(found)
            ),
        }
    }
}

pub(crate) struct Quoted(pub(crate) char);

impl fmt::Display for Quoted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ' ' => f.write_str("a space"),
            c if c.is_control() => write!(f, "{c:?}"),
            c => write!(f, "`{c}`"),
        }
    }
}

const fn is_name_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-'
}

/// Checks a tool name against the Pedelec rule.
///
/// ```
/// use pedelec_rules::{check_tool_name, NameProblem};
/// assert_eq!(check_tool_name("update_counter"), Ok(()));
/// assert_eq!(check_tool_name("nav.open-url2"), Ok(()));
/// assert_eq!(check_tool_name("2fast"), Err(NameProblem::BadStart { name: "2fast", found: '2' }));
/// assert_eq!(check_tool_name("a b"), Err(NameProblem::BadChar { name: "a b", found: ' ', at: 1 }));
/// assert_eq!(
///     check_tool_name("page:read").unwrap_err().to_string(),
///     "tool name \"page:read\" may contain only ASCII letters, digits, `_`, `.` and `-`; found `:`"
/// );
/// ```
pub const fn check_tool_name(name: &str) -> Result<(), NameProblem<'_>> {
    let bytes = name.as_bytes();
    if bytes.is_empty() {
        return Err(NameProblem::Empty);
    }
    if !bytes[0].is_ascii_alphabetic() {
        return Err(NameProblem::BadStart {
            name,
            found: first_char(name, 0),
        });
    }
    let mut i = 1;
    while i < bytes.len() {
        if !is_name_char(bytes[i]) {
            return Err(NameProblem::BadChar {
                name,
                found: first_char(name, i),
                at: i,
            });
        }
        i += 1;
    }
    Ok(())
}

/// The character starting at byte `at` (a char boundary: every byte before it is ASCII),
/// decoded by hand because `str::chars` is not `const`.
pub(crate) const fn first_char(s: &str, at: usize) -> char {
    let b = s.as_bytes();
    let lead = b[at] as u32;
    let (mut code, len) = if lead < 0x80 {
        (lead, 1)
    } else if lead >> 5 == 0b110 {
        (lead & 0x1F, 2)
    } else if lead >> 4 == 0b1110 {
        (lead & 0x0F, 3)
    } else {
        (lead & 0x07, 4)
    };
    let mut i = 1;
    while i < len && at + i < b.len() {
        code = (code << 6) | (b[at + i] as u32 & 0x3F);
        i += 1;
    }
    match char::from_u32(code) {
        Some(c) => c,
        None => '\u{FFFD}',
    }
}

/// A valid name close to an invalid one, for a "help:" line: accented Latin letters lose
/// their accents (`"café"` → `"cafe"`), other characters that are not allowed become `_`
/// (runs collapse), and leading characters that cannot start a name are dropped
/// (`"open url"` → `"open_url"`, `"2fast"` → `"fast"`). `None` when no letter is left to
/// start with.
///
/// ```
/// assert_eq!(pedelec_rules::suggest_tool_name("open url").as_deref(), Some("open_url"));
/// assert_eq!(pedelec_rules::suggest_tool_name("Größe").as_deref(), Some("Grosse"));
/// assert_eq!(pedelec_rules::suggest_tool_name("_9"), None);
/// ```
#[must_use]
pub fn suggest_tool_name(name: &str) -> Option<String> {
    let mut folded = String::with_capacity(name.len());
    for c in name.chars() {
        match ascii_fold(c) {
            Some(ascii) => folded.push_str(ascii),
            None => folded.push(c),
        }
    }
    let start = folded.find(|c: char| c.is_ascii_alphabetic())?;
    let mut out = String::with_capacity(folded.len());
    for c in folded[start..].chars() {
        if c.is_ascii() && is_name_char(c as u8) {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    (check_tool_name(&out).is_ok()).then_some(out)
}

/// The ASCII spelling of an accented Latin letter (Latin-1 Supplement and Latin
/// Extended-A), for suggestions.
fn ascii_fold(c: char) -> Option<&'static str> {
    Some(match c {
        'À'..='Å' | 'Ā' | 'Ă' | 'Ą' => "A",
        'à'..='å' | 'ā' | 'ă' | 'ą' => "a",
        'Æ' => "AE",
        'æ' => "ae",
        'Ç' | 'Ć' | 'Ĉ' | 'Ċ' | 'Č' => "C",
        'ç' | 'ć' | 'ĉ' | 'ċ' | 'č' => "c",
        'Ð' | 'Ď' | 'Đ' => "D",
        'ð' | 'ď' | 'đ' => "d",
        'È'..='Ë' | 'Ē' | 'Ĕ' | 'Ė' | 'Ę' | 'Ě' => "E",
        'è'..='ë' | 'ē' | 'ĕ' | 'ė' | 'ę' | 'ě' => "e",
        'Ĝ' | 'Ğ' | 'Ġ' | 'Ģ' => "G",
        'ĝ' | 'ğ' | 'ġ' | 'ģ' => "g",
        'Ĥ' | 'Ħ' => "H",
        'ĥ' | 'ħ' => "h",
        'Ì'..='Ï' | 'Ĩ' | 'Ī' | 'Ĭ' | 'Į' | 'İ' => "I",
        'ì'..='ï' | 'ĩ' | 'ī' | 'ĭ' | 'į' | 'ı' => "i",
        'Ĵ' => "J",
        'ĵ' => "j",
        'Ķ' => "K",
        'ķ' => "k",
        'Ĺ' | 'Ļ' | 'Ľ' | 'Ŀ' | 'Ł' => "L",
        'ĺ' | 'ļ' | 'ľ' | 'ŀ' | 'ł' => "l",
        'Ñ' | 'Ń' | 'Ņ' | 'Ň' => "N",
        'ñ' | 'ń' | 'ņ' | 'ň' => "n",
        'Ò'..='Ö' | 'Ø' | 'Ō' | 'Ŏ' | 'Ő' => "O",
        'ò'..='ö' | 'ø' | 'ō' | 'ŏ' | 'ő' => "o",
        'Œ' => "OE",
        'œ' => "oe",
        'Ŕ' | 'Ŗ' | 'Ř' => "R",
        'ŕ' | 'ŗ' | 'ř' => "r",
        'Ś' | 'Ŝ' | 'Ş' | 'Š' => "S",
        'ś' | 'ŝ' | 'ş' | 'š' => "s",
        'ß' => "ss",
        'Ţ' | 'Ť' | 'Ŧ' => "T",
        'ţ' | 'ť' | 'ŧ' => "t",
        'Þ' => "TH",
        'þ' => "th",
        'Ù'..='Ü' | 'Ũ' | 'Ū' | 'Ŭ' | 'Ů' | 'Ű' | 'Ų' => "U",
        'ù'..='ü' | 'ũ' | 'ū' | 'ŭ' | 'ů' | 'ű' | 'ų' => "u",
        'Ŵ' => "W",
        'ŵ' => "w",
        'Ý' | 'Ŷ' | 'Ÿ' => "Y",
        'ý' | 'ÿ' | 'ŷ' => "y",
        'Ź' | 'Ż' | 'Ž' => "Z",
        'ź' | 'ż' | 'ž' => "z",
        _ => return None,
    })
}

/// Whether a description is blank (empty or only white space): the Pedelec rule wants a
/// non-empty explanation of behavior, side effects and selection criteria.
#[must_use]
pub const fn is_blank(description: &str) -> bool {
    let bytes = description.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_whitespace() {
            return false;
        }
        i += 1;
    }
    true
}

/// The message for a blank description.
pub const BLANK_DESCRIPTION: &str =
    "tool description is empty; explain what the tool does, its side effects and when to use it";

/// Why a `timeoutMs` is not a positive integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeoutProblem {
    /// Zero.
    Zero,
    /// Below zero.
    Negative,
    /// Has a fractional part, or is not finite.
    NotInteger,
    /// Larger than `u64::MAX` milliseconds.
    TooLarge,
}

impl fmt::Display for TimeoutProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutProblem::Zero => {
                "timeout must be a positive integer number of milliseconds, not 0"
            }
            TimeoutProblem::Negative => {
                "timeout must be a positive integer number of milliseconds, not a negative number"
            }
            TimeoutProblem::NotInteger => {
                "timeout must be a positive integer number of milliseconds, not a fraction"
            }
            TimeoutProblem::TooLarge => {
                "timeout is too large: it must fit in 64 bits of milliseconds"
            }
        })
    }
}

/// Checks a timeout given as an integer.
pub const fn check_timeout_ms(ms: i128) -> Result<u64, TimeoutProblem> {
    if ms == 0 {
        Err(TimeoutProblem::Zero)
    } else if ms < 0 {
        Err(TimeoutProblem::Negative)
    } else if ms > u64::MAX as i128 {
        Err(TimeoutProblem::TooLarge)
    } else {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(ms as u64)
    }
}

/// Checks a timeout given as a JSON number (which may have a fractional part).
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    clippy::cast_precision_loss
)]
pub fn check_timeout_ms_f64(ms: f64) -> Result<u64, TimeoutProblem> {
    if ms.is_nan() || ms.fract() != 0.0 {
        return Err(TimeoutProblem::NotInteger);
    }
    if ms < 0.0 {
        return Err(TimeoutProblem::Negative);
    }
    if ms == 0.0 {
        return Err(TimeoutProblem::Zero);
    }
    // Every integral f64 below 2^64 converts exactly; infinity and larger do not fit.
    if ms >= 18_446_744_073_709_551_616.0 {
        return Err(TimeoutProblem::TooLarge);
    }
    Ok(ms as u64)
}

/// Why a `max_concurrency` (`maxConcurrency`) is not a positive integer that fits in 32 bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConcurrencyProblem {
    /// Zero: every call would be refused.
    Zero,
    /// Below zero.
    Negative,
    /// Larger than `u32::MAX`.
    TooLarge,
}

impl fmt::Display for ConcurrencyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConcurrencyProblem::Zero => {
                "max concurrency must be a positive integer, not 0: a limit of 0 would refuse \
                 every call"
            }
            ConcurrencyProblem::Negative => {
                "max concurrency must be a positive integer, not a negative number"
            }
            ConcurrencyProblem::TooLarge => {
                "max concurrency is too large: it must fit in 32 bits (at most 4294967295)"
            }
        })
    }
}

/// Checks a limit on the calls of one tool running at once (`#[tool(max_concurrency = 4)]`).
///
/// ```
/// use pedelec_rules::{check_max_concurrency, ConcurrencyProblem};
/// assert_eq!(check_max_concurrency(4), Ok(4));
/// assert_eq!(check_max_concurrency(0), Err(ConcurrencyProblem::Zero));
/// assert_eq!(check_max_concurrency(1 << 32), Err(ConcurrencyProblem::TooLarge));
/// ```
pub const fn check_max_concurrency(limit: i128) -> Result<u32, ConcurrencyProblem> {
    if limit == 0 {
        Err(ConcurrencyProblem::Zero)
    } else if limit < 0 {
        Err(ConcurrencyProblem::Negative)
    } else if limit > u32::MAX as i128 {
        Err(ConcurrencyProblem::TooLarge)
    } else {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(limit as u32)
    }
}

/// Why a tool's `version` (`#[tool(version = 2)]`) is not an integer from 1 that fits in 32
/// bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VersionProblem {
    /// Zero: versions count from 1, the default.
    Zero,
    /// Below zero.
    Negative,
    /// Larger than `u32::MAX`.
    TooLarge,
}

impl fmt::Display for VersionProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VersionProblem::Zero => {
                "a tool version must be at least 1, not 0: versions count from 1, the default"
            }
            VersionProblem::Negative => "a tool version must be at least 1, not a negative number",
            VersionProblem::TooLarge => {
                "a tool version is too large: it must fit in 32 bits (at most 4294967295)"
            }
        })
    }
}

/// Checks a tool's version (`#[tool(version = 2)]`, `"version"` in a skill set read from
/// JSON): an integer from 1 (the default) that fits in a `u32`. A contract check
/// (`pedelec::contract`) lets a breaking change of a tool pass only when its version went up.
///
/// ```
/// use pedelec_rules::{check_tool_version, VersionProblem};
/// assert_eq!(check_tool_version(2), Ok(2));
/// assert_eq!(check_tool_version(0), Err(VersionProblem::Zero));
/// assert_eq!(check_tool_version(-1), Err(VersionProblem::Negative));
/// assert_eq!(check_tool_version(1 << 32), Err(VersionProblem::TooLarge));
/// ```
pub const fn check_tool_version(version: i128) -> Result<u32, VersionProblem> {
    if version == 0 {
        Err(VersionProblem::Zero)
    } else if version < 0 {
        Err(VersionProblem::Negative)
    } else if version > u32::MAX as i128 {
        Err(VersionProblem::TooLarge)
    } else {
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Ok(version as u32)
    }
}

/// The values of `#[tool(task = …)]` (MCP's `execution.taskSupport`, 2025-11-25; the tasks
/// extension, 2026-07-28), the default first.
pub const TASK_SUPPORT: [&str; 3] = ["forbidden", "optional", "required"];

/// The formats JSON Schema 2020-12 defines, in the order of its validation specification.
/// `#[arg(format = "…")]` must name one of them; the validator can assert every one.
pub const FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// String equality usable in a `const` (`==` on `str` is not `const`).
#[must_use]
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The default timeout of a tool call when a tool sets none (the Core default, 60 s).
pub const DEFAULT_TIMEOUT_MS: u64 = 60_000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["a", "update_counter", "A.b-c_9", "getCurrentPage"] {
            assert_eq!(check_tool_name(ok), Ok(()), "{ok}");
        }
        assert_eq!(check_tool_name(""), Err(NameProblem::Empty));
        assert_eq!(
            check_tool_name("2fast").unwrap_err().to_string(),
            "tool name \"2fast\" must start with an ASCII letter, not `2`"
        );
        assert_eq!(
            check_tool_name("open page").unwrap_err().to_string(),
            "tool name \"open page\" may contain only ASCII letters, digits, `_`, `.` and `-`; found a space"
        );
        assert_eq!(
            check_tool_name("a\u{7}").unwrap_err().to_string(),
            "tool name \"a\\u{7}\" may contain only ASCII letters, digits, `_`, `.` and `-`; found '\\u{7}'"
        );
        assert_eq!(
            check_tool_name("_x"),
            Err(NameProblem::BadStart {
                name: "_x",
                found: '_'
            })
        );
        assert_eq!(
            check_tool_name(".x"),
            Err(NameProblem::BadStart {
                name: ".x",
                found: '.'
            })
        );
        assert_eq!(
            check_tool_name("éa"),
            Err(NameProblem::BadStart {
                name: "éa",
                found: 'é'
            })
        );
        assert_eq!(
            check_tool_name("aé"),
            Err(NameProblem::BadChar {
                name: "aé",
                found: 'é',
                at: 1
            })
        );
        assert_eq!(
            check_tool_name("a/b"),
            Err(NameProblem::BadChar {
                name: "a/b",
                found: '/',
                at: 1
            })
        );
        assert_eq!(
            check_tool_name("a:b"),
            Err(NameProblem::BadChar {
                name: "a:b",
                found: ':',
                at: 1
            })
        );
    }

    #[test]
    fn suggestions() {
        for (bad, good) in [
            ("open url", Some("open_url")),
            ("2fast", Some("fast")),
            ("_private", Some("private")),
            (".hidden", Some("hidden")),
            ("nav/open:url", Some("nav_open_url")),
            ("café", Some("cafe")),
            ("Größe", Some("Grosse")),
            ("データ", None),
            ("", None),
        ] {
            assert_eq!(suggest_tool_name(bad).as_deref(), good, "{bad}");
        }
        // Outside the table: replaced, not dropped.
        assert_eq!(suggest_tool_name("a→b").as_deref(), Some("a_b"));
    }

    #[test]
    fn descriptions_and_timeouts() {
        assert!(is_blank(""));
        assert!(is_blank(" \n\t"));
        assert!(!is_blank(" x "));
        assert_eq!(check_timeout_ms(5_000), Ok(5_000));
        assert_eq!(check_timeout_ms(0), Err(TimeoutProblem::Zero));
        assert_eq!(check_timeout_ms(-1), Err(TimeoutProblem::Negative));
        assert_eq!(check_timeout_ms_f64(1.5), Err(TimeoutProblem::NotInteger));
        assert_eq!(check_timeout_ms_f64(20.0), Ok(20));
        assert_eq!(check_timeout_ms_f64(-2.0), Err(TimeoutProblem::Negative));
        assert_eq!(
            check_timeout_ms_f64(f64::NAN),
            Err(TimeoutProblem::NotInteger)
        );
    }
}
