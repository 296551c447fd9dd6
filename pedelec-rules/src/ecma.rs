//! ECMA-262 regular expressions, as JSON Schema uses them (`pattern`, `format: "regex"`).
//!
//! JSON Schema 2020-12 patterns are ECMA-262 regular expressions with Unicode semantics (the
//! `u` flag) that match anywhere in the string. pedelec matches them with the `regex` crate
//! (linear time: no pattern can make validation slow), so this module parses the ECMA-262
//! syntax exactly (ES2025, unicode mode: no Annex B leniency) and
//!
//! - [`check_syntax`] tells whether a string is a valid ECMA-262 pattern at all (what
//!   `format: "regex"` asserts: lookbehind and backreferences are valid there);
//! - [`translate`] rewrites a pattern into an equivalent `regex`-crate pattern, or explains
//!   why it cannot: backreferences and lookaround need backtracking, and a few flag
//!   combinations have no exact `regex` equivalent. Every construct that is translated keeps
//!   its ECMA-262 meaning (`\d` and `\w` stay ASCII, `\s` is ECMA white space, `.` stops at
//!   every line terminator, `$` matches only at the very end, …).
//!
//! ```
//! use pedelec_rules::ecma;
//!
//! assert_eq!(ecma::translate(r"^\d+$").unwrap(), "^[0-9]+$");
//! assert!(ecma::check_syntax(r"(?<=a)b").is_ok());
//! let err = ecma::translate(r"(?<=a)b").unwrap_err();
//! assert!(err.message().starts_with("lookbehind `(?<=…)` is not supported"));
//! assert_eq!(err.span(), 0..4);
//! ```

use std::fmt::{self, Write as _};
use std::ops::Range;

/// Why a pattern is not valid ECMA-262, or cannot be matched by pedelec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    span: Range<usize>,
    message: String,
}

impl PatternError {
    fn new(span: Range<usize>, message: impl Into<String>) -> Self {
        PatternError {
            span,
            message: message.into(),
        }
    }

    /// Byte range of the offending part of the pattern (empty at the end of the pattern
    /// for something missing there).
    #[must_use]
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// What is wrong and what to write instead, lower case, without the position.
    #[must_use]
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.span.start)
    }
}

impl std::error::Error for PatternError {}

/// Checks that `pattern` is a valid ECMA-262 regular expression in unicode mode (what
/// JSON Schema's `format: "regex"` asserts). Constructs that [`translate`] rejects because
/// they need backtracking (lookaround, backreferences) are valid here.
///
/// # Errors
/// The first syntax error, with its position.
pub fn check_syntax(pattern: &str) -> Result<(), PatternError> {
    Parser::new(pattern).parse().map(drop)
}

/// Translates an ECMA-262 pattern (JSON Schema `pattern`: unicode mode, unanchored) into a
/// pattern for the `regex` crate that matches exactly the same strings.
///
/// # Errors
/// A syntax error (as [`check_syntax`]), or a construct that a linear-time engine cannot run
/// (lookahead, lookbehind, backreferences) or that has no exact `regex` equivalent.
pub fn translate(pattern: &str) -> Result<String, PatternError> {
    let ast = Parser::new(pattern).parse()?;
    let mut emitter = Emitter {
        src: pattern,
        out: String::with_capacity(pattern.len() + 16),
        names: Vec::new(),
    };
    emitter.node(&ast, Flags::default())?;
    Ok(emitter.out)
}

// ---------------------------------------------------------------------------------------
// Syntax tree

#[derive(Debug)]
struct Node {
    kind: Kind,
    span: Range<usize>,
}

#[derive(Debug)]
enum Kind {
    Alt(Vec<Node>),
    Concat(Vec<Node>),
    /// A literal code point (a lone surrogate when written as `\uD800`).
    Char(u32),
    Dot,
    Start,
    End,
    WordBoundary {
        negated: bool,
    },
    /// `\d`, `\p{L}`, … outside a class.
    Escape(ClassEscape),
    Class {
        negated: bool,
        items: Vec<ClassItem>,
    },
    Group {
        capture: Capture,
        body: Box<Node>,
    },
    Modifiers {
        add: Flags,
        remove: Flags,
        body: Box<Node>,
    },
    Look {
        behind: bool,
        negated: bool,
    },
    BackRef,
    Repeat {
        body: Box<Node>,
        min: u64,
        max: Option<u64>,
        greedy: bool,
    },
}

#[derive(Debug)]
enum Capture {
    None,
    Unnamed,
    Named(String),
}

#[derive(Debug)]
enum ClassItem {
    Range(u32, u32),
    Escape(ClassEscape, Range<usize>),
}

#[derive(Clone, Copy, Debug)]
struct ClassEscape {
    set: Set,
    negated: bool,
}

#[derive(Clone, Copy, Debug)]
enum Set {
    Digit,
    Word,
    Space,
    Property(Property),
}

/// A `\p{…}` property, resolved.
#[derive(Clone, Copy, Debug)]
enum Property {
    /// Written as `\p{…}` for the `regex` crate.
    Regex(&'static str, PropKind),
    /// `Surrogate`: no scalar value has it, so it matches nothing in a string.
    Nothing,
    /// Valid ECMA-262, but the `regex` crate's Unicode tables lack it.
    Unsupported(&'static str),
}

#[derive(Clone, Copy, Debug)]
enum PropKind {
    Binary,
    GeneralCategory,
    Script,
    ScriptExtensions,
}

/// The ES2025 modifiers a group may set or clear.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Flags {
    ignore_case: bool,
    multiline: bool,
    dot_all: bool,
}

impl Flags {
    fn is_empty(self) -> bool {
        self == Flags::default()
    }
}

// ---------------------------------------------------------------------------------------
// Parser

const SYNTAX_CHARS: &str = "^$\\.*+?()[]{}|";

struct Parser<'a> {
    src: &'a str,
    chars: Vec<(usize, char)>,
    pos: usize,
    capture_count: u32,
    /// Every group name with the alternatives it sits in, for the duplicate-name rule.
    names: Vec<(String, AltPath)>,
    /// (disjunction id, alternative index) from the outermost disjunction inward.
    path: AltPath,
    next_disjunction: u32,
    backrefs: Vec<(u64, Range<usize>)>,
    named_backrefs: Vec<(String, Range<usize>)>,
}

type PResult<T> = Result<T, PatternError>;

/// (disjunction id, alternative index) pairs, outermost first: where a group sits.
type AltPath = Vec<(u32, u32)>;

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Parser {
            src,
            chars: src.char_indices().collect(),
            pos: 0,
            capture_count: 0,
            names: Vec::new(),
            path: Vec::new(),
            next_disjunction: 0,
            backrefs: Vec::new(),
            named_backrefs: Vec::new(),
        }
    }

    fn parse(mut self) -> PResult<Node> {
        let node = self.disjunction()?;
        if let Some(c) = self.peek() {
            debug_assert_eq!(c, ')');
            let at = self.offset();
            return Err(PatternError::new(
                at..at + 1,
                "unmatched `)`: write `\\)` to match a literal parenthesis",
            ));
        }
        for (n, span) in &self.backrefs {
            if *n > u64::from(self.capture_count) {
                let groups = match self.capture_count {
                    0 => "the pattern has no capturing groups".to_owned(),
                    1 => "the pattern has only 1 capturing group".to_owned(),
                    k => format!("the pattern has only {k} capturing groups"),
                };
                return Err(PatternError::new(
                    span.clone(),
                    format!(
                        "backreference `\\{n}` refers to a group that does not exist: {groups}"
                    ),
                ));
            }
        }
        for (name, span) in &self.named_backrefs {
            if !self.names.iter().any(|(n, _)| n == name) {
                return Err(PatternError::new(
                    span.clone(),
                    format!(
                        "backreference `\\k<{name}>` refers to a group that does not exist: \
                         name a group with `(?<{name}>…)`"
                    ),
                ));
            }
        }
        Ok(node)
    }

    // -- cursor --

    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).map(|&(_, c)| c)
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).map(|&(_, c)| c)
    }

    fn offset(&self) -> usize {
        self.offset_of(self.pos)
    }

    fn offset_of(&self, index: usize) -> usize {
        self.chars.get(index).map_or(self.src.len(), |&(i, _)| i)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn looking_at(&self, s: &str) -> bool {
        s.chars()
            .enumerate()
            .all(|(i, c)| self.peek_at(i) == Some(c))
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    fn error_here<T>(&self, len_chars: usize, message: impl Into<String>) -> PResult<T> {
        let start = self.offset();
        let end = self.offset_of(self.pos + len_chars);
        Err(PatternError::new(start..end, message))
    }

    fn text(&self, from: usize) -> &'a str {
        &self.src[self.offset_of(from)..self.offset()]
    }

    // -- grammar --

    fn disjunction(&mut self) -> PResult<Node> {
        let start = self.offset();
        let id = self.next_disjunction;
        self.next_disjunction += 1;
        let mut alternatives = Vec::new();
        let mut index = 0;
        loop {
            self.path.push((id, index));
            let alternative = self.alternative();
            self.path.pop();
            alternatives.push(alternative?);
            if !self.eat('|') {
                break;
            }
            index += 1;
        }
        let span = start..self.offset();
        Ok(if alternatives.len() == 1 {
            alternatives.pop().expect("one alternative")
        } else {
            Node {
                kind: Kind::Alt(alternatives),
                span,
            }
        })
    }

    fn alternative(&mut self) -> PResult<Node> {
        let start = self.offset();
        let mut terms = Vec::new();
        while let Some(c) = self.peek() {
            if c == '|' || c == ')' {
                break;
            }
            terms.push(self.term()?);
        }
        Ok(Node {
            kind: Kind::Concat(terms),
            span: start..self.offset(),
        })
    }

    fn term(&mut self) -> PResult<Node> {
        let start = self.offset();
        let c = self.peek().expect("term at a character");
        let (kind, quantifiable) = match c {
            '^' => {
                self.pos += 1;
                (Kind::Start, false)
            }
            '$' => {
                self.pos += 1;
                (Kind::End, false)
            }
            '\\' if matches!(self.peek_at(1), Some('b' | 'B')) => {
                let negated = self.peek_at(1) == Some('B');
                self.pos += 2;
                (Kind::WordBoundary { negated }, false)
            }
            '(' => self.group()?,
            '.' => {
                self.pos += 1;
                (Kind::Dot, true)
            }
            '[' => (self.class()?, true),
            '\\' => (self.atom_escape()?, true),
            '*' | '+' | '?' => {
                return self.error_here(
                    1,
                    format!(
                        "quantifier `{c}` has nothing to repeat: write `\\{c}` to match a \
                         literal `{c}`"
                    ),
                );
            }
            '{' => {
                let message = if self.quantifier_braces().is_some() {
                    "quantifier `{` has nothing to repeat: write `\\{` to match a literal `{`"
                } else {
                    "lone `{` is not a quantifier: write `\\{` to match a literal `{`"
                };
                return self.error_here(1, message);
            }
            '}' => return self.error_here(1, "lone `}`: write `\\}` to match a literal `}`"),
            ']' => return self.error_here(1, "lone `]`: write `\\]` to match a literal `]`"),
            _ => {
                self.pos += 1;
                (Kind::Char(u32::from(c)), true)
            }
        };
        let atom = Node {
            kind,
            span: start..self.offset(),
        };
        match self.peek() {
            Some('*' | '+' | '?' | '{') => {}
            _ => return Ok(atom),
        }
        let q_start = self.pos;
        let (min, max) = match self.peek() {
            Some('*') => {
                self.pos += 1;
                (0, None)
            }
            Some('+') => {
                self.pos += 1;
                (1, None)
            }
            Some('?') => {
                self.pos += 1;
                (0, Some(1))
            }
            _ => match self.quantifier_braces() {
                Some((min, max, len)) => {
                    if let Some(max) = max
                        && max < min
                    {
                        return self.error_here(
                            len,
                            format!(
                                "numbers out of order in `{}` quantifier: write the smaller \
                                 number first",
                                self.src[self.offset()..self.offset_of(self.pos + len)].to_owned()
                            ),
                        );
                    }
                    self.pos += len;
                    (min, max)
                }
                None => {
                    return self.error_here(
                        1,
                        "lone `{` is not a quantifier: write `\\{` to match a literal `{`",
                    );
                }
            },
        };
        if !quantifiable {
            let what = self.src[atom.span.clone()].to_owned();
            let q = self.text(q_start).to_owned();
            return Err(PatternError::new(
                start..self.offset(),
                format!(
                    "`{what}` is an assertion and cannot be repeated: remove the quantifier `{q}`"
                ),
            ));
        }
        let greedy = !self.eat('?');
        Ok(Node {
            kind: Kind::Repeat {
                body: Box::new(atom),
                min,
                max,
                greedy,
            },
            span: start..self.offset(),
        })
    }

    /// `{n}`, `{n,}` or `{n,m}` at the cursor: (min, max, length in chars), not consumed.
    fn quantifier_braces(&self) -> Option<(u64, Option<u64>, usize)> {
        let mut i = 1;
        let min = self.digits_at(&mut i)?;
        let max = if self.peek_at(i) == Some(',') {
            i += 1;
            if self.peek_at(i) == Some('}') {
                None
            } else {
                Some(self.digits_at(&mut i)?)
            }
        } else {
            Some(min)
        };
        (self.peek_at(i) == Some('}')).then_some((min, max, i + 1))
    }

    fn digits_at(&self, i: &mut usize) -> Option<u64> {
        let mut value: Option<u64> = None;
        while let Some(d) = self.peek_at(*i).and_then(|c| c.to_digit(10)) {
            value = Some(
                value
                    .unwrap_or(0)
                    .saturating_mul(10)
                    .saturating_add(u64::from(d)),
            );
            *i += 1;
        }
        value
    }

    fn group(&mut self) -> PResult<(Kind, bool)> {
        let open = self.offset();
        self.pos += 1; // (
        let mut quantifiable = true;
        let kind_of_body: Box<dyn FnOnce(Node) -> Kind>;
        if self.eat('?') {
            match self.peek() {
                Some(':') => {
                    self.pos += 1;
                    kind_of_body = Box::new(|body| Kind::Group {
                        capture: Capture::None,
                        body: Box::new(body),
                    });
                }
                Some('=' | '!') => {
                    let negated = self.bump() == Some('!');
                    quantifiable = false;
                    kind_of_body = Box::new(move |_| Kind::Look {
                        behind: false,
                        negated,
                    });
                }
                Some('<') if matches!(self.peek_at(1), Some('=' | '!')) => {
                    self.pos += 1;
                    let negated = self.bump() == Some('!');
                    quantifiable = false;
                    kind_of_body = Box::new(move |_| Kind::Look {
                        behind: true,
                        negated,
                    });
                }
                Some('<') => {
                    let name = self.group_name()?;
                    self.capture_count += 1;
                    self.declare_name(name.clone(), open..self.offset())?;
                    kind_of_body = Box::new(|body| Kind::Group {
                        capture: Capture::Named(name),
                        body: Box::new(body),
                    });
                }
                Some('P') => {
                    let message = if self.peek_at(1) == Some('=') {
                        "`(?P=name)` is Python syntax, not ECMA-262: write `\\k<name>`"
                    } else {
                        "`(?P<name>…)` is Python syntax, not ECMA-262: write `(?<name>…)`"
                    };
                    return Err(PatternError::new(
                        open..self.offset_of(self.pos + 1),
                        message,
                    ));
                }
                Some('#') => {
                    return Err(PatternError::new(
                        open..self.offset_of(self.pos + 1),
                        "comment groups `(?#…)` are not ECMA-262: remove the comment",
                    ));
                }
                Some(c) if c.is_ascii_alphabetic() || c == '-' => {
                    let (add, remove) = self.modifiers(open)?;
                    kind_of_body = Box::new(move |body| Kind::Modifiers {
                        add,
                        remove,
                        body: Box::new(body),
                    });
                }
                _ => {
                    return Err(PatternError::new(
                        open..self.offset_of(self.pos + 1),
                        "invalid group: after `(?` write `:`, `=`, `!`, `<=`, `<!`, `<name>` or \
                         modifiers such as `i:`",
                    ));
                }
            }
        } else {
            self.capture_count += 1;
            kind_of_body = Box::new(|body| Kind::Group {
                capture: Capture::Unnamed,
                body: Box::new(body),
            });
        }
        let body = self.disjunction()?;
        if !self.eat(')') {
            return Err(PatternError::new(open..open + 1, "unclosed group: add `)`"));
        }
        Ok((kind_of_body(body), quantifiable))
    }

    /// After `(?`: `ims-ims:`. Returns (add, remove).
    fn modifiers(&mut self, open: usize) -> PResult<(Flags, Flags)> {
        let mut add = Flags::default();
        let mut remove = Flags::default();
        let mut removing = false;
        loop {
            let at = self.pos;
            let Some(c) = self.bump() else {
                return Err(PatternError::new(
                    open..self.src.len(),
                    "unclosed modifier group: write `(?i:…)`",
                ));
            };
            let twice = flag_of(add, c) || flag_of(remove, c);
            let set = if removing { &mut remove } else { &mut add };
            let flag = match c {
                'i' => &mut set.ignore_case,
                'm' => &mut set.multiline,
                's' => &mut set.dot_all,
                '-' if !removing => {
                    removing = true;
                    continue;
                }
                ':' => break,
                ')' => {
                    let flags = &self.src[open + 2..self.offset_of(self.pos - 1)];
                    return Err(PatternError::new(
                        open..self.offset(),
                        format!(
                            "inline flags `(?{flags})` are not ECMA-262: scope them to a group, \
                             as in `(?{flags}:…)`"
                        ),
                    ));
                }
                other => {
                    return Err(PatternError::new(
                        self.offset_of(at)..self.offset(),
                        format!(
                            "unknown modifier `{other}`: a group may set or clear only `i`, `m` \
                             and `s`, as in `(?i:…)` or `(?-i:…)`"
                        ),
                    ));
                }
            };
            if twice {
                return Err(PatternError::new(
                    self.offset_of(at)..self.offset(),
                    format!("modifier `{c}` appears twice: write it once"),
                ));
            }
            *flag = true;
        }
        if removing && add.is_empty() && remove.is_empty() {
            return Err(PatternError::new(
                open..self.offset(),
                "empty modifier group `(?-:`: name a modifier to clear, as in `(?-i:…)`",
            ));
        }
        Ok((add, remove))
    }

    /// `<name>` at the cursor (which is on `<`), consumed.
    fn group_name(&mut self) -> PResult<String> {
        let start = self.offset();
        self.pos += 1; // <
        let mut name = String::new();
        loop {
            let at = self.offset();
            let c = match self.peek() {
                None => {
                    return Err(PatternError::new(
                        start..self.src.len(),
                        "unclosed group name: add `>`",
                    ));
                }
                Some('>') => {
                    self.pos += 1;
                    break;
                }
                Some('\\') => {
                    self.pos += 1;
                    if self.peek() != Some('u') {
                        return Err(PatternError::new(
                            at..self.offset_of(self.pos + 1),
                            "a group name may contain only identifier characters and `\\u` \
                             escapes",
                        ));
                    }
                    self.pos += 1;
                    self.unicode_escape(at)?
                }
                Some(c) => {
                    self.pos += 1;
                    u32::from(c)
                }
            };
            let ok = if name.is_empty() {
                is_id_start(c)
            } else {
                is_id_continue(c)
            };
            let ch = char::from_u32(c);
            if !ok || ch.is_none() {
                let shown = ch.map_or_else(|| format!("\\u{c:04X}"), String::from);
                let message = if name.is_empty() {
                    format!(
                        "a group name cannot start with `{shown}`: start it with a letter, `$` \
                         or `_`"
                    )
                } else {
                    format!(
                        "a group name cannot contain `{shown}`: use letters, digits, `$` and `_`"
                    )
                };
                return Err(PatternError::new(at..self.offset(), message));
            }
            name.push(ch.expect("checked"));
        }
        if name.is_empty() {
            return Err(PatternError::new(
                start..self.offset(),
                "empty group name: write a name such as `(?<year>…)`",
            ));
        }
        Ok(name)
    }

    fn declare_name(&mut self, name: String, span: Range<usize>) -> PResult<()> {
        for (other, path) in &self.names {
            if *other == name && might_both_participate(path, &self.path) {
                return Err(PatternError::new(
                    span,
                    format!(
                        "duplicate group name `{name}`: names may repeat only in different \
                         alternatives of `|`; rename one of the groups"
                    ),
                ));
            }
        }
        self.names.push((name, self.path.clone()));
        Ok(())
    }

    /// After `\` outside a class.
    fn atom_escape(&mut self) -> PResult<Kind> {
        let start = self.offset();
        self.pos += 1; // backslash
        match self.peek() {
            Some('1'..='9') => {
                let mut value: u64 = 0;
                while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
                    value = value.saturating_mul(10).saturating_add(u64::from(d));
                    self.pos += 1;
                }
                self.backrefs.push((value, start..self.offset()));
                Ok(Kind::BackRef)
            }
            Some('k') => {
                self.pos += 1;
                if self.peek() != Some('<') {
                    return Err(PatternError::new(
                        start..self.offset(),
                        "`\\k` must be followed by a group name, as in `\\k<name>`",
                    ));
                }
                let name = self.group_name()?;
                self.named_backrefs.push((name, start..self.offset()));
                Ok(Kind::BackRef)
            }
            _ => Ok(match self.class_or_char_escape(start, false)? {
                Escaped::Char(c) => Kind::Char(c),
                Escaped::Set(e) => Kind::Escape(e),
            }),
        }
    }

    /// After `\` (cursor on the character after it): a character escape or a class escape
    /// (`\d`, `\p{…}`, …). `in_class` allows `\-` and `\b` (backspace).
    fn class_or_char_escape(&mut self, start: usize, in_class: bool) -> PResult<Escaped> {
        let Some(c) = self.bump() else {
            return Err(PatternError::new(
                start..self.src.len(),
                "pattern ends with a lone `\\`: write `\\\\` to match a backslash",
            ));
        };
        let set = |set, negated| Ok(Escaped::Set(ClassEscape { set, negated }));
        let ch = |c: char| Ok(Escaped::Char(u32::from(c)));
        match c {
            'd' => set(Set::Digit, false),
            'D' => set(Set::Digit, true),
            'w' => set(Set::Word, false),
            'W' => set(Set::Word, true),
            's' => set(Set::Space, false),
            'S' => set(Set::Space, true),
            'p' | 'P' => {
                let property = self.property(start, c)?;
                set(Set::Property(property), c == 'P')
            }
            'f' => ch('\x0C'),
            'n' => ch('\n'),
            'r' => ch('\r'),
            't' => ch('\t'),
            'v' => ch('\x0B'),
            'b' if in_class => ch('\x08'),
            '-' if in_class => ch('-'),
            'c' => match self.peek() {
                Some(l) if l.is_ascii_alphabetic() => {
                    self.pos += 1;
                    Ok(Escaped::Char(u32::from(l) % 32))
                }
                _ => Err(PatternError::new(
                    start..self.offset(),
                    "`\\c` must be followed by an ASCII letter, as in `\\cJ`; write `\\\\c` to \
                     match a backslash and `c`",
                )),
            },
            '0' => {
                if self.peek().is_some_and(|d| d.is_ascii_digit()) {
                    let end = self.offset_of(self.pos + 1);
                    Err(PatternError::new(
                        start..end,
                        format!(
                            "octal escape `{}` is not allowed in unicode mode: write a hex \
                             escape such as `\\x01`",
                            &self.src[start..end]
                        ),
                    ))
                } else {
                    Ok(Escaped::Char(0))
                }
            }
            '1'..='9' if in_class => Err(PatternError::new(
                start..self.offset(),
                format!(
                    "`\\{c}` is not allowed in a character class: write a hex escape such as \
                     `\\x0{c}`"
                ),
            )),
            'x' => {
                let hex = self.hex_digits(2);
                match hex {
                    Some(v) => Ok(Escaped::Char(v)),
                    None => Err(PatternError::new(
                        start..self.offset(),
                        "`\\x` must be followed by two hex digits, as in `\\x41`; write `\\\\x` \
                         to match a backslash and `x`",
                    )),
                }
            }
            'u' => Ok(Escaped::Char(self.unicode_escape(start)?)),
            '-' => Err(PatternError::new(
                start..self.offset(),
                "`\\-` is only valid inside a character class: write `-`",
            )),
            'B' if in_class => Err(PatternError::new(
                start..self.offset(),
                "`\\B` is not allowed in a character class: remove it",
            )),
            'k' if in_class => Err(PatternError::new(
                start..self.offset(),
                "a backreference `\\k` is not allowed in a character class: remove it",
            )),
            c if SYNTAX_CHARS.contains(c) || c == '/' => ch(c),
            c => {
                let hint = if c.is_ascii_alphanumeric() {
                    format!("write `{c}` to match a literal `{c}`")
                } else {
                    format!(
                        "only syntax characters `^$\\.*+?()[]{{}}|` and `/` may be escaped; write `{c}`"
                    )
                };
                Err(PatternError::new(
                    start..self.offset(),
                    format!("invalid escape `\\{c}` in unicode mode: {hint}"),
                ))
            }
        }
    }

    /// `count` hex digits at the cursor, consumed only if all are there.
    fn hex_digits(&mut self, count: usize) -> Option<u32> {
        let mut value = 0;
        for i in 0..count {
            value = value * 16 + self.peek_at(i)?.to_digit(16)?;
        }
        self.pos += count;
        Some(value)
    }

    /// After `\u` (cursor after `u`): `XXXX`, `{X…}`, or a surrogate pair `XXXX\uXXXX`.
    fn unicode_escape(&mut self, start: usize) -> PResult<u32> {
        if self.eat('{') {
            let digits_start = self.pos;
            let mut value: u32 = 0;
            while let Some(d) = self.peek().and_then(|c| c.to_digit(16)) {
                value = value.saturating_mul(16).saturating_add(d).min(0x0011_0000);
                self.pos += 1;
            }
            if self.pos == digits_start || self.peek() != Some('}') {
                return Err(PatternError::new(
                    start..self.offset(),
                    "`\\u{` must be followed by hex digits and `}`, as in `\\u{1F600}`",
                ));
            }
            self.pos += 1;
            if value > 0x10_FFFF {
                return Err(PatternError::new(
                    start..self.offset(),
                    format!(
                        "code point `{}` is out of range: the largest is `\\u{{10FFFF}}`",
                        &self.src[start..self.offset()]
                    ),
                ));
            }
            return Ok(value);
        }
        let Some(unit) = self.hex_digits(4) else {
            return Err(PatternError::new(
                start..self.offset(),
                "`\\u` must be followed by four hex digits or a code point in braces, as in \
                 `\\u0041` or `\\u{1F600}`",
            ));
        };
        if (0xD800..0xDC00).contains(&unit) && self.looking_at("\\u") {
            let save = self.pos;
            self.pos += 2;
            match self.hex_digits(4) {
                Some(trail) if (0xDC00..0xE000).contains(&trail) => {
                    return Ok(0x10000 + ((unit - 0xD800) << 10) + (trail - 0xDC00));
                }
                _ => self.pos = save,
            }
        }
        Ok(unit)
    }

    /// After `\p` / `\P` (cursor after the letter): `{Name}` or `{Name=Value}`.
    fn property(&mut self, start: usize, letter: char) -> PResult<Property> {
        if !self.eat('{') {
            return Err(PatternError::new(
                start..self.offset(),
                format!(
                    "`\\{letter}` must be followed by a property in braces, as in `\\{letter}{{L}}`"
                ),
            ));
        }
        let body_start = self.pos;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '=')
        {
            self.pos += 1;
        }
        let body = self.text(body_start);
        if !self.eat('}') {
            return Err(PatternError::new(
                start..self.offset(),
                format!(
                    "unclosed property escape: write `\\{letter}{{Name}}` or \
                     `\\{letter}{{Name=Value}}` with letters, digits and `_`"
                ),
            ));
        }
        let span = start..self.offset();
        resolve_property(body).map_err(|message| PatternError::new(span, message))
    }

    fn class(&mut self) -> PResult<Kind> {
        let open = self.offset();
        self.pos += 1; // [
        let negated = self.eat('^');
        let mut items = Vec::new();
        loop {
            match self.peek() {
                None => {
                    return Err(PatternError::new(
                        open..open + 1,
                        "unclosed character class: add `]`",
                    ));
                }
                Some(']') => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            let first_start = self.offset();
            let first = self.class_atom()?;
            if self.peek() == Some('-') && !matches!(self.peek_at(1), Some(']') | None) {
                self.pos += 1; // -
                let second = self.class_atom()?;
                let span = first_start..self.offset();
                match (first, second) {
                    (ClassAtom::Char(a), ClassAtom::Char(b)) => {
                        if a > b {
                            return Err(PatternError::new(
                                span,
                                format!(
                                    "range out of order in character class: `{}`; write the \
                                     smaller end first",
                                    &self.src[first_start..self.offset()]
                                ),
                            ));
                        }
                        items.push(ClassItem::Range(a, b));
                    }
                    (ClassAtom::Set(..), _) | (_, ClassAtom::Set(..)) => {
                        return Err(PatternError::new(
                            span,
                            format!(
                                "`{}` is not a range: a class escape such as `\\d` cannot be an \
                                 end of a range; write `\\-` to match a literal `-`",
                                &self.src[first_start..self.offset()]
                            ),
                        ));
                    }
                }
            } else {
                items.push(match first {
                    ClassAtom::Char(c) => ClassItem::Range(c, c),
                    ClassAtom::Set(e) => ClassItem::Escape(e, first_start..self.offset()),
                });
            }
        }
        Ok(Kind::Class { negated, items })
    }

    fn class_atom(&mut self) -> PResult<ClassAtom> {
        let start = self.offset();
        let c = self.bump().expect("class atom at a character");
        if c != '\\' {
            return Ok(ClassAtom::Char(u32::from(c)));
        }
        Ok(match self.class_or_char_escape(start, true)? {
            Escaped::Char(c) => ClassAtom::Char(c),
            Escaped::Set(e) => ClassAtom::Set(e),
        })
    }
}

fn flag_of(flags: Flags, c: char) -> bool {
    match c {
        'i' => flags.ignore_case,
        'm' => flags.multiline,
        's' => flags.dot_all,
        _ => false,
    }
}

enum Escaped {
    Char(u32),
    Set(ClassEscape),
}

enum ClassAtom {
    Char(u32),
    Set(ClassEscape),
}

/// ES2025 `MightBothParticipate`: two groups can both take part in a match unless some
/// disjunction holds them in different alternatives.
fn might_both_participate(a: &[(u32, u32)], b: &[(u32, u32)]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if x.0 != y.0 {
            return true;
        }
        if x.1 != y.1 {
            return false;
        }
    }
    true
}

/// ECMA-262 `IdentifierStartChar`: `ID_Start`, `$` or `_`.
fn is_id_start(c: u32) -> bool {
    c == u32::from('$')
        || c == u32::from('_')
        || char::from_u32(c).is_some_and(unicode_id_start::is_id_start)
}

/// ECMA-262 `IdentifierPartChar`: `ID_Continue`, `$`, ZWNJ or ZWJ.
fn is_id_continue(c: u32) -> bool {
    c == u32::from('$')
        || c == 0x200C
        || c == 0x200D
        || char::from_u32(c).is_some_and(unicode_id_start::is_id_continue)
}

// ---------------------------------------------------------------------------------------
// Unicode properties (ECMA-262 tables 67–70; names are case-sensitive, no loose matching)

/// `General_Category` values: every alias of one value in a row; the first is what the
/// `regex` crate is given.
const GENERAL_CATEGORY: &[&[&str]] = &[
    &["C", "Other"],
    &["Cc", "Control", "cntrl"],
    &["Cf", "Format"],
    &["Cn", "Unassigned"],
    &["Co", "Private_Use"],
    &["Cs", "Surrogate"],
    &["L", "Letter"],
    &["LC", "Cased_Letter"],
    &["Ll", "Lowercase_Letter"],
    &["Lm", "Modifier_Letter"],
    &["Lo", "Other_Letter"],
    &["Lt", "Titlecase_Letter"],
    &["Lu", "Uppercase_Letter"],
    &["M", "Mark", "Combining_Mark"],
    &["Mc", "Spacing_Mark"],
    &["Me", "Enclosing_Mark"],
    &["Mn", "Nonspacing_Mark"],
    &["N", "Number"],
    &["Nd", "Decimal_Number", "digit"],
    &["Nl", "Letter_Number"],
    &["No", "Other_Number"],
    &["P", "Punctuation", "punct"],
    &["Pc", "Connector_Punctuation"],
    &["Pd", "Dash_Punctuation"],
    &["Pe", "Close_Punctuation"],
    &["Pf", "Final_Punctuation"],
    &["Pi", "Initial_Punctuation"],
    &["Po", "Other_Punctuation"],
    &["Ps", "Open_Punctuation"],
    &["S", "Symbol"],
    &["Sc", "Currency_Symbol"],
    &["Sk", "Modifier_Symbol"],
    &["Sm", "Math_Symbol"],
    &["So", "Other_Symbol"],
    &["Z", "Separator"],
    &["Zl", "Line_Separator"],
    &["Zp", "Paragraph_Separator"],
    &["Zs", "Space_Separator"],
];

/// Binary properties: aliases of one property in a row; the first is given to `regex`.
const BINARY: &[&[&str]] = &[
    &["ASCII"],
    &["ASCII_Hex_Digit", "AHex"],
    &["Alphabetic", "Alpha"],
    &["Any"],
    &["Assigned"],
    &["Bidi_Control", "Bidi_C"],
    &["Bidi_Mirrored", "Bidi_M"],
    &["Case_Ignorable", "CI"],
    &["Cased"],
    &["Changes_When_Casefolded", "CWCF"],
    &["Changes_When_Casemapped", "CWCM"],
    &["Changes_When_Lowercased", "CWL"],
    &["Changes_When_NFKC_Casefolded", "CWKCF"],
    &["Changes_When_Titlecased", "CWT"],
    &["Changes_When_Uppercased", "CWU"],
    &["Dash"],
    &["Default_Ignorable_Code_Point", "DI"],
    &["Deprecated", "Dep"],
    &["Diacritic", "Dia"],
    &["Emoji"],
    &["Emoji_Component", "EComp"],
    &["Emoji_Modifier", "EMod"],
    &["Emoji_Modifier_Base", "EBase"],
    &["Emoji_Presentation", "EPres"],
    &["Extended_Pictographic", "ExtPict"],
    &["Extender", "Ext"],
    &["Grapheme_Base", "Gr_Base"],
    &["Grapheme_Extend", "Gr_Ext"],
    &["Hex_Digit", "Hex"],
    &["IDS_Binary_Operator", "IDSB"],
    &["IDS_Trinary_Operator", "IDST"],
    &["ID_Continue", "IDC"],
    &["ID_Start", "IDS"],
    &["Ideographic", "Ideo"],
    &["Join_Control", "Join_C"],
    &["Logical_Order_Exception", "LOE"],
    &["Lowercase", "Lower"],
    &["Math"],
    &["Noncharacter_Code_Point", "NChar"],
    &["Pattern_Syntax", "Pat_Syn"],
    &["Pattern_White_Space", "Pat_WS"],
    &["Quotation_Mark", "QMark"],
    &["Radical"],
    &["Regional_Indicator", "RI"],
    &["Sentence_Terminal", "STerm"],
    &["Soft_Dotted", "SD"],
    &["Terminal_Punctuation", "Term"],
    &["Unified_Ideograph", "UIdeo"],
    &["Uppercase", "Upper"],
    &["Variation_Selector", "VS"],
    &["White_Space", "space"],
    &["XID_Continue", "XIDC"],
    &["XID_Start", "XIDS"],
];

/// Binary properties the `regex` crate has no table for.
const BINARY_UNSUPPORTED: &[&str] = &["Changes_When_NFKC_Casefolded"];

/// `Script` / `Script_Extensions` values (Unicode 17): long name, then short aliases.
const SCRIPTS: &[&[&str]] = &[
    &["Adlam", "Adlm"],
    &["Ahom"],
    &["Anatolian_Hieroglyphs", "Hluw"],
    &["Arabic", "Arab"],
    &["Armenian", "Armn"],
    &["Avestan", "Avst"],
    &["Balinese", "Bali"],
    &["Bamum", "Bamu"],
    &["Bassa_Vah", "Bass"],
    &["Batak", "Batk"],
    &["Bengali", "Beng"],
    &["Beria_Erfe", "Berf"],
    &["Bhaiksuki", "Bhks"],
    &["Bopomofo", "Bopo"],
    &["Brahmi", "Brah"],
    &["Braille", "Brai"],
    &["Buginese", "Bugi"],
    &["Buhid", "Buhd"],
    &["Canadian_Aboriginal", "Cans"],
    &["Carian", "Cari"],
    &["Caucasian_Albanian", "Aghb"],
    &["Chakma", "Cakm"],
    &["Cham"],
    &["Cherokee", "Cher"],
    &["Chorasmian", "Chrs"],
    &["Common", "Zyyy"],
    &["Coptic", "Copt", "Qaac"],
    &["Cuneiform", "Xsux"],
    &["Cypriot", "Cprt"],
    &["Cypro_Minoan", "Cpmn"],
    &["Cyrillic", "Cyrl"],
    &["Deseret", "Dsrt"],
    &["Devanagari", "Deva"],
    &["Dives_Akuru", "Diak"],
    &["Dogra", "Dogr"],
    &["Duployan", "Dupl"],
    &["Egyptian_Hieroglyphs", "Egyp"],
    &["Elbasan", "Elba"],
    &["Elymaic", "Elym"],
    &["Ethiopic", "Ethi"],
    &["Garay", "Gara"],
    &["Georgian", "Geor"],
    &["Glagolitic", "Glag"],
    &["Gothic", "Goth"],
    &["Grantha", "Gran"],
    &["Greek", "Grek"],
    &["Gujarati", "Gujr"],
    &["Gunjala_Gondi", "Gong"],
    &["Gurmukhi", "Guru"],
    &["Gurung_Khema", "Gukh"],
    &["Han", "Hani"],
    &["Hangul", "Hang"],
    &["Hanifi_Rohingya", "Rohg"],
    &["Hanunoo", "Hano"],
    &["Hatran", "Hatr"],
    &["Hebrew", "Hebr"],
    &["Hiragana", "Hira"],
    &["Imperial_Aramaic", "Armi"],
    &["Inherited", "Zinh", "Qaai"],
    &["Inscriptional_Pahlavi", "Phli"],
    &["Inscriptional_Parthian", "Prti"],
    &["Javanese", "Java"],
    &["Kaithi", "Kthi"],
    &["Kannada", "Knda"],
    &["Katakana", "Kana"],
    &["Kawi"],
    &["Kayah_Li", "Kali"],
    &["Kharoshthi", "Khar"],
    &["Khitan_Small_Script", "Kits"],
    &["Khmer", "Khmr"],
    &["Khojki", "Khoj"],
    &["Khudawadi", "Sind"],
    &["Kirat_Rai", "Krai"],
    &["Lao", "Laoo"],
    &["Latin", "Latn"],
    &["Lepcha", "Lepc"],
    &["Limbu", "Limb"],
    &["Linear_A", "Lina"],
    &["Linear_B", "Linb"],
    &["Lisu"],
    &["Lycian", "Lyci"],
    &["Lydian", "Lydi"],
    &["Mahajani", "Mahj"],
    &["Makasar", "Maka"],
    &["Malayalam", "Mlym"],
    &["Mandaic", "Mand"],
    &["Manichaean", "Mani"],
    &["Marchen", "Marc"],
    &["Masaram_Gondi", "Gonm"],
    &["Medefaidrin", "Medf"],
    &["Meetei_Mayek", "Mtei"],
    &["Mende_Kikakui", "Mend"],
    &["Meroitic_Cursive", "Merc"],
    &["Meroitic_Hieroglyphs", "Mero"],
    &["Miao", "Plrd"],
    &["Modi"],
    &["Mongolian", "Mong"],
    &["Mro", "Mroo"],
    &["Multani", "Mult"],
    &["Myanmar", "Mymr"],
    &["Nabataean", "Nbat"],
    &["Nag_Mundari", "Nagm"],
    &["Nandinagari", "Nand"],
    &["New_Tai_Lue", "Talu"],
    &["Newa"],
    &["Nko", "Nkoo"],
    &["Nushu", "Nshu"],
    &["Nyiakeng_Puachue_Hmong", "Hmnp"],
    &["Ogham", "Ogam"],
    &["Ol_Chiki", "Olck"],
    &["Ol_Onal", "Onao"],
    &["Old_Hungarian", "Hung"],
    &["Old_Italic", "Ital"],
    &["Old_North_Arabian", "Narb"],
    &["Old_Permic", "Perm"],
    &["Old_Persian", "Xpeo"],
    &["Old_Sogdian", "Sogo"],
    &["Old_South_Arabian", "Sarb"],
    &["Old_Turkic", "Orkh"],
    &["Old_Uyghur", "Ougr"],
    &["Oriya", "Orya"],
    &["Osage", "Osge"],
    &["Osmanya", "Osma"],
    &["Pahawh_Hmong", "Hmng"],
    &["Palmyrene", "Palm"],
    &["Pau_Cin_Hau", "Pauc"],
    &["Phags_Pa", "Phag"],
    &["Phoenician", "Phnx"],
    &["Psalter_Pahlavi", "Phlp"],
    &["Rejang", "Rjng"],
    &["Runic", "Runr"],
    &["Samaritan", "Samr"],
    &["Saurashtra", "Saur"],
    &["Sharada", "Shrd"],
    &["Shavian", "Shaw"],
    &["Siddham", "Sidd"],
    &["Sidetic", "Sidt"],
    &["SignWriting", "Sgnw"],
    &["Sinhala", "Sinh"],
    &["Sogdian", "Sogd"],
    &["Sora_Sompeng", "Sora"],
    &["Soyombo", "Soyo"],
    &["Sundanese", "Sund"],
    &["Sunuwar", "Sunu"],
    &["Syloti_Nagri", "Sylo"],
    &["Syriac", "Syrc"],
    &["Tagalog", "Tglg"],
    &["Tagbanwa", "Tagb"],
    &["Tai_Le", "Tale"],
    &["Tai_Tham", "Lana"],
    &["Tai_Viet", "Tavt"],
    &["Tai_Yo", "Tayo"],
    &["Takri", "Takr"],
    &["Tamil", "Taml"],
    &["Tangsa", "Tnsa"],
    &["Tangut", "Tang"],
    &["Telugu", "Telu"],
    &["Thaana", "Thaa"],
    &["Thai"],
    &["Tibetan", "Tibt"],
    &["Tifinagh", "Tfng"],
    &["Tirhuta", "Tirh"],
    &["Todhri", "Todr"],
    &["Tolong_Siki", "Tols"],
    &["Toto"],
    &["Tulu_Tigalari", "Tutg"],
    &["Ugaritic", "Ugar"],
    &["Unknown", "Zzzz"],
    &["Vai", "Vaii"],
    &["Vithkuqi", "Vith"],
    &["Wancho", "Wcho"],
    &["Warang_Citi", "Wara"],
    &["Yezidi", "Yezi"],
    &["Yi", "Yiii"],
    &["Zanabazar_Square", "Zanb"],
];

/// Scripts the `regex` crate (Unicode 16 tables) does not know: newer than its tables, or
/// `Unknown`, which it has no table for.
const SCRIPTS_UNSUPPORTED: &[&str] = &["Beria_Erfe", "Sidetic", "Tai_Yo", "Tolong_Siki", "Unknown"];

fn lookup(table: &'static [&'static [&'static str]], name: &str) -> Option<&'static str> {
    table
        .iter()
        .find(|aliases| aliases.contains(&name))
        .map(|aliases| aliases[0])
}

/// A spelling the user may have meant: same letters ignoring case and `_`.
fn suggest(tables: &[&'static [&'static [&'static str]]], name: &str) -> Option<&'static str> {
    let loose = |s: &str| {
        s.chars()
            .filter(|&c| c != '_' && c != ' ')
            .map(|c| c.to_ascii_lowercase())
            .collect::<String>()
    };
    let want = loose(name);
    tables
        .iter()
        .flat_map(|t| t.iter())
        .flat_map(|aliases| aliases.iter())
        .find(|alias| loose(alias) == want)
        .copied()
}

fn resolve_property(body: &str) -> Result<Property, String> {
    if let Some((name, value)) = body.split_once('=') {
        let kind = match name {
            "General_Category" | "gc" => PropKind::GeneralCategory,
            "Script" | "sc" => PropKind::Script,
            "Script_Extensions" | "scx" => PropKind::ScriptExtensions,
            _ => {
                let hint = if lookup(BINARY, name).is_some() {
                    format!("`{name}` is a binary property: write `\\p{{{name}}}` without a value")
                } else {
                    match suggest(
                        &[&[&["General_Category", "Script", "Script_Extensions"]]],
                        name,
                    ) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => "use `General_Category` (`gc`), `Script` (`sc`) or \
                                 `Script_Extensions` (`scx`)"
                            .to_owned(),
                    }
                };
                return Err(format!("unknown Unicode property `{name}`: {hint}"));
            }
        };
        if matches!(kind, PropKind::GeneralCategory) {
            return match lookup(GENERAL_CATEGORY, value) {
                Some("Cs") => Ok(Property::Nothing),
                Some(canonical) => Ok(Property::Regex(canonical, kind)),
                None => Err(unknown_value("General_Category", value, GENERAL_CATEGORY)),
            };
        }
        return match lookup(SCRIPTS, value) {
            Some(canonical) if SCRIPTS_UNSUPPORTED.contains(&canonical) => {
                Ok(Property::Unsupported(canonical))
            }
            Some(canonical) => Ok(Property::Regex(canonical, kind)),
            None => Err(unknown_value("Script", value, SCRIPTS)),
        };
    }
    if body.is_empty() {
        return Err("empty property escape: name a property, as in `\\p{L}`".to_owned());
    }
    if let Some(canonical) = lookup(GENERAL_CATEGORY, body) {
        return Ok(if canonical == "Cs" {
            Property::Nothing
        } else {
            Property::Regex(canonical, PropKind::GeneralCategory)
        });
    }
    if let Some(canonical) = lookup(BINARY, body) {
        return Ok(if BINARY_UNSUPPORTED.contains(&canonical) {
            Property::Unsupported(canonical)
        } else {
            Property::Regex(canonical, PropKind::Binary)
        });
    }
    let hint = if lookup(SCRIPTS, body).is_some() {
        format!("for a script write `\\p{{Script={body}}}`")
    } else {
        match suggest(&[GENERAL_CATEGORY, BINARY], body) {
            Some(s) => format!("did you mean `{s}`? (ECMA-262 property names are case-sensitive)"),
            None => "use a general category such as `L` or `Letter`, a binary property such as \
                     `Alphabetic`, or `Script=Greek`"
                .to_owned(),
        }
    };
    Err(format!("unknown Unicode property `{body}`: {hint}"))
}

fn unknown_value(property: &str, value: &str, table: &'static [&'static [&'static str]]) -> String {
    if value.is_empty() {
        return format!("missing value of `{property}`: write a value after `=`");
    }
    match suggest(&[table], value) {
        Some(s) => format!(
            "unknown value `{value}` of `{property}`: did you mean `{s}`? (ECMA-262 property \
             values are case-sensitive)"
        ),
        None => format!("unknown value `{value}` of `{property}`"),
    }
}

// ---------------------------------------------------------------------------------------
// Emitter

/// Any scalar value (what `[^]` matches).
const ANY: &str = r"[\x00-\x{10FFFF}]";
/// No scalar value (what `[]` matches).
const NOTHING: &str = r"[^\x00-\x{10FFFF}]";
/// ECMA-262 `\s` without the space separators, which are added as `\p{Zs}`.
const SPACE: &str = r"\t\n\x0B\x0C\r\x{FEFF}\x{2028}\x{2029}\p{Zs}";
const WORD: &str = "0-9A-Za-z_";
const LINE_TERMINATORS: &str = r"\n\r\x{2028}\x{2029}";
const NOT_LINEAR: &str = "pedelec matches patterns in linear time, so it cannot run";

struct Emitter<'a> {
    src: &'a str,
    out: String,
    names: Vec<String>,
}

impl Emitter<'_> {
    fn node(&mut self, node: &Node, flags: Flags) -> PResult<()> {
        match &node.kind {
            Kind::Alt(alternatives) => {
                for (i, alternative) in alternatives.iter().enumerate() {
                    if i > 0 {
                        self.out.push('|');
                    }
                    self.node(alternative, flags)?;
                }
            }
            Kind::Concat(terms) => {
                for term in terms {
                    self.node(term, flags)?;
                }
            }
            Kind::Char(c) => match char::from_u32(*c) {
                Some(c) => push_char(&mut self.out, c),
                // A lone surrogate never occurs in a Rust string.
                None => self.out.push_str(NOTHING),
            },
            Kind::Dot => {
                if flags.dot_all {
                    self.out.push_str(ANY);
                } else {
                    let _ = write!(self.out, "[^{LINE_TERMINATORS}]");
                }
            }
            Kind::Start | Kind::End => {
                let c = if matches!(node.kind, Kind::Start) {
                    '^'
                } else {
                    '$'
                };
                if flags.multiline {
                    return Err(PatternError::new(
                        node.span.clone(),
                        format!(
                            "`{c}` inside a multiline `(?m:…)` group is not supported: pedelec \
                             cannot match at every ECMA-262 line terminator; remove the `m` \
                             modifier"
                        ),
                    ));
                }
                self.out.push(c);
            }
            Kind::WordBoundary { negated } => {
                let b = if *negated { 'B' } else { 'b' };
                if flags.ignore_case {
                    return Err(PatternError::new(
                        node.span.clone(),
                        format!(
                            "`\\{b}` inside a case-insensitive `(?i:…)` group is not supported: \
                             there ECMA-262 also counts `ſ` and `K` (Kelvin sign) as word \
                             characters; move `\\{b}` out of the group"
                        ),
                    ));
                }
                // ECMA-262 word characters are ASCII: `(?-u:\b)`, which `regex` never lets
                // match inside a UTF-8 sequence.
                let _ = write!(self.out, "(?-u:\\{b})");
            }
            Kind::Escape(escape) => {
                Self::check_escape(*escape, flags, &node.span)?;
                match escape.set {
                    Set::Property(Property::Regex(name, kind)) => {
                        push_property(&mut self.out, name, kind, escape.negated);
                    }
                    set => {
                        let item = ClassEscape {
                            set,
                            negated: false,
                        };
                        self.class(
                            escape.negated,
                            &[ClassItem::Escape(item, node.span.clone())],
                        );
                    }
                }
            }
            Kind::Class { negated, items } => {
                for item in items {
                    if let ClassItem::Escape(escape, span) = item {
                        Self::check_escape(*escape, flags, span)?;
                    }
                }
                self.class(*negated, items);
            }
            Kind::Group { capture, body } => {
                match capture {
                    Capture::None => self.out.push_str("(?:"),
                    Capture::Unnamed => self.out.push('('),
                    Capture::Named(name) => {
                        // Names only label captures (pedelec only asks whether a string
                        // matches); keep those the `regex` crate accepts, once each.
                        let simple = name
                            .chars()
                            .next()
                            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                        if simple && !self.names.contains(name) {
                            self.names.push(name.clone());
                            let _ = write!(self.out, "(?<{name}>");
                        } else {
                            self.out.push('(');
                        }
                    }
                }
                self.node(body, flags)?;
                self.out.push(')');
            }
            Kind::Modifiers { add, remove, body } => {
                let inner = Flags {
                    ignore_case: (flags.ignore_case || add.ignore_case) && !remove.ignore_case,
                    multiline: (flags.multiline || add.multiline) && !remove.multiline,
                    dot_all: (flags.dot_all || add.dot_all) && !remove.dot_all,
                };
                // `m` and `s` are applied here (to `^`, `$` and `.`); only `i` is left to
                // the `regex` crate, whose simple case folding is ECMA-262's (`u` mode).
                match (flags.ignore_case, inner.ignore_case) {
                    (false, true) => self.out.push_str("(?i:"),
                    (true, false) => self.out.push_str("(?-i:"),
                    _ => self.out.push_str("(?:"),
                }
                self.node(body, inner)?;
                self.out.push(')');
            }
            Kind::Look { behind, negated } => {
                let (what, syntax) = match (behind, negated) {
                    (false, false) => ("lookahead", "(?=…)"),
                    (false, true) => ("negative lookahead", "(?!…)"),
                    (true, false) => ("lookbehind", "(?<=…)"),
                    (true, true) => ("negative lookbehind", "(?<!…)"),
                };
                let end = node.span.start + syntax.len() - "…)".len();
                return Err(PatternError::new(
                    node.span.start..end,
                    format!(
                        "{what} `{syntax}` is not supported: {NOT_LINEAR} lookaround; match the \
                         surrounding text instead, or check it in the tool"
                    ),
                ));
            }
            Kind::BackRef => {
                return Err(PatternError::new(
                    node.span.clone(),
                    format!(
                        "backreference `{}` is not supported: {NOT_LINEAR} backreferences; \
                         repeat the group's pattern instead, or check equality in the tool",
                        &self.src[node.span.clone()]
                    ),
                ));
            }
            Kind::Repeat {
                body,
                min,
                max,
                greedy,
            } => {
                let limit = u64::from(u32::MAX);
                if *min > limit || max.is_some_and(|m| m > limit) {
                    return Err(PatternError::new(
                        node.span.clone(),
                        "repetition count is too large: the largest is 4294967295",
                    ));
                }
                self.node(body, flags)?;
                match (min, max) {
                    (0, None) => self.out.push('*'),
                    (1, None) => self.out.push('+'),
                    (0, Some(1)) => self.out.push('?'),
                    (n, None) => {
                        let _ = write!(self.out, "{{{n},}}");
                    }
                    (n, Some(m)) if n == m => {
                        let _ = write!(self.out, "{{{n}}}");
                    }
                    (n, Some(m)) => {
                        let _ = write!(self.out, "{{{n},{m}}}");
                    }
                }
                if !greedy {
                    self.out.push('?');
                }
            }
        }
        Ok(())
    }

    fn check_escape(escape: ClassEscape, flags: Flags, span: &Range<usize>) -> PResult<()> {
        match escape.set {
            Set::Property(Property::Unsupported(name)) => Err(PatternError::new(
                span.clone(),
                format!(
                    "Unicode property `{name}` is not supported: pedelec's regex engine has no \
                     table for it; list the characters in a class instead"
                ),
            )),
            Set::Property(Property::Regex(..)) if escape.negated && flags.ignore_case => {
                Err(PatternError::new(
                    span.clone(),
                    "`\\P{…}` inside a case-insensitive `(?i:…)` group is not supported: its \
                 ECMA-262 meaning there (the complement, then case folding) has no equivalent; \
                 move it out of the group",
                ))
            }
            _ => Ok(()),
        }
    }

    fn class(&mut self, negated: bool, items: &[ClassItem]) {
        let mut body = String::new();
        for item in items {
            match item {
                ClassItem::Range(lo, hi) => {
                    // Surrogates are not scalar values: keep what is left around them.
                    for (lo, hi) in [(*lo, (*hi).min(0xD7FF)), ((*lo).max(0xE000), *hi)] {
                        if lo > hi {
                            continue;
                        }
                        let (lo, hi) = (
                            char::from_u32(lo).expect("scalar"),
                            char::from_u32(hi).expect("scalar"),
                        );
                        push_char(&mut body, lo);
                        if hi != lo {
                            body.push('-');
                            push_char(&mut body, hi);
                        }
                    }
                }
                ClassItem::Escape(ClassEscape { set, negated }, _) => match (set, negated) {
                    (Set::Digit, false) => body.push_str("0-9"),
                    (Set::Digit, true) => body.push_str("[^0-9]"),
                    (Set::Word, false) => body.push_str(WORD),
                    (Set::Word, true) => {
                        let _ = write!(body, "[^{WORD}]");
                    }
                    (Set::Space, false) => body.push_str(SPACE),
                    (Set::Space, true) => {
                        let _ = write!(body, "[^{SPACE}]");
                    }
                    (Set::Property(Property::Regex(name, kind)), negated) => {
                        push_property(&mut body, name, *kind, *negated);
                    }
                    (Set::Property(Property::Nothing), false) => {}
                    (Set::Property(Property::Nothing), true) => body.push_str(r"\x00-\x{10FFFF}"),
                    (Set::Property(Property::Unsupported(_)), _) => {
                        unreachable!("rejected by check_escape")
                    }
                },
            }
        }
        if body.is_empty() {
            self.out.push_str(if negated { ANY } else { NOTHING });
        } else {
            self.out.push('[');
            if negated {
                self.out.push('^');
            }
            self.out.push_str(&body);
            self.out.push(']');
        }
    }
}

fn push_property(out: &mut String, name: &str, kind: PropKind, negated: bool) {
    let p = if negated { 'P' } else { 'p' };
    let _ = match kind {
        PropKind::Binary | PropKind::GeneralCategory => write!(out, "\\{p}{{{name}}}"),
        PropKind::Script => write!(out, "\\{p}{{Script={name}}}"),
        PropKind::ScriptExtensions => write!(out, "\\{p}{{Script_Extensions={name}}}"),
    };
}

/// A literal character, escaped for the `regex` crate (inside or outside a class).
fn push_char(out: &mut String, c: char) {
    match c {
        '\\' | '.' | '+' | '*' | '?' | '(' | ')' | '|' | '[' | ']' | '{' | '}' | '^' | '$'
        | '#' | '&' | '-' | '~' => {
            out.push('\\');
            out.push(c);
        }
        '!'..='~' => out.push(c),
        c if !c.is_ascii() && !c.is_whitespace() && !c.is_control() && !is_invisible(c) => {
            out.push(c);
        }
        c => {
            let _ = write!(out, "\\x{{{:X}}}", u32::from(c));
        }
    }
}

/// Format characters that would be invisible in the translated pattern.
fn is_invisible(c: char) -> bool {
    matches!(u32::from(c),
        0x00AD | 0x034F | 0x061C | 0x115F | 0x1160 | 0x17B4 | 0x17B5 | 0x180B..=0x180F
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x206F | 0x3164 | 0xFE00..=0xFE0F
        | 0xFEFF | 0xFFA0 | 0xFFF0..=0xFFFB | 0xE0000..=0xE0FFF)
}

#[cfg(test)]
mod tests;
