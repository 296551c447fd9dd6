//! `check_syntax` against regress, an ECMA-262 engine (unicode mode), on a corpus of
//! hand-picked patterns and on many generated ones: both must agree on what is valid.

use pedelec_rules::ecma::{check_syntax, translate};

fn regress_accepts(p: &str) -> bool {
    regress::Regex::with_flags(p, "u").is_ok()
}

/// Where regress 0.12 departs from ECMA-262 (checked against the grammar):
/// - it lets `\b` / `\B` take a quantifier (`\b*`), which unicode mode forbids (`Term ::
///   Assertion` has no quantifier; only Annex B's non-unicode grammar relaxes lookaheads);
/// - it rejects a lone lead surrogate `\uD83D` followed by `\u{…}`, which the grammar accepts
///   (`RegExpUnicodeEscapeSequence :: u HexLeadSurrogate`).
fn regress_is_wrong(p: &str) -> bool {
    let quantified_boundary = ["\\b", "\\B"].iter().any(|b| {
        p.match_indices(b).any(|(i, _)| {
            let escaped = p[..i].chars().rev().take_while(|&c| c == '\\').count() % 2 == 1;
            !escaped && matches!(p[i + 2..].chars().next(), Some('*' | '+' | '?' | '{'))
        })
    });
    quantified_boundary || p.contains("\\uD83D\\u{")
}

const CORPUS: &[&str] = &[
    "",
    "a",
    "abc",
    "a|b",
    "|",
    "a||b",
    "(a)",
    "(?:a)",
    "(?<n>a)",
    "(?<n>a)\\k<n>",
    "\\k<n>(?<n>a)",
    "(a)\\1",
    "\\1(a)",
    "\\1",
    "\\2(a)",
    "(a)\\01",
    "\\0",
    "\\00",
    "\\08",
    "[\\0]",
    "[\\08]",
    "(?=a)",
    "(?!a)",
    "(?<=a)",
    "(?<!a)",
    "(?=a)*",
    "(?<=a)?",
    "^*",
    "$+",
    "\\b*",
    "\\B{2}",
    "a{1}",
    "a{1,}",
    "a{1,2}",
    "a{2,1}",
    "a{,2}",
    "a{",
    "a{1",
    "a{1,",
    "a{a}",
    "{",
    "}",
    "]",
    "a}",
    "a]",
    "x{1}{2}",
    "a**",
    "a*?",
    "a*??",
    "a+*",
    "*",
    "+a",
    "?",
    "a{1}?",
    "a{1}??",
    "\\a",
    "\\e",
    "\\g",
    "\\i",
    "\\j",
    "\\l",
    "\\m",
    "\\o",
    "\\q",
    "\\y",
    "\\z",
    "\\A",
    "\\Z",
    "\\-",
    "\\/",
    "\\ ",
    "\\'",
    "\\\"",
    "\\#",
    "\\%",
    "\\,",
    "\\:",
    "\\=",
    "\\@",
    "\\_",
    "\\~",
    "\\<",
    "\\>",
    "\\!",
    "\\&",
    "\\`",
    "\\;",
    "[\\-]",
    "[\\/]",
    "[\\ ]",
    "[\\_]",
    "[\\b]",
    "[\\B]",
    "[\\c]",
    "[\\c1]",
    "[\\c_]",
    "\\c",
    "\\c1",
    "\\cA",
    "\\cz",
    "\\x",
    "\\x1",
    "\\x1g",
    "\\x41",
    "\\u",
    "\\u1",
    "\\u12345",
    "\\u{",
    "\\u{}",
    "\\u{41}",
    "\\u{110000}",
    "\\u{10FFFF}",
    "\\u{0000000041}",
    "\\uD83D",
    "\\uD83D\\uDC32",
    "\\uDC32",
    "[\\uD83D\\uDC32]",
    "[\\uD83D-\\uDC32]",
    "\\p",
    "\\p{",
    "\\p{}",
    "\\p{L}",
    "\\p{Letter}",
    "\\p{letter}",
    "\\p{L=L}",
    "\\p{gc=L}",
    "\\p{General_Category=Letter}",
    "\\p{sc=Greek}",
    "\\p{sc=Grek}",
    "\\p{scx=Grek}",
    "\\p{Script=greek}",
    "\\p{Script=Katakana_Or_Hiragana}",
    "\\p{sc=Hrkt}",
    "\\p{ASCII}",
    "\\p{ASCII=Y}",
    "\\p{Any}",
    "\\p{Assigned}",
    "\\p{digit}",
    "\\p{punct}",
    "\\p{cntrl}",
    "\\p{space}",
    "\\p{Combining_Mark}",
    "\\p{LC}",
    "\\p{L&}",
    "\\p{Lu }",
    "\\p{InGreek}",
    "\\p{IsGreek}",
    "\\p{Greek}",
    "\\p{Basic_Emoji}",
    "\\p{RGI_Emoji}",
    "\\p{Emoji_Keycap_Sequence}",
    "\\p{CWKCF}",
    "\\p{Cs}",
    "\\p{Surrogate}",
    "\\p{Unknown}",
    "\\p{sc=Unknown}",
    "\\p{sc=Zzzz}",
    "\\p{Script=Common}",
    "\\p{sc=Zyyy}",
    "\\p{sc=Qaac}",
    "\\p{sc=Qaai}",
    "\\p{scx=Zinh}",
    "\\p{Bidi_Class=L}",
    "\\p{bc=L}",
    "\\p{Block=Greek}",
    "\\p{Hyphen}",
    "\\p{Other_Alphabetic}",
    "\\p{IDS_Unary_Operator}",
    "\\p{ID_Compat_Math_Start}",
    "\\P{L}",
    "[\\p{L}]",
    "[^\\P{L}]",
    "[\\p{L}-z]",
    "[a-\\p{L}]",
    "\\pL",
    "[]",
    "[^]",
    "[a-]",
    "[-a]",
    "[a-b-c]",
    "[--a]",
    "[a--b]",
    "[\\d-a]",
    "[a-\\d]",
    "[\\w-\\d]",
    "[z-a]",
    "[a-a]",
    "[[]",
    "[]]",
    "[^]]",
    "[a&&b]",
    "[a--b]",
    "[\\q{abc}]",
    "(?i:a)",
    "(?-i:a)",
    "(?i-s:a)",
    "(?ims:a)",
    "(?ims-:a)",
    "(?-:a)",
    "(?ii:a)",
    "(?i-i:a)",
    "(?x:a)",
    "(?I:a)",
    "(?i)a",
    "(?i",
    "(?:",
    "(?",
    "(",
    ")",
    "a)",
    "(a",
    "(?P<n>a)",
    "(?#x)",
    "(?<>a)",
    "(?<1>a)",
    "(?<a1>a)",
    "(?<$>a)",
    "(?<_>a)",
    "(?<é>a)",
    "(?<\\u0061>a)",
    "(?<\\u{61}>a)",
    "(?<a\\u200D>a)",
    "(?<a-b>a)",
    "(?<a>a)(?<a>b)",
    "(?<a>a)|(?<a>b)",
    "((?<a>a)|(?<a>b))",
    "(?:(?<a>a)|b)(?<a>c)",
    "(?<a>a)|((?<a>b)|(?<a>c))",
    "(?<a>(?<a>b)|c)",
    "\\k",
    "\\k<",
    "\\k<a",
    "\\k<a>",
    "(?<a>.)\\k<b>",
    "\\k<1>",
    "[\\k<a>](?<a>.)",
    "a{99999999999999999999}",
    "a{99999999999999999999,1}",
    "a{1,99999999999999999999}",
    "(?<=a)+",
    "(?!a)+",
    "(?=a){1}",
    "/",
    "[/]",
    "\\/",
    "\u{0}",
    "\n",
    "é",
    "🐲",
    "🐲+",
    "^$",
    "^|$",
    "a^b",
    "\\bx\\B",
    "[\\s\\S]",
    "[\\d\\D]",
    "[\\w\\W]",
    "\\s+?",
    "(?:)",
    "()",
    "(?<a>)",
    "((((a))))",
    "(?:(?:(?:a)))",
    "a|(b|(c|d))",
    "[\\]]",
    "[\\[]",
    "[\\^]",
    "[^^]",
    "[\\{\\}\\(\\)\\.\\*\\+\\?\\|\\$]",
    "[\\e]",
    "[\\a]",
    "[\\-a]",
    "[a\\-z]",
];

#[test]
fn corpus_agrees_with_regress() {
    let mut disagreements = Vec::new();
    for p in CORPUS {
        let ours = check_syntax(p);
        if ours.is_ok() != regress_accepts(p) && !regress_is_wrong(p) {
            disagreements.push(format!(
                "{p:?}: ours {ours:?}, regress {}",
                regress_accepts(p)
            ));
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[usize::try_from(self.next() % items.len() as u64).unwrap()]
    }
}

const TOKENS: &[&str] = &[
    "a",
    "b",
    "é",
    "🐲",
    "-",
    ".",
    "^",
    "$",
    "|",
    "(",
    ")",
    "(?:",
    "(?=",
    "(?!",
    "(?<=",
    "(?<!",
    "(?<n>",
    "(?<m>",
    "(?i:",
    "(?-s:",
    "(?m-i:",
    "[",
    "]",
    "[^",
    "{",
    "}",
    "{1}",
    "{1,}",
    "{2,1}",
    "{0,3}",
    "*",
    "+",
    "?",
    "\\",
    "\\d",
    "\\D",
    "\\w",
    "\\s",
    "\\b",
    "\\B",
    "\\1",
    "\\2",
    "\\0",
    "\\k<n>",
    "\\k<x>",
    "\\p{L}",
    "\\P{Lu}",
    "\\p{sc=Greek}",
    "\\p{Foo}",
    "\\cA",
    "\\c",
    "\\x4",
    "\\x41",
    "\\u0041",
    "\\u{1F432}",
    "\\uD83D",
    "\\uDC32",
    "\\-",
    "\\/",
    "\\a",
    ",",
    "1",
    "=",
    "<",
    ">",
    ":",
    "!",
];

#[test]
fn generated_patterns_agree_with_regress() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut disagreements = Vec::new();
    let mut valid = 0;
    for _ in 0..15_000 {
        let len = 1 + rng.next() % 7;
        let p: String = (0..len).map(|_| rng.pick(TOKENS)).collect();
        let ours = check_syntax(&p);
        valid += usize::from(ours.is_ok());
        if ours.is_ok() != regress_accepts(&p) && !regress_is_wrong(&p) && disagreements.len() < 30
        {
            disagreements.push(format!(
                "{p:?}: ours {ours:?}, regress {}",
                regress_accepts(&p)
            ));
        }
        // Whatever parses either translates or is refused with a reason; a translation
        // always compiles.
        if ours.is_ok()
            && let Ok(t) = translate(&p)
        {
            assert!(regex::Regex::new(&t).is_ok(), "{p:?} -> {t:?}");
        }
    }
    assert!(disagreements.is_empty(), "{}", disagreements.join("\n"));
    // The generator must exercise both outcomes.
    assert!(valid > 1_500, "only {valid} valid patterns");
}

/// Translated patterns match exactly what regress (ECMA-262 semantics) matches.
#[test]
fn generated_translations_match_like_regress() {
    const ATOMS: &[&str] = &[
        "a", "b", "é", ".", "\\d", "\\D", "\\w", "\\W", "\\s", "\\S", "\\b", "\\B", "^", "$",
        "[a-c]", "[^a]", "[\\s\\d]", "\\p{L}", "\\P{L}", "(?:a|b)", "(a)", "(?i:A)", "(?s:.)",
        "\\u00e9", "\\n", "[]", "[^]", "\\p{Lu}",
    ];
    const QUANTS: &[&str] = &["", "", "", "*", "+", "?", "{2}", "{0,2}", "*?"];
    const INPUTS: &[&str] = &[
        "", "a", "b", "ab", "ba", "aa", "A", "é", "É", "1", "a1", " ", "\n", "\u{2028}", "a b",
        "é a", "aé", "\u{FEFF}", "\u{a0}", "abc", "a\n", "ſ", "_", "-", "🐲",
    ];
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut checked = 0;
    for _ in 0..6_000 {
        let len = 1 + rng.next() % 4;
        let mut p = String::new();
        for _ in 0..len {
            let atom = rng.pick(ATOMS);
            p.push_str(atom);
            if !matches!(atom, "^" | "$" | "\\b" | "\\B") {
                p.push_str(rng.pick(QUANTS));
            }
        }
        let Ok(t) = translate(&p) else { continue };
        let ours = regex::Regex::new(&t).unwrap();
        let theirs = regress::Regex::with_flags(&p, "u").unwrap();
        for input in INPUTS {
            assert_eq!(
                ours.is_match(input),
                theirs.find(input).is_some(),
                "{p:?} (as {t:?}) on {input:?}"
            );
            checked += 1;
        }
    }
    assert!(checked > 100_000);
}

#[test]
fn known_regress_departures_are_what_the_grammar_says() {
    assert!(check_syntax("\\b*").is_err() && regress_accepts("\\b*"));
    assert!(check_syntax("\\uD83D\\u{1F432}").is_ok() && !regress_accepts("\\uD83D\\u{1F432}"));
    assert!(regress_is_wrong("a\\B{2}") && !regress_is_wrong("\\\\b*"));
}
