//! Host names: RFC 1123 labels, and IDNA2008 A-labels and U-labels (RFC 5890–5893).
//!
//! The Unicode data IDNA2008 needs comes from the crates that maintain it: `Bidi_Class`
//! (`unicode-bidi`), `Joining_Type` (`unicode-joining-type`), Script (`unicode-script`),
//! marks, viramas and NFC (`unicode-normalization`). Only the RFC 5892 derived property is
//! ours, in `idna_tables.rs`, generated from the Unicode Character Database by
//! `xtask/gen_unicode_tables.py`.

use std::cmp::Ordering;

use unicode_bidi::{BidiClass, bidi_class};
use unicode_joining_type::{JoiningType, get_joining_type};
use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
use unicode_script::{Script, UnicodeScript};

use super::idna_tables::{IDNA, Idna};

fn find<T: Copy>(table: &[(u32, u32, T)], c: char) -> Option<T> {
    let c = u32::from(c);
    table
        .binary_search_by(|&(lo, hi, _)| {
            if hi < c {
                Ordering::Less
            } else if lo > c {
                Ordering::Greater
            } else {
                Ordering::Equal
            }
        })
        .ok()
        .map(|i| table[i].2)
}

/// `Canonical_Combining_Class=Virama` (RFC 5892 appendix A.1).
fn is_virama(c: char) -> bool {
    canonical_combining_class(c) == 9
}

/// The longest host name in its ASCII form (RFC 1123 §2.1, without a trailing dot).
const MAX_NAME: usize = 253;
/// The longest label, in octets of its ASCII form.
const MAX_LABEL: usize = 63;

/// `hostname`: ASCII labels (RFC 1123); `xn--` labels must be valid A-labels.
pub(super) fn is_hostname(s: &str) -> bool {
    if s.is_empty() || s.len() > MAX_NAME || !s.is_ascii() {
        return false;
    }
    ldh_labels(s.as_bytes()).unwrap_or_else(|| ascii_labels(s))
}

/// Every label of an ASCII name is LDH or an A-label, and the A-labels follow the Bidi rule
/// when any is right-to-left.
fn ascii_labels(s: &str) -> bool {
    let mut rtl = false;
    for label in s.split('.') {
        match ascii_label(label) {
            AsciiLabel::Ldh => {}
            AsciiLabel::ALabel(decoded) => rtl |= is_rtl(&decoded),
            AsciiLabel::Invalid => return false,
        }
    }
    !rtl || s.split('.').all(|label| bidi_label(&label_chars(label)))
}

/// The common case of [`is_hostname`] in one pass over the bytes: `Some(valid)` when the
/// labels up to the first invalid one are LDH labels, as [`ascii_label`] reads them; `None`
/// at a label that starts with `xn--` (an A-label), for the full check. Measured with the
/// one-pass local part of an address (`is_dot_atom`): checking `ann@example.com` as an
/// `email` went from ~900 to ~480 instructions.
fn ldh_labels(b: &[u8]) -> Option<bool> {
    let mut start = 0;
    loop {
        let mut end = start;
        while let Some(&c) = b.get(end)
            && c != b'.'
        {
            if !(c.is_ascii_alphanumeric() || c == b'-') {
                return Some(false);
            }
            end += 1;
        }
        let label = &b[start..end];
        if matches!(label.first(), None | Some(b'-'))
            || label.last() == Some(&b'-')
            || label.len() > MAX_LABEL
        {
            return Some(false);
        }
        if label.len() >= 4 && label[..4].eq_ignore_ascii_case(b"xn--") {
            return None;
        }
        if end == b.len() {
            return Some(true);
        }
        start = end + 1;
    }
}

/// `idn-hostname`: labels separated by `.` (or an ideographic / fullwidth / halfwidth full
/// stop), each an ASCII label or a U-label; length limits apply to the ASCII form.
///
/// U-labels are normalized to NFC first, as the IDNA2008 lookup protocol does (RFC 5891
/// §5.3).
pub(super) fn is_idn_hostname(s: &str) -> bool {
    if s.is_empty() {
        return false;
    }
    let mut rtl = false;
    let mut ascii_len = 0;
    for label in s.split(SEPARATORS) {
        if label.is_ascii() {
            ascii_len += label.len();
            match ascii_label(label) {
                AsciiLabel::Ldh => {}
                AsciiLabel::ALabel(decoded) => rtl |= is_rtl(&decoded),
                AsciiLabel::Invalid => return false,
            }
        } else {
            let chars = label_chars(label);
            let Some(encoded) = punycode_encode(&chars) else {
                return false;
            };
            let len = "xn--".len() + encoded.len();
            if len > MAX_LABEL || !is_u_label(&chars) {
                return false;
            }
            ascii_len += len;
            rtl |= is_rtl(&chars);
        }
        ascii_len += 1; // the separator
    }
    ascii_len - 1 <= MAX_NAME && (!rtl || s.split(SEPARATORS).all(|l| bidi_label(&label_chars(l))))
}

/// The label separators of IDNA (RFC 3490 §3.1): full stop, ideographic full stop,
/// fullwidth full stop, halfwidth ideographic full stop.
const SEPARATORS: [char; 4] = ['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'];

/// The characters of a label that passed the checks: an A-label decoded, a U-label in NFC.
fn label_chars(label: &str) -> Vec<char> {
    if label.is_ascii() {
        if label.len() >= 4 && label[..4].eq_ignore_ascii_case("xn--") {
            return punycode_decode(&label[4..].to_ascii_lowercase()).unwrap_or_default();
        }
        label.chars().collect()
    } else if is_nfc_quick(label.chars()) == IsNormalized::Yes {
        label.chars().collect()
    } else {
        label.nfc().collect()
    }
}

/// A right-to-left label (RFC 5893 §1.4): one with an R, AL or AN character.
fn is_rtl(label: &[char]) -> bool {
    label
        .iter()
        .any(|&c| matches!(bidi_class(c), BidiClass::R | BidiClass::AL | BidiClass::AN))
}

/// What an ASCII label is.
enum AsciiLabel {
    Invalid,
    /// Letters, digits and hyphens (RFC 1123).
    Ldh,
    /// A valid A-label, decoded.
    ALabel(Vec<char>),
}

/// An ASCII label: LDH (RFC 1123), and if it starts with `xn--`, a valid A-label.
fn ascii_label(label: &str) -> AsciiLabel {
    let b = label.as_bytes();
    if b.is_empty()
        || b.len() > MAX_LABEL
        || b[0] == b'-'
        || b[b.len() - 1] == b'-'
        || !b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
    {
        return AsciiLabel::Invalid;
    }
    if b.len() < 4 || !b[..4].eq_ignore_ascii_case(b"xn--") {
        return AsciiLabel::Ldh;
    }
    // Like every DNS label, an A-label is case-insensitive: decode its lower-case form.
    let encoded = label[4..].to_ascii_lowercase();
    let Some(decoded) = punycode_decode(&encoded) else {
        return AsciiLabel::Invalid;
    };
    // An A-label decodes to a U-label (so not to plain ASCII), already in NFC, and is that
    // U-label's canonical encoding.
    if decoded.iter().all(char::is_ascii) {
        return AsciiLabel::Invalid;
    }
    let is_nfc = match is_nfc_quick(decoded.iter().copied()) {
        IsNormalized::Yes => true,
        IsNormalized::No => false,
        IsNormalized::Maybe => decoded.iter().copied().nfc().eq(decoded.iter().copied()),
    };
    if punycode_encode(&decoded).as_deref() != Some(&encoded) || !is_nfc || !is_u_label(&decoded) {
        return AsciiLabel::Invalid;
    }
    AsciiLabel::ALabel(decoded)
}

/// RFC 5891 §5.4: hyphen rules, no leading combining mark, every code point PVALID or
/// allowed by its contextual rule (RFC 5892 appendix A).
fn is_u_label(label: &[char]) -> bool {
    let Some(&first) = label.first() else {
        return false;
    };
    if first == '-'
        || label.last() == Some(&'-')
        || (label.len() >= 4 && label[2] == '-' && label[3] == '-')
        || is_combining_mark(first)
    {
        return false;
    }
    label.iter().enumerate().all(|(i, &c)| match find(IDNA, c) {
        Some(Idna::Pvalid) => true,
        Some(Idna::ContextJ) => context_j(label, i),
        Some(Idna::ContextO) => context_o(label, i),
        None => false,
    })
}

/// ZERO WIDTH NON-JOINER and ZERO WIDTH JOINER.
fn context_j(label: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| label[j]);
    if before.is_some_and(is_virama) {
        return true;
    }
    if label[i] != '\u{200C}' {
        return false;
    }
    // (Joining_Type:{L,D})(Joining_Type:T)*\u200C(Joining_Type:T)*(Joining_Type:{R,D})
    use JoiningType::{DualJoining, LeftJoining, RightJoining, Transparent};
    let joins = |c: char, side: JoiningType| matches!(get_joining_type(c), j if j == side || j == DualJoining);
    let left = label[..i]
        .iter()
        .rev()
        .find(|&&c| get_joining_type(c) != Transparent)
        .is_some_and(|&c| joins(c, LeftJoining));
    let right = label[i + 1..]
        .iter()
        .find(|&&c| get_joining_type(c) != Transparent)
        .is_some_and(|&c| joins(c, RightJoining));
    left && right
}

/// The CONTEXTO rules.
fn context_o(label: &[char], i: usize) -> bool {
    let before = i.checked_sub(1).map(|j| label[j]);
    let after = label.get(i + 1).copied();
    match label[i] {
        '\u{00B7}' => before == Some('l') && after == Some('l'),
        '\u{0375}' => after.is_some_and(|a| a.script() == Script::Greek),
        '\u{05F3}' | '\u{05F4}' => before.is_some_and(|b| b.script() == Script::Hebrew),
        '\u{30FB}' => label.iter().any(|&c| {
            matches!(
                c.script(),
                Script::Hiragana | Script::Katakana | Script::Han
            )
        }),
        '\u{0660}'..='\u{0669}' => !label.iter().any(|c| ('\u{06F0}'..='\u{06F9}').contains(c)),
        '\u{06F0}'..='\u{06F9}' => !label.iter().any(|c| ('\u{0660}'..='\u{0669}').contains(c)),
        _ => false,
    }
}

/// RFC 5893 §2, for one label of a name that has a right-to-left label.
fn bidi_label(label: &[char]) -> bool {
    use BidiClass::*;
    let Some(&first) = label.first() else {
        return false;
    };
    // The last character that is not a non-spacing mark.
    let last = label
        .iter()
        .rev()
        .map(|&c| bidi_class(c))
        .find(|&b| b != NSM);
    match bidi_class(first) {
        R | AL => {
            let (mut en, mut an) = (false, false);
            for &c in label {
                match bidi_class(c) {
                    EN => en = true,
                    AN => an = true,
                    R | AL | ES | CS | ET | ON | BN | NSM => {}
                    _ => return false,
                }
            }
            !(en && an) && matches!(last, Some(R | AL | EN | AN))
        }
        L => {
            label
                .iter()
                .all(|&c| matches!(bidi_class(c), L | EN | ES | CS | ET | ON | BN | NSM))
                && matches!(last, Some(L | EN))
        }
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------
// Punycode (RFC 3492)

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;
const SKEW: u32 = 38;
const DAMP: u32 = 700;
const INITIAL_BIAS: u32 = 72;
const INITIAL_N: u32 = 128;

fn adapt(mut delta: u32, points: u32, first: bool) -> u32 {
    delta /= if first { DAMP } else { 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + SKEW)
}

fn threshold(k: u32, bias: u32) -> u32 {
    k.saturating_sub(bias).clamp(T_MIN, T_MAX)
}

/// Decodes the part of an A-label after `xn--`; `None` when it is not valid Punycode.
#[allow(
    clippy::many_single_char_names,
    reason = "the names of RFC 3492's pseudocode"
)]
pub(super) fn punycode_decode(input: &str) -> Option<Vec<char>> {
    let (basic, extended) = match input.rfind('-') {
        Some(i) => (&input[..i], &input[i + 1..]),
        None => ("", input),
    };
    let mut output: Vec<char> = basic.chars().collect();
    if !basic.is_ascii() {
        return None;
    }
    let (mut n, mut i, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut digits = extended.bytes().peekable();
    while digits.peek().is_some() {
        let old_i = i;
        let mut w = 1u32;
        let mut k = BASE;
        loop {
            let digit = match digits.next()? {
                b @ b'a'..=b'z' => u32::from(b - b'a'),
                b @ b'A'..=b'Z' => u32::from(b - b'A'),
                b @ b'0'..=b'9' => u32::from(b - b'0') + 26,
                _ => return None,
            };
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let len = u32::try_from(output.len()).ok()? + 1;
        bias = adapt(i - old_i, len, old_i == 0);
        n = n.checked_add(i / len)?;
        i %= len;
        let c = char::from_u32(n)?;
        if c.is_ascii() {
            return None;
        }
        output.insert(usize::try_from(i).ok()?, c);
        i += 1;
    }
    Some(output)
}

/// Encodes a label with Punycode (without `xn--`); `None` on overflow.
#[allow(
    clippy::many_single_char_names,
    reason = "the names of RFC 3492's pseudocode"
)]
pub(super) fn punycode_encode(input: &[char]) -> Option<String> {
    let code_points: Vec<u32> = input.iter().copied().map(u32::from).collect();
    let mut output: String = input.iter().filter(|c| c.is_ascii()).collect();
    let basic = u32::try_from(output.len()).ok()?;
    if basic > 0 {
        output.push('-');
    }
    let (mut n, mut delta, mut bias) = (INITIAL_N, 0u32, INITIAL_BIAS);
    let mut handled = basic;
    let total = u32::try_from(code_points.len()).ok()?;
    while handled < total {
        let m = code_points.iter().copied().filter(|&c| c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for &c in &code_points {
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    output.push(digit_char(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                output.push(digit_char(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    Some(output)
}

fn digit_char(d: u32) -> char {
    let d = u8::try_from(d).expect("a punycode digit is below 36");
    char::from(if d < 26 { b'a' + d } else { b'0' + d - 26 })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass check of LDH names decides as the label-by-label one, on every name of
    /// up to six characters over an alphabet that makes every kind of label.
    #[test]
    fn the_ldh_pass_agrees_with_the_full_check() {
        const ALPHABET: &[u8] = b"a-.xn_";
        let mut names = vec![Vec::new()];
        for _ in 0..6 {
            let longer: Vec<Vec<u8>> = names
                .iter()
                .filter(|n| n.len() == names.last().map_or(0, Vec::len))
                .flat_map(|n| {
                    ALPHABET.iter().map(move |&c| {
                        let mut n = n.clone();
                        n.push(c);
                        n
                    })
                })
                .collect();
            names.extend(longer);
        }
        let mut decided = 0;
        for name in &names {
            let text = std::str::from_utf8(name).unwrap();
            if let Some(valid) = ldh_labels(name) {
                decided += 1;
                assert_eq!(valid, ascii_labels(text), "{text:?}");
            }
        }
        assert!(decided > names.len() / 2, "{decided} of {}", names.len());
        assert_eq!(ldh_labels(b"xn--tda.example"), None);
        assert_eq!(ldh_labels(b"mail.example.com"), Some(true));
    }

    #[test]
    fn punycode_rfc3492_samples() {
        // RFC 3492 §7.1 (A) Arabic, (B) Chinese, (L) Japanese with ASCII, and ASCII mixes.
        let samples = [
            (
                "\u{0644}\u{064A}\u{0647}\u{0645}\u{0627}\u{0628}\u{062A}\u{0643}\u{0644}\u{0645}\u{0648}\u{0634}\u{0639}\u{0631}\u{0628}\u{064A}\u{061F}",
                "egbpdaj6bu4bxfgehfvwxn",
            ),
            (
                "\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}",
                "ihqwcrb4cv8a8dqg056pqjye",
            ),
            (
                "3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}",
                "3B-ww4c5e180e575a65lsy2b",
            ),
            ("\u{00FC}", "tda"),
            ("b\u{00FC}cher", "bcher-kva"),
            ("\u{C2E4}\u{B840}", "9n2bp8q"),
        ];
        for (unicode, encoded) in samples {
            let chars: Vec<char> = unicode.chars().collect();
            assert_eq!(
                punycode_encode(&chars).as_deref(),
                Some(encoded),
                "{unicode}"
            );
            assert_eq!(
                punycode_decode(encoded)
                    .map(|v| v.into_iter().collect::<String>())
                    .as_deref(),
                Some(unicode),
                "{encoded}"
            );
        }
        for bad in ["X", "99999999999", "a-\u{e9}", "a$"] {
            assert_eq!(punycode_decode(bad), None, "{bad}");
        }
    }

    #[test]
    fn derived_property_spot_checks() {
        for c in [
            'a', 'z', '0', '-', 'é', 'ß', 'ς', '\u{0F0B}', '\u{3007}', '가', '\u{0301}',
        ] {
            assert_eq!(find(IDNA, c), Some(Idna::Pvalid), "{c:?}");
        }
        for c in [
            'A', '_', ' ', '\u{0640}', '\u{07FA}', '\u{302E}', '\u{3031}', '\u{1100}', '\u{20D0}',
            '\u{FFFF}', '\u{FB01}',
        ] {
            assert_eq!(find(IDNA, c), None, "{c:?}");
        }
        assert_eq!(find(IDNA, '\u{200C}'), Some(Idna::ContextJ));
        assert_eq!(find(IDNA, '\u{00B7}'), Some(Idna::ContextO));
        assert_eq!(find(IDNA, '\u{0663}'), Some(Idna::ContextO));
        // What the crates say, for the characters the contextual rules name.
        assert_eq!(bidi_class('\u{0870}'), BidiClass::AL);
        assert_eq!(bidi_class('\u{0301}'), BidiClass::NSM);
        assert!(is_virama('\u{094D}') && !is_virama('\u{0915}'));
        assert!(is_combining_mark('\u{0903}') && is_combining_mark('\u{0488}'));
        assert_eq!(get_joining_type('\u{0628}'), JoiningType::DualJoining);
        assert_eq!('α'.script(), Script::Greek);
        assert_eq!('\u{30FB}'.script(), Script::Common);
    }
}
