//! Code generation: the `ToolArgs` impl (a `const` schema), `ToolArgsRoot` where the schema
//! is an object, and a `const _` that makes `cargo check` evaluate the schema.
//!
//! Infallible: every problem was reported by `model` or `check`.
//!
//! Each field's schema is `<FieldTy as ToolArgs>::SCHEMA` plus modifiers, so every type
//! composes (std types, user types, generics). A modifier that can fail during const
//! evaluation is one `let` statement whose call is spanned at its `#[arg(...)]` tokens:
//! rustc then reports the failure there.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{ToTokens, quote};
use syn::{Generics, Ident, Type, WherePredicate, parse_quote};

use super::attr::Constraint;
use super::direction::Direction;
use super::model::{Body, Container, Content, Field, Repr, Required, Source, Variant};
use super::span::SpanRange;
use super::ty;
use super::value;
use crate::util::Private;

/// Whether the type contains itself (arguments only: an output schema is not recursive).
pub fn is_recursive(c: &Container) -> bool {
    c.dir == Direction::Args
        && schema_types(c)
            .iter()
            .any(|ty| super::recursion::mentions(ty, c.ident))
}

/// Whether the schema is a `static` the type's `SCHEMA` names (see
/// `pedelec_core::schema::SchemaNode::named`): every argument type without type or const
/// parameters, so that types may contain themselves and each other.
fn is_named(c: &Container) -> bool {
    let generics = &c.input.generics;
    c.dir == Direction::Args
        && generics.type_params().next().is_none()
        && generics.const_params().next().is_none()
}

pub fn expand(c: &Container) -> TokenStream {
    let ident = c.ident;
    let generics = with_bounds(c);
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let schema = body_schema(c);
    if c.dir == Direction::Output {
        let evaluate = evaluation(c);
        return quote! {
            #[automatically_derived]
            #[allow(clippy::absolute_paths)]
            impl #impl_generics #Private::ToolOutput for #ident #ty_generics #where_clause {
                const OUTPUT_SCHEMA: #Private::SchemaNode = #schema;
            }
            #evaluate
        };
    }
    let optional = match &c.body {
        Body::Inner {
            field,
            transparent: true,
        } if matches!(field.source, Source::Type) => {
            let optional = type_const(field.ty, Direction::Args, "OPTIONAL");
            Some(quote!(const OPTIONAL: ::core::primitive::bool = #optional;))
        }
        Body::From(ty) => {
            let optional = type_const(ty, Direction::Args, "OPTIONAL");
            Some(quote!(const OPTIONAL: ::core::primitive::bool = #optional;))
        }
        _ => None,
    };
    let root = match &c.body {
        Body::Object(_) => Some(quote! {
            #[automatically_derived]
            impl #impl_generics #Private::ToolArgsRoot for #ident #ty_generics #where_clause {}
        }),
        // Root when the inner type is; the `for<'…>` keeps the bound from being checked
        // (and failing) where the inner type is concrete and not an object.
        Body::Inner { field, .. } if matches!(field.source, Source::Type) => {
            Some(conditional_root(c, &generics, field.ty))
        }
        Body::From(ty) => Some(conditional_root(c, &generics, ty)),
        _ => None,
    };
    let schema = if is_named(c) {
        // A `static` inside the constant (see `__private::named!`): `Self` is not in scope
        // there, nor are the type's lifetimes.
        let body = super::recursion::in_static(schema, ident, &c.input.generics);
        let name = ident.to_string();
        quote!(#Private::named!(#name, #body))
    } else {
        schema
    };
    let evaluate = if is_named(c) { None } else { evaluation(c) };
    quote! {
        #[automatically_derived]
        // The calls that carry the `#[arg]` tokens' spans look like user code to clippy.
        #[allow(clippy::absolute_paths)]
        impl #impl_generics #Private::ToolArgs for #ident #ty_generics #where_clause {
            const SCHEMA: #Private::SchemaNode = #schema;
            #optional
        }
        #root
        #evaluate
    }
}

/// The input's generics plus a `ToolArgs` bound on each type parameter a field's schema
/// uses (or the predicates of `#[arg(bound = "…")]` instead).
fn with_bounds(c: &Container) -> Generics {
    let mut generics = c.input.generics.clone();
    let predicates: Vec<WherePredicate> = match &c.bound {
        Some(bound) => bound.clone(),
        None => {
            let params = generics
                .type_params()
                .map(|p| p.ident.to_string())
                .collect();
            let mut bounded = Vec::new();
            for ty in schema_types(c) {
                ty::bounded_params(ty, &params, &mut bounded);
            }
            bounded
                .iter()
                .map(|ty| {
                    let bound = c.dir.trait_path();
                    parse_quote!(#ty: #bound)
                })
                .collect()
        }
    };
    if !predicates.is_empty() {
        generics.make_where_clause().predicates.extend(predicates);
    }
    generics
}

/// Every type whose `ToolArgs` schema the expansion uses.
fn schema_types<'a>(c: &'a Container) -> Vec<&'a Type> {
    fn fields<'a>(out: &mut Vec<&'a Type>, fields: &'a [Field]) {
        out.extend(
            fields
                .iter()
                .filter(|f| matches!(f.source, Source::Type))
                .map(|f| f.ty),
        );
    }
    let mut out = Vec::new();
    match &c.body {
        Body::Object(f) => fields(&mut out, f),
        Body::Inner { field, .. } => fields(&mut out, std::slice::from_ref(&**field)),
        Body::From(ty) => out.push(ty),
        Body::Override(_) => {}
        Body::Enum(e) => {
            for v in &e.variants {
                match &v.content {
                    Content::Newtype(field) => fields(&mut out, std::slice::from_ref(&**field)),
                    Content::Struct(f) => fields(&mut out, f),
                    Content::Unit | Content::Override(_) => {}
                }
            }
        }
    }
    out
}

/// `impl ToolArgsRoot for W where for<'__pedelec> Inner: ToolArgsRoot {}`
fn conditional_root(c: &Container, generics: &Generics, inner: &Type) -> TokenStream {
    let ident = c.ident;
    let mut generics = generics.clone();
    generics
        .make_where_clause()
        .predicates
        .push(parse_quote!(for<'__pedelec> #inner: #Private::ToolArgsRoot));
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    quote! {
        #[automatically_derived]
        impl #impl_generics #Private::ToolArgsRoot for #ident #ty_generics #where_clause {}
    }
}

/// `const _: () = forget(<Type as ToolArgs>::SCHEMA);` for a type without type or const
/// parameters: associated constants are evaluated only when used, and this use makes
/// `cargo check` report a failing constraint even before the type is used anywhere.
///
/// A `()` constant, not `&SchemaNode`: rustc validates a constant's final value through its
/// references, and a reference to the schema would have the whole tree validated once more
/// (with `mir_const_qualif` of the reference, about a sixth of the schema's const cost in
/// `cargo xtask compile-bench --profile`).
fn evaluation(c: &Container) -> Option<TokenStream> {
    let generics = &c.input.generics;
    if generics.type_params().next().is_some() || generics.const_params().next().is_some() {
        return None;
    }
    let ident = c.ident;
    let lifetimes: Vec<TokenStream> = generics.lifetimes().map(|_| quote!('static)).collect();
    let ty = if lifetimes.is_empty() {
        quote!(#ident)
    } else {
        quote!(#ident<#(#lifetimes),*>)
    };
    let (bound, name) = (
        c.dir.trait_path(),
        Ident::new(c.dir.schema_const(), Span::call_site()),
    );
    Some(quote! {
        const _: () = ::core::mem::forget(<#ty as #bound>::#name);
    })
}

/// `tokens` with every span set to `span`.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), respan(g.stream(), span));
                group.set_span(span);
                TokenTree::Group(group)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// `<Ty as ToolArgs>::NAME` (or `ToolOutput`), spanned over `Ty`: an unsupported type is
/// reported on the field's type, with the note of the trait's
/// `#[diagnostic::on_unimplemented]`.
fn type_const(ty: &Type, dir: Direction, name: &str) -> TokenStream {
    let range = SpanRange::of(ty);
    let open = respan(quote!(<), range.first);
    let bound = dir.trait_path();
    let rest = respan(quote!(as #bound>::), range.last);
    let name = Ident::new(name, range.last);
    quote!(#open #ty #rest #name)
}

fn describe(schema: TokenStream, description: Option<&str>) -> TokenStream {
    match description {
        Some(d) => quote!(#schema.with_description(#d)),
        None => schema,
    }
}

fn body_schema(c: &Container) -> TokenStream {
    let description = c.description.as_deref();
    match &c.body {
        Body::Object(fields) => {
            let props = fields.iter().map(property);
            let object = quote!(#Private::SchemaNode::object(const { &[#(#props),*] }));
            let object = describe(object, description);
            quote!(#object.closed())
        }
        Body::Inner { field, .. } => {
            field_schema(field, description.or(field.description.as_deref()))
        }
        Body::From(ty) => describe(type_const(ty, c.dir, c.dir.schema_const()), description),
        Body::Override(path) => describe(path.to_token_stream(), description),
        Body::Enum(e) => enum_schema(c, &e.repr, &e.variants),
    }
}

/// `Property::new("name", schema, required)`
fn property(field: &Field) -> TokenStream {
    let name = &field.name;
    let schema = field_schema(field, field.description.as_deref());
    let required = required(field);
    quote!(#Private::Property::new(#name, #schema, #required))
}

fn required(field: &Field) -> TokenStream {
    match field.required {
        Required::FromType => {
            let optional = type_const(field.ty, field.dir, "OPTIONAL");
            quote!(!#optional)
        }
        Required::Yes => quote!(true),
        Required::No => quote!(false),
    }
}

/// The schema of one field: its type's (or `#[arg(schema)]`'s), then the description, the
/// constraints in the order written, and the default, as nested calls (no local variable,
/// so no name a user item could capture).
fn field_schema(field: &Field, description: Option<&str>) -> TokenStream {
    let base = match &field.source {
        Source::Type => type_const(field.ty, field.dir, field.dir.schema_const()),
        Source::Override(path) => path.to_token_stream(),
    };
    let mut schema = describe(base, description);
    for c in &field.constraints {
        let argument = match &c.value {
            Constraint::Minimum(n)
            | Constraint::Maximum(n)
            | Constraint::ExclusiveMinimum(n)
            | Constraint::ExclusiveMaximum(n)
            | Constraint::MultipleOf(n) => Some(value::number_tokens(*n)),
            Constraint::MinLength(n)
            | Constraint::MaxLength(n)
            | Constraint::MinItems(n)
            | Constraint::MaxItems(n) => {
                Some(proc_macro2::Literal::u64_unsuffixed(*n).into_token_stream())
            }
            Constraint::Pattern(s) | Constraint::Format(s) | Constraint::McpHeader(s) => {
                Some(s.to_token_stream())
            }
            Constraint::UniqueItems | Constraint::EnumNames => None,
        };
        schema = spanned_call(c.range, c.value.key(), schema, argument);
    }
    if let Some(default) = &field.default {
        let value = default.value.to_token_stream();
        schema = spanned_call(default.range, "default", schema, Some(value));
    }
    schema
}

/// `::pedelec::__private::arg::KEY(schema, ARG)`, the call spanned from the first to the
/// last token of the attribute's `key = value`: a failure during const evaluation is
/// reported there.
fn spanned_call(
    range: SpanRange,
    function: &str,
    schema: TokenStream,
    argument: Option<TokenStream>,
) -> TokenStream {
    let function = Ident::new(function, range.first);
    let path = respan(quote!(#Private::arg::), range.first);
    let arguments = match argument {
        Some(argument) => quote!(#schema, #argument),
        None => schema,
    };
    let mut group = Group::new(Delimiter::Parenthesis, arguments);
    group.set_span(range.last);
    quote!(#path #function #group)
}

fn string_enum(names: &[&str]) -> TokenStream {
    let values = names
        .iter()
        .map(|name| quote!(#Private::Literal::str(#name)));
    quote!(#Private::SchemaNode::string().with_enum_values(const { &[#(#values),*] }))
}

/// A string enum with the variants' titles (each untitled one by its name), when any has
/// one.
fn titled(values: TokenStream, variants: &[Variant]) -> TokenStream {
    if variants.iter().all(|v| v.title.is_none()) {
        return values;
    }
    let titles = variants.iter().map(|v| {
        v.title
            .as_ref()
            .map_or(v.name.as_str(), |t| t.value.as_str())
    });
    quote!(#values.with_enum_titles(&[#(#titles),*]))
}

fn closed_object(props: &[TokenStream]) -> TokenStream {
    quote!(#Private::SchemaNode::object(const { &[#(#props),*] }).closed())
}

/// The content of a data-carrying variant (newtype, struct, or `#[arg(schema)]`).
fn content_schema(v: &Variant, description: Option<&str>) -> Option<TokenStream> {
    match &v.content {
        Content::Unit => None,
        Content::Newtype(field) => Some(field_schema(
            field,
            description.or(field.description.as_deref()),
        )),
        Content::Struct(fields) => {
            let props: Vec<_> = fields.iter().map(property).collect();
            Some(describe(closed_object(&props), description))
        }
        Content::Override(path) => Some(describe(path.to_token_stream(), description)),
    }
}

fn enum_schema(c: &Container, repr: &Repr, variants: &[Variant]) -> TokenStream {
    let all_unit = variants
        .iter()
        .all(|v| matches!(v.content, Content::Unit) && !v.untagged);
    if all_unit && !variants.is_empty() {
        let names: Vec<&str> = variants.iter().map(|v| v.name.as_str()).collect();
        let description = unit_enum_description(c.description.as_deref(), variants);
        let values = string_enum(&names);
        return match repr {
            Repr::External | Repr::Untagged => {
                describe(titled(values, variants), description.as_deref())
            }
            Repr::Internal { tag } | Repr::Adjacent { tag, .. } => {
                let props = [quote!(#Private::Property::new(#tag, #values, true))];
                describe(closed_object(&props), description.as_deref())
            }
        };
    }
    let branches = variants.iter().map(|v| branch(c.dir, repr, v));
    let one_of = quote!(#Private::SchemaNode::one_of(const { &[#(#branches),*] }));
    describe(one_of, c.description.as_deref())
}

/// The type's description, then the documented unit variants as a list (a string enum has
/// no other place for them).
fn unit_enum_description(description: Option<&str>, variants: &[Variant]) -> Option<String> {
    let items: Vec<String> = variants
        .iter()
        .filter_map(|v| {
            let doc = v.description.as_deref()?;
            // One line per variant: its paragraphs and lines joined.
            let doc = doc.split_whitespace().collect::<Vec<_>>().join(" ");
            Some(format!("- `{}`: {doc}", v.name))
        })
        .collect();
    match (description, items.is_empty()) {
        (d, true) => d.map(str::to_owned),
        (None, false) => Some(items.join("\n")),
        (Some(d), false) => Some(format!("{d}\n\n{}", items.join("\n"))),
    }
}

/// One `oneOf` branch: the variant as its representation writes it.
fn branch(dir: Direction, repr: &Repr, v: &Variant) -> TokenStream {
    let name = &v.name;
    let description = v.description.as_deref();
    if v.untagged {
        // A unit variant of an untagged enum serializes to `null` (and was reported for
        // arguments, which cannot describe it).
        return content_schema(v, description).unwrap_or_else(|| {
            let null = quote! {
                #Private::SchemaNode::any().with_enum_values(&[#Private::Literal::Null])
            };
            match dir {
                Direction::Output => describe(null, description),
                Direction::Args => quote!(#Private::SchemaNode::any()),
            }
        });
    }
    let tag_property = |tag: &str| {
        let value = string_enum(&[name]);
        quote!(#Private::Property::new(#tag, #value, true))
    };
    match repr {
        Repr::External | Repr::Untagged => match content_schema(v, None) {
            None => describe(string_enum(&[name]), description),
            Some(content) => {
                let props = [quote!(#Private::Property::new(#name, #content, true))];
                describe(closed_object(&props), description)
            }
        },
        Repr::Internal { tag } => {
            let mut props = vec![tag_property(tag)];
            if let Content::Struct(fields) = &v.content {
                props.extend(fields.iter().map(property));
            }
            describe(closed_object(&props), description)
        }
        Repr::Adjacent { tag, content } => {
            let mut props = vec![tag_property(tag)];
            if let Some(schema) = content_schema(v, None) {
                let required = match &v.content {
                    Content::Newtype(field) => required(field),
                    _ => quote!(true),
                };
                props.push(quote!(#Private::Property::new(#content, #schema, #required)));
            }
            describe(closed_object(&props), description)
        }
    }
}
