//! Checks over the model: constraints against the field's kind and against each other,
//! `default` values, recursion, names that collide, and what each enum representation
//! cannot express.
//!
//! Constraint checks run when the field's type is one the macro recognises (`ty::Kind`);
//! for the others, the same checks run during const evaluation (`pedelec::__private::arg`).

use std::collections::BTreeMap;

use quote::ToTokens;
use syn::{Ident, Type};

use super::attr::{Applies, Constraint, Setting};
use super::direction::Direction;
use super::model::{Body, Container, Content, Enum, Field, Repr, Source};
use super::pattern;
use super::ty::{self, Kind};
use super::value::Value;
use crate::util::Errors;
use crate::util::did_you_mean;

use pedelec_rules::constraint::{self as rules, Spelling};
use pedelec_rules::{FORMATS, Number};

pub fn check(container: &Container, errors: &mut Errors) {
    let owner = container.ident;
    let dir = container.dir;
    let generics = &container.input.generics;
    if (generics.type_params().next().is_some() || generics.const_params().next().is_some())
        && super::expand::is_recursive(container)
    {
        errors.at(
            &generics.params,
            format!(
                "`{owner}` contains itself, so its schema refers to itself through one `$defs` entry named `{owner}`, which cannot depend on these parameters; make the recursive type concrete (e.g. `struct {owner} {{ children: Vec<{owner}>, value: String }}`), or write its schema by hand with `#[arg(schema = PATH_TO_A_CONST)]`"
            ),
        );
    }
    let (from, schema) = (dir.from(), dir.schema());
    match &container.body {
        Body::Object(fields) => {
            check_fields(fields, owner, None, dir, errors);
        }
        Body::Inner { field, .. } => check_field(field, owner, dir, errors),
        Body::From(_) | Body::Override(_) => {}
        Body::Enum(e) => {
            if e.declared == 0 {
                errors.at(
                    owner,
                    format!(
                        "enum `{owner}` has no variant to {} (none is declared, or all are skipped), so no value fits its schema; add a variant",
                        dir.serde_side()
                    ),
                );
            }
            check_titles(owner, e, dir, errors);
            let mut names: BTreeMap<&str, &Ident> = BTreeMap::new();
            let mut null: Option<&Ident> = None;
            for v in &e.variants {
                if dir == Direction::Output && v.untagged && matches!(v.content, Content::Unit) {
                    // `oneOf` needs exactly one branch to match `null`.
                    if let Some(first) = null {
                        errors.at(
                            v.original,
                            format!(
                                "unit variants `{first}` and `{}` of an untagged enum both serialize to `null`, so a value cannot tell them apart; keep one, or tag the enum",
                                v.ident
                            ),
                        );
                    }
                    null.get_or_insert(v.ident);
                }
                let tagged = !v.untagged;
                if tagged && let Some(first) = names.insert(&v.name, v.ident) {
                    errors.at(
                        v.ident,
                        format!(
                            "variant `{}` {from} the same name \"{}\" as variant `{first}`; give one of them another name with `#[serde(rename = \"…\")]`",
                            v.ident, v.name
                        ),
                    );
                }
                let tag = match &e.repr {
                    Repr::Internal { tag } if tagged => Some(tag.as_str()),
                    _ => None,
                };
                match &v.content {
                    // Serialized, it is `null`, which an output schema describes.
                    Content::Unit if v.untagged && dir == Direction::Args => errors.at(
                        v.original,
                        format!(
                            "unit variant `{}` of an untagged enum {from} `null`, which {schema} cannot describe; give it a field, or tag the enum",
                            v.ident
                        ),
                    ),
                    Content::Newtype(_) | Content::Override(_) if tag.is_some() => {
                        errors.at(
                            &v.original.fields,
                            format!(
                                "newtype variant `{}` cannot be inlined in an internally tagged enum: its fields would have to be merged with the tag \"{}\" at compile time; make it a struct variant listing those fields (`{} {{ … }}`), or add `content = \"…\"` to tag it adjacently",
                                v.ident,
                                tag.unwrap_or_default(),
                                v.ident
                            ),
                        );
                    }
                    Content::Newtype(field) => check_field(field, owner, dir, errors),
                    Content::Struct(fields) => {
                        let tag = tag.map(|t| (t, v.ident));
                        check_fields(fields, owner, tag, dir, errors);
                    }
                    Content::Unit | Content::Override(_) => {}
                }
            }
        }
    }
}

/// The fields of one object: each field, and names that collide (with each other or with
/// the tag of an internally tagged variant).
fn check_fields(
    fields: &[Field],
    owner: &Ident,
    tag: Option<(&str, &Ident)>,
    dir: Direction,
    errors: &mut Errors,
) {
    let from = dir.from();
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    let mut headers: Vec<(&str, &str)> = Vec::new();
    for field in fields {
        check_field(field, owner, dir, errors);
        for c in &field.constraints {
            if let Constraint::McpHeader(header) = &c.value {
                if let Some((_, first)) =
                    headers.iter().find(|(h, _)| h.eq_ignore_ascii_case(header))
                {
                    errors.at(
                        c.range,
                        format!(
                            "field `{}` mirrors into the same header `Mcp-Param-{header}` as field `{first}` (header names are case-insensitive); give each its own `mcp_header`",
                            field.member
                        ),
                    );
                } else {
                    headers.push((header, &field.member));
                }
            }
        }
        let at = field
            .original
            .ident
            .as_ref()
            .map_or_else(|| field.ty.to_token_stream(), ToTokens::to_token_stream);
        if let Some((tag, variant)) = tag
            && field.name == tag
        {
            errors.at(
                at,
                format!(
                    "field `{}` of variant `{variant}` {from} \"{tag}\", the name of the enum's tag; rename the field or the tag",
                    field.member
                ),
            );
        } else if let Some(first) = names.insert(&field.name, &field.member) {
            errors.at(
                at,
                format!(
                    "field `{}` {from} the same property \"{}\" as field `{first}`; give one of them another name with `#[serde(rename = \"…\")]`",
                    field.member, field.name
                ),
            );
        }
    }
}

/// `Vec<String>`, not `Vec < String >`.
pub fn type_string(ty: &Type) -> String {
    let mut s = ty.to_token_stream().to_string();
    for (from, to) in [
        (" < ", "<"),
        ("< ", "<"),
        (" <", "<"),
        (" >", ">"),
        (" ,", ","),
        (" :: ", "::"),
        (":: ", "::"),
        ("& ", "&"),
        (" ;", ";"),
        ("[ ", "["),
        (" ]", "]"),
        ("( ", "("),
        (" )", ")"),
    ] {
        s = s.replace(from, to);
    }
    s
}

fn check_field(field: &Field, owner: &Ident, dir: Direction, errors: &mut Errors) {
    // Arguments may contain themselves (a `$defs` entry and `$ref`s, see `recursion`).
    if let Source::Type = field.source
        && dir == Direction::Output
        && ty::mentions(field.ty, owner)
    {
        errors.at(
            field.ty,
            format!(
                "recursive types cannot be inlined: field `{}` of `{owner}` contains `{owner}` itself, and {} has no `$ref`; give the field a schema with `#[arg(schema = PATH)]`, or break the cycle (refer to the item by an id)",
                field.member,
                dir.schema()
            ),
        );
        return;
    }
    let ty = type_string(field.ty);
    let kind = &field.shape.kind;
    let mut fit = Vec::new();
    for c in &field.constraints {
        if constraint_fits(c, kind, &ty, errors) {
            fit.push(c);
        }
    }
    check_numbers(&fit, kind, errors);
    for rule in [
        rules::check_lengths(count_of(&fit, "min_length"), count_of(&fit, "max_length")),
        rules::check_item_counts(count_of(&fit, "min_items"), count_of(&fit, "max_items")),
    ] {
        if let Err(problem) = rule {
            report(&fit, &problem, errors);
        }
    }
    for c in &fit {
        match &c.value {
            Constraint::MultipleOf(n) => {
                if let Err(problem) = rules::check_multiple_of(*n) {
                    errors.at(c.range, problem.spelled(Spelling::Attr).to_string());
                }
            }
            Constraint::Pattern(p) => {
                if let Err(e) = pattern::compile(p) {
                    errors.at(c.range, format!("invalid `pattern`: {e}"));
                }
            }
            Constraint::EnumNames if dir == Direction::Output => errors.at(
                c.range,
                "`enum_names` changes how an elicitation form lists titled choices; an output is no form, so remove it",
            ),
            Constraint::McpHeader(name) => {
                if dir == Direction::Output {
                    errors.at(
                        c.range,
                        "`mcp_header` marks a tool argument a client mirrors into an `Mcp-Param-*` header; an output has none, so remove it",
                    );
                } else if let Some(problem) = pedelec_rules::mcp_header::header_name_problem(name) {
                    errors.at(c.range, problem);
                }
            }
            Constraint::Format(f) if !FORMATS.contains(&f.as_str()) => {
                let hint = match did_you_mean(f, FORMATS) {
                    Some(s) => format!("did you mean \"{s}\"?"),
                    None => format!(
                        "JSON Schema defines {}; describe any other format in the field's doc comment",
                        FORMATS
                            .iter()
                            .map(|f| format!("\"{f}\""))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                };
                errors.at(c.range, format!("unknown `format` \"{f}\"; {hint}"));
            }
            _ => {}
        }
    }
    if let Some(default) = &field.default {
        if !field.serde_default && !field.shape.optional {
            errors.at(
                default.range,
                format!(
                    "field `{}` has a `default`, so a call may leave it out, but serde requires it; add `#[serde(default)]` to the field (or make it an `Option`)",
                    field.member
                ),
            );
        }
        let subject = format!("`default = {}`", default.value);
        if let Err(message) =
            check_default(&default.value, kind, &subject, &format!("`{ty}`"), &fit)
        {
            errors.at(default.range, message);
        }
    }
}

/// `#[arg(title)]` names a choice of a string enum in an elicitation form: only the
/// variants of an enum whose schema is a string `enum` have one.
fn check_titles(owner: &Ident, e: &Enum, dir: Direction, errors: &mut Errors) {
    let data = e
        .variants
        .iter()
        .find(|v| !matches!(v.content, Content::Unit) || v.untagged);
    for (v, title) in e
        .variants
        .iter()
        .filter_map(|v| v.title.as_ref().map(|t| (v, t)))
    {
        let why = if dir == Direction::Output {
            "an output is no form, so remove it".to_owned()
        } else if let Some(data) = data {
            let which = if data.ident == v.ident {
                format!("`{}` carries data", v.ident)
            } else {
                format!("its variant `{}` carries data", data.ident)
            };
            format!(
                "`{owner}` is no string enum ({which}, so it is a `oneOf` of objects); describe the variant with a doc comment instead"
            )
        } else if !matches!(e.repr, Repr::External) {
            format!(
                "`#[serde(tag)]` makes `{owner}` an object rather than a string; remove the tag, or describe the variant with a doc comment instead"
            )
        } else {
            continue;
        };
        errors.at(
            title.range,
            format!("`title` names a choice of a string enum in an elicitation form; {why}"),
        );
    }
}

/// The constraints a kind takes, as far as the macro knows.
enum Family {
    /// The kind is not known: const evaluation checks.
    Unknown,
    /// Booleans and maps take none.
    None,
    Takes(Applies),
}

fn family(kind: &Kind) -> Family {
    match kind {
        Kind::String { .. } => Family::Takes(Applies::Strings),
        Kind::Integer { .. } | Kind::Number => Family::Takes(Applies::Numbers),
        Kind::Array { .. } => Family::Takes(Applies::Arrays),
        Kind::Boolean | Kind::Map => Family::None,
        Kind::Unknown => Family::Unknown,
    }
}

/// Whether `c` can apply to `kind` (reporting why not).
fn constraint_fits(c: &Setting<Constraint>, kind: &Kind, ty: &str, errors: &mut Errors) -> bool {
    let key = c.value.key();
    let applies = c.value.applies();
    // Keys that are not a family's keyword: which kinds take them, and the hint otherwise.
    let refused = match applies {
        Applies::Headers => match kind {
            Kind::String { .. } | Kind::Integer { .. } | Kind::Boolean | Kind::Unknown => {
                return true;
            }
            Kind::Number => Some(
                "; MCP mirrors no `number` (its text form is not exact): use an integer type, or a string",
            ),
            _ => Some("; mirror a single string, integer or boolean argument instead"),
        },
        Applies::TitledChoices => match kind {
            Kind::Unknown => return true,
            Kind::Array { .. } => {
                Some("; a multiple choice always lists its titles as `items.anyOf`, so remove it")
            }
            _ => Some("; it only changes how an elicitation form lists titled choices"),
        },
        Applies::Strings | Applies::Numbers | Applies::Arrays => None,
    };
    if let Some(why) = refused {
        errors.at(
            c.range,
            format!("`{key}` applies to {applies}, but `{ty}` is {kind}{why}"),
        );
        return false;
    }
    let actual = match family(kind) {
        Family::Unknown => return true,
        Family::None => None,
        Family::Takes(takes) => Some(takes),
    };
    if actual != Some(applies) {
        let hint = match (key, actual) {
            ("min_length" | "max_length", Some(Applies::Numbers)) => {
                "; bound a number with `minimum` and `maximum`"
            }
            ("min_length" | "max_length", Some(Applies::Arrays)) => {
                "; bound the number of items with `min_items` and `max_items`"
            }
            (_, Some(Applies::Strings)) if applies != Applies::Strings => {
                "; bound a string's length with `min_length` and `max_length`"
            }
            _ => "",
        };
        errors.at(
            c.range,
            format!("`{key}` applies to {applies}, but `{ty}` is {kind}{hint}"),
        );
        return false;
    }
    match (kind, &c.value) {
        (Kind::String { char: true }, Constraint::MinLength(_) | Constraint::MaxLength(_)) => {
            errors.at(
                c.range,
                format!("`{key}` cannot change the length of a `char`: it is always one character"),
            );
            false
        }
        (
            Kind::Array {
                fixed: true, len, ..
            },
            Constraint::MinItems(_) | Constraint::MaxItems(_),
        ) => {
            let len = len.map_or_else(|| "N".to_owned(), |n| n.to_string());
            errors.at(
                c.range,
                format!("`{key}` cannot change the length of `{ty}`: it always has {len} items"),
            );
            false
        }
        _ => true,
    }
}

fn find<'a>(fit: &[&'a Setting<Constraint>], key: &str) -> Option<&'a Setting<Constraint>> {
    fit.iter().copied().find(|c| c.value.key() == key)
}

fn number(c: &Setting<Constraint>) -> Option<Number> {
    match c.value {
        Constraint::Minimum(n)
        | Constraint::Maximum(n)
        | Constraint::ExclusiveMinimum(n)
        | Constraint::ExclusiveMaximum(n)
        | Constraint::MultipleOf(n) => Some(n),
        _ => None,
    }
}

fn count(c: &Setting<Constraint>) -> Option<u64> {
    match c.value {
        Constraint::MinLength(n)
        | Constraint::MaxLength(n)
        | Constraint::MinItems(n)
        | Constraint::MaxItems(n) => Some(n),
        _ => None,
    }
}

fn count_of(fit: &[&Setting<Constraint>], key: &str) -> Option<u64> {
    find(fit, key).and_then(count)
}

/// The bounds written on a field, as `pedelec_rules` takes them.
fn rule_range(fit: &[&Setting<Constraint>]) -> rules::Range {
    let get = |key| find(fit, key).and_then(number);
    rules::Range {
        minimum: get("minimum"),
        maximum: get("maximum"),
        exclusive_minimum: get("exclusive_minimum"),
        exclusive_maximum: get("exclusive_maximum"),
    }
}

/// Reports a broken rule (`pedelec_rules::constraint`) at the later of its settings.
fn report(fit: &[&Setting<Constraint>], problem: &rules::ConstraintProblem, errors: &mut Errors) {
    let (first, second) = problem.keywords();
    let first = find(fit, first.attr());
    let second = second.and_then(|k| find(fit, k.attr()));
    let at = match (first, second) {
        (Some(a), Some(b)) => later(fit, a, b),
        (Some(c), None) | (None, Some(c)) => c,
        (None, None) => return,
    };
    errors.at(at.range, problem.spelled(Spelling::Attr).to_string());
}

/// Of two settings, the one written last (where the contradiction becomes visible):
/// `fit` keeps the order in which they were written.
fn later<'a>(
    fit: &[&'a Setting<Constraint>],
    a: &'a Setting<Constraint>,
    b: &'a Setting<Constraint>,
) -> &'a Setting<Constraint> {
    let index = |x: &Setting<Constraint>| fit.iter().position(|c| std::ptr::eq(*c, x));
    if index(b) >= index(a) { b } else { a }
}

/// Numeric bounds: ordered, inside the type's range, leaving some value.
fn check_numbers(fit: &[&Setting<Constraint>], kind: &Kind, errors: &mut Errors) {
    let get = |key| find(fit, key).and_then(|c| number(c).map(|n| (c, n)));
    if let Kind::Integer { name, min, max } = kind {
        if let Some((c, n)) = get("minimum") {
            if n < *min {
                errors.at(
                    c.range,
                    format!("`minimum = {n}` is below the smallest `{name}` ({min}); a constraint can only narrow the type's range"),
                );
            } else if n > *max {
                errors.at(
                    c.range,
                    format!("`minimum = {n}` is above the largest `{name}` ({max}): no value fits"),
                );
            }
        }
        if let Some((c, n)) = get("maximum") {
            if n > *max {
                errors.at(
                    c.range,
                    format!("`maximum = {n}` is above the largest `{name}` ({max}); a constraint can only narrow the type's range"),
                );
            } else if n < *min {
                errors.at(
                    c.range,
                    format!(
                        "`maximum = {n}` is below the smallest `{name}` ({min}): no value fits"
                    ),
                );
            }
        }
        if let Some((c, n)) = get("exclusive_minimum")
            && n >= *max
        {
            errors.at(
                c.range,
                format!("`exclusive_minimum = {n}` leaves no `{name}` value: the largest is {max}"),
            );
        }
        if let Some((c, n)) = get("exclusive_maximum")
            && n <= *min
        {
            errors.at(
                c.range,
                format!(
                    "`exclusive_maximum = {n}` leaves no `{name}` value: the smallest is {min}"
                ),
            );
        }
    }
    if let Err(problem) = rules::check_range(&rule_range(fit), matches!(kind, Kind::Integer { .. }))
    {
        report(fit, &problem, errors);
    }
}

/// A `default` against what the macro knows of the schema. `subject` names the value in
/// messages (`` `default = 5` ``, or an item of it), `what` the type (`` `u8` ``).
fn check_default(
    value: &Value,
    kind: &Kind,
    subject: &str,
    what: &str,
    fit: &[&Setting<Constraint>],
) -> Result<(), String> {
    let mismatch = || {
        Err(format!(
            "{subject} is {}, but the schema of {what} is {kind}",
            value.describe()
        ))
    };
    match (kind, value) {
        (Kind::Unknown, _) | (Kind::Boolean, Value::Bool(_)) => Ok(()),
        (Kind::Map, _) => Err(format!(
            "`default` cannot describe a map ({what}): its default is an object, which `#[arg(default = …)]` cannot write; say it in the field's doc comment instead"
        )),
        (Kind::String { char }, Value::Str(s)) => {
            let len = s.chars().count() as u64;
            if *char && len != 1 {
                return Err(format!("{subject} is not one character, as a `char` is"));
            }
            if let Err(problem) = rules::check_length(
                len,
                count_of(fit, "min_length"),
                count_of(fit, "max_length"),
            ) {
                return Err(format!("{subject} {}", problem.spelled(Spelling::Attr)));
            }
            for c in fit {
                if let Constraint::Pattern(p) = &c.value
                    && let Ok(regex) = pattern::compile(p)
                    && !regex.is_match(s)
                {
                    return Err(format!("{subject} does not match `pattern = {p:?}`"));
                }
            }
            Ok(())
        }
        (Kind::Integer { .. } | Kind::Number, Value::Num(n)) => {
            if let Kind::Integer { name, min, max } = kind {
                if !matches!(n, Number::Int(_) | Number::Uint(_)) {
                    return mismatch();
                }
                if *n < *min {
                    return Err(format!("{subject} is below the smallest `{name}` ({min})"));
                }
                if *n > *max {
                    return Err(format!("{subject} is above the largest `{name}` ({max})"));
                }
            }
            let multiple_of = find(fit, "multiple_of").and_then(number);
            rules::check_number(*n, &rule_range(fit), multiple_of)
                .map_err(|problem| format!("{subject} {}", problem.spelled(Spelling::Attr)))
        }
        (
            Kind::Array {
                items,
                len: fixed,
                unique,
                ..
            },
            Value::Array(values),
        ) => {
            let len = values.len() as u64;
            if let Some(n) = fixed
                && len != *n
            {
                return Err(format!(
                    "{subject} has {len} items, but {what} always has {n}"
                ));
            }
            if let Err(problem) =
                rules::check_item_count(len, count_of(fit, "min_items"), count_of(fit, "max_items"))
            {
                return Err(format!("{subject} {}", problem.spelled(Spelling::Attr)));
            }
            let unique = *unique
                || fit
                    .iter()
                    .any(|c| matches!(c.value, Constraint::UniqueItems));
            if unique {
                for (i, a) in values.iter().enumerate() {
                    if values[..i].contains(a) {
                        return Err(format!(
                            "{subject} repeats {a}, but the items of {what} are unique"
                        ));
                    }
                }
            }
            for item in values {
                check_default(
                    item,
                    items,
                    &format!("item {item} of `default`"),
                    &format!("an item of {what}"),
                    &[],
                )?;
            }
            Ok(())
        }
        _ => mismatch(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn type_strings_are_compact() {
        assert_eq!(
            type_string(&parse_quote!(Vec<Option<String>>)),
            "Vec<Option<String>>"
        );
        assert_eq!(type_string(&parse_quote!(&'a [u8; 3])), "&'a [u8; 3]");
        assert_eq!(
            type_string(&parse_quote!(std::collections::HashMap<String, (i32, i32)>)),
            "std::collections::HashMap<String, (i32, i32)>"
        );
    }
}
