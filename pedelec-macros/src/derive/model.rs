//! The derive's view of the input: what deserializes, under which names, with which
//! schema modifiers. Borrows the syn nodes (for spans); holds no tokens to emit.
//!
//! Building it reads the attributes and reports what cannot be expressed (shapes with no
//! schema, `#[serde(flatten)]`, …). Checks that need the whole picture live in `check.rs`.

use syn::{Data, DeriveInput, ExprPath, Fields, Ident, Type, WherePredicate};

use super::attr::{
    ArgAttrs, Constraint, Position, SerdeContainer, SerdeField, SerdeVariant, Setting,
};
use super::case::RenameRule;
use super::direction::Direction;
use super::docs;
use super::span::SpanRange;
use super::ty::{self, Shape};
use super::value::Value;
use crate::util::Errors;

pub struct Container<'a> {
    /// Which derive: what deserializes (`ToolArgs`) or what serializes (`ToolOutput`).
    pub dir: Direction,
    pub ident: &'a Ident,
    pub input: &'a DeriveInput,
    pub description: Option<String>,
    /// `#[arg(bound = "…")]`: replaces the inferred `T: ToolArgs` bounds.
    pub bound: Option<Vec<WherePredicate>>,
    pub body: Body<'a>,
}

pub enum Body<'a> {
    /// A struct with named fields: a closed object.
    Object(Vec<Field<'a>>),
    /// A newtype struct, or `#[serde(transparent)]`: the field's schema. `transparent`: a
    /// missing value deserializes as the field's would (so `OPTIONAL` passes through).
    Inner {
        field: Box<Field<'a>>,
        transparent: bool,
    },
    /// `#[serde(from = "T")]` / `#[serde(try_from = "T")]`: deserializes as `T`.
    From(Type),
    /// `#[arg(schema = PATH)]` on the type.
    Override(ExprPath),
    Enum(Enum<'a>),
}

pub struct Field<'a> {
    /// The container's derive (whose trait gives the field's schema).
    pub dir: Direction,
    /// The Rust name (`delta`, or `0` in a tuple), for messages.
    pub member: String,
    /// The property name on the wire.
    pub name: String,
    pub original: &'a syn::Field,
    pub ty: &'a Type,
    pub source: Source,
    pub required: Required,
    pub description: Option<String>,
    pub constraints: Vec<Setting<Constraint>>,
    pub default: Option<Setting<Value>>,
    /// What the macro can tell from the type's name (`Kind::Unknown` under a `schema`).
    pub shape: Shape,
    /// `#[serde(default)]` on the field or its struct (deserialize side).
    pub serde_default: bool,
}

/// Where a field's schema comes from.
pub enum Source {
    /// `<T as ToolArgs>::SCHEMA`
    Type,
    /// `#[arg(schema = PATH)]`
    Override(ExprPath),
}

/// Whether a property is listed in `required`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Required {
    /// Unless the type is optional: `!<T as ToolArgs>::OPTIONAL`.
    FromType,
    Yes,
    No,
}

pub struct Enum<'a> {
    pub repr: Repr,
    pub variants: Vec<Variant<'a>>,
    /// Variants declared and not skipped by serde (some may be missing from `variants`
    /// because of an error already reported).
    pub declared: usize,
}

/// serde's enum representations.
pub enum Repr {
    External,
    Internal { tag: String },
    Adjacent { tag: String, content: String },
    Untagged,
}

pub struct Variant<'a> {
    pub ident: &'a Ident,
    pub original: &'a syn::Variant,
    pub name: String,
    pub description: Option<String>,
    /// `#[arg(title = "…")]`: the variant's title as a choice in an elicitation form.
    pub title: Option<Setting<String>>,
    pub content: Content<'a>,
    /// `#[serde(untagged)]` on the enum or on this variant.
    pub untagged: bool,
}

pub enum Content<'a> {
    Unit,
    Newtype(Box<Field<'a>>),
    Struct(Vec<Field<'a>>),
    /// `#[arg(schema = PATH)]` on the variant.
    Override(ExprPath),
}

/// `r#type` → `type`
fn unraw(ident: &Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map_or(s.clone(), str::to_owned)
}

impl<'a> Container<'a> {
    /// Reads the input; `None` when it has no schema at all (a union, a unit struct, …).
    pub fn build(input: &'a DeriveInput, dir: Direction, errors: &mut Errors) -> Option<Self> {
        let position = match &input.data {
            Data::Struct(_) => Position::Struct,
            Data::Enum(_) => Position::Enum,
            Data::Union(u) => {
                errors.at(
                    u.union_token,
                    format!(
                        "`{}` cannot be derived for a union; use a struct with named fields or an enum",
                        dir.trait_name()
                    ),
                );
                return None;
            }
        };
        let args = ArgAttrs::parse(&input.attrs, position, errors);
        let serde = SerdeContainer::parse(&input.attrs, dir);
        let description = args
            .description
            .as_ref()
            .map(|d| d.value.clone())
            .or_else(|| docs::description(&input.attrs));
        let bound = args.bound.map(|b| b.value);

        // A schema given whole: the fields and variants do not matter.
        let given = match (&args.schema, &serde.from) {
            (Some(path), _) => Some(("`#[arg(schema = …)]`", Body::Override(path.value.clone()))),
            (None, Some((key, ty))) => {
                let which = if key.is_ident("from") {
                    "`#[serde(from = …)]`"
                } else if key.is_ident("into") {
                    "`#[serde(into = …)]`"
                } else {
                    "`#[serde(try_from = …)]`"
                };
                Some((which, Body::From(ty.clone())))
            }
            (None, None) => None,
        };
        if let Some((source, body)) = given {
            no_arg_inside(input, source, errors);
            return Some(Container {
                dir,
                ident: &input.ident,
                input,
                description,
                bound,
                body,
            });
        }

        let body = match &input.data {
            Data::Struct(data) => struct_body(input, &data.fields, &serde, dir, errors)?,
            Data::Enum(data) => {
                let variants = data
                    .variants
                    .iter()
                    .filter_map(|v| variant(v, &serde, dir, errors))
                    .collect();
                let repr = match (&serde.tag, &serde.content, serde.untagged) {
                    (_, _, true) => Repr::Untagged,
                    (Some(tag), Some(content), false) => Repr::Adjacent {
                        tag: tag.clone(),
                        content: content.clone(),
                    },
                    (Some(tag), None, false) => Repr::Internal { tag: tag.clone() },
                    (None, _, false) => Repr::External,
                };
                let declared = data
                    .variants
                    .iter()
                    .filter(|v| !SerdeVariant::parse(&v.attrs, dir).skip)
                    .count();
                Body::Enum(Enum {
                    repr,
                    variants,
                    declared,
                })
            }
            Data::Union(_) => return None,
        };
        Some(Container {
            dir,
            ident: &input.ident,
            input,
            description,
            bound,
            body,
        })
    }
}

/// `#[arg]` inside a type whose schema is given whole has no effect: an error, not silence.
fn no_arg_inside(input: &DeriveInput, source: &str, errors: &mut Errors) {
    let mut attrs: Vec<&syn::Attribute> = Vec::new();
    match &input.data {
        Data::Struct(data) => {
            attrs.extend(data.fields.iter().flat_map(|f| &f.attrs));
        }
        Data::Enum(data) => {
            for v in &data.variants {
                attrs.extend(&v.attrs);
                attrs.extend(v.fields.iter().flat_map(|f| &f.attrs));
            }
        }
        Data::Union(_) => {}
    }
    for attr in attrs.into_iter().filter(|a| a.path().is_ident("arg")) {
        errors.at(
            attr,
            format!(
                "this `#[arg]` has no effect: `{}` takes its whole schema from {source}; remove it",
                input.ident
            ),
        );
    }
}

fn struct_body<'a>(
    input: &'a DeriveInput,
    fields: &'a Fields,
    serde: &SerdeContainer,
    dir: Direction,
    errors: &mut Errors,
) -> Option<Body<'a>> {
    match fields {
        Fields::Named(named) => {
            let built: Vec<Field> = named
                .named
                .iter()
                .enumerate()
                .filter_map(|(i, f)| field(f, i, serde.rename_all, serde.default, dir, errors))
                .collect();
            if let Some(transparent) = &serde.transparent {
                let count = built.len();
                let mut built = built.into_iter();
                match (built.next(), built.next()) {
                    (Some(field), None) => Some(Body::Inner {
                        field: Box::new(field),
                        transparent: true,
                    }),
                    _ => {
                        errors.at(
                            transparent,
                            format!(
                                "`#[serde(transparent)]` needs exactly one field that is not skipped, and `{}` has {count}",
                                input.ident
                            ),
                        );
                        None
                    }
                }
            } else {
                Some(Body::Object(built))
            }
        }
        Fields::Unnamed(unnamed) if unnamed.unnamed.len() == 1 => {
            let f = &unnamed.unnamed[0];
            let field = field(f, 0, None, serde.default, dir, errors)?;
            Some(Body::Inner {
                field: Box::new(field),
                transparent: serde.transparent.is_some(),
            })
        }
        Fields::Unnamed(unnamed) => {
            let ident = &input.ident;
            let (from, schema) = (dir.from(), dir.schema());
            let message = match unnamed.unnamed.len() {
                0 => format!(
                    "a tuple struct with no fields {from} an empty JSON array, which {schema} cannot describe; give it braces{}: `struct {ident} {{}}`",
                    no_arguments(dir)
                ),
                n => format!(
                    "a tuple struct with {n} fields {from} a JSON array, which {schema} cannot describe; name the fields: `struct {ident} {{ … }}`"
                ),
            };
            errors.at(unnamed, message);
            None
        }
        Fields::Unit => {
            errors.at(
                &input.ident,
                format!(
                    "a unit struct {} `null`, which {} cannot describe; give it braces{}: `struct {} {{}}`",
                    dir.from(),
                    dir.schema(),
                    no_arguments(dir),
                    input.ident
                ),
            );
            None
        }
    }
}

/// " to take no arguments", where braces mean that.
fn no_arguments(dir: Direction) -> &'static str {
    match dir {
        Direction::Args => " to take no arguments",
        Direction::Output => "",
    }
}

/// Every `#[arg]` on a member serde skips is an error: it has no effect.
fn args_without_effect(args: &ArgAttrs, member: &str, errors: &mut Errors) {
    for attr in &args.attrs {
        errors.at(
            *attr,
            format!(
                "this `#[arg]` has no effect: {member} is skipped by serde, so it is not in the schema; remove it"
            ),
        );
    }
}

/// `#[serde(with = …)]` without `#[arg(schema = …)]`: the schema of `what` may not apply.
fn with_without_schema(
    with: &syn::Path,
    member: &str,
    what: &str,
    dir: Direction,
    errors: &mut Errors,
) {
    let key = with
        .get_ident()
        .map_or_else(|| "with".to_owned(), ToString::to_string);
    let (changes, json) = match dir {
        Direction::Args => ("accepts", "the accepted JSON"),
        Direction::Output => ("produces", "the JSON it produces"),
    };
    errors.at(
        with,
        format!(
            "`#[serde({key} = …)]` changes what {member} {changes}, so the schema of {what} may not apply; describe {json} with `#[arg(schema = PATH)]`, a path to a `const` `pedelec::SchemaNode`"
        ),
    );
}

/// A field that deserializes; `None` when it is skipped (or cannot be described).
fn field<'a>(
    f: &'a syn::Field,
    index: usize,
    rule: Option<RenameRule>,
    container_default: bool,
    dir: Direction,
    errors: &mut Errors,
) -> Option<Field<'a>> {
    let serde = SerdeField::parse(&f.attrs, dir);
    let args = ArgAttrs::parse(&f.attrs, Position::Field, errors);
    let member = f.ident.as_ref().map_or_else(|| index.to_string(), unraw);
    if serde.skip {
        args_without_effect(&args, &format!("field `{member}`"), errors);
        return None;
    }
    if let Some(flatten) = &serde.flatten {
        errors.at(
            flatten,
            format!(
                "`#[serde(flatten)]` cannot be expressed in {}: the properties of field `{member}` would have to be merged into this object at compile time; list those fields here instead, or remove `flatten` to nest them under \"{member}\"",
                dir.schema()
            ),
        );
        return None;
    }
    if let (Some(with), None) = (&serde.with, &args.schema) {
        with_without_schema(with, &format!("field `{member}`"), "its type", dir, errors);
        return None;
    }
    let name = match (&serde.rename, &f.ident, rule) {
        (Some(name), _, _) => name.clone(),
        (None, Some(ident), Some(rule)) => rule.apply_to_field(&unraw(ident)),
        (None, _, _) => member.clone(),
    };
    let serde_default = serde.default || container_default;
    let (source, shape) = match args.schema {
        Some(path) => (
            Source::Override(path.value),
            Shape {
                optional: ty::is_option(&f.ty),
                kind: ty::Kind::Unknown,
            },
        ),
        None => (Source::Type, ty::shape(&f.ty)),
    };
    let required = match dir {
        // Always serialized (`None` as `null`, which `Option`'s output schema allows),
        // unless `skip_serializing_if` may leave it out.
        Direction::Output if serde.skip_if => Required::No,
        Direction::Output => Required::Yes,
        Direction::Args => match (&source, serde_default) {
            (_, true) => Required::No,
            (Source::Type, false) => Required::FromType,
            (Source::Override(_), false) if shape.optional => Required::No,
            (Source::Override(_), false) => Required::Yes,
        },
    };
    Some(Field {
        dir,
        member,
        name,
        original: f,
        ty: &f.ty,
        source,
        required,
        description: args
            .description
            .map(|d| d.value)
            .or_else(|| docs::description(&f.attrs)),
        constraints: args.constraints,
        // A default is what a call may leave out: nothing to say about a result.
        default: args.default.filter(|_| dir == Direction::Args),
        shape,
        serde_default,
    })
}

/// A variant that deserializes; `None` when it is skipped (or cannot be described).
fn variant<'a>(
    v: &'a syn::Variant,
    container: &SerdeContainer,
    dir: Direction,
    errors: &mut Errors,
) -> Option<Variant<'a>> {
    let serde = SerdeVariant::parse(&v.attrs, dir);
    let args = ArgAttrs::parse(&v.attrs, Position::Variant, errors);
    let ident = &v.ident;
    if serde.skip {
        args_without_effect(&args, &format!("variant `{ident}`"), errors);
        return None;
    }
    if let Some(other) = &serde.other {
        errors.at(
            other,
            format!(
                "`#[serde(other)]` makes `{ident}` accept any tag, which a tool-args schema cannot describe; remove it (unknown tags are then rejected), or give the enum a schema with `#[arg(schema = PATH)]`"
            ),
        );
        return None;
    }
    if let (Some(with), None) = (&serde.with, &args.schema) {
        with_without_schema(
            with,
            &format!("variant `{ident}`"),
            "its fields",
            dir,
            errors,
        );
        return None;
    }
    let name = match (&serde.rename, container.rename_all) {
        (Some(name), _) => name.clone(),
        (None, Some(rule)) => rule.apply_to_variant(&unraw(ident)),
        (None, None) => unraw(ident),
    };
    let rule = serde.rename_all.or(container.rename_all_fields);
    let content = match (&v.fields, args.schema) {
        (Fields::Unit, Some(schema)) => {
            errors.at(
                schema.range,
                format!(
                    "unit variant `{ident}` has no content to give a schema to; remove `schema`"
                ),
            );
            Content::Unit
        }
        (Fields::Unit, None) => Content::Unit,
        (Fields::Unnamed(fields), _) if fields.unnamed.len() != 1 => {
            let n = fields.unnamed.len();
            let fix = if n == 0 {
                format!("make it a unit variant: `{ident}`")
            } else {
                format!("name its fields: `{ident} {{ … }}`")
            };
            errors.at(
                fields,
                format!(
                    "tuple variant `{ident}` {} a JSON array, which {} cannot describe; {fix}",
                    dir.from(),
                    dir.schema()
                ),
            );
            return None;
        }
        (_, Some(schema)) => {
            no_arg_in_fields(&v.fields, ident, errors);
            Content::Override(schema.value)
        }
        (Fields::Unnamed(fields), None) => Content::Newtype(Box::new(field(
            &fields.unnamed[0],
            0,
            None,
            false,
            dir,
            errors,
        )?)),
        (Fields::Named(fields), None) => Content::Struct(
            fields
                .named
                .iter()
                .enumerate()
                .filter_map(|(i, f)| field(f, i, rule, false, dir, errors))
                .collect(),
        ),
    };
    Some(Variant {
        ident,
        original: v,
        name,
        description: args
            .description
            .map(|d| d.value)
            .or_else(|| docs::description(&v.attrs)),
        title: args.title,
        content,
        untagged: container.untagged || serde.untagged,
    })
}

fn no_arg_in_fields(fields: &Fields, ident: &Ident, errors: &mut Errors) {
    for attr in fields
        .iter()
        .flat_map(|f| &f.attrs)
        .filter(|a| a.path().is_ident("arg"))
    {
        errors.at(
            SpanRange::of(attr),
            format!(
                "this `#[arg]` has no effect: variant `{ident}` takes its schema from `#[arg(schema = …)]`; remove it"
            ),
        );
    }
}
