//! The grammar of `skills![]`:
//!
//! ```text
//! skills![
//!     #[attrs] VIS enum Ident,                   // optional; default `pub enum ToolName`
//!     namespace = "billing",                     // optional: wire names `billing.<tool>`
//!     guidance = "…" | concat!(…) | PATH,
//!     include = [path::ToolName as Variant, …],  // optional: sets composed into this one
//!     tools = [path, path as Variant, …],        // trailing commas allowed
//!     targets = [openai, anthropic, gemini],     // optional: compile-time portability
//! ]
//! ```
//!
//! Values are kept as raw tokens until their key says how to read them, so one bad value
//! does not hide the other keys' errors.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::{Attribute, Expr, Ident, Token, Visibility};

use crate::util::{Errors, did_you_mean, one_of, until_comma};

/// The keys `skills![]` accepts.
const KEYS: &[&str] = &["guidance", "tools", "targets", "namespace", "include"];

/// The invocation as written.
pub struct Raw {
    /// `#[attrs] VIS enum Ident`, when given.
    pub header: Option<Header>,
    /// `key = value` pairs, in order.
    pub keys: Vec<(Ident, TokenStream)>,
}

/// The enum's declaration.
pub struct Header {
    /// Outer attributes (a doc comment, `#[cfg]`, …).
    pub attrs: Vec<Attribute>,
    /// Its visibility.
    pub vis: Visibility,
    /// Its name.
    pub ident: Ident,
}

/// Reads the invocation, recording each syntax error and skipping to the next `,`, so one
/// typo does not hide the rest (or the enum: code using it would fail too).
pub fn raw(input: ParseStream, errors: &mut Errors) -> Raw {
    let header = if input.peek(Token![#]) || input.peek(Token![enum]) || is_vis(input) {
        match header(input) {
            Ok(header) => Some(header),
            Err(error) => {
                errors.push(error);
                skip_past_comma(input);
                None
            }
        }
    } else {
        None
    };
    let mut keys = Vec::new();
    while !input.is_empty() {
        match key_value(input, errors) {
            Ok(pair) => keys.push(pair),
            Err(error) => errors.push(error),
        }
        skip_past_comma(input);
    }
    Raw { header, keys }
}

fn header(input: ParseStream) -> syn::Result<Header> {
    let attrs = input.call(Attribute::parse_outer)?;
    let vis: Visibility = input.parse()?;
    input.parse::<Token![enum]>().map_err(|e| {
        syn::Error::new(
            e.span(),
            "expected `enum`: the skill set's name type is declared like `pub enum ToolName,`",
        )
    })?;
    let ident: Ident = input.parse()?;
    if !input.is_empty() && !input.peek(Token![,]) {
        return Err(input.error(
            "expected `,` after the enum's name: `pub enum ToolName,` (its variants come from \
             `tools = [...]`)",
        ));
    }
    input.parse::<Option<Token![,]>>()?;
    Ok(Header { attrs, vis, ident })
}

/// `key = value`. A missing `=` is reported, and what follows is still read as the value
/// (so the key is not reported missing as well).
fn key_value(input: ParseStream, errors: &mut Errors) -> syn::Result<(Ident, TokenStream)> {
    if !input.peek(Ident::peek_any) {
        return Err(input.error(format!(
            "expected a `skills![]` key: {}",
            one_of(&["guidance = \"…\"", "tools = [...]"])
        )));
    }
    let key = Ident::parse_any(input)?;
    if input.peek(Token![=]) {
        input.parse::<Token![=]>()?;
    } else {
        errors.push(input.error(format!("expected `=` after `{key}`: `{key} = …`")));
    }
    Ok((key, until_comma(input)?))
}

/// Skips what is left of the current item and its `,`.
fn skip_past_comma(input: ParseStream) {
    let _ = until_comma(input);
    let _ = input.parse::<Option<Token![,]>>();
}

fn is_vis(input: ParseStream) -> bool {
    input.peek(Token![pub]) || input.peek(Token![crate])
}

/// One entry of `tools = [...]`.
pub struct Entry {
    /// The tool's path, as written.
    pub path: syn::Path,
    /// `as Variant`, when given.
    pub rename: Option<Ident>,
}

/// What a list holds: `#[tool]` functions (`tools`) or skill sets (`include`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    Tools,
    Sets,
}

impl Listed {
    const fn key(self) -> &'static str {
        match self {
            Listed::Tools => "tools",
            Listed::Sets => "include",
        }
    }

    const fn example(self) -> &'static str {
        match self {
            Listed::Tools => "`tools = [get_current_page, update_counter]`",
            Listed::Sets => "`include = [billing::ToolName, crm::ToolName as Crm]`",
        }
    }
}

impl Entry {
    fn parse(input: ParseStream, listed: Listed) -> syn::Result<Self> {
        let (expected, what) = match listed {
            Listed::Tools => (
                "expected the path of a `#[tool]` function, like `update_counter` or \
                 `counter::update as UpdateCounter`",
                "`#[tool]` function",
            ),
            Listed::Sets => (
                "expected the path of a skill set's enum, like `billing::ToolName` or \
                 `billing::ToolName as Billing`",
                "skill set's enum",
            ),
        };
        let path = input
            .call(syn::Path::parse_mod_style)
            .map_err(|e| syn::Error::new(e.span(), expected))?;
        let rename = if input.peek(Token![as]) {
            input.parse::<Token![as]>()?;
            Some(input.parse()?)
        } else {
            None
        };
        if !input.is_empty() {
            let rest: TokenStream = input.parse()?;
            let path = path.to_token_stream().to_string().replace(' ', "");
            return Err(syn::Error::new_spanned(
                rest,
                format!(
                    "unexpected tokens after `{path}`: list the {what} by its path, like \
                     `{path}` or `{path} as {}`",
                    if listed == Listed::Tools {
                        "MyTool"
                    } else {
                        "MySet"
                    }
                ),
            ));
        }
        Ok(Entry { path, rename })
    }
}

/// The keys, read and checked.
pub struct Keys {
    /// `guidance = …`.
    pub guidance: Option<Expr>,
    /// `tools = [...]`, with the span of the brackets.
    pub tools: Option<(Vec<Entry>, Span)>,
    /// `include = [...]`, with the span of the brackets.
    pub include: Option<(Vec<Entry>, Span)>,
    /// `namespace = "…"`.
    pub namespace: Option<syn::LitStr>,
    /// `targets = [...]`: the providers every tool is checked against.
    pub targets: Vec<(Ident, pedelec_rules::provider::Provider)>,
}

/// Reads the keys, recording every problem. A misspelled key (`guidence`) is reported and
/// then read as the key it was meant to be, so the skill set is still generated.
pub fn keys(raw: Vec<(Ident, TokenStream)>, errors: &mut Errors) -> Keys {
    let mut keys = Keys {
        guidance: None,
        tools: None,
        include: None,
        namespace: None,
        targets: Vec::new(),
    };
    let mut seen: Vec<String> = Vec::new();
    let mut misspelled: Vec<(&'static str, TokenStream)> = Vec::new();
    for (key, value) in raw {
        let name = key.unraw().to_string();
        let known = KEYS.iter().find(|k| **k == name);
        let Some(&known) = known else {
            match did_you_mean(&name, KEYS) {
                Some(meant) => {
                    errors.at(
                        &key,
                        format!("unknown `skills![]` key `{name}`; did you mean `{meant}`?"),
                    );
                    misspelled.push((meant, value));
                }
                None => errors.at(
                    &key,
                    format!(
                        "unknown `skills![]` key `{name}`; expected {}",
                        one_of(KEYS)
                    ),
                ),
            }
            continue;
        };
        if seen.contains(&name) {
            errors.at(&key, format!("duplicate `{name}`: it is already set above"));
            continue;
        }
        seen.push(name);
        read(&mut keys, known, &key, value, errors);
    }
    for (meant, value) in misspelled {
        if !seen.iter().any(|s| s == meant) {
            seen.push(meant.to_owned());
            // Already reported as misspelled: read it quietly.
            let mut quiet = Errors::default();
            let key = Ident::new(meant, Span::call_site());
            read(&mut keys, meant, &key, value, &mut quiet);
            let _ = quiet.into_compile_errors();
        }
    }
    let composed = seen.iter().any(|s| s == "include");
    for key in &KEYS[..2] {
        // A composed set may have no tools of its own.
        let given = seen.iter().any(|s| s == key);
        if !(given || composed && *key == "tools") {
            let message = match *key {
                "guidance" => {
                    "missing `guidance`: add the skill set's instructions for the model, like \
                     `guidance = \"Read current state before making changes.\"`"
                }
                _ => {
                    "missing `tools`: list the skill set's `#[tool]` functions, like \
                      `tools = [get_current_page, update_counter]`"
                }
            };
            errors.at_span(Span::call_site(), message);
        }
    }
    keys
}

fn read(keys: &mut Keys, key: &str, ident: &Ident, value: TokenStream, errors: &mut Errors) {
    if value.is_empty() {
        let example = match key {
            "guidance" => "`guidance = \"Read current state before making changes.\"`",
            "targets" => "`targets = [openai, anthropic, gemini]`",
            "namespace" => "`namespace = \"billing\"`",
            "include" => Listed::Sets.example(),
            _ => Listed::Tools.example(),
        };
        errors.at(ident, format!("`{key}` needs a value: {example}"));
        return;
    }
    if key == "guidance" {
        match syn::parse2::<Expr>(value.clone()) {
            Ok(
                expr @ (Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(_),
                    ..
                })
                | Expr::Macro(_)
                | Expr::Path(_)),
            ) => keys.guidance = Some(expr),
            _ => errors.at(
                &value,
                "`guidance` must be a string literal, `concat!(…)` or the path to a `&str` \
                 constant, like `guidance = \"Read current state before making changes.\"`",
            ),
        }
        return;
    }
    if key == "targets" {
        targets(keys, value, errors);
        return;
    }
    if key == "namespace" {
        match syn::parse2::<syn::LitStr>(value.clone()) {
            Ok(lit) => keys.namespace = Some(lit),
            Err(_) => errors.at(
                &value,
                "`namespace` must be a string literal, like `namespace = \"billing\"`",
            ),
        }
        return;
    }
    let listed = if key == "include" {
        Listed::Sets
    } else {
        Listed::Tools
    };
    if let Some(list) = list(value, listed, errors) {
        match listed {
            Listed::Tools => keys.tools = Some(list),
            Listed::Sets => keys.include = Some(list),
        }
    }
}

/// `[entry, entry as Variant, …]` of `tools` or `include`, with the span of the brackets.
fn list(value: TokenStream, listed: Listed, errors: &mut Errors) -> Option<(Vec<Entry>, Span)> {
    let mut tokens = value.clone().into_iter();
    let group = match (tokens.next(), tokens.next()) {
        (Some(TokenTree::Group(g)), None) if g.delimiter() == proc_macro2::Delimiter::Bracket => g,
        _ => {
            errors.at(
                &value,
                format!(
                    "`{}` must be a list in brackets, like {}",
                    listed.key(),
                    listed.example()
                ),
            );
            return None;
        }
    };
    // Each entry on its own, so one malformed entry leaves the others (and their
    // variants) in place.
    let parser = |input: ParseStream| {
        let mut entries = Vec::new();
        while !input.is_empty() {
            let entry = until_comma(input)?;
            let _ = input.parse::<Option<Token![,]>>()?;
            let parsed =
                syn::parse::Parser::parse2(|i: ParseStream| Entry::parse(i, listed), entry);
            if let Some(entry) = errors.handle(parsed) {
                entries.push(entry);
            }
        }
        Ok(entries)
    };
    let entries = syn::parse::Parser::parse2(parser, group.stream());
    errors
        .handle(entries)
        .map(|entries| (entries, group.span()))
}

/// `targets = [openai, anthropic, …]`: each a provider name, at most once.
fn targets(keys: &mut Keys, value: TokenStream, errors: &mut Errors) {
    use pedelec_rules::provider::Provider;
    let mut tokens = value.clone().into_iter();
    let group = match (tokens.next(), tokens.next()) {
        (Some(TokenTree::Group(g)), None) if g.delimiter() == proc_macro2::Delimiter::Bracket => g,
        _ => {
            errors.at(
                &value,
                format!(
                    "`targets` must be a list in brackets, like `targets = [openai, anthropic, \
                     gemini]`; the targets are {}",
                    one_of(&Provider::NAMES)
                ),
            );
            return;
        }
    };
    let parser = |input: ParseStream| {
        syn::punctuated::Punctuated::<TokenStream, Token![,]>::parse_terminated_with(
            input,
            until_comma,
        )
    };
    let Some(entries) = errors.handle(syn::parse::Parser::parse2(parser, group.stream())) else {
        return;
    };
    for entry in entries {
        let Ok(ident) = syn::parse2::<Ident>(entry.clone()) else {
            errors.at(
                &entry,
                format!(
                    "expected a target name, like `openai`; the targets are {}",
                    one_of(&Provider::NAMES)
                ),
            );
            continue;
        };
        let name = ident.unraw().to_string();
        let Some(provider) = Provider::from_name(&name) else {
            let message = match did_you_mean(&name, &Provider::NAMES) {
                Some(meant) => format!("unknown target `{name}`; did you mean `{meant}`?"),
                None => format!(
                    "unknown target `{name}`; the targets are {}",
                    one_of(&Provider::NAMES)
                ),
            };
            errors.at(&ident, message);
            continue;
        };
        if keys.targets.iter().any(|(_, p)| *p == provider) {
            errors.at(
                &ident,
                format!("`{name}` is listed twice in `targets`; remove this one"),
            );
            continue;
        }
        keys.targets.push((ident, provider));
    }
}
