//! The keys of `#[tool(...)]`: `name`, `description`, `timeout_ms`, each checked as it is
//! read, every problem recorded (not just the first).
//!
//! The keys are parsed by hand rather than with darling: a value is kept as raw tokens until
//! its key says how to read it, so `input = { … }` (the legacy shorthand, not an
//! expression) still gets its dedicated error, and every message is ours (darling's are
//! capitalized and cannot say what to write instead).

use proc_macro2::TokenStream;
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
];

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
        if keys.contains(&key.as_str()) {
            if seen.contains(&key) {
                errors.at(
                    &entry.key,
                    format!("duplicate `{key}`: it is already set on this `#[tool]`"),
                );
                continue;
            }
            seen.push(key.clone());
        }
        if let Some(&(hint, false_ok)) = HINTS.iter().find(|(k, _)| *k == key) {
            if let Some(value) = hint_value(&entry, hint, false_ok, errors) {
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

/// The value of a hint: `key` (true), or `key = false` where that says something.
fn hint_value(entry: &Entry, key: &str, false_ok: bool, errors: &mut Errors) -> Option<bool> {
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
            errors.at(
                &whole,
                format!("`{key} = false` is MCP's default; remove it"),
            );
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
    let expr = syn::parse2::<Expr>(value.clone()).ok();
    let (negative, lit) = match &expr {
        Some(Expr::Lit(l)) => (false, Some(&l.lit)),
        Some(Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        })) => match &**expr {
            Expr::Lit(l) => (true, Some(&l.lit)),
            _ => (true, None),
        },
        _ => (false, None),
    };
    let message = match lit {
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
