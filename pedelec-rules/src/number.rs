//! [`Number`]: a JSON number read exactly, the one number type of pedelec's schemas (the
//! macros read `#[arg(minimum = …)]` into it, core's schema nodes hold it, the constraint
//! rules and the validator compare it).

use std::cmp::Ordering;
use std::fmt;

/// A number in a schema keyword or an instance, exactly as written: integers stay integers,
/// so `u64::MAX` is not rounded.
///
/// Equality and order are exact whatever the representations: `Int(1) == Float(1.0)`, and
/// `Uint(u64::MAX)` is above `Float(1.8e19)`. A NaN (which no JSON text holds) is unordered.
#[derive(Clone, Copy, Debug)]
pub enum Number {
    /// A signed integer (every integer within `i64`'s range is read as one).
    Int(i64),
    /// An unsigned integer (read as one only above `i64::MAX`).
    Uint(u64),
    /// A floating-point number.
    Float(f64),
}

/// Integers up to this magnitude convert to `f64` exactly.
const EXACT_IN_F64: u64 = 1 << 53;

impl Number {
    /// An unsigned integer: `Int` when it fits, else `Uint` (as JSON numbers are read).
    #[must_use]
    #[inline]
    #[allow(clippy::cast_possible_wrap, reason = "only below i64::MAX")]
    pub const fn from_u64(u: u64) -> Number {
        if u <= i64::MAX as u64 {
            Number::Int(u as i64)
        } else {
            Number::Uint(u)
        }
    }

    /// An integer of any width, when it fits in 64 bits (`Int` first, as [`from_u64`](Self::from_u64)).
    #[must_use]
    #[inline]
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        reason = "range-checked first"
    )]
    pub const fn from_i128(i: i128) -> Option<Number> {
        if i >= i64::MIN as i128 && i <= i64::MAX as i128 {
            Some(Number::Int(i as i64))
        } else if i >= 0 && i <= u64::MAX as i128 {
            Some(Number::Uint(i as u64))
        } else {
            None
        }
    }

    /// Exact comparison whatever the representations (`Uint(u64::MAX)` is above
    /// `Float(1.8e19)`). `None` only when a float is NaN. The common cases come first: two
    /// integers, two floats, and an integer and a float when the integer converts to `f64`
    /// exactly.
    #[must_use]
    #[inline]
    #[allow(
        clippy::cast_precision_loss,
        reason = "only for integers within ±2^53, exact"
    )]
    pub const fn exact_cmp(self, other: Number) -> Option<Ordering> {
        match (self, other) {
            (Number::Float(a), Number::Float(b)) => cmp_floats(a, b),
            (Number::Float(a), Number::Int(b)) if b.unsigned_abs() <= EXACT_IN_F64 => {
                cmp_floats(a, b as f64)
            }
            (Number::Int(a), Number::Float(b)) if a.unsigned_abs() <= EXACT_IN_F64 => {
                cmp_floats(a as f64, b)
            }
            (Number::Float(a), b) => match cmp_int_float(b.int(), a) {
                Some(ordering) => Some(ordering.reverse()),
                None => None,
            },
            (a, Number::Float(b)) => cmp_int_float(a.int(), b),
            (a, b) => {
                let (a, b) = (a.int(), b.int());
                Some(if a < b {
                    Ordering::Less
                } else if a > b {
                    Ordering::Greater
                } else {
                    Ordering::Equal
                })
            }
        }
    }

    /// `self < other`, exactly.
    #[must_use]
    #[inline]
    pub const fn lt(self, other: Number) -> bool {
        matches!(self.exact_cmp(other), Some(Ordering::Less))
    }

    /// `true` when the number is above 0.
    #[must_use]
    pub const fn is_positive(self) -> bool {
        match self {
            Number::Int(i) => i > 0,
            Number::Uint(u) => u > 0,
            Number::Float(f) => f > 0.0,
        }
    }

    /// `true` when the number has no fractional part (`1.0` is an integer). Without
    /// `f64::fract` (a call to `trunc` on baseline x86-64): floats from 2^52 up are
    /// integers, and below that the round trip through `i64` is exact.
    #[must_use]
    #[inline]
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_precision_loss,
        clippy::float_cmp,
        reason = "the exact round trip through i64 is the test"
    )]
    pub const fn is_integer(self) -> bool {
        match self {
            Number::Int(_) | Number::Uint(_) => true,
            Number::Float(f) => {
                f.is_finite() && (f.abs() >= 4_503_599_627_370_496.0 || f == (f as i64) as f64)
            }
        }
    }

    /// `true` when `self` is a multiple of `divisor` (`divisor > 0`): exactly for
    /// integers, as JSON Schema validators do for floats (the quotient is whole).
    #[must_use]
    pub const fn is_multiple_of(self, divisor: Number) -> bool {
        match (self, divisor) {
            (Number::Int(_) | Number::Uint(_), Number::Int(_) | Number::Uint(_)) => {
                let d = divisor.int();
                d != 0 && self.int() % d == 0
            }
            _ => {
                let quotient = self.as_f64() / divisor.as_f64();
                quotient.is_finite() && quotient.fract() == 0.0
            }
        }
    }

    /// The number as an `f64` (may round large integers).
    #[must_use]
    #[inline]
    #[allow(clippy::cast_precision_loss)]
    pub const fn as_f64(self) -> f64 {
        match self {
            Number::Int(i) => i as f64,
            Number::Uint(u) => u as f64,
            Number::Float(f) => f,
        }
    }

    /// The value of an integer variant (0 for a float: only called on integers).
    #[inline]
    #[allow(clippy::cast_lossless, reason = "`i128::from` is not `const`")]
    pub(crate) const fn int(self) -> i128 {
        match self {
            Number::Int(i) => i as i128,
            Number::Uint(u) => u as i128,
            Number::Float(_) => 0,
        }
    }
}

impl PartialEq for Number {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        matches!(self.exact_cmp(*other), Some(Ordering::Equal))
    }
}

impl PartialOrd for Number {
    #[inline]
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        self.exact_cmp(*other)
    }
}

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Number::Int(i) => write!(f, "{i}"),
            Number::Uint(u) => write!(f, "{u}"),
            // `{:?}` keeps a float recognizable: `1.0`, `1e300`.
            Number::Float(x) => write!(f, "{x:?}"),
        }
    }
}

/// `a` against `b` (`None` when either is NaN), in a `const`.
#[inline]
#[allow(clippy::float_cmp, reason = "an exact comparison is the point")]
const fn cmp_floats(a: f64, b: f64) -> Option<Ordering> {
    if a < b {
        Some(Ordering::Less)
    } else if a > b {
        Some(Ordering::Greater)
    } else if a == b {
        Some(Ordering::Equal)
    } else {
        None
    }
}

/// Exact comparison of an integer with a float (`const`: no `f64::trunc` on integers).
#[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
const fn cmp_int_float(i: i128, f: f64) -> Option<Ordering> {
    if f.is_nan() {
        return None;
    }
    // 2^127: every i128 is strictly inside (-2^127 - 1, 2^127).
    const LIMIT: f64 = 170_141_183_460_469_231_731_687_303_715_884_105_728.0;
    if f >= LIMIT {
        return Some(Ordering::Less);
    }
    if f < -LIMIT {
        return Some(Ordering::Greater);
    }
    // In range, `as` truncates toward zero exactly, and the whole part converts back exactly.
    let whole = f as i128;
    if i < whole {
        Some(Ordering::Less)
    } else if i > whole {
        Some(Ordering::Greater)
    } else {
        let fraction = f - whole as f64;
        if fraction > 0.0 {
            Some(Ordering::Less)
        } else if fraction < 0.0 {
            Some(Ordering::Greater)
        } else {
            Some(Ordering::Equal)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Number::{Float, Int, Uint};
    use super::*;

    #[test]
    fn comparisons_are_exact() {
        assert_eq!(
            Uint(u64::MAX).exact_cmp(Float(1.8e19)),
            Some(Ordering::Greater)
        );
        assert!(Uint(18_446_744_073_709_551_600) < Uint(u64::MAX));
        assert_eq!(Int(2).exact_cmp(Float(1.999_999)), Some(Ordering::Greater));
        assert_eq!(Int(-3).exact_cmp(Float(-2.5)), Some(Ordering::Less));
        assert_eq!(Int(1), Float(1.0));
        assert!(Int(i64::MAX) < Float(1e300));
        assert!(Int(-1) < Uint(0));
        // Beyond 2^53 the float is compared exactly, not rounded to the integer's `f64`.
        assert!(Int(9_007_199_254_740_993) > Float(9_007_199_254_740_992.0));
        assert_eq!(Float(f64::NAN).exact_cmp(Int(0)), None);
        assert_eq!(Int(0).partial_cmp(&Float(f64::NAN)), None);
    }

    #[test]
    fn integers_of_any_width() {
        assert!(matches!(Number::from_u64(7), Int(7)));
        assert!(matches!(Number::from_u64(u64::MAX), Uint(u64::MAX)));
        assert!(matches!(Number::from_i128(-5), Some(Int(-5))));
        assert!(matches!(
            Number::from_i128(i128::from(u64::MAX)),
            Some(Uint(u64::MAX))
        ));
        assert!(Number::from_i128(i128::from(u64::MAX) + 1).is_none());
        assert!(Number::from_i128(i128::from(i64::MIN) - 1).is_none());
    }

    #[test]
    fn integral_floats_are_integers() {
        assert!(Float(1.0).is_integer() && Float(-0.0).is_integer());
        assert!(Float(1e300).is_integer() && Float(-4_503_599_627_370_496.0).is_integer());
        assert!(!Float(1.5).is_integer() && !Float(-2_251_799_813_685_247.5).is_integer());
        assert!(!Float(f64::INFINITY).is_integer() && !Float(f64::NAN).is_integer());
        assert!(Uint(u64::MAX).is_integer());
    }

    #[test]
    fn multiples_and_display() {
        assert!(Int(-9).is_multiple_of(Uint(3)));
        assert!(!Int(10).is_multiple_of(Int(4)));
        assert!(Float(1e300).is_multiple_of(Int(7)));
        assert!(Float(2.5).is_multiple_of(Float(0.5)));
        assert!(!Float(2.3).is_multiple_of(Float(0.5)));
        assert_eq!(Float(1.0).to_string(), "1.0");
        assert_eq!(Uint(u64::MAX).to_string(), "18446744073709551615");
    }
}
