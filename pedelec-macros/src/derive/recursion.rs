//! Recursive types: a type whose fields contain the type itself (`Vec<Filter>` in
//! `Filter`, `Option<Box<Expr>>` in `Expr`, written with its name or `Self`).
//!
//! A `const` schema cannot contain itself, so such a type's schema is built in two parts
//! (see `pedelec_core::schema::Recursive`): its body, where each use of the type is
//! replaced by `SelfRef<Self>` (whose schema is `{"$ref": "#/$defs/Name"}`), and the type's
//! schema, the body carrying its one `$defs` entry. Every other type is inlined as before.

use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use syn::{GenericArgument, Ident, PathArguments, Type};

use crate::util::Private;

/// Whether `ty` names the type `owner` (`Filter`, `crate::Filter`, `Self`) anywhere.
pub fn mentions(ty: &Type, owner: &Ident) -> bool {
    super::ty::mentions(ty, owner)
}

/// A path naming `owner` itself: `Self`, or its name, alone or after `crate::`, `self::`,
/// `super::` (the paths `ty::mentions` recognises).
fn is_owner(path: &syn::Path, owner: &Ident) -> bool {
    let Some((last, before)) = path
        .segments
        .iter()
        .collect::<Vec<_>>()
        .split_last()
        .map(|(l, b)| (*l, b.to_vec()))
    else {
        return false;
    };
    if !matches!(last.arguments, PathArguments::None) || path.leading_colon.is_some() {
        return false;
    }
    (before.is_empty() && last.ident == "Self")
        || (last.ident == *owner
            && before
                .iter()
                .all(|s| s.ident == "crate" || s.ident == "self" || s.ident == "super"))
}

/// `ty` with every use of `owner` replaced by `SelfRef<Self>`, spanned at the use.
pub fn substitute(ty: &Type, owner: &Ident) -> Type {
    let mut ty = ty.clone();
    replace(&mut ty, owner);
    ty
}

fn replace(ty: &mut Type, owner: &Ident) {
    match ty {
        Type::Path(p) if p.qself.is_none() => {
            if is_owner(&p.path, owner) {
                let span = p.path.segments[0].ident.span();
                *ty = self_ref(span);
                return;
            }
            for s in &mut p.path.segments {
                if let PathArguments::AngleBracketed(args) = &mut s.arguments {
                    for a in &mut args.args {
                        if let GenericArgument::Type(t) = a {
                            replace(t, owner);
                        }
                    }
                }
            }
        }
        Type::Reference(r) => replace(&mut r.elem, owner),
        Type::Array(a) => replace(&mut a.elem, owner),
        Type::Slice(s) => replace(&mut s.elem, owner),
        Type::Paren(p) => replace(&mut p.elem, owner),
        Type::Group(g) => replace(&mut g.elem, owner),
        Type::Tuple(t) => t.elems.iter_mut().for_each(|t| replace(t, owner)),
        _ => {}
    }
}

fn self_ref(span: Span) -> Type {
    let tokens: TokenStream = quote_spanned!(span=> #Private::SelfRef<Self>);
    syn::parse2(tokens).unwrap_or_else(|_| Type::Verbatim(TokenStream::new()))
}
