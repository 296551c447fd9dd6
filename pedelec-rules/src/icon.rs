//! A tool's icon (`#[tool(icon = "…")]`, `ToolDefinition::with_icon`): the `src` of an MCP
//! `Icon` (2025-11-25), an `https:` URL or a `data:` URI holding an image.
//!
//! MCP's basic specification (2025-11-25, "icons", security considerations): consumers
//! "MUST reject icon URIs that use unsafe schemes", ensuring "the icon URI is either a HTTPS
//! or `data:` URI", and should "detect content type via magic bytes; reject on mismatch".
//! So an `http:` URL, any other scheme, a relative reference, a `data:` URI whose media type
//! is not an image, malformed base64, and base64 data that does not start like the image
//! type it names (PNG, JPEG, GIF, WebP, SVG) are refused here, where they are written.

use std::fmt;

use crate::Quoted;

/// What kind of icon a valid `src` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IconSource<'a> {
    /// An `https:` URL (its media type is the server's `Content-Type`).
    Https,
    /// A `data:` URI.
    Data {
        /// Its media type, as written, without parameters (`image/svg+xml`).
        media_type: &'a str,
        /// Whether the data is base64 (`;base64`), else percent-encoded.
        base64: bool,
    },
}

/// Why an icon `src` is refused. Each message says what to write instead.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IconProblem<'a> {
    /// The `src` is empty.
    Empty,
    /// An `http:` URL.
    Http,
    /// A scheme other than `https:` and `data:`.
    Scheme {
        /// The scheme, without its `:`.
        scheme: &'a str,
    },
    /// No scheme: a relative reference (a file name, a path).
    Relative,
    /// An `https:` URL without a host.
    NoHost,
    /// An `https:` URL with credentials (`user:password@host`).
    Credentials,
    /// A character a URI cannot contain (a space, `<`, a non-ASCII letter, …).
    BadChar {
        /// The character.
        found: char,
        /// Its byte offset in the `src`.
        at: usize,
    },
    /// A `%` not followed by two hexadecimal digits.
    BadPercent {
        /// Its byte offset in the `src`.
        at: usize,
    },
    /// A `data:` URI without the `,` before its data.
    DataNoComma,
    /// A `data:` URI without a media type (RFC 2397 then means `text/plain`).
    DataNoMediaType,
    /// A `data:` URI whose media type is not `type/subtype`.
    DataBadMediaType {
        /// The media type as written.
        media_type: &'a str,
    },
    /// A `data:` URI whose media type is not `image/…`.
    DataNotImage {
        /// The media type as written.
        media_type: &'a str,
    },
    /// A `data:` URI with nothing after its `,`.
    DataEmpty,
    /// A character outside base64's alphabet.
    Base64BadChar {
        /// The character.
        found: char,
        /// Its byte offset in the `src`.
        at: usize,
    },
    /// Base64 data whose length is not a multiple of 4.
    Base64BadLength {
        /// Its length.
        len: usize,
    },
    /// `=` before the end of base64 data, or more than two of them.
    Base64BadPadding,
    /// Base64 data that does not start like the image type its media type names.
    Mismatch {
        /// The media type as written.
        media_type: &'a str,
        /// The image format the media type names (`PNG`).
        expected: &'static str,
        /// The image format the data starts like, when it is a known one.
        actual: Option<&'static str>,
    },
}

impl fmt::Display for IconProblem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            IconProblem::Empty => {
                f.write_str("icon is empty; give an `https:` URL or a `data:` URI of an image")
            }
            IconProblem::Http => f.write_str(
                "icon URL uses `http:`, and MCP clients must refuse icons that are not `https:` \
                 or `data:` URIs (an `http:` icon can be altered in transit); serve it over \
                 `https:`",
            ),
            IconProblem::Scheme { scheme } => write!(
                f,
                "icon URI scheme `{scheme}:` is not allowed: MCP clients must refuse icons that \
                 are not `https:` or `data:` URIs; serve it over `https:`, or embed the image as \
                 `data:image/png;base64,…`"
            ),
            IconProblem::Relative => f.write_str(
                "icon must be an absolute `https:` URL or a `data:` URI, not a relative \
                 reference; serve it over `https:`, or embed the image as \
                 `data:image/png;base64,…`",
            ),
            IconProblem::NoHost => {
                f.write_str("icon URL has no host; write it like `https://example.com/icon.png`")
            }
            IconProblem::Credentials => f.write_str(
                "icon URL carries credentials (`user@host`), and icons are fetched without \
                 credentials; remove them",
            ),
            IconProblem::BadChar { found, .. } => {
                write!(
                    f,
                    "icon URI contains {}, which a URI cannot contain; ",
                    Quoted(found)
                )?;
                if found.is_ascii() {
                    write!(f, "percent-encode it as `%{:02X}`", found as u32)
                } else {
                    f.write_str("percent-encode its UTF-8 bytes")
                }
            }
            IconProblem::BadPercent { .. } => f.write_str(
                "icon URI has a `%` that is not followed by two hexadecimal digits; write `%25` \
                 for a `%` itself",
            ),
            IconProblem::DataNoComma => f.write_str(
                "`data:` URI has no `,` before its data; write it like \
                 `data:image/png;base64,iVBORw0KGgo…`",
            ),
            IconProblem::DataNoMediaType => f.write_str(
                "`data:` URI names no media type (it would be `text/plain`); name the image's, \
                 like `data:image/png;base64,…`",
            ),
            IconProblem::DataBadMediaType { media_type } => write!(
                f,
                "`data:` URI media type `{media_type}` is not of the form `type/subtype`; write \
                 an image type such as `image/png`"
            ),
            IconProblem::DataNotImage { media_type } => write!(
                f,
                "`data:` URI media type `{media_type}` is not an image type; an icon is \
                 `image/png`, `image/jpeg`, `image/svg+xml`, `image/webp`, `image/gif`, …"
            ),
            IconProblem::DataEmpty => f.write_str("`data:` URI has no data after its `,`"),
            IconProblem::Base64BadChar { found, .. } => write!(
                f,
                "base64 data contains {}; base64 uses only `A`-`Z`, `a`-`z`, `0`-`9`, `+`, `/` \
                 and `=` padding (not the URL-safe alphabet, nor percent-encoding)",
                Quoted(found)
            ),
            IconProblem::Base64BadLength { len } => write!(
                f,
                "base64 data is {len} characters long, not a multiple of 4: it is cut short, or \
                 its `=` padding is missing"
            ),
            IconProblem::Base64BadPadding => f.write_str(
                "base64 data has `=` before its end; `=` only pads the last group (at most two)",
            ),
            IconProblem::Mismatch {
                media_type,
                expected,
                actual,
            } => {
                write!(
                    f,
                    "`data:` URI says `{media_type}` but its data is not a {expected} image"
                )?;
                match actual {
                    Some(actual) => write!(f, " (it starts like a {actual} image)")?,
                    None => f.write_str(" (it does not start like one)")?,
                }
                f.write_str(
                    "; MCP clients reject an icon whose content does not match its type: fix the \
                     media type or the data",
                )
            }
        }
    }
}

/// Checks an icon `src`.
///
/// ```
/// use pedelec_rules::icon::{check_icon, IconProblem, IconSource};
/// assert_eq!(check_icon("https://example.com/icon.svg"), Ok(IconSource::Https));
/// assert_eq!(
///     check_icon("data:image/png;base64,iVBORw0KGgo="),
///     Ok(IconSource::Data { media_type: "image/png", base64: true })
/// );
/// assert_eq!(check_icon("http://example.com/icon.svg"), Err(IconProblem::Http));
/// assert_eq!(
///     check_icon("data:text/plain;base64,aGk="),
///     Err(IconProblem::DataNotImage { media_type: "text/plain" })
/// );
/// ```
pub const fn check_icon(src: &str) -> Result<IconSource<'_>, IconProblem<'_>> {
    let bytes = src.as_bytes();
    if bytes.is_empty() {
        return Err(IconProblem::Empty);
    }
    let Some(colon) = scheme_end(bytes) else {
        return Err(IconProblem::Relative);
    };
    let (scheme, _) = src.split_at(colon);
    if eq_ignore_case(scheme, "https") {
        https(src, colon + 1)
    } else if eq_ignore_case(scheme, "data") {
        data(src, colon + 1)
    } else if eq_ignore_case(scheme, "http") {
        Err(IconProblem::Http)
    } else {
        Err(IconProblem::Scheme { scheme })
    }
}

/// The media type of a valid icon's `data:` URI (what MCP's `Icon.mimeType` would say), or
/// `None` for an `https:` URL (the server's `Content-Type` says it) or an invalid `src`.
#[must_use]
pub const fn icon_media_type(src: &str) -> Option<&str> {
    match check_icon(src) {
        Ok(IconSource::Data { media_type, .. }) => Some(media_type),
        _ => None,
    }
}

/// The offset of the `:` ending a URI scheme (RFC 3986: `ALPHA *( ALPHA / DIGIT / "+" / "-"
/// / "." )`), if `bytes` starts with one.
const fn scheme_end(bytes: &[u8]) -> Option<usize> {
    if bytes.is_empty() || !bytes[0].is_ascii_alphabetic() {
        return None;
    }
    let mut i = 1;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b':' {
            return Some(i);
        }
        if !(b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b'.') {
            return None;
        }
        i += 1;
    }
    None
}

/// `https:` then `//host…`, every character a URI's.
const fn https(src: &str, start: usize) -> Result<IconSource<'_>, IconProblem<'_>> {
    let bytes = src.as_bytes();
    if let Err(problem) = uri_chars(src, start) {
        return Err(problem);
    }
    if start + 2 > bytes.len() || bytes[start] != b'/' || bytes[start + 1] != b'/' {
        return Err(IconProblem::NoHost);
    }
    // The authority: up to the path, query or fragment.
    let mut end = start + 2;
    while end < bytes.len() && !matches!(bytes[end], b'/' | b'?' | b'#') {
        if bytes[end] == b'@' {
            return Err(IconProblem::Credentials);
        }
        end += 1;
    }
    // The host: before a `:port` (an IPv6 literal is bracketed).
    let host_start = start + 2;
    let mut host_end = host_start;
    if host_end < end && bytes[host_end] == b'[' {
        while host_end < end && bytes[host_end] != b']' {
            host_end += 1;
        }
    } else {
        while host_end < end && bytes[host_end] != b':' {
            host_end += 1;
        }
    }
    if host_end == host_start {
        return Err(IconProblem::NoHost);
    }
    Ok(IconSource::Https)
}

/// Every character from `start` on is a URI character (RFC 3986 unreserved, reserved, or
/// `%` and two hexadecimal digits).
const fn uri_chars(src: &str, start: usize) -> Result<(), IconProblem<'_>> {
    let bytes = src.as_bytes();
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            if i + 2 >= bytes.len()
                || !bytes[i + 1].is_ascii_hexdigit()
                || !bytes[i + 2].is_ascii_hexdigit()
            {
                return Err(IconProblem::BadPercent { at: i });
            }
            i += 3;
            continue;
        }
        if !is_uri_byte(b) {
            return Err(IconProblem::BadChar {
                found: crate::first_char(src, i),
                at: i,
            });
        }
        i += 1;
    }
    Ok(())
}

/// RFC 3986 `unreserved / gen-delims / sub-delims` (`%` is handled apart).
const fn is_uri_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric()
        || matches!(
            b,
            b'-' | b'.'
                | b'_'
                | b'~'
                | b':'
                | b'/'
                | b'?'
                | b'#'
                | b'['
                | b']'
                | b'@'
                | b'!'
                | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
        )
}

/// RFC 2045 `token` characters (a media type's type and subtype).
const fn is_token_byte(b: u8) -> bool {
    b > 0x20
        && b < 0x7F
        && !matches!(
            b,
            b'(' | b')'
                | b'<'
                | b'>'
                | b'@'
                | b','
                | b';'
                | b':'
                | b'\\'
                | b'"'
                | b'/'
                | b'['
                | b']'
                | b'?'
                | b'='
        )
}

/// `data:` then `[media type][;param…][;base64],data` (RFC 2397).
const fn data(src: &str, start: usize) -> Result<IconSource<'_>, IconProblem<'_>> {
    let bytes = src.as_bytes();
    let mut comma = start;
    while comma < bytes.len() && bytes[comma] != b',' {
        comma += 1;
    }
    if comma == bytes.len() {
        return Err(IconProblem::DataNoComma);
    }
    let mut type_end = start;
    while type_end < comma && bytes[type_end] != b';' {
        type_end += 1;
    }
    let (before_type_end, _) = src.split_at(type_end);
    let (_, media_type) = before_type_end.split_at(start);
    if media_type.is_empty() {
        return Err(IconProblem::DataNoMediaType);
    }
    // `type/subtype`, both tokens.
    let mt = media_type.as_bytes();
    let mut slash = 0;
    while slash < mt.len() && mt[slash] != b'/' {
        slash += 1;
    }
    if slash == 0 || slash + 1 >= mt.len() {
        return Err(IconProblem::DataBadMediaType { media_type });
    }
    let mut i = 0;
    while i < mt.len() {
        if i != slash && !is_token_byte(mt[i]) {
            return Err(IconProblem::DataBadMediaType { media_type });
        }
        i += 1;
    }
    let (kind, _) = media_type.split_at(slash);
    if !eq_ignore_case(kind, "image") {
        return Err(IconProblem::DataNotImage { media_type });
    }
    // `;base64` is the last parameter when present.
    let base64 = comma >= type_end + 7 && {
        let (header, _) = src.split_at(comma);
        let (_, last) = header.split_at(comma - 7);
        eq_ignore_case(last, ";base64")
    };
    if comma + 1 == bytes.len() {
        return Err(IconProblem::DataEmpty);
    }
    if base64 {
        if let Err(problem) = check_base64(src, comma + 1) {
            return Err(problem);
        }
        let (_, subtype) = media_type.split_at(slash + 1);
        if let Err(problem) = check_magic(src, comma + 1, media_type, subtype) {
            return Err(problem);
        }
    } else if let Err(problem) = uri_chars(src, comma + 1) {
        return Err(problem);
    }
    Ok(IconSource::Data { media_type, base64 })
}

/// The value of a base64 character, or `None`.
const fn base64_value(b: u8) -> Option<u8> {
    match b {
        b'A'..=b'Z' => Some(b - b'A'),
        b'a'..=b'z' => Some(b - b'a' + 26),
        b'0'..=b'9' => Some(b - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// Standard, padded base64 (RFC 4648 §4) from `start` to the end.
const fn check_base64(src: &str, start: usize) -> Result<(), IconProblem<'_>> {
    let bytes = src.as_bytes();
    let len = bytes.len() - start;
    let mut i = start;
    let mut padding = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'=' {
            padding += 1;
        } else if base64_value(b).is_none() {
            return Err(IconProblem::Base64BadChar {
                found: crate::first_char(src, i),
                at: i,
            });
        } else if padding > 0 {
            return Err(IconProblem::Base64BadPadding);
        }
        i += 1;
    }
    if padding > 2 {
        return Err(IconProblem::Base64BadPadding);
    }
    if !len.is_multiple_of(4) {
        return Err(IconProblem::Base64BadLength { len });
    }
    Ok(())
}

/// The first bytes of valid base64 data (at most 12, from the first 16 characters).
const fn decode_prefix(src: &str, start: usize) -> ([u8; 12], usize) {
    let bytes = src.as_bytes();
    let mut out = [0u8; 12];
    let mut n = 0;
    let mut i = start;
    while i + 4 <= bytes.len() && n + 3 <= out.len() {
        let mut group: u32 = 0;
        let mut valid = 0;
        let mut j = 0;
        while j < 4 {
            let v = match base64_value(bytes[i + j]) {
                Some(v) => {
                    valid += 1;
                    v
                }
                None => 0,
            };
            group = (group << 6) | v as u32;
            j += 1;
        }
        let [_, b0, b1, b2] = group.to_be_bytes();
        let decoded = [b0, b1, b2];
        let mut k = 0;
        // 4 valid characters give 3 bytes, 3 give 2, 2 give 1.
        while k + 1 < valid {
            out[n] = decoded[k];
            n += 1;
            k += 1;
        }
        i += 4;
    }
    (out, n)
}

/// The image formats whose first bytes are checked: the media subtypes, the name, and the
/// signature.
const FORMATS: &[(&[&str], &str)] = &[
    (&["png"], "PNG"),
    (&["jpeg", "jpg"], "JPEG"),
    (&["gif"], "GIF"),
    (&["webp"], "WebP"),
    (&["svg+xml"], "SVG"),
];

/// Whether `data` starts like the format `FORMATS[format]`.
const fn starts_like(data: &[u8], format: usize) -> bool {
    match format {
        0 => starts_with(data, b"\x89PNG\r\n\x1a\n"),
        1 => starts_with(data, b"\xff\xd8\xff"),
        2 => starts_with(data, b"GIF87a") || starts_with(data, b"GIF89a"),
        3 => {
            data.len() >= 12
                && starts_with(data, b"RIFF")
                && data[8] == b'W'
                && data[9] == b'E'
                && data[10] == b'B'
                && data[11] == b'P'
        }
        _ => {
            // SVG is text: an optional byte-order mark and white space, then markup.
            let mut i = 0;
            if starts_with(data, b"\xef\xbb\xbf") {
                i = 3;
            }
            while i < data.len() && data[i].is_ascii_whitespace() {
                i += 1;
            }
            i < data.len() && data[i] == b'<'
        }
    }
}

const fn starts_with(data: &[u8], prefix: &[u8]) -> bool {
    if data.len() < prefix.len() {
        return false;
    }
    let mut i = 0;
    while i < prefix.len() {
        if data[i] != prefix[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Base64 data whose media type is one of [`FORMATS`] must start like it.
const fn check_magic<'a>(
    src: &'a str,
    start: usize,
    media_type: &'a str,
    subtype: &str,
) -> Result<(), IconProblem<'a>> {
    let mut format = 0;
    let mut found = false;
    while format < FORMATS.len() && !found {
        let subtypes = FORMATS[format].0;
        let mut s = 0;
        while s < subtypes.len() {
            if eq_ignore_case(subtype, subtypes[s]) {
                found = true;
            }
            s += 1;
        }
        if !found {
            format += 1;
        }
    }
    if !found {
        return Ok(());
    }
    let (prefix, n) = decode_prefix(src, start);
    let (data, _) = prefix.split_at(n);
    if starts_like(data, format) {
        return Ok(());
    }
    let mut actual = None;
    let mut other = 0;
    while other < FORMATS.len() {
        if other != format && starts_like(data, other) {
            actual = Some(FORMATS[other].1);
        }
        other += 1;
    }
    Err(IconProblem::Mismatch {
        media_type,
        expected: FORMATS[format].1,
        actual,
    })
}

/// ASCII case-insensitive equality.
const fn eq_ignore_case(a: &str, b: &str) -> bool {
    a.eq_ignore_ascii_case(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1×1 PNG, and the start of other formats, in base64.
    const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGD4DwABBAEAwS2OUAAAAABJRU5ErkJggg==";
    const JPEG: &str = "/9j/4AAQSkZJRg==";
    const GIF: &str = "R0lGODlhAQABAAAAACw=";
    const WEBP: &str = "UklGRiQAAABXRUJQVlA4IBgAAAAw";
    const SVG: &str = "PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciLz4=";

    fn data(media_type: &str, base64: &str) -> String {
        format!("data:{media_type};base64,{base64}")
    }

    #[test]
    fn https_urls() {
        for ok in [
            "https://example.com/icon.png",
            "HTTPS://example.com",
            "https://example.com:8443/a%20b.svg?size=48#x",
            "https://[::1]/icon.png",
        ] {
            assert_eq!(check_icon(ok), Ok(IconSource::Https), "{ok}");
        }
        assert_eq!(check_icon(""), Err(IconProblem::Empty));
        assert_eq!(
            check_icon("http://example.com/i.png"),
            Err(IconProblem::Http)
        );
        assert_eq!(
            check_icon("ftp://example.com/i.png"),
            Err(IconProblem::Scheme { scheme: "ftp" })
        );
        assert_eq!(
            check_icon("javascript:alert(1)"),
            Err(IconProblem::Scheme {
                scheme: "javascript"
            })
        );
        assert_eq!(check_icon("icons/counter.png"), Err(IconProblem::Relative));
        assert_eq!(check_icon("/icon.png"), Err(IconProblem::Relative));
        assert_eq!(check_icon("https:icon.png"), Err(IconProblem::NoHost));
        assert_eq!(check_icon("https:///icon.png"), Err(IconProblem::NoHost));
        assert_eq!(
            check_icon("https://:443/icon.png"),
            Err(IconProblem::NoHost)
        );
        assert_eq!(
            check_icon("https://me:secret@example.com/i.png"),
            Err(IconProblem::Credentials)
        );
        assert_eq!(
            check_icon("https://example.com/my icon.png"),
            Err(IconProblem::BadChar { found: ' ', at: 22 })
        );
        assert_eq!(
            check_icon("https://example.com/ü.png"),
            Err(IconProblem::BadChar {
                found: 'ü', at: 20
            })
        );
        assert_eq!(
            check_icon("https://example.com/100%"),
            Err(IconProblem::BadPercent { at: 23 })
        );
        assert_eq!(
            check_icon("https://example.com/%zz"),
            Err(IconProblem::BadPercent { at: 20 })
        );
        assert_eq!(
            check_icon("https://example.com/a b")
                .unwrap_err()
                .to_string(),
            "icon URI contains a space, which a URI cannot contain; percent-encode it as `%20`"
        );
    }

    #[test]
    fn data_uris() {
        for (media_type, base64) in [
            ("image/png", PNG),
            ("image/jpeg", JPEG),
            ("image/jpg", JPEG),
            ("image/gif", GIF),
            ("image/webp", WEBP),
            ("image/svg+xml", SVG),
            // Not checked: no signature known here.
            ("image/avif", "AAAA"),
            ("IMAGE/PNG", PNG),
        ] {
            let src = data(media_type, base64);
            assert_eq!(
                check_icon(&src),
                Ok(IconSource::Data {
                    media_type,
                    base64: true
                }),
                "{src}"
            );
        }
        assert_eq!(
            check_icon("data:image/svg+xml;charset=utf-8,%3Csvg%2F%3E"),
            Ok(IconSource::Data {
                media_type: "image/svg+xml",
                base64: false
            })
        );
        assert_eq!(
            icon_media_type("data:image/svg+xml;base64,PHN2Zy8+"),
            Some("image/svg+xml")
        );
        assert_eq!(icon_media_type("https://example.com/i.svg"), None);
        assert_eq!(
            check_icon("data:image/png;base64"),
            Err(IconProblem::DataNoComma)
        );
        assert_eq!(check_icon("data:,abc"), Err(IconProblem::DataNoMediaType));
        assert_eq!(
            check_icon("data:;base64,aGk="),
            Err(IconProblem::DataNoMediaType)
        );
        assert_eq!(
            check_icon("data:png;base64,aGk="),
            Err(IconProblem::DataBadMediaType { media_type: "png" })
        );
        assert_eq!(
            check_icon("data:image/;base64,aGk="),
            Err(IconProblem::DataBadMediaType {
                media_type: "image/"
            })
        );
        assert_eq!(
            check_icon("data:text/plain;base64,aGk="),
            Err(IconProblem::DataNotImage {
                media_type: "text/plain"
            })
        );
        assert_eq!(
            check_icon("data:image/png;base64,"),
            Err(IconProblem::DataEmpty)
        );
        assert_eq!(
            check_icon("data:image/png;base64,iVBO-w0K"),
            Err(IconProblem::Base64BadChar { found: '-', at: 26 })
        );
        assert_eq!(
            check_icon("data:image/png;base64,iVBORw0KGgo"),
            Err(IconProblem::Base64BadLength { len: 11 })
        );
        assert_eq!(
            check_icon("data:image/png;base64,iVBO=w0K"),
            Err(IconProblem::Base64BadPadding)
        );
        assert_eq!(
            check_icon("data:image/png;base64,iVBORw0KGgo====="),
            Err(IconProblem::Base64BadPadding)
        );
        assert_eq!(
            check_icon(&data("image/png", JPEG)),
            Err(IconProblem::Mismatch {
                media_type: "image/png",
                expected: "PNG",
                actual: Some("JPEG")
            })
        );
        assert_eq!(
            check_icon(&data("image/svg+xml", "aGVsbG8=")),
            Err(IconProblem::Mismatch {
                media_type: "image/svg+xml",
                expected: "SVG",
                actual: None
            })
        );
        assert_eq!(
            check_icon("data:image/svg+xml,<svg/>"),
            Err(IconProblem::BadChar { found: '<', at: 19 })
        );
        assert_eq!(
            check_icon(&data("image/png", JPEG))
                .unwrap_err()
                .to_string(),
            "`data:` URI says `image/png` but its data is not a PNG image (it starts like a \
             JPEG image); MCP clients reject an icon whose content does not match its type: \
             fix the media type or the data"
        );
    }

    #[test]
    fn decoded_prefixes() {
        let (bytes, n) = decode_prefix("aGk=", 0);
        assert_eq!(&bytes[..n], b"hi");
        let (bytes, n) = decode_prefix("aGVsbG8gd29ybGQgaGVsbG8=", 0);
        assert_eq!(&bytes[..n], b"hello world ");
    }
}
