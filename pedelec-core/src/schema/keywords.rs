//! One predicate per keyword, on the compiled node: whether a value passes `type`, `enum`,
//! `minLength`, `maxLength`, `pattern`, `format`, `minimum`, `exclusiveMinimum`,
//! `maximum`, `exclusiveMaximum`, `multipleOf`.
//!
//! Both walkers decide with these and nothing else: the validator (`validate.rs`, which
//! words an error for each keyword that fails) and the fast path (`fast.rs`, which only
//! asks whether a scalar passes its node: [`CompiledNode::allows_string`] and its
//! siblings). The measured shortcuts are part of the predicates: a string whose byte length
//! already decides its length keywords ([`plain_string_bytes`](super::shortcuts::plain_string_bytes)), an integer against integer
//! bounds ([`int_bounds`]).

use pedelec_rules::Number;
use serde_json::Value;

use super::compiled::{CompiledNode, NameHead};
use super::json::{Decimal, json_equal, number_of};
use super::node::SchemaKind;
use super::options::ValidationOptions;

// ----- `type` -----

impl CompiledNode {
    /// `type`: whether a value of the JSON type `kind` may stand here (`Integer` for a
    /// number with no fractional part, which a `number` node takes too).
    #[inline]
    pub(crate) fn type_allows(&self, kind: SchemaKind) -> bool {
        match self.kind {
            None => true,
            Some(expected) => {
                expected == kind || (expected == SchemaKind::Number && kind == SchemaKind::Integer)
            }
        }
    }

    /// `type` for the number `n`. Only an `integer` node asks whether `n` has a fractional
    /// part (every other `type` decides the same either way; measured: ~15 instructions per
    /// float checked against a `number` node).
    #[inline]
    pub(crate) fn type_allows_number(&self, n: Number) -> bool {
        match self.kind {
            None | Some(SchemaKind::Number) => true,
            Some(SchemaKind::Integer) => n.is_integer(),
            Some(_) => false,
        }
    }

    /// `type` for `null`, which no `type` of the wire form takes.
    #[inline]
    pub(crate) fn type_allows_null(&self) -> bool {
        self.kind.is_none()
    }
}

// ----- `enum` -----

impl CompiledNode {
    /// `enum`: whether `value` is one of the values (JSON equality), scalars compared
    /// directly.
    pub(crate) fn enum_allows(&self, value: &Value) -> bool {
        match value {
            Value::String(s) => self.enum_allows_str(s),
            Value::Number(n) => self.enum_allows_number(number_of(n)),
            Value::Bool(b) => self.enum_allows_bool(*b),
            Value::Null => self.enum_allows_null(),
            Value::Array(_) | Value::Object(_) => self
                .enum_values
                .as_ref()
                .is_none_or(|values| values.iter().any(|v| json_equal(v, value))),
        }
    }

    /// `enum` for a string: its head against the heads of the string values.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "a few instructions, in both walks")]
    pub(crate) fn enum_allows_str(&self, s: &str) -> bool {
        self.enum_values.is_none() || {
            let head = NameHead::of(s);
            self.enum_strings.iter().any(|(h, e)| h.same(e, head, s))
        }
    }

    /// `enum` for a number: exact equality (`1` equals `1.0`).
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "a few instructions, in both walks")]
    pub(crate) fn enum_allows_number(&self, n: Number) -> bool {
        self.enum_values.as_ref().is_none_or(|values| {
            values
                .iter()
                .any(|v| matches!(v, Value::Number(m) if number_of(m) == n))
        })
    }

    /// `enum` for a boolean.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "a few instructions, in both walks")]
    pub(crate) fn enum_allows_bool(&self, b: bool) -> bool {
        self.enum_values
            .as_ref()
            .is_none_or(|values| values.iter().any(|v| v.as_bool() == Some(b)))
    }

    /// `enum` for `null`.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "a few instructions, in both walks")]
    pub(crate) fn enum_allows_null(&self) -> bool {
        self.enum_values
            .as_ref()
            .is_none_or(|values| values.iter().any(Value::is_null))
    }
}

// ----- the string keywords -----

impl CompiledNode {
    /// `minLength`, in code points.
    #[inline]
    pub(crate) fn min_length_allows(&self, s: &str) -> bool {
        self.min_length.is_none_or(|min| !shorter_than(s, min))
    }

    /// `maxLength`, in code points.
    #[inline]
    pub(crate) fn max_length_allows(&self, s: &str) -> bool {
        self.max_length.is_none_or(|max| !longer_than(s, max))
    }

    /// `pattern`, matched anywhere in the string.
    #[inline]
    pub(crate) fn pattern_allows(&self, s: &str) -> bool {
        self.pattern
            .as_ref()
            .is_none_or(|pattern| pattern.regex.is_match(s))
    }

    /// `format`: an assertion only with [`ValidationOptions::assert_formats`] (a session
    /// turns it on); a format pedelec does not know is an annotation.
    #[inline]
    pub(crate) fn format_allows(&self, s: &str, options: ValidationOptions) -> bool {
        !options.assert_formats || self.format.is_none_or(|format| format.check(s))
    }

    /// Whether the string's byte length alone shows that it passes the string keywords
    /// (see [`plain_string_bytes`]; `false` says nothing).
    #[inline]
    fn plain_string(&self, s: &str) -> bool {
        self.plain_string_bytes
            .is_some_and(|(lo, hi)| (lo..=hi).contains(&(s.len() as u64)))
    }

    /// All four string keywords. The common cases (none, or lengths that the byte length
    /// decides) are inlined into the walks, the rest is out of line (measured: ~15
    /// instructions per string).
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured")]
    pub(crate) fn string_keywords_allow(&self, s: &str, options: ValidationOptions) -> bool {
        !self.string_keywords || self.plain_string(s) || self.each_string_keyword_allows(s, options)
    }

    #[inline(never)]
    fn each_string_keyword_allows(&self, s: &str, options: ValidationOptions) -> bool {
        self.min_length_allows(s)
            && self.max_length_allows(s)
            && self.pattern_allows(s)
            && self.format_allows(s, options)
    }
}

/// Whether a string has fewer than `min` code points.
#[inline]
fn shorter_than(s: &str, min: u64) -> bool {
    let bytes = s.len() as u64;
    // A code point takes one to four bytes: count only when the byte length does not
    // decide.
    bytes < min || (bytes.div_ceil(4) < min && (s.chars().count() as u64) < min)
}

/// Whether a string has more than `max` code points.
#[inline]
fn longer_than(s: &str, max: u64) -> bool {
    s.len() as u64 > max && s.chars().count() as u64 > max
}

// ----- the number keywords -----

impl CompiledNode {
    /// `minimum`.
    #[inline]
    pub(crate) fn minimum_allows(&self, n: Number) -> bool {
        self.minimum.is_none_or(|min| !n.lt(min))
    }

    /// `exclusiveMinimum`.
    #[inline]
    pub(crate) fn exclusive_minimum_allows(&self, n: Number) -> bool {
        self.exclusive_minimum.is_none_or(|min| min.lt(n))
    }

    /// `maximum`.
    #[inline]
    pub(crate) fn maximum_allows(&self, n: Number) -> bool {
        self.maximum.is_none_or(|max| !max.lt(n))
    }

    /// `exclusiveMaximum`.
    #[inline]
    pub(crate) fn exclusive_maximum_allows(&self, n: Number) -> bool {
        self.exclusive_maximum.is_none_or(|max| n.lt(max))
    }

    /// `multipleOf`, exactly: on the decimal forms (`0.3` is a multiple of `0.1`).
    #[inline]
    pub(crate) fn multiple_of_allows(&self, n: Number) -> bool {
        self.multiple_of.is_none_or(|multiple| {
            Decimal::of(n).is_some_and(|d| d.is_multiple_of(multiple.decimal))
        })
    }

    /// Whether the integer `n` satisfies the bounds (`minimum`, `maximum`,
    /// `exclusiveMinimum`, `exclusiveMaximum`; not `multipleOf`), when
    /// [`int_bounds`](super::shortcuts::int_bounds) decides it.
    #[inline]
    fn int_in_bounds(&self, n: i64) -> Option<bool> {
        self.int_bounds.map(|(lo, hi)| lo <= n && n <= hi)
    }

    /// All five number keywords. An integer against integer bounds takes two comparisons
    /// instead of up to four exact comparisons (measured: ~45 instructions per checked
    /// integer).
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured: called for every number")]
    pub(crate) fn number_keywords_allow(&self, n: Number) -> bool {
        if !self.number_keywords {
            return true;
        }
        if let Number::Int(i) = n
            && let Some(in_bounds) = self.int_in_bounds(i)
        {
            return in_bounds && self.multiple_of_allows(n);
        }
        self.minimum_allows(n)
            && self.exclusive_minimum_allows(n)
            && self.maximum_allows(n)
            && self.exclusive_maximum_allows(n)
            && self.multiple_of_allows(n)
    }
}

// ----- whole scalars: what the fast path asks -----

impl CompiledNode {
    /// Whether the string `s` passes this node: `type`, `enum`, the string keywords. The
    /// common case first, in one range check (measured: ~25 instructions per string).
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured: called for every string")]
    pub(crate) fn allows_string(&self, s: &str, options: ValidationOptions) -> bool {
        self.plain_string(s)
            || (self.type_allows(SchemaKind::String)
                && self.enum_allows_str(s)
                && self.string_keywords_allow(s, options))
    }

    /// Whether the number `n` passes this node: `type`, `enum`, the number keywords.
    #[inline(always)]
    #[allow(clippy::inline_always, reason = "measured: called for every number")]
    pub(crate) fn allows_number(&self, n: Number) -> bool {
        self.type_allows_number(n) && self.enum_allows_number(n) && self.number_keywords_allow(n)
    }

    /// Whether the boolean `b` passes this node.
    #[inline]
    pub(crate) fn allows_bool(&self, b: bool) -> bool {
        self.type_allows(SchemaKind::Boolean) && self.enum_allows_bool(b)
    }

    /// Whether `null` passes this node.
    #[inline]
    pub(crate) fn allows_null(&self) -> bool {
        self.type_allows_null() && self.enum_allows_null()
    }

    /// Whether an array or object may stand here (the fast path checks its content as it
    /// streams). A node whose `enum` has arrays or objects among its values is buffered
    /// (and validated whole), so here an `enum` means scalars only, which no container
    /// equals.
    #[inline]
    pub(crate) fn allows_container(&self, kind: SchemaKind) -> bool {
        self.type_allows(kind) && self.enum_values.is_none()
    }
}
