//! Recursive types: a type whose fields contain the type itself (`Vec<Filter>` in
//! `Filter`), or types that contain each other (`Vec<File>` in `Folder`, `Box<Folder>` in
//! `File`).
//!
//! A `const` cannot contain itself, and a macro cannot see the other types of a cycle. So
//! the schema of an argument type without type or const parameters is a `static` inside
//! the type's `SCHEMA`, which names it (`__private::named!("Folder", body)`): statics may
//! point at each other. Readers inline each type, and stop where one is met again inside itself
//! (see `pedelec_core::schema::SchemaNode::named`). A generic type has no `static` (it
//! would depend on the parameters): its schema stays an inline `const`, and a generic
//! type that contains itself is an error.

use proc_macro2::{Group, Ident, Spacing, TokenStream, TokenTree};
use syn::{Generics, Type};

/// Whether `ty` names the type `owner` (`Filter`, `crate::Filter`, `Self`) anywhere.
pub fn mentions(ty: &Type, owner: &Ident) -> bool {
    super::ty::mentions(ty, owner)
}

/// The schema's tokens made fit for a `static`: `Self` is `owner`, the type's lifetimes are
/// `'static`.
pub fn in_static(tokens: TokenStream, owner: &Ident, generics: &Generics) -> TokenStream {
    let lifetimes: Vec<String> = generics
        .lifetimes()
        .map(|l| l.lifetime.ident.to_string())
        .collect();
    replace(tokens, owner, &lifetimes)
}

fn replace(tokens: TokenStream, owner: &Ident, lifetimes: &[String]) -> TokenStream {
    let mut out = Vec::new();
    let mut after_quote = false;
    for token in tokens {
        let token = match token {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), replace(g.stream(), owner, lifetimes));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            TokenTree::Ident(i) if i == "Self" && !after_quote => {
                TokenTree::Ident(Ident::new(&owner.to_string(), i.span()))
            }
            TokenTree::Ident(i) if after_quote && lifetimes.iter().any(|l| i == l) => {
                TokenTree::Ident(Ident::new("static", i.span()))
            }
            other => other,
        };
        after_quote = matches!(&token, TokenTree::Punct(p) if p.as_char() == '\'' && p.spacing() == Spacing::Joint);
        out.push(token);
    }
    out.into_iter().collect()
}
