//! The rules of a schema's constraints, for every place that checks them: the derive (a
//! spanned compile error), the `const` builders of `SchemaNode` and the `#[arg]` helpers (a
//! failed `const` evaluation), `SchemaNode::from_json` and the schema compiler (a problem
//! with a JSON pointer). One implementation, one message per rule.
//!
//! - [`check_range`]: `minimum`/`exclusiveMinimum` against `maximum`/`exclusiveMaximum`
//!   leave some number (and some integer, for an integer schema);
//! - [`check_lengths`], [`check_item_counts`]: `minLength <= maxLength`, `minItems <= maxItems`;
//! - [`check_multiple_of`]: `multipleOf > 0`;
//! - [`check_number`], [`check_length`], [`check_item_count`]: a value (a `default`) within
//!   those constraints.
//!
//! Each check is a `const fn` returning a problem. A problem's [`Display`](fmt::Display)
//! gives the message with the values, in the keywords' JSON spelling (`exclusiveMinimum`);
//! [`spelled`](ConstraintProblem::spelled) gives it in the attribute's spelling
//! (`exclusive_minimum`); [`summary`](ConstraintProblem::summary) gives it without the
//! values as a `&'static str`, for a `const` panic (which cannot format numbers).

use std::cmp::Ordering;
use std::fmt;

use crate::Number;

/// A constraint keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    /// `minimum`
    Minimum,
    /// `maximum`
    Maximum,
    /// `exclusiveMinimum`
    ExclusiveMinimum,
    /// `exclusiveMaximum`
    ExclusiveMaximum,
    /// `multipleOf`
    MultipleOf,
    /// `minLength`
    MinLength,
    /// `maxLength`
    MaxLength,
    /// `minItems`
    MinItems,
    /// `maxItems`
    MaxItems,
}

impl Keyword {
    /// The JSON Schema spelling: `exclusiveMinimum`.
    #[must_use]
    pub const fn wire(self) -> &'static str {
        match self {
            Keyword::Minimum => "minimum",
            Keyword::Maximum => "maximum",
            Keyword::ExclusiveMinimum => "exclusiveMinimum",
            Keyword::ExclusiveMaximum => "exclusiveMaximum",
            Keyword::MultipleOf => "multipleOf",
            Keyword::MinLength => "minLength",
            Keyword::MaxLength => "maxLength",
            Keyword::MinItems => "minItems",
            Keyword::MaxItems => "maxItems",
        }
    }

    /// The spelling of `#[arg(...)]` and of the builders: `exclusive_minimum`.
    #[must_use]
    pub const fn attr(self) -> &'static str {
        match self {
            Keyword::Minimum => "minimum",
            Keyword::Maximum => "maximum",
            Keyword::ExclusiveMinimum => "exclusive_minimum",
            Keyword::ExclusiveMaximum => "exclusive_maximum",
            Keyword::MultipleOf => "multiple_of",
            Keyword::MinLength => "min_length",
            Keyword::MaxLength => "max_length",
            Keyword::MinItems => "min_items",
            Keyword::MaxItems => "max_items",
        }
    }

    /// The keyword in `spelling`.
    #[must_use]
    pub const fn spelled(self, spelling: Spelling) -> &'static str {
        match spelling {
            Spelling::Wire => self.wire(),
            Spelling::Attr => self.attr(),
        }
    }

    const fn is_exclusive(self) -> bool {
        matches!(self, Keyword::ExclusiveMinimum | Keyword::ExclusiveMaximum)
    }
}

/// How a message spells keywords: as the user wrote them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// JSON Schema keywords (`exclusiveMinimum`): schemas read from JSON.
    Wire,
    /// `#[arg(...)]` keys and builder names (`exclusive_minimum`): schemas written in Rust.
    Attr,
}

/// A bound of a numeric range: which keyword, and its value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bound {
    /// `minimum`, `exclusiveMinimum`, `maximum` or `exclusiveMaximum`.
    pub keyword: Keyword,
    /// The bound.
    pub value: Number,
}

/// The numeric constraints of a schema.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Range {
    /// `minimum`
    pub minimum: Option<Number>,
    /// `maximum`
    pub maximum: Option<Number>,
    /// `exclusiveMinimum`
    pub exclusive_minimum: Option<Number>,
    /// `exclusiveMaximum`
    pub exclusive_maximum: Option<Number>,
}

impl Range {
    /// The tighter of the lower bounds (at equal values, the exclusive one).
    #[must_use]
    pub const fn lower(&self) -> Option<Bound> {
        tighter(
            self.minimum,
            Keyword::Minimum,
            self.exclusive_minimum,
            Keyword::ExclusiveMinimum,
            Ordering::Greater,
        )
    }

    /// The tighter of the upper bounds (at equal values, the exclusive one).
    #[must_use]
    pub const fn upper(&self) -> Option<Bound> {
        tighter(
            self.maximum,
            Keyword::Maximum,
            self.exclusive_maximum,
            Keyword::ExclusiveMaximum,
            Ordering::Less,
        )
    }
}

const fn tighter(
    inclusive: Option<Number>,
    inclusive_keyword: Keyword,
    exclusive: Option<Number>,
    exclusive_keyword: Keyword,
    tighter: Ordering,
) -> Option<Bound> {
    match (inclusive, exclusive) {
        (Some(i), Some(e)) => {
            let inclusive_is_tighter = match i.exact_cmp(e) {
                Some(ordering) => ordering as i8 == tighter as i8,
                None => false,
            };
            if inclusive_is_tighter {
                Some(Bound {
                    keyword: inclusive_keyword,
                    value: i,
                })
            } else {
                Some(Bound {
                    keyword: exclusive_keyword,
                    value: e,
                })
            }
        }
        (Some(i), None) => Some(Bound {
            keyword: inclusive_keyword,
            value: i,
        }),
        (None, Some(e)) => Some(Bound {
            keyword: exclusive_keyword,
            value: e,
        }),
        (None, None) => None,
    }
}

/// Why a schema's constraints contradict each other, so that no value can match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstraintProblem {
    /// The bounds leave no number: the lower one is above the upper one, or they are equal
    /// and one of them is exclusive.
    EmptyRange {
        /// The tightest lower bound.
        lower: Bound,
        /// The tightest upper bound.
        upper: Bound,
    },
    /// The bounds of an integer schema leave numbers but no integer (`minimum: 1.2,
    /// maximum: 1.8`).
    NoInteger {
        /// The tightest lower bound.
        lower: Bound,
        /// The tightest upper bound.
        upper: Bound,
    },
    /// `minLength > maxLength` or `minItems > maxItems`.
    CountOrder {
        /// `minLength` or `minItems`.
        min: Keyword,
        /// Its value.
        min_value: u64,
        /// `maxLength` or `maxItems`.
        max: Keyword,
        /// Its value.
        max_value: u64,
    },
    /// `multipleOf` is not above 0.
    MultipleOfNotPositive {
        /// The value.
        value: Number,
    },
}

impl ConstraintProblem {
    /// The message in `spelling` (with the values).
    #[must_use]
    pub const fn spelled(&self, spelling: Spelling) -> Spelled<'_, Self> {
        Spelled {
            problem: self,
            spelling,
        }
    }

    /// The keyword the problem is reported at: the lower bound, `minLength`/`minItems`, or
    /// `multipleOf`.
    #[must_use]
    pub const fn keyword(&self) -> Keyword {
        match *self {
            ConstraintProblem::EmptyRange { lower, .. }
            | ConstraintProblem::NoInteger { lower, .. } => lower.keyword,
            ConstraintProblem::CountOrder { min, .. } => min,
            ConstraintProblem::MultipleOfNotPositive { .. } => Keyword::MultipleOf,
        }
    }

    /// The keywords involved (one or two), to point at in a message.
    #[must_use]
    pub const fn keywords(&self) -> (Keyword, Option<Keyword>) {
        match *self {
            ConstraintProblem::EmptyRange { lower, upper }
            | ConstraintProblem::NoInteger { lower, upper } => (lower.keyword, Some(upper.keyword)),
            ConstraintProblem::CountOrder { min, max, .. } => (min, Some(max)),
            ConstraintProblem::MultipleOfNotPositive { .. } => (Keyword::MultipleOf, None),
        }
    }

    /// The message without the values, in the attribute spelling: what a `const` panic can
    /// say.
    #[must_use]
    pub const fn summary(&self) -> &'static str {
        use Keyword::*;
        macro_rules! pair {
            ($lower:expr, $upper:expr, $middle:literal, $tail:literal) => {
                match ($lower, $upper) {
                    (Minimum, Maximum) => concat!("`minimum` ", $middle, " `maximum`", $tail),
                    (Minimum, _) => concat!("`minimum` ", $middle, " `exclusive_maximum`", $tail),
                    (_, Maximum) => concat!("`exclusive_minimum` ", $middle, " `maximum`", $tail),
                    _ => concat!(
                        "`exclusive_minimum` ",
                        $middle,
                        " `exclusive_maximum`",
                        $tail
                    ),
                }
            };
        }
        match *self {
            ConstraintProblem::EmptyRange { lower, upper } => {
                if is_greater(lower.value, upper.value) {
                    pair!(
                        lower.keyword,
                        upper.keyword,
                        "is greater than",
                        ": no number can match"
                    )
                } else {
                    pair!(
                        lower.keyword,
                        upper.keyword,
                        "is not less than",
                        ": no number can match"
                    )
                }
            }
            ConstraintProblem::NoInteger { lower, upper } => pair!(
                lower.keyword,
                upper.keyword,
                "and",
                " leave no integer that can match"
            ),
            ConstraintProblem::CountOrder { min: MinItems, .. } => {
                "`min_items` is greater than `max_items`: no array can match"
            }
            ConstraintProblem::CountOrder { .. } => {
                "`min_length` is greater than `max_length`: no string can match"
            }
            ConstraintProblem::MultipleOfNotPositive { .. } => {
                "`multiple_of` must be greater than 0"
            }
        }
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, spelling: Spelling) -> fmt::Result {
        let bound = |b: Bound| (b.keyword.spelled(spelling), b.value);
        match *self {
            ConstraintProblem::EmptyRange { lower, upper } => {
                let ((lo, a), (hi, b)) = (bound(lower), bound(upper));
                let relation = if is_greater(a, b) {
                    "is greater than"
                } else {
                    "is not less than"
                };
                write!(
                    f,
                    "`{lo}` ({a}) {relation} `{hi}` ({b}): no number can match"
                )
            }
            ConstraintProblem::NoInteger { lower, upper } => {
                let ((lo, a), (hi, b)) = (bound(lower), bound(upper));
                write!(
                    f,
                    "`{lo}` ({a}) and `{hi}` ({b}) leave no integer that can match"
                )
            }
            ConstraintProblem::CountOrder {
                min,
                min_value,
                max,
                max_value,
            } => write!(
                f,
                "`{}` ({min_value}) is greater than `{}` ({max_value}): no {} can match",
                min.spelled(spelling),
                max.spelled(spelling),
                if matches!(min, Keyword::MinItems) {
                    "array"
                } else {
                    "string"
                }
            ),
            ConstraintProblem::MultipleOfNotPositive { value } => write!(
                f,
                "`{}` must be greater than 0, got {value}",
                Keyword::MultipleOf.spelled(spelling)
            ),
        }
    }
}

const fn is_greater(a: Number, b: Number) -> bool {
    matches!(a.exact_cmp(b), Some(Ordering::Greater))
}

/// The JSON spelling (`exclusiveMinimum`).
impl fmt::Display for ConstraintProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, Spelling::Wire)
    }
}

/// A problem's message in a given [`Spelling`].
#[derive(Clone, Copy, Debug)]
pub struct Spelled<'a, P> {
    problem: &'a P,
    spelling: Spelling,
}

impl fmt::Display for Spelled<'_, ConstraintProblem> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.problem.write(f, self.spelling)
    }
}

impl fmt::Display for Spelled<'_, ValueProblem> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.problem.write(f, self.spelling)
    }
}

/// Checks that the bounds leave some number, and some integer when `integer` (an integer
/// schema). Reports the tightest lower and upper bounds.
///
/// ```
/// use pedelec_rules::Number;
/// use pedelec_rules::constraint::{Range, check_range};
/// let range = Range { minimum: Some(Number::Int(5)), maximum: Some(Number::Int(1)), ..Range::default() };
/// assert_eq!(
///     check_range(&range, false).unwrap_err().to_string(),
///     "`minimum` (5) is greater than `maximum` (1): no number can match"
/// );
/// ```
pub const fn check_range(range: &Range, integer: bool) -> Result<(), ConstraintProblem> {
    let (Some(lower), Some(upper)) = (range.lower(), range.upper()) else {
        return Ok(());
    };
    let empty = match lower.value.exact_cmp(upper.value) {
        Some(Ordering::Greater) => true,
        Some(Ordering::Equal) => lower.keyword.is_exclusive() || upper.keyword.is_exclusive(),
        Some(Ordering::Less) | None => false,
    };
    if empty {
        return Err(ConstraintProblem::EmptyRange { lower, upper });
    }
    if integer
        && let (Some(first), Some(last)) = (int_at_least(lower), int_at_most(upper))
        && first > last
    {
        return Err(ConstraintProblem::NoInteger { lower, upper });
    }
    Ok(())
}

/// Floats this large are integers already; past it the `i128` arithmetic is skipped.
const INT_LIMIT: f64 = 1_267_650_600_228_229_401_496_703_205_376.0; // 2^100

/// The smallest integer the lower bound admits.
#[allow(clippy::cast_possible_truncation)]
const fn int_at_least(bound: Bound) -> Option<i128> {
    let step = if bound.keyword.is_exclusive() { 1 } else { 0 };
    match bound.value {
        Number::Float(f) if f.abs() < INT_LIMIT => {
            Some(f.ceil() as i128 + if f.fract() == 0.0 { step } else { 0 })
        }
        Number::Float(_) => None,
        n => Some(n.int() + step),
    }
}

/// The largest integer the upper bound admits.
#[allow(clippy::cast_possible_truncation)]
const fn int_at_most(bound: Bound) -> Option<i128> {
    let step = if bound.keyword.is_exclusive() { 1 } else { 0 };
    match bound.value {
        Number::Float(f) if f.abs() < INT_LIMIT => {
            Some(f.floor() as i128 - if f.fract() == 0.0 { step } else { 0 })
        }
        Number::Float(_) => None,
        n => Some(n.int() - step),
    }
}

/// `minLength <= maxLength`.
pub const fn check_lengths(min: Option<u64>, max: Option<u64>) -> Result<(), ConstraintProblem> {
    check_counts(min, max, Keyword::MinLength, Keyword::MaxLength)
}

/// `minItems <= maxItems`.
pub const fn check_item_counts(
    min: Option<u64>,
    max: Option<u64>,
) -> Result<(), ConstraintProblem> {
    check_counts(min, max, Keyword::MinItems, Keyword::MaxItems)
}

const fn check_counts(
    min: Option<u64>,
    max: Option<u64>,
    min_keyword: Keyword,
    max_keyword: Keyword,
) -> Result<(), ConstraintProblem> {
    match (min, max) {
        (Some(min_value), Some(max_value)) if min_value > max_value => {
            Err(ConstraintProblem::CountOrder {
                min: min_keyword,
                min_value,
                max: max_keyword,
                max_value,
            })
        }
        _ => Ok(()),
    }
}

/// `multipleOf > 0` (and finite).
pub const fn check_multiple_of(value: Number) -> Result<(), ConstraintProblem> {
    if value.is_positive() && value.as_f64().is_finite() {
        Ok(())
    } else {
        Err(ConstraintProblem::MultipleOfNotPositive { value })
    }
}

/// Why a value (a `default`) breaks one of its schema's constraints.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ValueProblem {
    /// Below `minimum`, or not above `exclusiveMinimum`.
    BelowLower(Bound),
    /// Above `maximum`, or not below `exclusiveMaximum`.
    AboveUpper(Bound),
    /// Not a multiple of `multipleOf`.
    NotMultiple(Number),
    /// Fewer characters or items than `minLength`/`minItems`.
    TooFew {
        /// `minLength` or `minItems`.
        keyword: Keyword,
        /// Its value.
        min: u64,
    },
    /// More characters or items than `maxLength`/`maxItems`.
    TooMany {
        /// `maxLength` or `maxItems`.
        keyword: Keyword,
        /// Its value.
        max: u64,
    },
}

impl ValueProblem {
    /// What the value is, after its subject (`` `default = 5` ``): `is below `minimum`
    /// (10)`, in `spelling`.
    #[must_use]
    pub const fn spelled(&self, spelling: Spelling) -> Spelled<'_, Self> {
        Spelled {
            problem: self,
            spelling,
        }
    }

    /// The message for a `default`, without the values, in the attribute spelling: what a
    /// `const` panic can say.
    #[must_use]
    pub const fn summary(&self) -> &'static str {
        match *self {
            ValueProblem::BelowLower(Bound {
                keyword: Keyword::ExclusiveMinimum,
                ..
            }) => "`default` is not above the field schema's `exclusive_minimum`",
            ValueProblem::BelowLower(_) => "`default` is below the field schema's `minimum`",
            ValueProblem::AboveUpper(Bound {
                keyword: Keyword::ExclusiveMaximum,
                ..
            }) => "`default` is not below the field schema's `exclusive_maximum`",
            ValueProblem::AboveUpper(_) => "`default` is above the field schema's `maximum`",
            ValueProblem::NotMultiple(_) => {
                "`default` is not a multiple of the field schema's `multiple_of`"
            }
            ValueProblem::TooFew {
                keyword: Keyword::MinItems,
                ..
            } => "`default` has fewer items than the field schema's `min_items`",
            ValueProblem::TooFew { .. } => {
                "`default` is shorter than the field schema's `min_length`"
            }
            ValueProblem::TooMany {
                keyword: Keyword::MaxItems,
                ..
            } => "`default` has more items than the field schema's `max_items`",
            ValueProblem::TooMany { .. } => {
                "`default` is longer than the field schema's `max_length`"
            }
        }
    }

    fn write(&self, f: &mut fmt::Formatter<'_>, spelling: Spelling) -> fmt::Result {
        match *self {
            ValueProblem::BelowLower(b) => write!(
                f,
                "is {} `{}` ({})",
                if b.keyword.is_exclusive() {
                    "not above"
                } else {
                    "below"
                },
                b.keyword.spelled(spelling),
                b.value
            ),
            ValueProblem::AboveUpper(b) => write!(
                f,
                "is {} `{}` ({})",
                if b.keyword.is_exclusive() {
                    "not below"
                } else {
                    "above"
                },
                b.keyword.spelled(spelling),
                b.value
            ),
            ValueProblem::NotMultiple(n) => write!(
                f,
                "is not a multiple of `{}` ({n})",
                Keyword::MultipleOf.spelled(spelling)
            ),
            ValueProblem::TooFew { keyword, min } => write!(
                f,
                "{} `{}` ({min})",
                if matches!(keyword, Keyword::MinItems) {
                    "has fewer items than"
                } else {
                    "is shorter than"
                },
                keyword.spelled(spelling)
            ),
            ValueProblem::TooMany { keyword, max } => write!(
                f,
                "{} `{}` ({max})",
                if matches!(keyword, Keyword::MaxItems) {
                    "has more items than"
                } else {
                    "is longer than"
                },
                keyword.spelled(spelling)
            ),
        }
    }
}

/// A number against a schema's range and `multipleOf` (the first constraint it breaks, in
/// the order `minimum`, `exclusiveMinimum`, `maximum`, `exclusiveMaximum`, `multipleOf`).
pub const fn check_number(
    n: Number,
    range: &Range,
    multiple_of: Option<Number>,
) -> Result<(), ValueProblem> {
    if let Some(min) = range.minimum
        && n.lt(min)
    {
        return Err(ValueProblem::BelowLower(Bound {
            keyword: Keyword::Minimum,
            value: min,
        }));
    }
    if let Some(min) = range.exclusive_minimum
        && !min.lt(n)
    {
        return Err(ValueProblem::BelowLower(Bound {
            keyword: Keyword::ExclusiveMinimum,
            value: min,
        }));
    }
    if let Some(max) = range.maximum
        && max.lt(n)
    {
        return Err(ValueProblem::AboveUpper(Bound {
            keyword: Keyword::Maximum,
            value: max,
        }));
    }
    if let Some(max) = range.exclusive_maximum
        && !n.lt(max)
    {
        return Err(ValueProblem::AboveUpper(Bound {
            keyword: Keyword::ExclusiveMaximum,
            value: max,
        }));
    }
    if let Some(divisor) = multiple_of
        && divisor.is_positive()
        && !n.is_multiple_of(divisor)
    {
        return Err(ValueProblem::NotMultiple(divisor));
    }
    Ok(())
}

/// A string's length in Unicode code points against `minLength`/`maxLength`.
pub const fn check_length(
    len: u64,
    min: Option<u64>,
    max: Option<u64>,
) -> Result<(), ValueProblem> {
    check_count(len, min, max, Keyword::MinLength, Keyword::MaxLength)
}

/// An array's length against `minItems`/`maxItems`.
pub const fn check_item_count(
    len: u64,
    min: Option<u64>,
    max: Option<u64>,
) -> Result<(), ValueProblem> {
    check_count(len, min, max, Keyword::MinItems, Keyword::MaxItems)
}

const fn check_count(
    len: u64,
    min: Option<u64>,
    max: Option<u64>,
    min_keyword: Keyword,
    max_keyword: Keyword,
) -> Result<(), ValueProblem> {
    if let Some(min) = min
        && len < min
    {
        return Err(ValueProblem::TooFew {
            keyword: min_keyword,
            min,
        });
    }
    if let Some(max) = max
        && len > max
    {
        return Err(ValueProblem::TooMany {
            keyword: max_keyword,
            max,
        });
    }
    Ok(())
}

/// Length in Unicode code points, in a `const` (`str::chars` is not `const`).
#[must_use]
pub const fn char_count(s: &str) -> u64 {
    let bytes = s.as_bytes();
    let mut count = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] & 0xC0 != 0x80 {
            count += 1;
        }
        i += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    const fn range(
        minimum: Option<Number>,
        exclusive_minimum: Option<Number>,
        maximum: Option<Number>,
        exclusive_maximum: Option<Number>,
    ) -> Range {
        Range {
            minimum,
            maximum,
            exclusive_minimum,
            exclusive_maximum,
        }
    }

    fn message(r: &Range, integer: bool) -> Option<String> {
        check_range(r, integer).err().map(|p| p.to_string())
    }

    use Number::{Float, Int, Uint};

    #[test]
    fn ranges() {
        let (i, f) = (|n| Some(Int(n)), |x| Some(Float(x)));
        assert_eq!(message(&range(i(1), None, i(5), None), false), None);
        assert_eq!(message(&range(i(5), None, i(5), None), true), None);
        assert_eq!(
            message(&range(i(5), None, i(1), None), false).as_deref(),
            Some("`minimum` (5) is greater than `maximum` (1): no number can match")
        );
        assert_eq!(
            message(&range(None, i(3), i(3), None), false).as_deref(),
            Some("`exclusiveMinimum` (3) is not less than `maximum` (3): no number can match")
        );
        assert_eq!(
            message(&range(f(2.5), None, None, f(2.5)), false).as_deref(),
            Some("`minimum` (2.5) is not less than `exclusiveMaximum` (2.5): no number can match")
        );
        // The tighter of two lower bounds is reported; at equal values, the exclusive one.
        assert_eq!(
            message(&range(i(3), i(3), i(3), None), false).as_deref(),
            Some("`exclusiveMinimum` (3) is not less than `maximum` (3): no number can match")
        );
        assert_eq!(
            message(&range(i(0), i(10), i(5), i(100)), false).as_deref(),
            Some("`exclusiveMinimum` (10) is greater than `maximum` (5): no number can match")
        );
        assert_eq!(
            message(&range(None, i(1), None, i(2)), true).as_deref(),
            Some(
                "`exclusiveMinimum` (1) and `exclusiveMaximum` (2) leave no integer that can match"
            )
        );
        assert_eq!(message(&range(None, i(1), None, i(2)), false), None);
        assert_eq!(
            message(&range(f(1.2), None, f(1.8), None), true).as_deref(),
            Some("`minimum` (1.2) and `maximum` (1.8) leave no integer that can match")
        );
        assert_eq!(message(&range(f(1.0), None, f(1.0), None), true), None);
        assert_eq!(message(&range(f(1e300), None, f(1e300), None), true), None);
        // Exact across representations.
        assert!(message(&range(Some(Uint(u64::MAX)), None, f(1.8e19), None), false).is_some());
        assert_eq!(
            check_range(&range(None, i(5), None, i(1)), false)
                .unwrap_err()
                .spelled(Spelling::Attr)
                .to_string(),
            "`exclusive_minimum` (5) is greater than `exclusive_maximum` (1): no number can match"
        );
    }

    #[test]
    fn summaries_name_the_keywords() {
        const P: ConstraintProblem =
            match check_range(&range(None, Some(Int(5)), Some(Int(5)), None), false) {
                Err(p) => p,
                Ok(()) => panic!(),
            };
        assert_eq!(
            P.summary(),
            "`exclusive_minimum` is not less than `maximum`: no number can match"
        );
        let p = check_range(&range(Some(Int(6)), None, None, Some(Int(5))), false).unwrap_err();
        assert_eq!(
            p.summary(),
            "`minimum` is greater than `exclusive_maximum`: no number can match"
        );
        let p =
            check_range(&range(Some(Float(0.1)), None, Some(Float(0.9)), None), true).unwrap_err();
        assert_eq!(
            p.summary(),
            "`minimum` and `maximum` leave no integer that can match"
        );
        assert_eq!(p.keywords(), (Keyword::Minimum, Some(Keyword::Maximum)));
    }

    #[test]
    fn counts_and_multiples() {
        assert_eq!(check_lengths(Some(1), Some(1)), Ok(()));
        let p = check_lengths(Some(5), Some(3)).unwrap_err();
        assert_eq!(
            p.to_string(),
            "`minLength` (5) is greater than `maxLength` (3): no string can match"
        );
        assert_eq!(
            p.spelled(Spelling::Attr).to_string(),
            "`min_length` (5) is greater than `max_length` (3): no string can match"
        );
        let p = check_item_counts(Some(2), Some(1)).unwrap_err();
        assert_eq!(
            p.to_string(),
            "`minItems` (2) is greater than `maxItems` (1): no array can match"
        );
        assert_eq!(
            p.summary(),
            "`min_items` is greater than `max_items`: no array can match"
        );
        assert_eq!(
            check_multiple_of(Float(-0.5)).unwrap_err().to_string(),
            "`multipleOf` must be greater than 0, got -0.5"
        );
        assert_eq!(check_multiple_of(Uint(3)), Ok(()));
        assert!(check_multiple_of(Int(0)).is_err());
    }

    #[test]
    fn values() {
        let r = range(Some(Int(0)), None, None, Some(Float(10.0)));
        assert_eq!(check_number(Int(5), &r, Some(Float(0.5))), Ok(()));
        let p = check_number(Int(-1), &r, None).unwrap_err();
        assert_eq!(
            p.spelled(Spelling::Wire).to_string(),
            "is below `minimum` (0)"
        );
        let p = check_number(Int(10), &r, None).unwrap_err();
        assert_eq!(
            p.spelled(Spelling::Attr).to_string(),
            "is not below `exclusive_maximum` (10.0)"
        );
        assert_eq!(
            p.summary(),
            "`default` is not below the field schema's `exclusive_maximum`"
        );
        let p = check_number(Float(2.3), &r, Some(Float(0.5))).unwrap_err();
        assert_eq!(
            p.spelled(Spelling::Attr).to_string(),
            "is not a multiple of `multiple_of` (0.5)"
        );
        assert_eq!(
            check_length(char_count("héllo"), None, Some(4))
                .unwrap_err()
                .spelled(Spelling::Attr)
                .to_string(),
            "is longer than `max_length` (4)"
        );
        assert_eq!(
            check_item_count(1, Some(2), None)
                .unwrap_err()
                .spelled(Spelling::Wire)
                .to_string(),
            "has fewer items than `minItems` (2)"
        );
    }
}
