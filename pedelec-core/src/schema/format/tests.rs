use super::*;

fn ok(format: &str, values: &[&str]) {
    for v in values {
        assert_eq!(
            check_format(format, v),
            Some(true),
            "{format}: {v:?} should be valid"
        );
    }
}

fn bad(format: &str, values: &[&str]) {
    for v in values {
        assert_eq!(
            check_format(format, v),
            Some(false),
            "{format}: {v:?} should be invalid"
        );
    }
}

#[test]
fn unknown_formats_are_annotations() {
    for f in ["int32", "float", "color", "", "DATE"] {
        assert_eq!(check_format(f, "whatever"), None, "{f}");
    }
    for f in ASSERTED_FORMATS {
        assert!(check_format(f, "").is_some(), "{f}");
    }
}

#[test]
fn dates_and_times() {
    ok(
        "date",
        &["2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31"],
    );
    bad(
        "date",
        &[
            "1900-02-29",
            "2023-02-29",
            "2024-04-31",
            "2024-1-01",
            "２０２４-01-01",
            "2024-01-01 ",
        ],
    );
    ok(
        "time",
        &[
            "23:59:60Z",
            "00:29:60-23:30",
            "12:00:00.000000001+14:00",
            "08:30:06z",
        ],
    );
    bad(
        "time",
        &[
            "23:59:60+01:00",
            "12:00:00.Z",
            "12:00:00",
            "12:00:00+1:00",
            "12:00:00+24:00",
        ],
    );
    ok(
        "date-time",
        &["1998-12-31T23:59:60Z", "2024-02-29t00:00:00-00:00"],
    );
    bad(
        "date-time",
        &["2024-02-29 00:00:00Z", "2024-02-29T00:00:00", "2024-02-29T"],
    );
}

#[test]
fn durations() {
    ok(
        "duration",
        &[
            "P1Y",
            "P1Y2M3DT4H5M6S",
            "PT0S",
            "P2W",
            "P1M2D",
            "PT1M2S",
            "P0D",
        ],
    );
    bad(
        "duration",
        &[
            "P", "PT", "P1YT", "P1Y2D", "PT1H2S", "P1W2D", "P1.5D", "P-1D", "PW", "P1D2", "PT1D",
        ],
    );
}

#[test]
fn emails() {
    ok(
        "email",
        &[
            "a@b",
            "a.b+c@example.com",
            "\"a b\"@example.com",
            "\"a\\\"b\"@x.org",
            "x@[IPv6:::1]",
            "x@[1.2.3.4]",
        ],
    );
    bad(
        "email",
        &[
            "a@",
            "@b",
            "a..b@c",
            "é@example.com",
            "a@b_c.com",
            "x@[1.2.3]",
            "x@[foo:bar]",
            "\"a@b",
            "a@b@c",
        ],
    );
    let long_local = format!("{}@example.com", "a".repeat(65));
    bad("email", &[&long_local]);
    ok(
        "idn-email",
        &[
            "é@example.com",
            "用户@例子.广告",
            "\"δοκιμή\"@example.com",
            "user@cafe\u{301}.com",
        ],
    );
    bad("idn-email", &["user@a..b", "user\u{FF20}example.com"]);
}

#[test]
fn hostnames() {
    ok(
        "hostname",
        &[
            "a",
            "a-b.c",
            "xn--bcher-kva.example",
            "XN--BCHER-KVA.example",
            "1host",
        ],
    );
    bad(
        "hostname",
        &[
            "bücher.example",
            "xn--bcher-kva-.example",
            "a_b",
            "-a",
            "a.",
            "xn--",
            "xn--a",
        ],
    );
    // A-labels must decode to valid U-labels in canonical form.
    // `tda-` decodes to ASCII, `bcher-kva-9ca` to a C1 control, `uba` to a lone `·`.
    bad("hostname", &["xn--tda-", "xn--bcher-kva-9ca", "xn--uba"]);
    ok("hostname", &["xn--9ca"]);
    ok("hostname", &["xn--Bcher-kva.example"]);
    ok(
        "idn-hostname",
        &[
            "bücher.example",
            "例子.广告",
            "a\u{3002}b",
            "BÜCHER"[..1].as_ref(),
            "l·l",
        ],
    );
    // NFC is applied first: `u` + combining diaeresis is `ü`.
    ok("idn-hostname", &["bu\u{308}cher.example"]);
    bad(
        "idn-hostname",
        &[
            "Bücher.example",
            "a\u{200D}b",
            "\u{0301}a",
            "a..b",
            "ab--cé",
        ],
    );
    // Length limits apply to the ASCII form.
    // 57 × `ü` is `xn--` + 59 characters (63 octets), 58 × `ü` one more.
    ok("idn-hostname", &["ü".repeat(57).as_str()]);
    bad("idn-hostname", &["ü".repeat(58).as_str()]);
    let name = [
        "a".repeat(63),
        "b".repeat(63),
        "c".repeat(63),
        "ü".repeat(57),
    ]
    .join(".");
    // 249 characters, but 255 octets in ASCII form.
    bad("idn-hostname", &[&name]);
}

#[test]
fn ip_addresses() {
    ok("ipv4", &["0.0.0.0", "255.255.255.255", "1.2.3.4"]);
    bad(
        "ipv4",
        &[
            "01.2.3.4",
            "1.2.3",
            "1.2.3.4.5",
            "256.1.1.1",
            "1.2.3.-4",
            "1.2.3.4 ",
        ],
    );
    ok(
        "ipv6",
        &[
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1::8",
            "::ffff:1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "FFFF::abcd",
        ],
    );
    bad(
        "ipv6",
        &[
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            ":1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:8::",
            "::1.2.3.4:1",
            "1:2:3:4:5:6:7:1.2.3.4",
            "12345::",
            "::g",
        ],
    );
}

#[test]
fn uris_and_iris() {
    ok(
        "uri",
        &[
            "a:",
            "a:b",
            "http://[v7.x:y]/",
            "http://u:p@h:80/p?q#f",
            "file:///etc",
            "http://h:/",
        ],
    );
    bad(
        "uri",
        &[
            "//h/p",
            "a b:c",
            "http://h/%zz",
            "http://h/é",
            "http://[::1/",
            "http://h:8a/",
        ],
    );
    ok(
        "uri-reference",
        &["", "#", "?", "a/b:c", "../x", "//h", "%41"],
    );
    bad("uri-reference", &["a:b c", "[", "x:y:z#a#b", "\\"]);
    ok(
        "iri",
        &[
            "http://例子.广告/路径?查询=值#片段",
            "urn:x:\u{E000}"[..5].as_ref(),
        ],
    );
    bad("iri", &["http://h/\u{E000}", "http://h/\u{FFFF}"]);
    ok("iri", &["http://h/?\u{E000}"]);
    ok("iri-reference", &["路径", "#片段"]);
}

#[test]
fn uri_templates() {
    ok(
        "uri-template",
        &[
            "",
            "a{b}c",
            "{+x,y*,z:3}",
            "{a.b.c}",
            "{%41b}",
            "x{;p}{?q}{&r}{#f}{/s}{.l}",
        ],
    );
    bad(
        "uri-template",
        &[
            "{",
            "}",
            "{}",
            "{a,}",
            "{a..b}",
            "{v:0}",
            "{v:10000}",
            "{=x}",
            "{a b}",
            "a\"b",
            "{x:1*}",
        ],
    );
}

#[test]
fn uuids_and_pointers() {
    ok(
        "uuid",
        &[
            "00000000-0000-0000-0000-000000000000",
            "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6",
        ],
    );
    bad(
        "uuid",
        &[
            "f81d4fae7dec11d0a76500a0c91e6bf6",
            "{f81d4fae-7dec-11d0-a765-00a0c91e6bf6}",
            "f81d4fae-7dec-11d0-a765-00a0c91e6bfg",
        ],
    );
    ok("json-pointer", &["", "/", "/a~0b~1c", "//", "/é"]);
    bad("json-pointer", &["a", "/~", "/~2", "#/a"]);
    ok("relative-json-pointer", &["0", "0#", "10/a", "3/"]);
    bad(
        "relative-json-pointer",
        &["", "#", "00", "-1", "1##", "1#/a", "01"],
    );
}

#[test]
fn regexes_are_ecma_syntax() {
    ok("regex", &["^a+$", "(?<=a)b", "(a)\\1", "\\p{L}", "[]"]);
    bad("regex", &["(", "\\a", "(?i)a", "a{2,1}", "\\p{letter}"]);
}

#[test]
fn every_format_is_named_and_has_a_valid_example() {
    let names: Vec<&str> = Format::ALL.iter().map(|f| f.name()).collect();
    assert_eq!(names, ASSERTED_FORMATS);
    for format in Format::ALL {
        assert_eq!(Format::from_name(format.name()), Some(format));
        let (_, _, _, example) = format.about();
        assert!(format.check(example), "{}: {example:?}", format.name());
    }
}

#[test]
fn errors_say_what_to_write() {
    let explain = |format: &str, value: &str| {
        let format = Format::from_name(format).unwrap();
        assert!(!format.check(value), "{value:?} is valid");
        format.explain(value)
    };
    assert_eq!(
        explain("email", "bob@"),
        r#"is not a valid email address (RFC 5321 mailbox, e.g. "name@example.com"): the domain after "@" is missing"#
    );
    assert_eq!(
        explain("email", "bob at example.com"),
        r#"is not a valid email address (RFC 5321 mailbox, e.g. "name@example.com"): an address has a local part, "@" and a domain"#
    );
    assert_eq!(
        explain("email", "bob@exa mple.com"),
        r#"is not a valid email address (RFC 5321 mailbox, e.g. "name@example.com")"#
    );
    assert_eq!(
        explain("date-time", "2024-05-17T09:30:00"),
        r#"is not a valid date-time (RFC 3339, e.g. "2024-05-17T09:30:00Z"): add a time zone offset: "Z" for UTC, or one such as "+02:00""#
    );
    assert_eq!(
        explain("date-time", "2024-05-17 09:30:00+02:00"),
        r#"is not a valid date-time (RFC 3339, e.g. "2024-05-17T09:30:00Z"): separate the date and the time with "T""#
    );
    assert_eq!(
        explain("date-time", "2024-05-17"),
        r#"is not a valid date-time (RFC 3339, e.g. "2024-05-17T09:30:00Z"): add a time, such as "T00:00:00Z""#
    );
    assert_eq!(
        explain("date-time", "yesterday"),
        r#"is not a valid date-time (RFC 3339, e.g. "2024-05-17T09:30:00Z")"#
    );
    assert!(explain("time", "09:30").starts_with("is not a valid time (RFC 3339 full-time"));
    assert!(
        explain("time", "09:30:00")
            .ends_with(r#"add a time zone offset: "Z" for UTC, or one such as "+02:00""#)
    );
    assert!(
        explain("date", "2024-05-17T09:30:00Z").ends_with("give the date alone, without a time")
    );
    assert!(
        explain("uri", "example.com/a")
            .ends_with(r#"it has no scheme: give an absolute URI, such as "https://…""#)
    );
    assert!(!explain("uri", "https://exa mple.com").contains("no scheme"));
}
