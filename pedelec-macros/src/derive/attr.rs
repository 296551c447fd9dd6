//! The attributes the derive reads: `#[arg(...)]` (ours: every mistake is an error) and
//! `#[serde(...)]` (serde's: read leniently, since `serde_derive` reports malformed ones and
//! reporting them twice would only add noise).
//!
//! Parsed with syn's `parse_nested_meta`, as `serde_derive` and thiserror do, rather than
//! darling's `FromMeta`: the messages must be rustc-style with our own "did you mean", and
//! every error must underline a whole `key = value` range.

use std::collections::BTreeSet;
use std::fmt;

use proc_macro2::TokenTree;
use syn::meta::ParseNestedMeta;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{Attribute, Expr, ExprLit, ExprPath, Lit, LitStr, Meta, Token, WherePredicate};

use super::case::RenameRule;
use super::direction::Direction;
use super::span::SpanRange;
use super::value::{self, NumberError, Value};
use crate::util::Errors;
use crate::util::did_you_mean;
use pedelec_rules::Number;

/// A value of `#[arg(...)]` and where it was written.
#[derive(Clone)]
pub struct Setting<T> {
    pub value: T,
    /// `key = value`, whole.
    pub range: SpanRange,
}

/// A constraint keyword.
#[derive(Clone, Debug)]
pub enum Constraint {
    Minimum(Number),
    Maximum(Number),
    ExclusiveMinimum(Number),
    ExclusiveMaximum(Number),
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(String),
    Format(String),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    /// `x-mcp-header`: the `Mcp-Param-{name}` header MCP clients mirror the field into.
    McpHeader(String),
    /// An elicitation form lists the titles of the field's choices as the legacy `enumNames`.
    EnumNames,
}

/// The kinds a constraint applies to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Applies {
    Strings,
    Numbers,
    Arrays,
    /// Strings, integers and booleans (`mcp_header`).
    Headers,
    /// String enums whose variants have titles (`enum_names`).
    TitledChoices,
}

impl fmt::Display for Applies {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Applies::Strings => "strings",
            Applies::Numbers => "numbers and integers",
            Applies::Arrays => "arrays",
            Applies::Headers => "strings, integers and booleans",
            Applies::TitledChoices => "an enum whose variants have `#[arg(title = \"…\")]`",
        })
    }
}

impl Constraint {
    /// The `#[arg]` key, which is also the name of the `pedelec::__private::arg` function:
    /// the key whose [`Takes`] builds this variant.
    pub fn key(&self) -> &'static str {
        let this = std::mem::discriminant(self);
        KEYS.iter()
            .find(|k| {
                k.takes
                    .sample()
                    .is_some_and(|c| std::mem::discriminant(&c) == this)
            })
            .map_or("", |k| k.name)
    }

    pub fn applies(&self) -> Applies {
        match self {
            Constraint::Minimum(_)
            | Constraint::Maximum(_)
            | Constraint::ExclusiveMinimum(_)
            | Constraint::ExclusiveMaximum(_)
            | Constraint::MultipleOf(_) => Applies::Numbers,
            Constraint::MinLength(_)
            | Constraint::MaxLength(_)
            | Constraint::Pattern(_)
            | Constraint::Format(_) => Applies::Strings,
            Constraint::MinItems(_) | Constraint::MaxItems(_) | Constraint::UniqueItems => {
                Applies::Arrays
            }
            Constraint::McpHeader(_) => Applies::Headers,
            Constraint::EnumNames => Applies::TitledChoices,
        }
    }
}

/// Where an `#[arg]` is written; each place takes its own keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Position {
    Struct,
    Enum,
    Variant,
    Field,
}

/// What a key's value is, and how it is read.
#[derive(Clone, Copy)]
enum Takes {
    /// A non-empty string literal, trimmed, kept in the slot the function names
    /// (`description`, `title`).
    Text(fn(&mut ArgAttrs) -> &mut Option<Setting<String>>),
    /// A path to a `const` schema node (`schema`).
    Schema,
    /// A string of where-clause predicates (`bound`).
    Bound,
    /// A literal (`default`).
    Default,
    /// A string literal, building a constraint.
    Str(fn(String) -> Constraint),
    /// A non-negative integer, building a constraint.
    Count(fn(u64) -> Constraint),
    /// A number, building a constraint.
    Number(fn(Number) -> Constraint),
    /// Nothing: the key alone (`unique_items`).
    Flag(fn() -> Constraint),
}

impl Takes {
    /// The constraint this value builds (with a placeholder value), if any.
    fn sample(self) -> Option<Constraint> {
        match self {
            Takes::Str(f) => Some(f(String::new())),
            Takes::Count(f) => Some(f(0)),
            Takes::Number(f) => Some(f(Number::Int(0))),
            Takes::Flag(f) => Some(f()),
            Takes::Text(_) | Takes::Schema | Takes::Bound | Takes::Default => None,
        }
    }

    /// What the value must be, for messages.
    fn expects(self) -> &'static str {
        match self {
            Takes::Text(_) | Takes::Str(_) => "a string literal",
            Takes::Schema => "a path to a `const` schema node",
            Takes::Bound => "a string of where-clause predicates",
            Takes::Default => {
                "a literal (a string, number or boolean, or an array of them; for an enum, the variant's name as a string)"
            }
            Takes::Count(_) => "a non-negative integer",
            Takes::Number(_) | Takes::Flag(_) => "a number",
        }
    }
}

/// Where a key may be written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Places {
    Everywhere,
    /// Structs and enums.
    Containers,
    Fields,
    Variants,
}

impl Places {
    fn contains(self, position: Position) -> bool {
        match self {
            Places::Everywhere => true,
            Places::Containers => matches!(position, Position::Struct | Position::Enum),
            Places::Fields => position == Position::Field,
            Places::Variants => position == Position::Variant,
        }
    }
}

/// One `#[arg]` key.
struct Key {
    name: &'static str,
    places: Places,
    takes: Takes,
    /// A value to show in messages (`minimum = 0`).
    example: &'static str,
}

impl Key {
    const fn new(name: &'static str, places: Places, takes: Takes, example: &'static str) -> Key {
        Key {
            name,
            places,
            takes,
            example,
        }
    }
}

/// Every `#[arg]` key, declared once: where it may be written, what it takes, an example.
/// Messages list the keys of a position in this order.
const KEYS: &[Key] = {
    use Places::{Containers, Everywhere, Fields, Variants};
    &[
        Key::new(
            "description",
            Everywhere,
            Takes::Text(|a| &mut a.description),
            "\"…\"",
        ),
        Key::new(
            "title",
            Variants,
            Takes::Text(|a| &mut a.title),
            "\"First option\"",
        ),
        Key::new("schema", Everywhere, Takes::Schema, "MY_SCHEMA"),
        Key::new(
            "bound",
            Containers,
            Takes::Bound,
            "\"T: pedelec::ToolArgs\"",
        ),
        Key::new("default", Fields, Takes::Default, "\"fast\""),
        Key::new("minimum", Fields, Takes::Number(Constraint::Minimum), "0"),
        Key::new("maximum", Fields, Takes::Number(Constraint::Maximum), "100"),
        Key::new(
            "exclusive_minimum",
            Fields,
            Takes::Number(Constraint::ExclusiveMinimum),
            "0",
        ),
        Key::new(
            "exclusive_maximum",
            Fields,
            Takes::Number(Constraint::ExclusiveMaximum),
            "100",
        ),
        Key::new(
            "multiple_of",
            Fields,
            Takes::Number(Constraint::MultipleOf),
            "5",
        ),
        Key::new(
            "min_length",
            Fields,
            Takes::Count(Constraint::MinLength),
            "1",
        ),
        Key::new(
            "max_length",
            Fields,
            Takes::Count(Constraint::MaxLength),
            "10",
        ),
        Key::new(
            "pattern",
            Fields,
            Takes::Str(Constraint::Pattern),
            "\"^[a-z]+$\"",
        ),
        Key::new(
            "format",
            Fields,
            Takes::Str(Constraint::Format),
            "\"date-time\"",
        ),
        Key::new("min_items", Fields, Takes::Count(Constraint::MinItems), "1"),
        Key::new(
            "max_items",
            Fields,
            Takes::Count(Constraint::MaxItems),
            "10",
        ),
        Key::new(
            "unique_items",
            Fields,
            Takes::Flag(|| Constraint::UniqueItems),
            "true",
        ),
        Key::new(
            "mcp_header",
            Fields,
            Takes::Str(Constraint::McpHeader),
            "\"Region\"",
        ),
        Key::new(
            "enum_names",
            Fields,
            Takes::Flag(|| Constraint::EnumNames),
            "true",
        ),
    ]
};

fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

impl Position {
    fn keys(self) -> Vec<&'static str> {
        KEYS.iter()
            .filter(|k| k.places.contains(self))
            .map(|k| k.name)
            .collect()
    }

    fn describe(self) -> &'static str {
        match self {
            Position::Struct => "a struct",
            Position::Enum => "an enum",
            Position::Variant => "a variant",
            Position::Field => "a field",
        }
    }
}

/// `a`, `a` and `b`, `a`, `b` and `c`
pub fn list(keys: &[&str]) -> String {
    let quoted: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Everything `#[arg(...)]` attributes say about one item.
#[derive(Default)]
pub struct ArgAttrs {
    pub description: Option<Setting<String>>,
    /// `title` (a variant's, in an elicitation form).
    pub title: Option<Setting<String>>,
    pub schema: Option<Setting<ExprPath>>,
    pub bound: Option<Setting<Vec<WherePredicate>>>,
    /// In the order written.
    pub constraints: Vec<Setting<Constraint>>,
    pub default: Option<Setting<Value>>,
    /// Every `#[arg]` attribute, whole.
    pub attrs: Vec<SpanRange>,
}

impl ArgAttrs {
    /// Reads the `#[arg(...)]` attributes among `attrs`.
    pub fn parse(attrs: &[Attribute], position: Position, errors: &mut Errors) -> Self {
        let mut out = ArgAttrs::default();
        let mut seen = BTreeSet::new();
        for attr in attrs.iter().filter(|a| a.path().is_ident("arg")) {
            out.attrs.push(SpanRange::of(attr));
            if !matches!(attr.meta, Meta::List(_)) {
                errors.at(
                    attr,
                    "expected `#[arg(key = value, …)]`, like `#[arg(minimum = 0)]`",
                );
                continue;
            }
            let result =
                attr.parse_nested_meta(|meta| out.parse_key(&meta, position, &mut seen, errors));
            errors.handle(result);
        }
        out
    }

    fn parse_key(
        &mut self,
        meta: &ParseNestedMeta,
        position: Position,
        seen: &mut BTreeSet<String>,
        errors: &mut Errors,
    ) -> syn::Result<()> {
        let Some(key) = meta.path.get_ident().cloned() else {
            skip_value(meta.input)?;
            errors.at(&meta.path, "expected a key like `minimum`, not a path");
            return Ok(());
        };
        let name = key.to_string();
        let Some(spec) = self::key(&name).filter(|k| k.places.contains(position)) else {
            skip_value(meta.input)?;
            errors.at(&key, unknown_key(&name, position));
            return Ok(());
        };
        if !seen.insert(name.clone()) {
            skip_value(meta.input)?;
            errors.at(&key, format!("duplicate `#[arg]` key `{name}`"));
            return Ok(());
        }
        if let Takes::Flag(build) = spec.takes {
            let mut range = SpanRange::of(&key);
            if meta.input.peek(Token![=]) {
                let expr: Expr = meta.value()?.parse()?;
                range = range.to(SpanRange::of(&expr));
                match value::ungroup(&expr) {
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(b), ..
                    }) if b.value => {}
                    Expr::Lit(ExprLit {
                        lit: Lit::Bool(_), ..
                    }) => {
                        errors.at(range, format!("`{name} = false` is the default; remove it"));
                        return Ok(());
                    }
                    _ => {
                        errors.at(range, format!("`{name}` takes no value: write `{name}`"));
                        return Ok(());
                    }
                }
            }
            self.constraints.push(Setting {
                value: build(),
                range,
            });
            return Ok(());
        }
        if !meta.input.peek(Token![=]) {
            skip_value(meta.input)?;
            errors.at(
                &key,
                format!("`{name}` needs a value: `{name} = {}`", spec.example),
            );
            return Ok(());
        }
        let expr: Expr = meta.value()?.parse()?;
        let range = SpanRange::of(&key).to(SpanRange::of(&expr));
        let setting = Maker { range };
        let value_range = SpanRange::of(&expr);
        let expected = || {
            format!(
                "`{name}` expects {}, like `{name} = {}`",
                spec.takes.expects(),
                spec.example
            )
        };
        match spec.takes {
            Takes::Text(slot) => match string(&expr) {
                Some(s) if s.value().trim().is_empty() => {
                    errors.at(value_range, format!("`{name}` must not be empty"));
                }
                Some(s) => *slot(self) = Some(setting.make(s.value().trim().to_owned())),
                None => errors.at(value_range, expected()),
            },
            Takes::Schema => match value::ungroup(&expr) {
                Expr::Path(path) => self.schema = Some(setting.make(path.clone())),
                _ => errors.at(value_range, expected()),
            },
            Takes::Bound => match string(&expr) {
                Some(s) => {
                    match s.parse_with(Punctuated::<WherePredicate, Token![,]>::parse_terminated) {
                        Ok(predicates) => {
                            self.bound = Some(setting.make(predicates.into_iter().collect()));
                        }
                        Err(e) => errors.at(
                            value_range,
                            format!(
                                "`bound` is not a list of where-clause predicates ({e}); write it like `bound = {}`",
                                spec.example
                            ),
                        ),
                    }
                }
                None => errors.at(value_range, expected()),
            },
            Takes::Default => match Value::parse(&expr) {
                Some(v) => self.default = Some(setting.make(v)),
                None => errors.at(value_range, expected()),
            },
            Takes::Str(build) => match string(&expr) {
                Some(s) => self.constraints.push(setting.make(build(s.value()))),
                None => errors.at(value_range, expected()),
            },
            Takes::Count(build) => match value::count(&expr) {
                Ok(n) => self.constraints.push(setting.make(build(n))),
                Err(NumberError::OutOfRange) => {
                    errors.at(value_range, format!("`{name}` is too large for a `u64`"));
                }
                Err(NumberError::NotANumber) => errors.at(value_range, expected()),
            },
            Takes::Number(build) => match value::number(&expr) {
                Ok(n) => self.constraints.push(setting.make(build(n))),
                Err(NumberError::OutOfRange) => errors.at(
                    value_range,
                    format!("`{name}` is out of range: a bound must fit in an `i64`, a `u64` or a finite `f64`"),
                ),
                Err(NumberError::NotANumber) => errors.at(value_range, expected()),
            },
            // Read above.
            Takes::Flag(_) => {}
        }
        Ok(())
    }
}

/// Builds the settings of one `key = value`.
struct Maker {
    range: SpanRange,
}

impl Maker {
    fn make<T>(&self, value: T) -> Setting<T> {
        Setting {
            value,
            range: self.range,
        }
    }
}

/// A string literal (through groups).
fn string(expr: &Expr) -> Option<&LitStr> {
    match value::ungroup(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Some(s),
        _ => None,
    }
}

fn unknown_key(key: &str, position: Position) -> String {
    let keys = position.keys();
    let keys = keys.as_slice();
    let elsewhere = match self::key(key).map(|k| k.places) {
        Some(Places::Fields) => Some("a field"),
        Some(Places::Containers) => Some("a struct or an enum"),
        Some(Places::Variants) => Some("an enum's variant"),
        Some(Places::Everywhere) | None => None,
    };
    if let Some(elsewhere) = elsewhere {
        format!(
            "`{key}` applies to {elsewhere}; on {}, `#[arg]` takes {}",
            position.describe(),
            list(keys)
        )
    } else if let Some(suggestion) = did_you_mean(key, keys) {
        format!("unknown `#[arg]` key `{key}`; did you mean `{suggestion}`?")
    } else {
        format!(
            "unknown `#[arg]` key `{key}`; on {}, `#[arg]` takes {}",
            position.describe(),
            list(keys)
        )
    }
}

/// Consumes the rest of a nested-meta item (`= value` or `(...)`), up to the next comma.
fn skip_value(input: ParseStream) -> syn::Result<()> {
    while !input.is_empty() && !input.peek(Token![,]) {
        input.parse::<TokenTree>()?;
    }
    Ok(())
}

// ----- serde -----

/// A string value (`key = "…"`), or `None` when it is not one (serde reports that).
fn serde_str(meta: &ParseNestedMeta) -> syn::Result<Option<LitStr>> {
    let expr: Expr = meta.value()?.parse()?;
    Ok(string(&expr).cloned())
}

/// One side of `key = "…"` / `key(serialize = "…", deserialize = "…")`.
fn serde_de_str(meta: &ParseNestedMeta, dir: Direction) -> syn::Result<Option<LitStr>> {
    if meta.input.peek(Token![=]) {
        return serde_str(meta);
    }
    let mut de = None;
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            if inner.path.is_ident(dir.serde_side()) {
                let value = serde_str(&inner)?;
                if de.is_none() {
                    de = value;
                }
            } else {
                skip_value(inner.input)?;
            }
            Ok(())
        })?;
    }
    Ok(de)
}

fn serde_rule(meta: &ParseNestedMeta, dir: Direction) -> syn::Result<Option<RenameRule>> {
    Ok(serde_de_str(meta, dir)?.and_then(|s| RenameRule::from_name(&s.value())))
}

/// Runs `f` on every item of every `#[serde(...)]` among `attrs`, ignoring the syntax
/// errors serde reports itself.
fn each_serde(attrs: &[Attribute], mut f: impl FnMut(&str, &ParseNestedMeta) -> syn::Result<bool>) {
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _serde_reports_it = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if !f(&key, &meta)? {
                skip_value(meta.input)?;
            }
            Ok(())
        });
    }
}

/// `#[serde(...)]` on a struct or enum.
#[derive(Default)]
pub struct SerdeContainer {
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    pub default: bool,
    pub transparent: Option<syn::Path>,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    /// `from = "T"` or `try_from = "T"` (deserializes as `T`), or `into = "T"` (serializes
    /// as `T`), whichever is on the derive's side.
    pub from: Option<(syn::Path, syn::Type)>,
}

impl SerdeContainer {
    pub fn parse(attrs: &[Attribute], dir: Direction) -> Self {
        let mut out = SerdeContainer::default();
        each_serde(attrs, |key, meta| {
            match key {
                "rename_all" => out.rename_all = serde_rule(meta, dir)?.or(out.rename_all),
                "rename_all_fields" => {
                    out.rename_all_fields = serde_rule(meta, dir)?.or(out.rename_all_fields);
                }
                "default" if dir == Direction::Args => {
                    out.default = true;
                    return Ok(false);
                }
                "transparent" => out.transparent = Some(meta.path.clone()),
                "tag" => out.tag = serde_str(meta)?.map(|s| s.value()),
                "content" => out.content = serde_str(meta)?.map(|s| s.value()),
                "untagged" => out.untagged = true,
                // `into` is serde's serialize side, `from` and `try_from` its deserialize side.
                "from" | "try_from" | "into" if (key == "into") == (dir == Direction::Output) => {
                    if let Some(ty) = serde_str(meta)?.and_then(|s| s.parse::<syn::Type>().ok()) {
                        out.from = Some((meta.path.clone(), ty));
                    }
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

/// `#[serde(...)]` on a variant.
#[derive(Default)]
pub struct SerdeVariant {
    pub rename: Option<String>,
    pub rename_all: Option<RenameRule>,
    /// `skip`, or `skip_deserializing` / `skip_serializing` (the derive's side).
    pub skip: bool,
    /// `#[serde(other)]` (deserialize side only).
    pub other: Option<syn::Path>,
    pub untagged: bool,
    /// `with`, or `deserialize_with` / `serialize_with` (the derive's side).
    pub with: Option<syn::Path>,
}

/// `skip_deserializing` / `skip_serializing`, and `deserialize_with` / `serialize_with`.
fn sided(key: &str, dir: Direction) -> Option<&'static str> {
    match (key, dir) {
        ("skip_deserializing", Direction::Args) | ("skip_serializing", Direction::Output) => {
            Some("skip")
        }
        ("deserialize_with", Direction::Args) | ("serialize_with", Direction::Output) => {
            Some("with")
        }
        _ => None,
    }
}

impl SerdeVariant {
    pub fn parse(attrs: &[Attribute], dir: Direction) -> Self {
        let mut out = SerdeVariant::default();
        each_serde(attrs, |key, meta| {
            match key {
                "rename" => {
                    if let Some(name) = serde_de_str(meta, dir)?
                        && out.rename.is_none()
                    {
                        out.rename = Some(name.value());
                    }
                }
                "rename_all" => out.rename_all = serde_rule(meta, dir)?.or(out.rename_all),
                "skip" => out.skip = true,
                key if sided(key, dir) == Some("skip") => out.skip = true,
                "other" if dir == Direction::Args => out.other = Some(meta.path.clone()),
                "untagged" => out.untagged = true,
                key if key == "with" || sided(key, dir) == Some("with") => {
                    out.with = Some(meta.path.clone());
                    return Ok(false);
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

/// `#[serde(...)]` on a field.
#[derive(Default)]
pub struct SerdeField {
    pub rename: Option<String>,
    pub default: bool,
    /// `skip`, or `skip_deserializing` / `skip_serializing` (the derive's side).
    pub skip: bool,
    /// `skip_serializing_if = "…"` (serialize side only): the property may be absent.
    pub skip_if: bool,
    pub flatten: Option<syn::Path>,
    /// `with`, or `deserialize_with` / `serialize_with` (the derive's side).
    pub with: Option<syn::Path>,
}

impl SerdeField {
    pub fn parse(attrs: &[Attribute], dir: Direction) -> Self {
        let mut out = SerdeField::default();
        each_serde(attrs, |key, meta| {
            match key {
                "rename" => {
                    if let Some(name) = serde_de_str(meta, dir)?
                        && out.rename.is_none()
                    {
                        out.rename = Some(name.value());
                    }
                }
                "default" if dir == Direction::Args => {
                    out.default = true;
                    return Ok(false);
                }
                "skip" => out.skip = true,
                key if sided(key, dir) == Some("skip") => out.skip = true,
                "skip_serializing_if" if dir == Direction::Output => {
                    out.skip_if = true;
                    return Ok(false);
                }
                "flatten" => out.flatten = Some(meta.path.clone()),
                key if key == "with" || sided(key, dir) == Some("with") => {
                    out.with = Some(meta.path.clone());
                    return Ok(false);
                }
                _ => return Ok(false),
            }
            Ok(true)
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn parse(attrs: &[Attribute], position: Position) -> (ArgAttrs, Vec<String>) {
        let mut errors = Errors::default();
        let parsed = ArgAttrs::parse(attrs, position, &mut errors);
        let messages = match errors.finish() {
            Ok(()) => Vec::new(),
            Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
        };
        (parsed, messages)
    }

    #[test]
    fn arg_keys_are_read_in_order() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[arg(minimum = -1, maximum = 1e3, description = " d ")]),
            parse_quote!(#[arg(unique_items, default = [1, 2], schema = crate::S)]),
        ];
        let (parsed, messages) = parse(&attrs, Position::Field);
        assert!(messages.is_empty(), "{messages:?}");
        let keys: Vec<_> = parsed.constraints.iter().map(|c| c.value.key()).collect();
        assert_eq!(keys, ["minimum", "maximum", "unique_items"]);
        assert_eq!(parsed.description.unwrap().value, "d");
        assert_eq!(parsed.default.unwrap().value.to_string(), "[1, 2]");
        assert!(parsed.schema.is_some());
    }

    #[test]
    fn every_mistake_in_one_pass() {
        let attrs: Vec<Attribute> = vec![parse_quote!(#[arg(
            minimun = 1, minimum = "1", minimum = 2, min_length = -1, description = "",
            unique_items = false, pattern, zzz = 1, bound = "T: X"
        )])];
        let (_, messages) = parse(&attrs, Position::Field);
        assert_eq!(
            messages,
            [
                "unknown `#[arg]` key `minimun`; did you mean `minimum`?",
                "`minimum` expects a number, like `minimum = 0`",
                "duplicate `#[arg]` key `minimum`",
                "`min_length` expects a non-negative integer, like `min_length = 1`",
                "`description` must not be empty",
                "`unique_items = false` is the default; remove it",
                "`pattern` needs a value: `pattern = \"^[a-z]+$\"`",
                "unknown `#[arg]` key `zzz`; on a field, `#[arg]` takes `description`, `schema`, \
                 `default`, `minimum`, `maximum`, `exclusive_minimum`, `exclusive_maximum`, \
                 `multiple_of`, `min_length`, `max_length`, `pattern`, `format`, `min_items`, \
                 `max_items`, `unique_items`, `mcp_header` and `enum_names`",
                "`bound` applies to a struct or an enum; on a field, `#[arg]` takes `description`, \
                 `schema`, `default`, `minimum`, `maximum`, `exclusive_minimum`, \
                 `exclusive_maximum`, `multiple_of`, `min_length`, `max_length`, `pattern`, \
                 `format`, `min_items`, `max_items`, `unique_items`, `mcp_header` and \
                 `enum_names`",
            ]
        );
        let attrs: Vec<Attribute> = vec![parse_quote!(#[arg(minimum = 0)])];
        let (_, messages) = parse(&attrs, Position::Struct);
        assert_eq!(
            messages,
            [
                "`minimum` applies to a field; on a struct, `#[arg]` takes `description`, `schema` and `bound`"
            ]
        );
    }

    #[test]
    fn serde_is_read_leniently() {
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[serde(rename_all(serialize = "UPPERCASE", deserialize = "camelCase"))]),
            parse_quote!(#[serde(tag = "t", content = "c", default = "x", bogus(1, 2), crate = "s")]),
            parse_quote!(#[serde(from = "Vec<u8>")]),
        ];
        let c = SerdeContainer::parse(&attrs, Direction::Args);
        assert_eq!(c.rename_all, Some(RenameRule::Camel));
        assert_eq!(c.tag.as_deref(), Some("t"));
        assert_eq!(c.content.as_deref(), Some("c"));
        assert!(c.default);
        assert!(c.from.is_some());
        let attrs: Vec<Attribute> = vec![
            parse_quote!(#[serde(rename(serialize = "s", deserialize = "d"), alias = "x")]),
            parse_quote!(#[serde(default = "path", skip_serializing_if = "Option::is_none")]),
            parse_quote!(#[serde(deserialize_with = "f", flatten)]),
        ];
        let f = SerdeField::parse(&attrs, Direction::Args);
        assert_eq!(f.rename.as_deref(), Some("d"));
        assert!(f.default);
        assert!(f.with.is_some() && f.flatten.is_some() && !f.skip);
    }
}
