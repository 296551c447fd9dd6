//! What the macro can tell about a field's type from its name alone.
//!
//! The schema itself always comes from the type's `ToolArgs` impl (so aliases, user types
//! and generics compose); this syntactic view only lets the macro check `#[arg(...)]`
//! constraints early, with a precise message, when the type is one it recognises. For any
//! other type the same checks run during const evaluation (`pedelec::__private::arg`).

use std::collections::BTreeSet;
use std::fmt;

use pedelec_rules::Number;
use syn::visit::Visit;
use syn::{Expr, ExprLit, GenericArgument, Ident, Lit, PathArguments, Type, TypePath};

/// The schema kind of a recognised type.
#[derive(Clone, Debug)]
pub enum Kind {
    /// `String`, `str`, `PathBuf`, `char` (exactly one character), `Cow<str>`.
    String {
        char: bool,
    },
    Boolean,
    /// A primitive integer and its range.
    Integer {
        name: &'static str,
        min: Number,
        max: Number,
    },
    Number,
    /// `Vec`, `VecDeque`, `[T; N]`, `[T]`, `HashSet`, `BTreeSet`.
    Array {
        items: Box<Kind>,
        /// `[T; N]`: always exactly `N` items.
        fixed: bool,
        /// `N`, when it is a literal.
        len: Option<u64>,
        unique: bool,
    },
    /// `HashMap<String, V>`, `BTreeMap<String, V>`.
    Map,
    /// Anything else: checks wait for const evaluation.
    Unknown,
}

impl Kind {
    /// The wire name of the kind, with an article: "a string", "an integer", …
    pub fn describe(&self) -> &'static str {
        match self {
            Kind::String { .. } => "a string",
            Kind::Boolean => "a boolean",
            Kind::Integer { .. } => "an integer",
            Kind::Number => "a number",
            Kind::Array { .. } => "an array",
            Kind::Map => "an object (a map)",
            Kind::Unknown => "of a kind the macro cannot see",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// A field type as the macro sees it.
#[derive(Clone, Debug)]
pub struct Shape {
    /// `Option<T>` (through `Box`, `Arc`, `Rc`, references): the property is not required.
    pub optional: bool,
    pub kind: Kind,
}

/// Removes `Group` and `Paren` wrappers.
pub fn ungroup(mut ty: &Type) -> &Type {
    loop {
        match ty {
            Type::Group(g) => ty = &g.elem,
            Type::Paren(p) => ty = &p.elem,
            _ => return ty,
        }
    }
}

/// The last segment of a plain path type, with its type arguments.
fn last_segment(ty: &Type) -> Option<(&Ident, Vec<&Type>)> {
    let Type::Path(TypePath {
        qself: None, path, ..
    }) = ungroup(ty)
    else {
        return None;
    };
    let segment = path.segments.last()?;
    let args = match &segment.arguments {
        PathArguments::None => Vec::new(),
        PathArguments::AngleBracketed(args) => args
            .args
            .iter()
            .filter_map(|arg| match arg {
                GenericArgument::Type(ty) => Some(ty),
                _ => None,
            })
            .collect(),
        PathArguments::Parenthesized(_) => return None,
    };
    Some((&segment.ident, args))
}

/// `true` when `ty` is written `Option<…>` (the test serde uses too).
pub fn is_option(ty: &Type) -> bool {
    matches!(last_segment(ty), Some((ident, args)) if ident == "Option" && args.len() == 1)
}

/// Classifies `ty`.
pub fn shape(ty: &Type) -> Shape {
    match ungroup(ty) {
        Type::Reference(r) => return shape(&r.elem),
        Type::Slice(s) => {
            return Shape {
                optional: false,
                kind: Kind::Array {
                    items: Box::new(shape(&s.elem).kind),
                    fixed: false,
                    len: None,
                    unique: false,
                },
            };
        }
        Type::Array(a) => {
            let len = match &a.len {
                Expr::Lit(ExprLit {
                    lit: Lit::Int(n), ..
                }) => n.base10_parse().ok(),
                _ => None,
            };
            return Shape {
                optional: false,
                kind: Kind::Array {
                    items: Box::new(shape(&a.elem).kind),
                    fixed: true,
                    len,
                    unique: false,
                },
            };
        }
        _ => {}
    }
    let Some((ident, args)) = last_segment(ty) else {
        return Shape {
            optional: false,
            kind: Kind::Unknown,
        };
    };
    let name = ident.to_string();
    let kind = match (name.as_str(), args.as_slice()) {
        ("Option", [inner]) => {
            return Shape {
                optional: true,
                kind: shape(inner).kind,
            };
        }
        ("Box" | "Arc" | "Rc", [inner]) => return shape(inner),
        ("Cow", [inner]) => shape(inner).kind,
        ("String" | "str" | "PathBuf", []) => Kind::String { char: false },
        ("char", []) => Kind::String { char: true },
        ("bool", []) => Kind::Boolean,
        ("f32" | "f64", []) => Kind::Number,
        ("Vec" | "VecDeque", [item]) => Kind::Array {
            items: Box::new(shape(item).kind),
            fixed: false,
            len: None,
            unique: false,
        },
        ("HashSet" | "BTreeSet", [item, ..]) => Kind::Array {
            items: Box::new(shape(item).kind),
            fixed: false,
            len: None,
            unique: true,
        },
        ("HashMap" | "BTreeMap", [_, _, ..]) => Kind::Map,
        (int, []) => integer(int).unwrap_or(Kind::Unknown),
        _ => Kind::Unknown,
    };
    Shape {
        optional: false,
        kind,
    }
}

fn integer(name: &str) -> Option<Kind> {
    use Number::{Int, Uint};
    let (name, min, max) = match name {
        "i8" => ("i8", Int(i8::MIN.into()), Int(i8::MAX.into())),
        "i16" => ("i16", Int(i16::MIN.into()), Int(i16::MAX.into())),
        "i32" => ("i32", Int(i32::MIN.into()), Int(i32::MAX.into())),
        "i64" => ("i64", Int(i64::MIN), Int(i64::MAX)),
        // The widest `isize`/`usize`: on narrower targets const evaluation checks the rest.
        "isize" => ("isize", Int(i64::MIN), Int(i64::MAX)),
        "u8" => ("u8", Int(0), Int(u8::MAX.into())),
        "u16" => ("u16", Int(0), Int(u16::MAX.into())),
        "u32" => ("u32", Int(0), Int(u32::MAX.into())),
        "u64" => ("u64", Int(0), Uint(u64::MAX)),
        "usize" => ("usize", Int(0), Uint(u64::MAX)),
        _ => return None,
    };
    Some(Kind::Integer { name, min, max })
}

/// `true` when `ty` names the type being derived (`Tree`, `Self`, `crate::Tree`, …) anywhere,
/// e.g. `Vec<Box<Tree>>`: such a schema would have to contain itself.
pub fn mentions(ty: &Type, ident: &Ident) -> bool {
    struct Finder<'a> {
        ident: &'a Ident,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Finder<'_> {
        fn visit_type_path(&mut self, node: &'ast TypePath) {
            let segments: Vec<_> = node.path.segments.iter().collect();
            if node.qself.is_none()
                && let Some((last, before)) = segments.split_last()
            {
                let first_is_self = segments[0].ident == "Self";
                let local = before
                    .iter()
                    .all(|s| s.ident == "crate" || s.ident == "self" || s.ident == "super");
                let leading = node.path.leading_colon.is_some();
                if first_is_self || (!leading && local && last.ident == *self.ident) {
                    self.found = true;
                }
            }
            syn::visit::visit_type_path(self, node);
        }
    }
    let mut finder = Finder {
        ident,
        found: false,
    };
    finder.visit_type(ty);
    finder.found
}

/// The type parameters (and associated-type paths like `T::Item`) that `ty` uses: each gets
/// a `ToolArgs` bound, as serde bounds the parameters its fields use.
pub fn bounded_params(ty: &Type, params: &BTreeSet<String>, out: &mut Vec<Type>) {
    struct Collector<'a> {
        params: &'a BTreeSet<String>,
        out: &'a mut Vec<Type>,
    }
    impl<'ast> Visit<'ast> for Collector<'_> {
        fn visit_type_path(&mut self, node: &'ast TypePath) {
            if let Some(qself) = &node.qself {
                // `<T as Trait>::Assoc`: bound the whole projection when it involves a param.
                let mut inner = Vec::new();
                bounded_params(&qself.ty, self.params, &mut inner);
                if !inner.is_empty() {
                    push_unique(self.out, Type::Path(node.clone()));
                    return;
                }
            } else if node.path.leading_colon.is_none()
                && let Some(first) = node.path.segments.first()
                && self.params.contains(&first.ident.to_string())
            {
                push_unique(self.out, Type::Path(node.clone()));
                if node.path.segments.len() > 1 {
                    // `T::Item`: the projection is bounded, not `T`.
                    return;
                }
            }
            syn::visit::visit_type_path(self, node);
        }
        fn visit_type_macro(&mut self, _: &'ast syn::TypeMacro) {}
    }
    Collector { params, out }.visit_type(ty);
}

fn push_unique(out: &mut Vec<Type>, ty: Type) {
    if !out.contains(&ty) {
        out.push(ty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    #[test]
    fn shapes() {
        let s = shape(&parse_quote!(Option<Box<u8>>));
        assert!(s.optional);
        assert!(matches!(
            s.kind,
            Kind::Integer {
                name: "u8",
                min: Number::Int(0),
                max: Number::Int(255)
            }
        ));
        assert!(matches!(
            shape(&parse_quote!(&'a str)).kind,
            Kind::String { char: false }
        ));
        assert!(matches!(
            shape(&parse_quote!(Cow<'a, str>)).kind,
            Kind::String { char: false }
        ));
        assert!(matches!(
            shape(&parse_quote!(char)).kind,
            Kind::String { char: true }
        ));
        assert!(matches!(
            shape(&parse_quote!([u8; 3])).kind,
            Kind::Array {
                fixed: true,
                len: Some(3),
                ..
            }
        ));
        assert!(matches!(
            shape(&parse_quote!(std::collections::BTreeSet<String>)).kind,
            Kind::Array { unique: true, .. }
        ));
        assert!(matches!(
            shape(&parse_quote!(HashMap<String, u8>)).kind,
            Kind::Map
        ));
        assert!(matches!(shape(&parse_quote!(Speed)).kind, Kind::Unknown));
        assert!(matches!(
            shape(&parse_quote!((i32, i32))).kind,
            Kind::Unknown
        ));
        assert!(!shape(&parse_quote!(Vec<Option<u8>>)).optional);
    }

    #[test]
    fn recursion() {
        let tree: Ident = parse_quote!(Tree);
        assert!(mentions(&parse_quote!(Vec<Box<Tree>>), &tree));
        assert!(mentions(&parse_quote!(Option<Box<Self>>), &tree));
        assert!(mentions(&parse_quote!(crate::Tree), &tree));
        assert!(!mentions(&parse_quote!(other::Tree), &tree));
        assert!(!mentions(&parse_quote!(TreeId), &tree));
    }

    #[test]
    fn bounds() {
        let params: BTreeSet<String> = ["T".to_owned(), "U".to_owned()].into();
        let mut out = Vec::new();
        bounded_params(&parse_quote!(Vec<(T, T::Item)>), &params, &mut out);
        bounded_params(&parse_quote!(HashMap<String, T>), &params, &mut out);
        let out: Vec<String> = out
            .iter()
            .map(|t| quote::ToTokens::to_token_stream(t).to_string())
            .collect();
        assert_eq!(out, ["T", "T :: Item"]);
    }
}
