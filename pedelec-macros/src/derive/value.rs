//! Values written in `#[arg(...)]`: numbers (exact: `pedelec_rules::Number`) and `default`
//! literals, and the tokens that rebuild them in a `const`.

use std::fmt;

use pedelec_rules::Number;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Expr, ExprLit, Lit, UnOp};

use crate::util::Private;

/// `::pedelec::__private::Num::Int(-100)`: a number in a `const` (`Num` is core's name for
/// [`Number`] in generated code).
pub fn number_tokens(n: Number) -> TokenStream {
    match n {
        Number::Int(i) => {
            let lit = proc_macro2::Literal::i64_unsuffixed(i);
            quote!(#Private::Num::Int(#lit))
        }
        Number::Uint(u) => {
            let lit = proc_macro2::Literal::u64_unsuffixed(u);
            quote!(#Private::Num::Uint(#lit))
        }
        Number::Float(x) => {
            let lit = proc_macro2::Literal::f64_unsuffixed(x);
            quote!(#Private::Num::Float(#lit))
        }
    }
}

/// Removes invisible groups and parentheses around an expression.
pub fn ungroup(mut expr: &Expr) -> &Expr {
    loop {
        match expr {
            Expr::Group(g) => expr = &g.expr,
            Expr::Paren(p) => expr = &p.expr,
            _ => return expr,
        }
    }
}

/// Why a value could not be read as a number.
pub enum NumberError {
    NotANumber,
    OutOfRange,
}

/// A number literal, possibly negated: `3`, `-1`, `0.5`, `1e3`, `18_446_744_073_709_551_615`.
pub fn number(expr: &Expr) -> Result<Number, NumberError> {
    match ungroup(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => {
            let value: i128 = lit.base10_parse().map_err(|_| NumberError::OutOfRange)?;
            Number::from_i128(value).ok_or(NumberError::OutOfRange)
        }
        Expr::Lit(ExprLit {
            lit: Lit::Float(lit),
            ..
        }) => {
            let value: f64 = lit.base10_parse().map_err(|_| NumberError::NotANumber)?;
            if value.is_finite() {
                Ok(Number::Float(value))
            } else {
                Err(NumberError::OutOfRange)
            }
        }
        Expr::Unary(unary) if matches!(unary.op, UnOp::Neg(_)) => {
            match number(&unary.expr)? {
                Number::Int(i) => Ok(Number::Int(-i)),
                // -9_223_372_036_854_775_808 is the only `Uint` whose negation fits.
                Number::Uint(u) if u == 1 << 63 => Ok(Number::Int(i64::MIN)),
                Number::Uint(_) => Err(NumberError::OutOfRange),
                Number::Float(f) => Ok(Number::Float(-f)),
            }
        }
        _ => Err(NumberError::NotANumber),
    }
}

/// A non-negative integer literal (`min_length = 1`).
pub fn count(expr: &Expr) -> Result<u64, NumberError> {
    match ungroup(expr) {
        Expr::Lit(ExprLit {
            lit: Lit::Int(lit), ..
        }) => lit.base10_parse().map_err(|_| NumberError::OutOfRange),
        _ => Err(NumberError::NotANumber),
    }
}

/// A `default` value: a JSON value written as a Rust literal.
#[derive(Clone, Debug)]
pub enum Value {
    Str(String),
    Bool(bool),
    Num(Number),
    Array(Vec<Value>),
}

impl Value {
    /// Reads `"text"`, `'c'`, `true`, `3`, `-0.5`, `["a", "b"]` (nested arrays too).
    pub fn parse(expr: &Expr) -> Option<Self> {
        match ungroup(expr) {
            Expr::Lit(ExprLit { lit, .. }) => match lit {
                Lit::Str(s) => Some(Value::Str(s.value())),
                Lit::Char(c) => Some(Value::Str(c.value().to_string())),
                Lit::Bool(b) => Some(Value::Bool(b.value)),
                Lit::Int(_) | Lit::Float(_) => number(expr).ok().map(Value::Num),
                _ => None,
            },
            Expr::Unary(_) => number(expr).ok().map(Value::Num),
            Expr::Array(array) => array
                .elems
                .iter()
                .map(Value::parse)
                .collect::<Option<Vec<_>>>()
                .map(Value::Array),
            _ => None,
        }
    }

    /// What the value is, for messages: "a string", "an integer", …
    pub fn describe(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Bool(_) => "a boolean",
            Value::Num(Number::Int(_) | Number::Uint(_)) => "an integer",
            Value::Num(_) => "a number",
            Value::Array(_) => "an array",
        }
    }
}

impl PartialEq for Value {
    /// JSON equality (`1 == 1.0`).
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Num(a), Value::Num(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => a == b,
            _ => false,
        }
    }
}

impl fmt::Display for Value {
    /// The value as JSON.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Str(s) => write!(f, "{s:?}"),
            Value::Bool(b) => write!(f, "{b}"),
            Value::Num(n) => write!(f, "{n}"),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str("]")
            }
        }
    }
}

impl ToTokens for Value {
    /// `::pedelec::__private::Literal::…` in a `const`.
    fn to_tokens(&self, tokens: &mut TokenStream) {
        tokens.extend(match self {
            Value::Str(s) => quote!(#Private::Literal::str(#s)),
            Value::Bool(b) => quote!(#Private::Literal::Bool(#b)),
            Value::Num(n) => {
                let n = number_tokens(*n);
                quote!(#Private::Literal::Num(#n))
            }
            Value::Array(items) => quote! {
                #Private::Literal::Array(#Private::Cow::Borrowed(const { &[#(#items),*] }))
            },
        });
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp, reason = "exact values are expected")]
mod tests {
    use super::*;

    fn num(src: &str) -> Number {
        let Ok(n) = number(&syn::parse_str(src).unwrap()) else {
            panic!("not a number: {src}");
        };
        n
    }

    #[test]
    fn numbers_are_read_exactly() {
        assert!(matches!(num("-100"), Number::Int(-100)));
        assert!(matches!(
            num("18_446_744_073_709_551_615"),
            Number::Uint(u64::MAX)
        ));
        assert!(matches!(num("-9223372036854775808"), Number::Int(i64::MIN)));
        assert!(matches!(num("(1e3)"), Number::Float(f) if f == 1000.0));
        assert!(matches!(num("-0.5"), Number::Float(f) if f == -0.5));
        assert!(matches!(num("1u8"), Number::Int(1)));
        assert!(number(&syn::parse_str("18446744073709551616").unwrap()).is_err());
        assert!(number(&syn::parse_str("-18446744073709551615").unwrap()).is_err());
        assert!(number(&syn::parse_str("\"1\"").unwrap()).is_err());
    }

    #[test]
    fn numbers_compare_exactly() {
        assert_eq!(num("1"), num("1.0"));
        assert!(num("2") > num("1.5"));
        assert!(num("-3") < num("-2.5"));
        assert!(num("18446744073709551615") > num("1.8e19"));
        assert_eq!(num("1e3").to_string(), "1000.0");
    }

    #[test]
    fn default_values() {
        let v = Value::parse(&syn::parse_str(r#"["a", 'b', -1, true, [2.5]]"#).unwrap()).unwrap();
        assert_eq!(v.to_string(), r#"["a", "b", -1, true, [2.5]]"#);
        assert!(Value::parse(&syn::parse_str("Speed::Fast").unwrap()).is_none());
        assert!(Value::parse(&syn::parse_str("b\"x\"").unwrap()).is_none());
    }
}
