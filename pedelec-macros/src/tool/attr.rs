//! The keys of `#[tool(...)]` (`name`, `description`, `timeout_ms`, the MCP metadata, the
//! call policy, the examples), each checked as it is read, every problem recorded (not just
//! the first).
//!
//! The keys are parsed by hand rather than with darling: a value is kept as raw tokens until
//! its key says how to read it, so `input = { … }` (the legacy shorthand, not an
//! expression) still gets its dedicated error, and every message is ours (darling's are
//! capitalized and cannot say what to write instead).

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, Ident, Lit, LitInt, LitStr, Token};

use crate::util::{Errors, did_you_mean, one_of, until_comma};

/// Every `#[tool]` key, declared once, with how it is written (`key = value`, or the key
/// alone for a flag) and an example value. Messages list them in this order.
const TOOL_KEYS: &[(&str, Option<&str>, &str)] = &[
    ("name", Some("\"…\""), "\"update_counter\""),
    (
        "description",
        Some("\"…\""),
        "\"Update the visible counter by delta.\"",
    ),
    ("timeout_ms", Some("5_000"), "5_000"),
    ("title", Some("\"…\""), "\"Update counter\""),
    ("read_only", None, ""),
    ("destructive", None, ""),
    ("idempotent", None, ""),
    ("open_world", None, ""),
    ("scopes", Some("[\"…\"]"), "[\"counter:write\"]"),
    ("max_concurrency", Some("4"), "4"),
    (
        "icon",
        Some("\"https://…\""),
        "\"https://example.com/icon.svg\"",
    ),
    ("task", Some("optional"), "optional"),
    ("defer", None, ""),
    ("approval", None, ""),
    ("exactly_once", None, ""),
    ("version", Some("2"), "2"),
    ("callers", Some("[direct, program]"), "[direct, program]"),
    ("example", Some("r#\"{…}\"#"), "r#\"{\"delta\": 2}\"#"),
];

/// The keys that may be given more than once (each adds one).
const REPEATABLE: &[&str] = &["example"];

/// The names of [`TOOL_KEYS`].
fn keys() -> Vec<&'static str> {
    TOOL_KEYS.iter().map(|(key, _, _)| *key).collect()
}

/// The MCP hints: the key, and whether `key = false` is accepted (it says something only
/// where MCP's default is `true`: `destructiveHint` and `openWorldHint`).
const HINTS: &[(&str, bool)] = &[
    ("read_only", false),
    ("destructive", true),
    ("idempotent", false),
    ("open_world", true),
];

/// The validated keys. A key whose value is wrong is recorded as an error and left `None`.
#[derive(Default)]
#[allow(
    clippy::struct_excessive_bools,
    reason = "each flag is one `#[tool]` key, read as written"
)]
pub struct ToolAttr {
    /// `name = "…"`, valid under the Pedelec rule.
    pub name: Option<LitStr>,
    /// Whether `name` was given (valid or not): the function's name is then not checked.
    pub name_given: bool,
    /// `description = …`.
    pub description: Option<Description>,
    /// Whether `description` was given (valid or not): the doc comment is then not read.
    pub description_given: bool,
    /// `timeout_ms = …`: a positive integer literal, re-emitted without its suffix.
    pub timeout_ms: Option<LitInt>,
    /// `title = "…"`: a non-blank string literal.
    pub title: Option<LitStr>,
    /// `read_only`, `destructive`, `idempotent`, `open_world`, as written and without
    /// contradictions, in [`HINTS`] order.
    pub hints: Vec<Hint>,
    /// `scopes = ["…", …]`: RFC 6749 scope tokens, each once; empty when not given.
    pub scopes: Vec<LitStr>,
    /// `max_concurrency = …`: a positive integer literal that fits in a `u32`, re-emitted
    /// without its suffix.
    pub max_concurrency: Option<LitInt>,
    /// `icon = "…"`: an `https:` URL or a `data:` URI of an image.
    pub icon: Option<LitStr>,
    /// `task = optional | required`: the `TaskSupport` variant; `None` for the default,
    /// `forbidden`, written or not.
    pub task: Option<&'static str>,
    /// `example = "…"`, each a JSON object, in order.
    pub examples: Vec<LitStr>,
    /// `defer`: listed by name only until a search loads the tool.
    pub defer: bool,
    /// `version = …`: an integer literal from 1 that fits in a `u32`, re-emitted without its
    /// suffix.
    pub version: Option<LitInt>,
    /// `approval` (every call), or `approval = path` (the calls the function picks).
    pub approval: Option<ApprovalAttr>,
    /// `exactly_once`: a call with an idempotency key runs at most once.
    pub exactly_once: bool,
    /// `callers = [direct, program]`: who may call the tool, each at most once, at least
    /// one; `(direct, program)`, or `None` when not given or wrong.
    pub callers: Option<(bool, bool)>,
}

/// `approval`, as written.
pub enum ApprovalAttr {
    /// `approval`: every call waits for approval.
    Always,
    /// `approval = path`: a `fn(&Args, Option<&Caller>) -> bool` decides per call.
    When(syn::Path),
}

/// One MCP hint: its key (as in [`HINTS`]) and value.
pub struct Hint {
    pub key: &'static str,
    pub value: bool,
    /// The key as written, for errors.
    pub ident: Ident,
}

/// Where a description comes from.
pub enum Description {
    /// A string literal, checked not blank.
    Lit(LitStr),
    /// `concat!(…)` or another macro, or a path to a `&str` constant: checked in a generated
    /// `const` item, since only the compiler knows its value.
    Expr(Expr),
}

/// One `key = value` (or `key`, or `key(…)`) before it is interpreted.
struct Entry {
    key: Ident,
    value: Option<TokenStream>,
    /// The tokens after the key when they are not `= value` (`(…)`), for the error.
    malformed: Option<TokenStream>,
}

/// Reads the attribute's arguments, recording every problem in `errors`. `fn_name` (the
/// function's name, when it is a valid tool name) is suggested for an empty `name`.
pub fn parse(args: TokenStream, fn_name: Option<&str>, errors: &mut Errors) -> ToolAttr {
    let mut attr = ToolAttr::default();
    let Some(entries) = errors.handle(parse_entries.parse2(args)) else {
        return attr;
    };
    let keys = keys();
    let mut seen: Vec<String> = Vec::new();
    for entry in entries {
        let key = entry.key.unraw().to_string();
        if keys.contains(&key.as_str()) && !REPEATABLE.contains(&key.as_str()) {
            if seen.contains(&key) {
                errors.at(
                    &entry.key,
                    format!("duplicate `{key}`: it is already set on this `#[tool]`"),
                );
                continue;
            }
            seen.push(key.clone());
        }
        if key == "defer" {
            attr.defer = flag_value(&entry, "defer", false, "the default", errors) == Some(true);
            continue;
        }
        if key == "exactly_once" {
            attr.exactly_once =
                flag_value(&entry, "exactly_once", false, "the default", errors) == Some(true);
            continue;
        }
        if key == "approval" {
            attr.approval = approval(&entry, errors);
            continue;
        }
        if let Some(&(hint, false_ok)) = HINTS.iter().find(|(k, _)| *k == key) {
            if let Some(value) = flag_value(&entry, hint, false_ok, "MCP's default", errors) {
                attr.hints.push(Hint {
                    key: hint,
                    value,
                    ident: entry.key.clone(),
                });
            }
            continue;
        }
        let value = match (&entry.value, &entry.malformed) {
            (Some(value), _) if !value.is_empty() => value,
            (_, malformed) => {
                if keys.contains(&key.as_str()) {
                    let message = format!("`{key}` needs a value: {}", example(&key));
                    match malformed {
                        Some(tokens) => errors.at(tokens, message),
                        None => errors.at(&entry.key, message),
                    }
                    continue;
                }
                // An unknown key: reported below whatever follows it.
                &TokenStream::new()
            }
        };
        match key.as_str() {
            "name" => {
                attr.name_given = true;
                attr.name = name(value, fn_name, errors);
            }
            "description" => {
                attr.description_given = true;
                attr.description = description(value, errors);
            }
            "timeout_ms" => attr.timeout_ms = timeout_ms(value, errors),
            "title" => attr.title = title(value, errors),
            "scopes" => attr.scopes = scopes(value, errors),
            "max_concurrency" => attr.max_concurrency = max_concurrency(value, errors),
            "icon" => attr.icon = icon(value, errors),
            "task" => attr.task = task(value, errors),
            "version" => attr.version = version(value, errors),
            "callers" => attr.callers = callers(value, errors),
            "example" => attr.examples.extend(example_args(value, errors)),
            "input" => errors.at(
                &entry.key,
                "`input` is the legacy shorthand for an argsSchema and is not supported; \
                 derive `ToolArgs` on a struct with named fields and take it as the \
                 function's first parameter: `fn tool(args: MyArgs)`",
            ),
            "args_schema" | "argsSchema" | "schema" => errors.at(
                &entry.key,
                format!(
                    "`{key}` is not a `#[tool]` key: the argsSchema comes from the type of \
                     the function's first parameter; derive `ToolArgs` on that struct"
                ),
            ),
            _ => {
                let hint = match did_you_mean(&key, &keys) {
                    Some(known) => format!("did you mean `{known}`?"),
                    None => format!("expected {}", one_of(&keys)),
                };
                errors.at(&entry.key, format!("unknown `#[tool]` key `{key}`; {hint}"));
            }
        }
    }
    check_hints(&mut attr.hints, errors);
    attr.hints
        .sort_by_key(|h| HINTS.iter().position(|(k, _)| *k == h.key));
    attr
}

/// `approval` (a flag) or `approval = path` (the function that decides per call).
fn approval(entry: &Entry, errors: &mut Errors) -> Option<ApprovalAttr> {
    const HOW: &str = "write `approval` (every call waits for a person's approval), or \
                       `approval = decide` naming a `fn decide(args: &Args, caller: \
                       Option<&Caller>) -> bool` that picks the calls";
    if let Some(malformed) = &entry.malformed {
        errors.at(malformed, format!("`approval` takes no arguments: {HOW}"));
        return None;
    }
    let Some(value) = &entry.value else {
        return Some(ApprovalAttr::Always);
    };
    match syn::parse2::<Expr>(value.clone()) {
        Ok(Expr::Path(path)) if path.qself.is_none() => Some(ApprovalAttr::When(path.path)),
        Ok(Expr::Lit(syn::ExprLit {
            lit: Lit::Bool(b), ..
        })) => {
            let key = &entry.key;
            let whole = quote::quote!(#key = #value);
            if b.value {
                errors.at(&whole, "write `approval` alone, without `= true`");
            } else {
                errors.at(&whole, "`approval = false` is the default; remove it");
            }
            None
        }
        _ => {
            errors.at(
                value,
                format!("`approval` must be a flag or a function's path: {HOW}"),
            );
            None
        }
    }
}

/// The value of a flag (an MCP hint, `defer`): `key` (true), or `key = false` where that
/// says something; `default` names what `key = false` would repeat otherwise.
fn flag_value(
    entry: &Entry,
    key: &str,
    false_ok: bool,
    default: &str,
    errors: &mut Errors,
) -> Option<bool> {
    if let Some(malformed) = &entry.malformed {
        errors.at(
            malformed,
            format!("`{key}` takes no arguments: write `{key}`"),
        );
        return None;
    }
    let Some(value) = &entry.value else {
        return Some(true);
    };
    let key_ident = &entry.key;
    let whole = quote::quote!(#key_ident = #value);
    match syn::parse2::<Lit>(value.clone()) {
        Ok(Lit::Bool(b)) if !b.value && false_ok => Some(false),
        Ok(Lit::Bool(b)) if !b.value => {
            errors.at(&whole, format!("`{key} = false` is {default}; remove it"));
            None
        }
        Ok(Lit::Bool(_)) => {
            errors.at(&whole, format!("write `{key}` alone, without `= true`"));
            None
        }
        _ if false_ok => {
            errors.at(
                value,
                format!("`{key}` is a flag: write `{key}`, or `{key} = false` to say the opposite"),
            );
            None
        }
        _ => {
            errors.at(
                value,
                format!("`{key}` is a flag and takes no value: write `{key}`"),
            );
            None
        }
    }
}

/// A read-only tool modifies nothing: it is neither destructive nor not destructive, and
/// repeating it has no further effect by definition (MCP reads `destructiveHint` and
/// `idempotentHint` only when `readOnlyHint` is false).
fn check_hints(hints: &mut Vec<Hint>, errors: &mut Errors) {
    if !hints.iter().any(|h| h.key == "read_only") {
        return;
    }
    hints.retain(|h| {
        let message = match (h.key, h.value) {
            ("destructive", true) => {
                "`destructive` contradicts `read_only`: a read-only tool does not modify its \
                 environment; remove one of them"
            }
            ("destructive", false) => {
                "`destructive = false` says nothing about a `read_only` tool, which modifies \
                 nothing; remove it"
            }
            ("idempotent", _) => {
                "a `read_only` tool is idempotent already (MCP reads `idempotentHint` only for \
                 tools that modify their environment); remove `idempotent`"
            }
            _ => return true,
        };
        errors.at(&h.ident, message);
        false
    });
}

fn title(value: &TokenStream, errors: &mut Errors) -> Option<LitStr> {
    let Ok(Lit::Str(lit)) = syn::parse2::<Lit>(value.clone()) else {
        errors.at(
            value,
            "`title` must be a string literal, like `title = \"Update counter\"`",
        );
        return None;
    };
    if pedelec_rules::is_blank(&lit.value()) {
        errors.at(
            &lit,
            "`title` must not be empty: write a short human-readable name, like \
             `title = \"Update counter\"`, or remove `title`",
        );
        return None;
    }
    Some(lit)
}

/// `scopes = ["counter:read", "counter:write"]`: string literals in brackets, each an RFC
/// 6749 scope token, none twice, at least one.
fn scopes(value: &TokenStream, errors: &mut Errors) -> Vec<LitStr> {
    let mut tokens = value.clone().into_iter();
    let group = match (tokens.next(), tokens.next()) {
        (Some(TokenTree::Group(g)), None) if g.delimiter() == Delimiter::Bracket => g,
        _ => {
            // One string: maybe OAuth's space-separated form of several scopes.
            let words = match syn::parse2::<Lit>(value.clone()) {
                Ok(Lit::Str(s)) => s
                    .value()
                    .split_whitespace()
                    .map(|w| format!("{w:?}"))
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            };
            let message = if words.is_empty() {
                "`scopes` must be a list of string literals in brackets, like \
                 `scopes = [\"counter:write\"]`"
                    .to_owned()
            } else {
                format!(
                    "`scopes` is a list in brackets, even for one scope: write `scopes = [{}]`",
                    words.join(", ")
                )
            };
            errors.at(value, message);
            return Vec::new();
        }
    };
    if group.stream().is_empty() {
        errors.at_span(
            group.span(),
            "`scopes` is empty, which requires nothing; remove `scopes` for a tool any caller \
             may call, or list the scopes a caller must hold, like \
             `scopes = [\"counter:write\"]`",
        );
        return Vec::new();
    }
    let parser = |input: ParseStream| {
        syn::punctuated::Punctuated::<TokenStream, Token![,]>::parse_terminated_with(
            input,
            until_comma,
        )
    };
    let Some(entries) = errors.handle(parser.parse2(group.stream())) else {
        return Vec::new();
    };
    let mut scopes: Vec<LitStr> = Vec::new();
    for entry in entries {
        let Ok(Lit::Str(lit)) = syn::parse2::<Lit>(entry.clone()) else {
            errors.at(
                &entry,
                "each scope is a string literal, like `\"counter:write\"`",
            );
            continue;
        };
        let text = lit.value();
        if let Err(problem) = pedelec_rules::scope::check_scope(&text) {
            errors.at(&lit, scope_message(&problem, &text));
            continue;
        }
        if scopes.iter().any(|s| s.value() == text) {
            errors.at(
                &lit,
                format!("duplicate scope {text:?}: it is already listed; remove this one"),
            );
            continue;
        }
        scopes.push(lit);
    }
    scopes
}

/// The message for a scope that is not a scope token, with what to write instead.
fn scope_message(problem: &pedelec_rules::scope::ScopeProblem, text: &str) -> String {
    use pedelec_rules::scope::{ScopeProblem, is_scope_byte};
    match problem {
        ScopeProblem::Empty => "scope is empty; write the scope a caller must hold, like \
                                `\"counter:write\"`, or remove it"
            .to_owned(),
        ScopeProblem::Space { .. } => {
            let words: Vec<String> = text.split_whitespace().map(|w| format!("{w:?}")).collect();
            format!(
                "{problem}: list them as separate strings, `{}`",
                words.join(", ")
            )
        }
        ScopeProblem::BadChar { .. } => {
            let kept: String = text
                .chars()
                .filter(|c| c.is_ascii() && is_scope_byte(*c as u8))
                .collect();
            if kept.is_empty() {
                format!("{problem}; write the scope as the authorization server issues it")
            } else {
                format!("{problem}; remove it, like `{kept:?}`")
            }
        }
    }
}

const CONCURRENCY_HELP: &str = "write a limit like `max_concurrency = 4`, or remove \
                                `max_concurrency` for no limit";

/// `max_concurrency = 4`: a positive integer literal that fits in a `u32`.
fn max_concurrency(value: &TokenStream, errors: &mut Errors) -> Option<LitInt> {
    use pedelec_rules::{ConcurrencyProblem, check_max_concurrency};
    let (negative, lit) = signed_literal(value);
    let message = match lit {
        Some(Lit::Int(int)) => {
            let problem = match int.base10_parse::<i128>() {
                Ok(n) => match check_max_concurrency(if negative { -n } else { n }) {
                    Ok(_) if !negative => return Some(unsuffixed(&int)),
                    Ok(_) => unreachable!("a negated literal is never a valid limit"),
                    Err(problem) => problem,
                },
                // Does not fit in 128 bits: certainly too large.
                Err(_) => ConcurrencyProblem::TooLarge,
            };
            match problem {
                ConcurrencyProblem::TooLarge => format!(
                    "{problem}; write a smaller limit, or remove `max_concurrency` for no limit"
                ),
                _ => format!("{problem}; {CONCURRENCY_HELP}"),
            }
        }
        Some(Lit::Float(float)) => match float.base10_parse::<f64>() {
            Ok(n) if !negative && n.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(&n) => {
                format!(
                    "`max_concurrency` must be an integer literal, not a float; write \
                     `max_concurrency = {n}`"
                )
            }
            _ => format!(
                "`max_concurrency` must be a positive integer literal, not a float; \
                 {CONCURRENCY_HELP}"
            ),
        },
        Some(Lit::Str(s)) => match s.value().trim().parse::<u32>() {
            Ok(n) if n > 0 => format!(
                "`max_concurrency` must be an integer literal, not a string; write \
                 `max_concurrency = {n}`"
            ),
            _ => format!(
                "`max_concurrency` must be an integer literal, not a string; {CONCURRENCY_HELP}"
            ),
        },
        _ => format!(
            "`max_concurrency` must be a positive integer literal, which the macro can read (not \
             a constant or an expression); {CONCURRENCY_HELP}"
        ),
    };
    errors.at(value, message);
    None
}

const VERSION_HELP: &str = "raise it by one with each breaking change, like `version = 2`, \
                            or remove `version` for the default, 1";

/// `version = 2`: an integer literal from 1 that fits in a `u32`.
fn version(value: &TokenStream, errors: &mut Errors) -> Option<LitInt> {
    use pedelec_rules::{VersionProblem, check_tool_version};
    let (negative, lit) = signed_literal(value);
    let message = match lit {
        Some(Lit::Int(int)) => {
            let problem = match int.base10_parse::<i128>() {
                Ok(n) => match check_tool_version(if negative { -n } else { n }) {
                    Ok(_) if !negative => return Some(unsuffixed(&int)),
                    Ok(_) => unreachable!("a negated literal is never a valid version"),
                    Err(problem) => problem,
                },
                // Does not fit in 128 bits: certainly too large.
                Err(_) => VersionProblem::TooLarge,
            };
            match problem {
                VersionProblem::TooLarge => {
                    format!("{problem}; raise the version by one with each breaking change")
                }
                _ => format!("{problem}; {VERSION_HELP}"),
            }
        }
        Some(Lit::Float(float)) => match float.base10_parse::<f64>() {
            Ok(n) if !negative && n.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(&n) => {
                format!("`version` must be an integer literal, not a float; write `version = {n}`")
            }
            _ => format!(
                "`version` must be an integer literal from 1, not a float (versions are whole \
                 numbers, not semver); {VERSION_HELP}"
            ),
        },
        Some(Lit::Str(s)) => match s.value().trim().trim_start_matches('v').parse::<u32>() {
            Ok(n) if n > 0 => {
                format!("`version` must be an integer literal, not a string; write `version = {n}`")
            }
            _ => format!(
                "`version` must be an integer literal, not a string (versions are whole numbers, \
                 not semver); {VERSION_HELP}"
            ),
        },
        _ => format!(
            "`version` must be an integer literal from 1, which the macro can read (not a \
             constant or an expression); {VERSION_HELP}"
        ),
    };
    errors.at(value, message);
    None
}

/// A literal, possibly negated (`-1`): whether it is negated, and the literal.
fn signed_literal(value: &TokenStream) -> (bool, Option<Lit>) {
    match syn::parse2::<Expr>(value.clone()) {
        Ok(Expr::Lit(l)) => (false, Some(l.lit)),
        Ok(Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        })) => match *expr {
            Expr::Lit(l) => (true, Some(l.lit)),
            _ => (true, None),
        },
        _ => (false, None),
    }
}

/// `icon = "https://…"` or `icon = "data:image/…"`.
fn icon(value: &TokenStream, errors: &mut Errors) -> Option<LitStr> {
    use pedelec_rules::icon::{IconProblem, check_icon};
    let Ok(Lit::Str(lit)) = syn::parse2::<Lit>(value.clone()) else {
        errors.at(
            value,
            "`icon` must be a string literal, an `https:` URL or a `data:` URI of an image, like \
             `icon = \"https://example.com/icon.svg\"`",
        );
        return None;
    };
    let text = lit.value();
    match check_icon(&text) {
        Ok(_) => Some(lit),
        Err(problem) => {
            let message = match problem {
                IconProblem::Http => {
                    let https = format!("https{}", &text[4..]);
                    format!("{problem}, like `icon = {https:?}`")
                }
                _ => problem.to_string(),
            };
            errors.at(&lit, message);
            None
        }
    }
}

/// `task = optional`: a bare word, one of [`pedelec_rules::TASK_SUPPORT`]; the variant to
/// emit, `None` for the default (`forbidden`) and on error.
fn task(value: &TokenStream, errors: &mut Errors) -> Option<&'static str> {
    let names = pedelec_rules::TASK_SUPPORT;
    let expected = one_of(&names);
    let Ok(ident) = syn::parse2::<Ident>(value.clone()) else {
        let message = match syn::parse2::<Lit>(value.clone()) {
            Ok(Lit::Str(s)) if names.contains(&s.value().as_str()) => format!(
                "`task` takes a bare word, not a string: write `task = {}`",
                s.value()
            ),
            _ => format!("`task` must be {expected}, like `task = optional`"),
        };
        errors.at(value, message);
        return None;
    };
    match ident.unraw().to_string().as_str() {
        "forbidden" => None,
        "optional" => Some("Optional"),
        "required" => Some("Required"),
        other => {
            let message = match did_you_mean(other, &names) {
                Some(meant) => format!("unknown `task` value `{other}`; did you mean `{meant}`?"),
                None => format!(
                    "unknown `task` value `{other}`; expected {expected} (whether the tool runs \
                     as an MCP task: never, when the client asks, or always)"
                ),
            };
            errors.at(&ident, message);
            None
        }
    }
}

/// The callers `callers = [...]` may name, and what each means.
const CALLERS: [(&str, &str); 2] = [
    ("direct", "the model, in its answer"),
    ("program", "a program the model wrote"),
];

/// `callers = [direct, program]`: bare words in brackets, each one of [`CALLERS`], none
/// twice, at least one; `(direct, program)`.
fn callers(value: &TokenStream, errors: &mut Errors) -> Option<(bool, bool)> {
    const HELP: &str = "like `callers = [direct, program]` (the model, or a program it wrote), \
                        or remove `callers` for both";
    let names: Vec<&str> = CALLERS.iter().map(|(name, _)| *name).collect();
    let mut tokens = value.clone().into_iter();
    let group = match (tokens.next(), tokens.next()) {
        (Some(TokenTree::Group(g)), None) if g.delimiter() == Delimiter::Bracket => g,
        _ => {
            let message = match (
                syn::parse2::<Ident>(value.clone()),
                syn::parse2::<Lit>(value.clone()),
            ) {
                (Ok(word), _) if names.contains(&word.unraw().to_string().as_str()) => {
                    format!("`callers` is a list: write `callers = [{}]`", word.unraw())
                }
                (_, Ok(Lit::Str(s))) if names.contains(&s.value().as_str()) => format!(
                    "`callers` is a list of bare words: write `callers = [{}]`",
                    s.value()
                ),
                _ => format!("`callers` must be a list of callers in brackets, {HELP}"),
            };
            errors.at(value, message);
            return None;
        }
    };
    let parser = |input: ParseStream| {
        syn::punctuated::Punctuated::<TokenStream, Token![,]>::parse_terminated_with(
            input,
            until_comma,
        )
    };
    let items = errors.handle(parser.parse2(group.stream()))?;
    if items.is_empty() {
        errors.at(
            &group,
            format!(
                "`callers` is empty: a tool nobody may call is never called; list who may, {HELP}"
            ),
        );
        return None;
    }
    let (mut direct, mut program) = (None::<Ident>, None::<Ident>);
    let mut ok = true;
    for item in items {
        let Ok(ident) = syn::parse2::<Ident>(item.clone()) else {
            let message = match syn::parse2::<Lit>(item.clone()) {
                Ok(Lit::Str(s)) if names.contains(&s.value().as_str()) => format!(
                    "a caller is a bare word, not a string: write `{}`",
                    s.value()
                ),
                _ => format!("a caller is {}, {HELP}", one_of(&names)),
            };
            errors.at(&item, message);
            ok = false;
            continue;
        };
        let word = ident.unraw().to_string();
        let slot = match word.as_str() {
            "direct" => &mut direct,
            "program" => &mut program,
            other => {
                let message = match did_you_mean(other, &names) {
                    Some(meant) => format!("unknown caller `{other}`; did you mean `{meant}`?"),
                    None => format!(
                        "unknown caller `{other}`; expected {} ({})",
                        one_of(&names),
                        CALLERS
                            .iter()
                            .map(|(name, what)| format!("`{name}`: {what}"))
                            .collect::<Vec<_>>()
                            .join("; ")
                    ),
                };
                errors.at(&ident, message);
                ok = false;
                continue;
            }
        };
        if slot.is_some() {
            errors.at(
                &ident,
                format!("duplicate caller `{word}`: it is already listed; list each caller once"),
            );
            ok = false;
            continue;
        }
        *slot = Some(ident);
    }
    ok.then_some((direct.is_some(), program.is_some()))
}

/// `example = r#"{"delta": 2}"#`: a string literal holding a JSON object.
fn example_args(value: &TokenStream, errors: &mut Errors) -> Option<LitStr> {
    let Ok(Lit::Str(lit)) = syn::parse2::<Lit>(value.clone()) else {
        errors.at(
            value,
            "`example` must be a string literal holding the tool's arguments as a JSON object, \
             like `example = r#\"{\"delta\": 2}\"#`",
        );
        return None;
    };
    let message = match serde_json::from_str::<serde_json::Value>(&lit.value()) {
        Ok(serde_json::Value::Object(_)) => return Some(lit),
        Ok(other) => {
            let kind = match other {
                serde_json::Value::Null => "`null`",
                serde_json::Value::Bool(_) => "a boolean",
                serde_json::Value::Number(_) => "a number",
                serde_json::Value::String(_) => "a string",
                serde_json::Value::Array(_) => "an array",
                serde_json::Value::Object(_) => unreachable!("an object is accepted above"),
            };
            format!(
                "`example` must be a JSON object, the tool's arguments (like `{{\"delta\": 2}}`), \
                 not {kind}"
            )
        }
        Err(error) => format!(
            "`example` is not valid JSON: {error}; write the tool's arguments as a JSON object, \
             like `example = r#\"{{\"delta\": 2}}\"#`"
        ),
    };
    errors.at(&lit, message);
    None
}

/// `` `key = example` ``
fn example(key: &str) -> String {
    let example = TOOL_KEYS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map_or("", |(_, _, example)| *example);
    format!("`{key} = {example}`")
}

fn parse_entries(input: ParseStream) -> syn::Result<Vec<Entry>> {
    let mut entries = Vec::new();
    while !input.is_empty() {
        if !input.peek(Ident::peek_any) {
            return Err(input.error(format!(
                "expected a `#[tool]` key: {}",
                one_of(
                    &TOOL_KEYS
                        .iter()
                        .map(|(key, value, _)| match value {
                            Some(value) => format!("{key} = {value}"),
                            None => (*key).to_owned(),
                        })
                        .collect::<Vec<_>>()
                )
            )));
        }
        let key = Ident::parse_any(input)?;
        let (value, malformed) = if input.peek(Token![=]) {
            input.parse::<Token![=]>()?;
            (Some(until_comma(input)?), None)
        } else {
            let rest = until_comma(input)?;
            (None, (!rest.is_empty()).then_some(rest))
        };
        entries.push(Entry {
            key,
            value,
            malformed,
        });
        if !input.is_empty() {
            input.parse::<Token![,]>()?;
        }
    }
    Ok(entries)
}

fn name(value: &TokenStream, fn_name: Option<&str>, errors: &mut Errors) -> Option<LitStr> {
    let Ok(Lit::Str(lit)) = syn::parse2::<Lit>(value.clone()) else {
        errors.at(
            value,
            "`name` must be a string literal, like `name = \"update_counter\"`",
        );
        return None;
    };
    let text = lit.value();
    match pedelec_rules::check_tool_name(&text) {
        Ok(()) => Some(lit),
        Err(problem) => {
            let message = match (problem, fn_name) {
                (pedelec_rules::NameProblem::Empty, Some(fn_name)) => format!(
                    "{problem}; try `name = \"{fn_name}\"`, or remove `name` to use the \
                     function's name"
                ),
                _ => name_message(&problem, &text, ("name = ", "")),
            };
            errors.at(&lit, message);
            None
        }
    }
}

/// The message for a name that breaks the rule, with the fix: the suggested literal is
/// wrapped in `around` (`name = "fast"` in the attribute, `#[tool(name = "fast")]` for a
/// function name).
pub fn name_message(
    problem: &pedelec_rules::NameProblem,
    text: &str,
    (before, after): (&str, &str),
) -> String {
    match pedelec_rules::suggest_tool_name(text) {
        Some(suggestion) => format!("{problem}; try `{before}\"{suggestion}\"{after}`"),
        None => format!("{problem}; write a name such as `{before}\"update_counter\"{after}`"),
    }
}

fn description(value: &TokenStream, errors: &mut Errors) -> Option<Description> {
    match syn::parse2::<Expr>(value.clone()) {
        Ok(Expr::Lit(syn::ExprLit {
            lit: Lit::Str(lit), ..
        })) => {
            if pedelec_rules::is_blank(&lit.value()) {
                errors.at(&lit, pedelec_rules::BLANK_DESCRIPTION);
                None
            } else {
                Some(Description::Lit(lit))
            }
        }
        Ok(expr @ (Expr::Macro(_) | Expr::Path(_))) => Some(Description::Expr(expr)),
        _ => {
            errors.at(
                value,
                "`description` must be a string literal, `concat!(…)` or the path to a \
                 `&str` constant, like `description = \"Update the visible counter by delta.\"`",
            );
            None
        }
    }
}

const TIMEOUT_HELP: &str = "write a wait limit like `timeout_ms = 5_000`, or remove \
                            `timeout_ms` for the default of 60 000 ms";

fn timeout_ms(value: &TokenStream, errors: &mut Errors) -> Option<LitInt> {
    use pedelec_rules::{TimeoutProblem, check_timeout_ms, check_timeout_ms_f64};
    let (negative, lit) = signed_literal(value);
    let message = match &lit {
        Some(Lit::Int(int)) => match int.base10_parse::<i128>() {
            Ok(ms) => {
                let ms = if negative { -ms } else { ms };
                match check_timeout_ms(ms) {
                    Ok(_) if !negative => return Some(unsuffixed(int)),
                    Ok(_) => unreachable!("a negated literal is never a valid timeout"),
                    Err(problem) => timeout_message(problem),
                }
            }
            // Does not fit in 128 bits: certainly too large.
            Err(_) => timeout_message(TimeoutProblem::TooLarge),
        },
        Some(Lit::Float(float)) => {
            let ms = float.base10_parse::<f64>().unwrap_or(f64::NAN);
            let ms = if negative { -ms } else { ms };
            match check_timeout_ms_f64(ms) {
                Ok(whole) => format!(
                    "`timeout_ms` must be an integer literal, not a float; write \
                     `timeout_ms = {}`",
                    grouped(u128::from(whole))
                ),
                Err(TimeoutProblem::NotInteger) => match seconds_in_millis(ms) {
                    Some(millis) => format!(
                        "{}; `timeout_ms` counts milliseconds: for {ms} seconds, write \
                         `timeout_ms = {}`",
                        TimeoutProblem::NotInteger,
                        grouped(millis)
                    ),
                    None => timeout_message(TimeoutProblem::NotInteger),
                },
                Err(problem) => timeout_message(problem),
            }
        }
        Some(Lit::Str(s)) => match s.value().trim().parse::<u64>() {
            Ok(ms) if ms > 0 => format!(
                "`timeout_ms` must be an integer literal, not a string; write `timeout_ms = {}`",
                grouped(u128::from(ms))
            ),
            _ => format!("`timeout_ms` must be an integer literal, not a string; {TIMEOUT_HELP}"),
        },
        _ => format!("`timeout_ms` must be a positive integer literal; {TIMEOUT_HELP}"),
    };
    errors.at(value, message);
    None
}

/// `ms` seconds in whole milliseconds, when that is a sensible timeout.
#[allow(
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "checked: positive, whole and below 2^53"
)]
fn seconds_in_millis(seconds: f64) -> Option<u128> {
    let millis = seconds * 1000.0;
    (millis.fract() == 0.0 && (1.0..9e15).contains(&millis)).then_some(millis as u128)
}

/// `5000` → `5_000`, as a suggestion would be written.
fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('_');
        }
        out.push(c);
    }
    out
}

fn timeout_message(problem: pedelec_rules::TimeoutProblem) -> String {
    format!("{problem}; {TIMEOUT_HELP}")
}

/// The literal without its type suffix (`5_000u32` → `5_000`): the constant is a `u64`.
fn unsuffixed(int: &LitInt) -> LitInt {
    let repr = int.to_token_stream().to_string();
    let digits = &repr[..repr.len() - int.suffix().len()];
    LitInt::new(digits, int.span())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suggested_numbers_are_grouped() {
        assert_eq!(grouped(5), "5");
        assert_eq!(grouped(1500), "1_500");
        assert_eq!(grouped(60000), "60_000");
        assert_eq!(grouped(1_234_567), "1_234_567");
        assert_eq!(seconds_in_millis(1.5), Some(1500));
        assert_eq!(seconds_in_millis(0.0001), None);
        assert_eq!(seconds_in_millis(-2.5), None);
    }
}
