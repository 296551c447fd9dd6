//! Small JSON helpers shared by the parser, the structural checks and the validator: JSON
//! equality, exact decimal `multipleOf`, JSON pointers, short renderings of values for
//! messages, and "did you mean" suggestions.

use std::fmt::{self, Write as _};
use std::hash::{Hash, Hasher};

use serde_json::Value;

use pedelec_rules::Number;
use serde::{Serialize, Serializer};

/// A JSON number, read exactly: an `Int` when it fits `i64`, a `Uint` above, else a `Float`.
#[inline]
pub(crate) fn number_of(n: &serde_json::Number) -> Number {
    if let Some(i) = n.as_i64() {
        Number::Int(i)
    } else if let Some(u) = n.as_u64() {
        Number::Uint(u)
    } else {
        Number::Float(n.as_f64().unwrap_or(f64::NAN))
    }
}

/// A schema's [`Number`] written as JSON: serialized as its JSON number, and shown in
/// messages the way `serde_json` writes it (as the instance's numbers are shown).
#[derive(Clone, Copy, Debug)]
pub(crate) struct JsonNumber(pub(crate) Number);

impl JsonNumber {
    /// The JSON number (`None` for a non-finite float).
    pub(crate) fn to_json(self) -> Option<serde_json::Number> {
        match self.0 {
            Number::Int(i) => Some(i.into()),
            Number::Uint(u) => Some(u.into()),
            Number::Float(f) => serde_json::Number::from_f64(f),
        }
    }
}

impl fmt::Display for JsonNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.to_json() {
            Some(n) => fmt::Display::fmt(&n, f),
            None => fmt::Debug::fmt(&self.0.as_f64(), f),
        }
    }
}

impl Serialize for JsonNumber {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Number::Int(i) => serializer.serialize_i64(i),
            Number::Uint(u) => serializer.serialize_u64(u),
            Number::Float(f) => serializer.serialize_f64(f),
        }
    }
}

/// JSON equality: numbers compare by value whatever their representation (`1` equals
/// `1.0`, `u64::MAX` does not equal the nearest `f64`), arrays elementwise, and objects by
/// their entries whatever the key order.
#[must_use]
pub fn json_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Null, Value::Null) => true,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Number(x), Value::Number(y)) => number_of(x) == number_of(y),
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_equal(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_equal(v, w)))
        }
        _ => false,
    }
}

/// A hash consistent with [`json_equal`]: equal values hash equally.
pub(crate) fn json_hash<H: Hasher>(value: &Value, state: &mut H) {
    match value {
        Value::Null => state.write_u8(0),
        Value::Bool(b) => {
            state.write_u8(1);
            b.hash(state);
        }
        Value::Number(n) => {
            state.write_u8(2);
            match number_of(n) {
                Number::Int(i) => i128::from(i).hash(state),
                Number::Uint(u) => i128::from(u).hash(state),
                Number::Float(f) => match float_as_i128(f) {
                    Some(i) => i.hash(state),
                    None => f.to_bits().hash(state),
                },
            }
        }
        Value::String(s) => {
            state.write_u8(3);
            s.hash(state);
        }
        Value::Array(items) => {
            state.write_u8(4);
            state.write_usize(items.len());
            for item in items {
                json_hash(item, state);
            }
        }
        Value::Object(map) => {
            // Order-independent: combine the entries' own hashes commutatively.
            state.write_u8(5);
            state.write_usize(map.len());
            let mut sum = 0u64;
            for (k, v) in map {
                let mut h = std::hash::DefaultHasher::new();
                k.hash(&mut h);
                json_hash(v, &mut h);
                sum = sum.wrapping_add(h.finish());
            }
            state.write_u64(sum);
        }
    }
}

/// An integral float inside the range of `i128`, as an `i128` (so that `1.0` hashes like
/// `1`); `None` for other floats, which no integer variant can equal.
#[allow(clippy::cast_possible_truncation)]
fn float_as_i128(f: f64) -> Option<i128> {
    // 2^126: comfortably inside i128, and larger than every u64.
    const LIMIT: f64 = 85_070_591_730_234_615_865_843_651_857_942_052_864.0;
    (f.fract() == 0.0 && f.abs() < LIMIT).then_some(f as i128)
}

/// A finite decimal `±digits × 10^exp`, with no trailing zero in `digits` (or `digits == 0`).
///
/// Floats are read from their shortest round-trip decimal form, which is what the JSON text
/// said: `0.0075` is `75 × 10^-4`, not the binary fraction nearest to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Decimal {
    pub(crate) digits: u64,
    pub(crate) exp: i32,
}

impl Decimal {
    /// The decimal form of a finite number (the sign is dropped: divisibility ignores it).
    pub(crate) fn of(n: Number) -> Option<Decimal> {
        match n {
            Number::Int(i) => Some(Decimal::normalized(i.unsigned_abs(), 0)),
            Number::Uint(u) => Some(Decimal::normalized(u, 0)),
            Number::Float(f) => Decimal::of_f64(f),
        }
    }

    fn normalized(mut digits: u64, mut exp: i32) -> Decimal {
        if digits == 0 {
            return Decimal { digits: 0, exp: 0 };
        }
        while digits.is_multiple_of(10) {
            digits /= 10;
            exp += 1;
        }
        Decimal { digits, exp }
    }

    fn of_f64(f: f64) -> Option<Decimal> {
        if !f.is_finite() {
            return None;
        }
        // Shortest round-trip digits in scientific form, e.g. `-7.5e-3`, without allocating.
        let mut buf = StackBuf::<40>::new();
        write!(buf, "{:e}", f.abs()).ok()?;
        let text = buf.as_str();
        let (mantissa, exp) = text.split_once('e')?;
        let mut exp: i32 = exp.parse().ok()?;
        let mut digits: u64 = 0;
        let mut seen_point = false;
        for b in mantissa.bytes() {
            match b {
                b'.' => seen_point = true,
                b'0'..=b'9' => {
                    // At most 17 significant digits: fits in a u64.
                    digits = digits.checked_mul(10)?.checked_add(u64::from(b - b'0'))?;
                    if seen_point {
                        exp -= 1;
                    }
                }
                _ => return None,
            }
        }
        Some(Decimal::normalized(digits, exp))
    }

    /// Whether `self` is an integer multiple of `divisor` (which must not be zero).
    pub(crate) fn is_multiple_of(self, divisor: Decimal) -> bool {
        if self.digits == 0 {
            return true;
        }
        if divisor.digits == 0 {
            return false;
        }
        // self / divisor = (a / b) × 10^k.
        let (a, b) = (self.digits, divisor.digits);
        let k = i64::from(self.exp) - i64::from(divisor.exp);
        if k < 0 {
            // `a` has no factor 10, so `a × 10^k` is not even an integer multiple of 1 / b's
            // decimal scale: a / (b × 10^-k) is never an integer.
            return false;
        }
        let m = u128::from(b);
        let rest = pow_mod(10, k.unsigned_abs(), m);
        ((u128::from(a) % m) * rest).is_multiple_of(m)
    }
}

/// `base^exp mod m`, with `m < 2^64` so products fit in a `u128`.
fn pow_mod(base: u128, mut exp: u64, m: u128) -> u128 {
    let mut result = 1 % m;
    let mut base = base % m;
    while exp > 0 {
        if exp & 1 == 1 {
            result = result * base % m;
        }
        base = base * base % m;
        exp >>= 1;
    }
    result
}

/// A fixed-size text buffer on the stack.
pub(crate) struct StackBuf<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> StackBuf<N> {
    pub(crate) const fn new() -> Self {
        StackBuf {
            bytes: [0; N],
            len: 0,
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        // Only whole `str`s are ever written.
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl<const N: usize> fmt::Write for StackBuf<N> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        if end > N {
            return Err(fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Appends one reference token to a JSON pointer (RFC 6901: `~` → `~0`, `/` → `~1`).
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    for c in token.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

/// The longest rendering of a received value in a message, in characters.
const SHOW_LIMIT: usize = 60;

/// A value as compact JSON for a message, cut at [`SHOW_LIMIT`] characters with `…`.
pub(crate) fn show(value: &Value) -> String {
    let text = match value {
        // Avoid serializing a whole large document just to cut it.
        Value::Array(items) if items.len() > SHOW_LIMIT => {
            let mut s = String::from("[");
            for item in items.iter().take(SHOW_LIMIT / 2) {
                s.push_str(&show(item));
                s.push(',');
                if s.len() > SHOW_LIMIT {
                    break;
                }
            }
            s
        }
        Value::Object(map) if map.len() > SHOW_LIMIT => {
            let mut s = String::from("{");
            for (k, v) in map.iter().take(SHOW_LIMIT / 2) {
                s.push_str(&show(&Value::String(k.clone())));
                s.push(':');
                s.push_str(&show(v));
                s.push(',');
                if s.len() > SHOW_LIMIT {
                    break;
                }
            }
            s
        }
        Value::String(s) if s.len() > SHOW_LIMIT * 4 => {
            let cut: String = s.chars().take(SHOW_LIMIT).collect();
            format!("{}…", Value::String(cut))
        }
        other => other.to_string(),
    };
    truncate(text)
}

fn truncate(text: String) -> String {
    match text.char_indices().nth(SHOW_LIMIT) {
        None => text,
        Some((at, _)) => {
            let mut cut = text[..at].to_owned();
            cut.push('…');
            cut
        }
    }
}

/// A received value with its JSON type, for "expected …, got …": `string "5"`,
/// `number 1.5`, `boolean true`, `null`, `array [1,2]`, `object {"a":1}`.
pub(crate) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_owned(),
        Value::Bool(_) => format!("boolean {}", show(value)),
        Value::Number(_) => format!("number {}", show(value)),
        Value::String(_) => format!("string {}", show(value)),
        Value::Array(_) => format!("array {}", show(value)),
        Value::Object(_) => format!("object {}", show(value)),
    }
}

/// The JSON type name of a value (`"integer"` for numbers without a fractional part).
pub(crate) fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if number_of(n).is_integer() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The candidate closest to `word`, when it is close enough to be what was meant.
pub(crate) fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `"a", "b", "c"` (each JSON-quoted), at most `limit` of them, then `… (N more)`.
pub(crate) fn list_quoted<'a, I>(names: I, limit: usize) -> String
where
    I: ExactSizeIterator<Item = &'a str>,
{
    let total = names.len();
    let mut out = String::new();
    for (i, name) in names.take(limit).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(&show(&Value::String(name.to_owned())));
    }
    if total > limit {
        let _ = write!(out, ", … ({} more)", total - limit);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn dec(v: &Value) -> Decimal {
        Decimal::of(number_of(v.as_number().unwrap())).unwrap()
    }

    fn multiple(x: &str, d: &str) -> bool {
        let x: Value = serde_json::from_str(x).unwrap();
        let d: Value = serde_json::from_str(d).unwrap();
        dec(&x).is_multiple_of(dec(&d))
    }

    #[test]
    fn decimals_are_read_from_the_shortest_form() {
        assert_eq!(
            dec(&json!(0.0075)),
            Decimal {
                digits: 75,
                exp: -4
            }
        );
        assert_eq!(
            dec(&json!(1e308)),
            Decimal {
                digits: 1,
                exp: 308
            }
        );
        assert_eq!(
            dec(&json!(-4.5)),
            Decimal {
                digits: 45,
                exp: -1
            }
        );
        assert_eq!(dec(&json!(1200)), Decimal { digits: 12, exp: 2 });
        assert_eq!(dec(&json!(0)), Decimal { digits: 0, exp: 0 });
        assert_eq!(dec(&json!(-0.0)), Decimal { digits: 0, exp: 0 });
        assert_eq!(
            dec(&json!(u64::MAX)),
            Decimal {
                digits: u64::MAX,
                exp: 0
            }
        );
        assert_eq!(
            dec(&json!(5e-324)),
            Decimal {
                digits: 5,
                exp: -324
            }
        );
    }

    #[test]
    fn multiple_of_is_exact_for_decimals() {
        assert!(multiple("0.0075", "0.0001"));
        assert!(!multiple("0.00751", "0.0001"));
        assert!(multiple("1e308", "0.5"));
        assert!(!multiple("1e308", "0.123456789"));
        assert!(multiple("12391239123", "1e-8"));
        assert!(multiple("4.5", "1.5"));
        assert!(multiple("-4.5", "1.5"));
        assert!(!multiple("35", "1.5"));
        assert!(multiple("0", "0.3"));
        assert!(multiple("0.3", "0.1"));
        assert!(!multiple("7", "2"));
        assert!(multiple("18446744073709551615", "5"));
        assert!(!multiple("18446744073709551615", "2"));
        assert!(multiple("-9223372036854775808", "2"));
        assert!(!multiple("1", "1e308"));
        assert!(!multiple("1.1", "1"));
    }

    #[test]
    fn equality_and_hash_agree() {
        use std::hash::DefaultHasher;
        let h = |v: &Value| {
            let mut s = DefaultHasher::new();
            json_hash(v, &mut s);
            s.finish()
        };
        let pairs = [
            (json!(1), json!(1.0)),
            (json!(-0.0), json!(0)),
            (
                json!({"a": [1, 2.0], "b": null}),
                json!({"b": null, "a": [1.0, 2]}),
            ),
            (
                json!(9_007_199_254_740_992_u64),
                json!(9_007_199_254_740_992.0),
            ),
        ];
        for (a, b) in &pairs {
            assert!(json_equal(a, b), "{a} == {b}");
            assert_eq!(h(a), h(b), "{a} and {b} hash alike");
        }
        assert!(!json_equal(
            &json!(u64::MAX),
            &json!(18_446_744_073_709_551_615.0)
        ));
        assert!(!json_equal(&json!(false), &json!(0)));
        assert!(!json_equal(&json!([1]), &json!([1, 1])));
        assert!(!json_equal(&json!({"a": 1}), &json!({"a": 1, "b": 1})));
        assert!(!json_equal(&json!({"a": 1}), &json!({"b": 1})));
    }

    #[test]
    fn pointers_escape_tokens() {
        let mut p = String::new();
        push_token(&mut p, "a/b");
        push_token(&mut p, "m~n");
        push_token(&mut p, "");
        assert_eq!(p, "/a~1b/m~0n/");
    }

    #[test]
    fn long_values_are_cut() {
        let long = "x".repeat(500);
        let shown = show(&Value::String(long));
        assert_eq!(shown.chars().count(), SHOW_LIMIT + 1);
        assert!(shown.ends_with('…'));
        let big = Value::Array((0..1000).map(Value::from).collect());
        assert!(show(&big).chars().count() <= SHOW_LIMIT + 1);
        assert_eq!(describe(&json!("5")), r#"string "5""#);
        assert_eq!(describe(&json!(null)), "null");
    }
}
