use super::*;

fn tr(p: &str) -> String {
    match translate(p) {
        Ok(t) => t,
        Err(e) => panic!("translate({p:?}) failed: {e}"),
    }
}

fn re(p: &str) -> regex::Regex {
    let t = tr(p);
    regex::Regex::new(&t).unwrap_or_else(|e| panic!("{p:?} -> {t:?} does not compile: {e}"))
}

/// Asserts which inputs the translated pattern matches.
fn matches(p: &str, yes: &[&str], no: &[&str]) {
    let r = re(p);
    for s in yes {
        assert!(
            r.is_match(s),
            "{p:?} (as {:?}) should match {s:?}",
            r.as_str()
        );
    }
    for s in no {
        assert!(
            !r.is_match(s),
            "{p:?} (as {:?}) should not match {s:?}",
            r.as_str()
        );
    }
}

fn err(p: &str) -> PatternError {
    match translate(p) {
        Ok(t) => panic!("translate({p:?}) should fail, gave {t:?}"),
        Err(e) => e,
    }
}

/// A syntax error: `check_syntax` and `translate` agree on it.
fn syntax_err(p: &str) -> PatternError {
    let e = check_syntax(p).expect_err(p);
    assert_eq!(translate(p).expect_err(p), e, "{p:?}");
    e
}

#[test]
fn literals_and_escaping() {
    assert_eq!(tr("abc"), "abc");
    assert_eq!(tr("a.b"), r"a[^\n\r\x{2028}\x{2029}]b");
    assert_eq!(
        tr(r"\.\*\+\?\(\)\[\]\{\}\|\^\$\\\/"),
        r"\.\*\+\?\(\)\[\]\{\}\|\^\$\\/"
    );
    assert_eq!(tr("a#&~-<> b"), r"a\#\&\~\-<>\x{20}b");
    assert_eq!(tr("é🐲"), "é🐲");
    matches("a b", &["xa by"], &["ab"]);
    matches("#&~", &["#&~"], &["#&"]);
    matches("^🐲*$", &["", "🐲", "🐲🐲"], &["🐉", "D", "DD"]);
}

#[test]
fn pattern_is_unanchored_and_dollar_is_end_only() {
    matches("a+", &["xxaayy"], &["xyz"]);
    matches("^abc$", &["abc"], &["abc\n", "\nabc", "xabc"]);
    matches("^a|b$", &["ax", "xb"], &["xa", "bx"]);
}

#[test]
fn dot_excludes_line_terminators() {
    matches(
        "^.$",
        &["a", "é", "🐲", "\u{85}"],
        &["\n", "\r", "\u{2028}", "\u{2029}", ""],
    );
    matches("^(?s:.)$", &["\n", "\r", "\u{2028}", "a"], &[""]);
    matches("^(?s:(?-s:.))$", &["a"], &["\n"]);
}

#[test]
fn control_and_hex_escapes() {
    matches(r"^\t$", &["\t"], &["\\t", "t"]);
    matches(r"^\cC$", &["\u{3}"], &["\\cC", "C"]);
    matches(r"^\cc$", &["\u{3}"], &["\\cc"]);
    matches(r"^\cJ\cj$", &["\n\n"], &[]);
    matches(r"^\0$", &["\0"], &["0"]);
    matches(r"^\x41\x7e$", &["A~"], &["x41"]);
    matches(r"^\u00e9\u{1F432}\u{0041}$", &["é🐲A"], &[]);
    matches(r"^\f\n\r\v$", &["\x0C\n\r\x0B"], &[]);
    assert_eq!(tr(r"\t\0"), r"\x{9}\x{0}");
}

#[test]
fn surrogate_pairs_are_one_code_point() {
    assert_eq!(tr(r"\uD83D\uDC32"), "🐲");
    matches(r"^\uD83D\uDC32*$", &["", "🐲🐲"], &["🐉"]);
    matches(r"^[\uD83D\uDC32\uD83D\uDC09]$", &["🐲", "🐉"], &["a"]);
    matches(r"^[\uD83D\uDC00-\uD83D\uDCFF]$", &["🐲", "🐀"], &["🌀"]);
    // A lone surrogate can never occur in a Rust string.
    matches(r"\uD83D", &[], &["🐲", "", "a"]);
    matches(r"a|\uDC32", &["a"], &["🐲"]);
    matches(r"^[\uD800-\uDFFF]$", &[], &["a", "🐲"]);
    matches(r"^[^\uD800-\uDFFF]$", &["a", "🐲"], &[]);
    matches(
        r"^[\u0000-\uFFFF]$",
        &["a", "\u{FFFF}", "\u{E000}"],
        &["🐲"],
    );
}

#[test]
fn digit_word_space_are_ecma() {
    matches(r"^\d$", &["0", "9"], &["\u{07C0}", "\u{09EA}", "a"]);
    matches(r"^\D$", &["\u{07C0}", "a"], &["0"]);
    matches(r"^\w$", &["a", "Z", "_", "5"], &["é", "\u{212A}", "-"]);
    matches(r"^\W$", &["é", "-"], &["a", "_"]);
    let spaces = [
        " ", "\t", "\u{B}", "\u{C}", "\u{A0}", "\u{FEFF}", "\n", "\r", "\u{2028}", "\u{2029}",
        "\u{2003}", "\u{1680}", "\u{202F}", "\u{205F}", "\u{3000}",
    ];
    matches(
        r"^\s$",
        &spaces,
        &["\u{1}", "\u{2013}", "\u{85}", "\u{200B}", "a"],
    );
    matches(r"^\S$", &["\u{1}", "\u{2013}", "\u{85}"], &spaces);
    matches(r"^[\s\d]+$", &["1 2\u{3000}3"], &["a"]);
    matches(r"^[^\s\d]+$", &["ab"], &["a b", "a1"]);
    matches(r"^[\D]$", &["a"], &["1"]);
    matches(r"^[^\W]$", &["a"], &["é"]);
    matches(r"^[\S]$", &["a"], &[" "]);
}

#[test]
fn word_boundaries_are_ascii() {
    matches(r"\bfoo\b", &["a foo b", "foo", "éfooé"], &["afoo", "foo_"]);
    matches(r"\B", &["ab", "é", ""], &["a"]);
    // ECMA: é is not a word character, so there is a boundary on each side of `a`.
    matches(r"^a\B", &["ab"], &["aé", "a"]);
    matches(r"\B", &["éé"], &["aéb"][..0]);
    matches(r"^x\b", &["x é"], &["xy"]);
}

#[test]
fn classes() {
    matches("^[a-z]+$", &["abc"], &["aBc", "é"]);
    matches("[a-z]cole", &["l'ecole"], &["l'\u{e9}cole"]);
    matches("^[-a]$", &["-", "a"], &["b"]);
    matches("^[a-]$", &["-", "a"], &["b"]);
    matches("^[a-b-c]$", &["a", "b", "-", "c"], &["d"]);
    matches("^[--a]$", &["-", ".", "a", "0"], &["b"]);
    matches(r"^[\-\]\\^]$", &["-", "]", "\\", "^"], &["a"]);
    matches(r"^[\b]$", &["\u{8}"], &["b"]);
    matches(r"^[\cJ\x41\u{1F432}]$", &["\n", "A", "🐲"], &["J"]);
    matches(
        r"^[.*+?(){}|$/]$",
        &[".", "*", "+", "?", "(", ")", "{", "}", "|", "$", "/"],
        &["a"],
    );
    matches("^[[]$", &["["], &["]"]);
    matches("^[&&~~]$", &["&", "~"], &["a"]);
    matches("^[^abc]$", &["d", "\n"], &["a"]);
    // `[]` matches nothing, `[^]` anything.
    assert_eq!(tr("[]"), r"[^\x00-\x{10FFFF}]");
    matches("a[]", &[], &["a", "ab"]);
    matches("^[^]$", &["\n", "a", "🐲"], &["", "ab"]);
}

#[test]
fn properties() {
    matches(r"^\p{Letter}+$", &["Hello", "π"], &["123"]);
    matches(r"^\p{L}$", &["é"], &["1"]);
    matches(r"^\p{digit}+$", &["42", "\u{09EA}\u{09E8}"], &["-%#"]);
    matches(r"^\p{Lu}\p{Ll}$", &["Ab"], &["aB"]);
    matches(r"^\P{L}$", &["1"], &["a"]);
    matches(r"^\p{Script=Greek}+$", &["αβγ"], &["abc"]);
    matches(r"^\p{sc=Grek}$", &["α"], &["a"]);
    matches(r"^\p{scx=Grek}$", &["α"], &["a"]);
    matches(r"^\p{Script_Extensions=Greek}$", &["α"], &["a"]);
    matches(r"^\p{gc=Nd}$", &["5"], &["a"]);
    matches(r"^\p{General_Category=Decimal_Number}$", &["5"], &["a"]);
    matches(r"^\p{White_Space}$", &[" ", "\u{85}"], &["a"]);
    matches(r"^\p{ASCII_Hex_Digit}+$", &["09afAF"], &["g"]);
    matches(r"^\p{Any}$", &["\n", "🐲"], &[""]);
    matches(r"^[\p{L}\p{Nd}_]+$", &["ab_1é"], &["a-b"]);
    matches(r"^[^\p{L}]$", &["1"], &["a"]);
    matches(r"^[\P{L}]$", &["1"], &["a"]);
    // `Surrogate` matches nothing in a string; its complement matches everything.
    matches(r"\p{Cs}", &[], &["a", "🐲"]);
    matches(r"^\P{Cs}$", &["a", "🐲"], &[""]);
    matches(r"^[\p{Cs}a]$", &["a"], &["b"]);
    matches(r"^[^\p{Cs}]$", &["a"], &[""]);
    assert_eq!(tr(r"\p{Letter}\P{sc=Grek}"), r"\p{L}\P{Script=Greek}");
}

#[test]
fn every_property_name_resolves_and_compiles() {
    for aliases in GENERAL_CATEGORY {
        for name in *aliases {
            for p in [format!(r"\p{{{name}}}"), format!(r"\p{{gc={name}}}")] {
                let _ = re(&p);
            }
        }
    }
    for aliases in BINARY {
        for name in *aliases {
            let p = format!(r"\p{{{name}}}");
            if BINARY_UNSUPPORTED.contains(&aliases[0]) {
                assert!(err(&p).message().contains("is not supported"), "{p}");
                assert!(check_syntax(&p).is_ok(), "{p}");
            } else {
                let _ = re(&p);
            }
        }
    }
    for aliases in SCRIPTS {
        for name in *aliases {
            for key in ["Script", "sc", "Script_Extensions", "scx"] {
                let p = format!(r"\p{{{key}={name}}}");
                if SCRIPTS_UNSUPPORTED.contains(&aliases[0]) {
                    assert!(err(&p).message().contains("is not supported"), "{p}");
                    assert!(check_syntax(&p).is_ok(), "{p}");
                } else {
                    let _ = re(&p);
                }
            }
        }
    }
    // The unsupported ones really are missing from the regex crate's tables (when it gains
    // them, move them back).
    for name in SCRIPTS_UNSUPPORTED {
        assert!(
            regex::Regex::new(&format!(r"\p{{sc={name}}}")).is_err(),
            "{name}"
        );
    }
    let cwkcf = String::from(r"\p{Changes_When_NFKC_Casefolded}");
    assert!(regex::Regex::new(&cwkcf).is_err());
}

#[test]
fn property_errors() {
    let e = syntax_err(r"\p{letter}");
    assert_eq!(
        e.message(),
        "unknown Unicode property `letter`: did you mean `Letter`? (ECMA-262 property names \
         are case-sensitive)"
    );
    assert_eq!(e.span(), 0..10);
    assert!(
        syntax_err(r"\p{Greek}")
            .message()
            .contains("write `\\p{Script=Greek}`")
    );
    assert!(
        syntax_err(r"\p{sc=greek}")
            .message()
            .contains("did you mean `Greek`?")
    );
    assert!(
        syntax_err(r"\p{ASCII=Y}")
            .message()
            .contains("binary property")
    );
    assert!(
        syntax_err(r"\p{Foo=Bar}")
            .message()
            .starts_with("unknown Unicode property `Foo`")
    );
    assert!(
        syntax_err(r"\p{}")
            .message()
            .starts_with("empty property escape")
    );
    assert!(
        syntax_err(r"\p{gc=}")
            .message()
            .starts_with("missing value")
    );
    assert!(syntax_err(r"\pL").message().contains("in braces"));
    assert!(
        syntax_err(r"\p{L")
            .message()
            .starts_with("unclosed property escape")
    );
    assert!(
        syntax_err(r"\p{InGreek}")
            .message()
            .starts_with("unknown Unicode property")
    );
}

#[test]
fn groups_and_quantifiers() {
    assert_eq!(
        tr("(?<year>\\d{4})-(\\d{2})"),
        "(?<year>[0-9]{4})\\-([0-9]{2})"
    );
    matches("^(?<year>\\d{4})-(?:\\d{2})$", &["2024-01"], &["2024-1"]);
    matches("^a{2,3}$", &["aa", "aaa"], &["a", "aaaa"]);
    matches("^a{2,}$", &["aa", "aaaaa"], &["a"]);
    matches("^a{0}b$", &["b"], &["ab"]);
    matches("^a+?b*?c??d{1,2}?$", &["abcd", "ad", "abbdd"], &["bd"]);
    assert_eq!(
        tr("a*?b+?c??d{1,2}?e{3}?f{4,}?"),
        "a*?b+?c??d{1,2}?e{3}?f{4,}?"
    );
    matches("^(a|b|)$", &["a", "b", ""], &["c"]);
    matches("^(?:)$", &[""], &["a"]);
    matches("^()*$", &[""], &["a"]);
    // Duplicate names in different alternatives (ES2025).
    assert_eq!(tr("(?<a>x)|(?<a>y)"), "(?<a>x)|(y)");
    matches("^(?:(?<a>x)|(?<a>y))$", &["x", "y"], &["z"]);
    // Unicode names, `$` in names, escapes in names.
    assert_eq!(tr("(?<π>a)(?<$x>b)(?<\\u0061b>c)"), "(a)(b)(?<ab>c)");
}

#[test]
fn case_insensitive_modifier() {
    matches("^(?i:abc)$", &["ABC", "aBc"], &["abd"]);
    matches("^(?i:a(?-i:b))$", &["Ab"], &["AB"]);
    matches("^(?i:[a-z]+)$", &["HeLLo"], &["héllo"]);
    // ECMA `u`+`i` folding: `ſ` ~ `s`, Kelvin sign ~ `k`, and `\w` includes them.
    matches("^(?i:s)$", &["ſ", "S"], &[]);
    matches(r"^(?i:\w)$", &["ſ", "\u{212A}"], &["é"]);
    matches(r"^(?i:\W)$", &["é"], &["ſ", "\u{212A}"]);
    matches(r"^(?i:\p{Lu})$", &["a", "A"], &["1"]);
    assert_eq!(
        tr("(?i:a)(?s:.)(?-m:b)(?im-s:c)"),
        r"(?i:a)(?:[\x00-\x{10FFFF}])(?:b)(?i:c)"
    );
}

#[test]
fn rejected_constructs() {
    let e = err("a(?=b)");
    assert_eq!(
        e.message(),
        "lookahead `(?=…)` is not supported: pedelec matches patterns in linear time, so it \
         cannot run lookaround; match the surrounding text instead, or check it in the tool"
    );
    assert_eq!(e.span(), 1..4);
    assert!(check_syntax("a(?=b)").is_ok());
    assert!(
        err("(?!b)")
            .message()
            .starts_with("negative lookahead `(?!…)` is not supported")
    );
    let e = err("(?<=a+)b");
    assert!(
        e.message()
            .starts_with("lookbehind `(?<=…)` is not supported")
    );
    assert_eq!(e.span(), 0..4);
    assert!(
        err("(?<!a)b")
            .message()
            .starts_with("negative lookbehind `(?<!…)` is not supported")
    );
    let e = err(r"(a)\1");
    assert!(
        e.message()
            .starts_with("backreference `\\1` is not supported: pedelec matches")
    );
    assert_eq!(e.span(), 3..5);
    let e = err(r"(?<n>a)\k<n>");
    assert!(
        e.message()
            .starts_with("backreference `\\k<n>` is not supported")
    );
    assert_eq!(e.span(), 7..12);
    // Flag combinations without an exact `regex` equivalent.
    assert!(
        err("(?m:^a$)")
            .message()
            .starts_with("`^` inside a multiline `(?m:…)` group")
    );
    assert!(translate("(?m:a)").is_ok());
    assert!(
        err(r"(?i:\bx)")
            .message()
            .starts_with("`\\b` inside a case-insensitive")
    );
    assert!(
        err(r"(?i:\P{Ll})")
            .message()
            .starts_with("`\\P{…}` inside a case-insensitive")
    );
    assert!(
        err(r"(?i:[\P{Ll}])")
            .message()
            .starts_with("`\\P{…}` inside a case-insensitive")
    );
    assert!(translate(r"(?i:[^\p{Ll}])").is_ok());
    let e = err(r"\p{Script=Sidetic}");
    assert!(
        e.message()
            .starts_with("Unicode property `Sidetic` is not supported"),
        "{e}"
    );
    assert!(
        err("a{4294967296}")
            .message()
            .starts_with("repetition count is too large")
    );
}

#[test]
fn syntax_errors() {
    let cases: &[(&str, &str, Range<usize>)] = &[
        ("(abc", "unclosed group: add `)`", 0..1),
        (
            "abc)",
            "unmatched `)`: write `\\)` to match a literal parenthesis",
            3..4,
        ),
        (
            "a{",
            "lone `{` is not a quantifier: write `\\{` to match a literal `{`",
            1..2,
        ),
        (
            "{",
            "lone `{` is not a quantifier: write `\\{` to match a literal `{`",
            0..1,
        ),
        (
            "{1}",
            "quantifier `{` has nothing to repeat: write `\\{` to match a literal `{`",
            0..1,
        ),
        (
            "a{1,x}",
            "lone `{` is not a quantifier: write `\\{` to match a literal `{`",
            1..2,
        ),
        ("}", "lone `}`: write `\\}` to match a literal `}`", 0..1),
        ("]", "lone `]`: write `\\]` to match a literal `]`", 0..1),
        (
            "*a",
            "quantifier `*` has nothing to repeat: write `\\*` to match a literal `*`",
            0..1,
        ),
        (
            "a**",
            "quantifier `*` has nothing to repeat: write `\\*` to match a literal `*`",
            2..3,
        ),
        (
            "a|?",
            "quantifier `?` has nothing to repeat: write `\\?` to match a literal `?`",
            2..3,
        ),
        (
            "a{3,1}",
            "numbers out of order in `{3,1}` quantifier: write the smaller number first",
            1..6,
        ),
        (
            "^*",
            "`^` is an assertion and cannot be repeated: remove the quantifier `*`",
            0..2,
        ),
        (
            "\\b+",
            "`\\b` is an assertion and cannot be repeated: remove the quantifier `+`",
            0..3,
        ),
        (
            "(?=a)*",
            "`(?=a)` is an assertion and cannot be repeated: remove the quantifier `*`",
            0..6,
        ),
        (
            "\\a",
            "invalid escape `\\a` in unicode mode: write `a` to match a literal `a`",
            0..2,
        ),
        (
            "\\-",
            "`\\-` is only valid inside a character class: write `-`",
            0..2,
        ),
        (
            "\\ ",
            "invalid escape `\\ ` in unicode mode: only syntax characters `^$\\.*+?()[]{}|` and `/` may be escaped; write ` `",
            0..2,
        ),
        (
            "\\",
            "pattern ends with a lone `\\`: write `\\\\` to match a backslash",
            0..1,
        ),
        (
            "\\c1",
            "`\\c` must be followed by an ASCII letter, as in `\\cJ`; write `\\\\c` to match a backslash and `c`",
            0..2,
        ),
        (
            "\\x4",
            "`\\x` must be followed by two hex digits, as in `\\x41`; write `\\\\x` to match a backslash and `x`",
            0..2,
        ),
        (
            "\\u12",
            "`\\u` must be followed by four hex digits or a code point in braces, as in `\\u0041` or `\\u{1F600}`",
            0..2,
        ),
        (
            "\\u{110000}",
            "code point `\\u{110000}` is out of range: the largest is `\\u{10FFFF}`",
            0..10,
        ),
        (
            "\\u{}",
            "`\\u{` must be followed by hex digits and `}`, as in `\\u{1F600}`",
            0..3,
        ),
        (
            "\\01",
            "octal escape `\\01` is not allowed in unicode mode: write a hex escape such as `\\x01`",
            0..3,
        ),
        (
            "\\1",
            "backreference `\\1` refers to a group that does not exist: the pattern has no capturing groups",
            0..2,
        ),
        (
            "(a)\\2",
            "backreference `\\2` refers to a group that does not exist: the pattern has only 1 capturing group",
            3..5,
        ),
        (
            "\\k<x>",
            "backreference `\\k<x>` refers to a group that does not exist: name a group with `(?<x>…)`",
            0..5,
        ),
        (
            "\\k",
            "`\\k` must be followed by a group name, as in `\\k<name>`",
            0..2,
        ),
        ("[a", "unclosed character class: add `]`", 0..1),
        (
            "[z-a]",
            "range out of order in character class: `z-a`; write the smaller end first",
            1..4,
        ),
        (
            "[\\d-z]",
            "`\\d-z` is not a range: a class escape such as `\\d` cannot be an end of a range; write `\\-` to match a literal `-`",
            1..5,
        ),
        (
            "[a-\\w]",
            "`a-\\w` is not a range: a class escape such as `\\d` cannot be an end of a range; write `\\-` to match a literal `-`",
            1..5,
        ),
        (
            "[\\B]",
            "`\\B` is not allowed in a character class: remove it",
            1..3,
        ),
        (
            "[\\1]",
            "`\\1` is not allowed in a character class: write a hex escape such as `\\x01`",
            1..3,
        ),
        (
            "(?P<name>x)",
            "`(?P<name>…)` is Python syntax, not ECMA-262: write `(?<name>…)`",
            0..3,
        ),
        (
            "(?P<n>a)(?P=n)",
            "`(?P<name>…)` is Python syntax, not ECMA-262: write `(?<name>…)`",
            0..3,
        ),
        (
            "(?#comment)a",
            "comment groups `(?#…)` are not ECMA-262: remove the comment",
            0..3,
        ),
        (
            "(?i)abc",
            "inline flags `(?i)` are not ECMA-262: scope them to a group, as in `(?i:…)`",
            0..4,
        ),
        (
            "(?ims)abc",
            "inline flags `(?ims)` are not ECMA-262: scope them to a group, as in `(?ims:…)`",
            0..6,
        ),
        ("(?ii:a)", "modifier `i` appears twice: write it once", 3..4),
        (
            "(?i-i:a)",
            "modifier `i` appears twice: write it once",
            4..5,
        ),
        (
            "(?x:a)",
            "unknown modifier `x`: a group may set or clear only `i`, `m` and `s`, as in `(?i:…)` or `(?-i:…)`",
            2..3,
        ),
        (
            "(?-:a)",
            "empty modifier group `(?-:`: name a modifier to clear, as in `(?-i:…)`",
            0..4,
        ),
        (
            "(?x)",
            "unknown modifier `x`: a group may set or clear only `i`, `m` and `s`, as in `(?i:…)` or `(?-i:…)`",
            2..3,
        ),
        (
            "(?<>a)",
            "empty group name: write a name such as `(?<year>…)`",
            2..4,
        ),
        (
            "(?<1a>x)",
            "a group name cannot start with `1`: start it with a letter, `$` or `_`",
            3..4,
        ),
        (
            "(?<a-b>x)",
            "a group name cannot contain `-`: use letters, digits, `$` and `_`",
            4..5,
        ),
        ("(?<a", "unclosed group name: add `>`", 2..4),
        (
            "(?<a>x)(?<a>y)",
            "duplicate group name `a`: names may repeat only in different alternatives of `|`; rename one of the groups",
            7..12,
        ),
        (
            "(?<a>x)|((?<a>y)(?<a>z))",
            "duplicate group name `a`: names may repeat only in different alternatives of `|`; rename one of the groups",
            16..21,
        ),
        (
            "(?",
            "invalid group: after `(?` write `:`, `=`, `!`, `<=`, `<!`, `<name>` or modifiers such as `i:`",
            0..2,
        ),
        (
            "(?~a)",
            "invalid group: after `(?` write `:`, `=`, `!`, `<=`, `<!`, `<name>` or modifiers such as `i:`",
            0..3,
        ),
    ];
    for (pattern, message, span) in cases {
        let e = syntax_err(pattern);
        assert_eq!(e.message(), *message, "{pattern:?}");
        assert_eq!(e.span(), span.clone(), "{pattern:?}");
    }
    assert_eq!(
        syntax_err("(abc").to_string(),
        "unclosed group: add `)` (at byte 0)"
    );
}

#[test]
fn valid_ecma_syntax() {
    for p in [
        "",
        "[]",
        "[^]",
        "\\cA",
        "(?<name>x)",
        "(?<n>a)\\k<n>",
        "\\k<n>(?<n>a)",
        "(?<=a+)b",
        "(?<!a)b",
        "(a)\\1",
        "(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\\10",
        "([abc])+\\s+$",
        "(?i:a)(?-i:b)(?ims-:c)(?i-ms:d)",
        "(?<a>x)|(?<a>y)",
        "((?<a>x)|(?<a>y))",
        "a{1}{0}"[..4].as_ref(),
        "\\/",
        "/",
        "\n",
        "[\\-]",
        "\\u{0}\\u{000000041}",
        "(?<\\u{1d4d1}>x)",
    ] {
        assert!(check_syntax(p).is_ok(), "{p:?}: {:?}", check_syntax(p));
    }
    assert!(check_syntax("^(abc]").is_err());
}

#[test]
fn group_name_tables_agree_with_regex() {
    let start = regex::Regex::new(r"^\p{ID_Start}$").unwrap();
    let cont = regex::Regex::new(r"^\p{ID_Continue}$").unwrap();
    let mut differ = Vec::new();
    let mut buf = [0; 4];
    for c in (0..=0x0010_FFFF).filter_map(char::from_u32) {
        let s = c.encode_utf8(&mut buf);
        if unicode_id_start::is_id_start(c) != start.is_match(s)
            || unicode_id_start::is_id_continue(c) != cont.is_match(s)
        {
            differ.push(c);
        }
    }
    // The same Unicode version (16.0.0) on both sides: not one character differs.
    assert_eq!(differ, [] as [char; 0]);
    assert!(is_id_start(u32::from('a')) && is_id_start(u32::from('π')));
    assert!(is_id_start(u32::from('$')) && is_id_start(u32::from('_')));
    assert!(!is_id_start(u32::from('1')) && is_id_continue(u32::from('1')));
    assert!(is_id_continue(0x0301) && !is_id_start(0x0301));
    assert!(is_id_continue(0x200D) && !is_id_start(0xD800));
}
