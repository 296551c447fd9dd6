//! The measured shortcuts of the keyword predicates (`keywords.rs`): facts about a node
//! computed once, when it is compiled, so that checking a value takes fewer steps: the
//! byte lengths that decide a string's length keywords, and integer bounds checked with two
//! comparisons.

use pedelec_rules::Number;

use super::format::Format;
use super::node::{SchemaKind, SchemaNode};

/// The byte lengths with which any string passes `node`'s string keywords, when it has
/// only `minLength` and `maxLength` (and accepts strings, with no `enum` and no `format`
/// pedelec knows). A string has at
/// most as many code points as bytes, and at least a quarter as many (rounded up): `b`
/// bytes hold at least `min` code points when `b >= 4 * min - 3`, and at most `max` when
/// `b <= max`.
pub(super) fn plain_string_bytes(node: &SchemaNode) -> Option<(u64, u64)> {
    let plain = node.kind.is_none_or(|k| k == SchemaKind::String)
        && node.enum_values.is_none()
        && node.pattern.is_none()
        && node.format.as_deref().and_then(Format::from_name).is_none();
    plain.then(|| {
        let lo = node
            .min_length
            .map_or(0, |min| min.saturating_mul(4).saturating_sub(3));
        (lo, node.max_length.unwrap_or(u64::MAX))
    })
}

/// The bounds of `node` as one inclusive `i64` range, when every bound present is an
/// integer within `i64` (an exclusive bound at the very end of the range left out): an
/// `i64` instance is then checked with two comparisons. `None`: the exact comparisons
/// decide.
pub(super) fn int_bounds(node: &SchemaNode) -> Option<(i64, i64)> {
    /// A bound that is an integer within `i64`.
    fn int(n: Number) -> Option<i64> {
        match n {
            Number::Int(i) => Some(i),
            Number::Uint(u) => i64::try_from(u).ok(),
            Number::Float(_) => None,
        }
    }
    let mut lo = i64::MIN;
    let mut hi = i64::MAX;
    if let Some(min) = node.minimum {
        lo = lo.max(int(min)?);
    }
    if let Some(max) = node.maximum {
        hi = hi.min(int(max)?);
    }
    if let Some(min) = node.exclusive_minimum {
        lo = lo.max(int(min)?.checked_add(1)?);
    }
    if let Some(max) = node.exclusive_maximum {
        hi = hi.min(int(max)?.checked_sub(1)?);
    }
    Some((lo, hi))
}
