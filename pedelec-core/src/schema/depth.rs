//! How deep a [`Value`] nests, and how to let go of one that nests too deep, without
//! recursion.
//!
//! JSON text is bounded by its parser (`serde_json` refuses text nesting deeper than
//! [`MAX_DEPTH`] levels), but a `Value` built in process (handed to
//! [`Session::call`](crate::Session::call), returned by a program or a remote) has no
//! such bound: walking it recursively (validation, serialization, deserialization into a
//! recursive type) or dropping it (`serde_json`'s `Drop` recurses) overflows the stack at
//! some depth and aborts the process. [`nests_deeper_than`] answers in a loop, and
//! [`drop_deep`] takes a value apart with an explicit stack; both are for any code that
//! takes such a value in (code mode's program results, a gateway's remote results).

use serde_json::Value;

/// How deep a value handed in process may nest (arrays and objects), the same bound as
/// JSON text's parser: a value within it can be walked, serialized and dropped
/// recursively.
pub const MAX_DEPTH: usize = 128;

/// Whether `value` nests arrays and objects more than `limit` levels deep (a scalar is
/// depth 0, `[]` and `{}` depth 1). Walks the value in a loop (no recursion) and stops
/// at the first path past `limit`.
#[must_use]
pub fn nests_deeper_than(value: &Value, limit: usize) -> bool {
    // The containers still to look into, with the depth of their children.
    let mut stack: Vec<(&Value, usize)> = Vec::new();
    stack.push((value, 0));
    while let Some((value, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match value {
            Value::Array(items) if !items.is_empty() => Box::new(items.iter()),
            Value::Object(map) if !map.is_empty() => Box::new(map.values()),
            Value::Array(_) | Value::Object(_) => {
                if depth + 1 > limit {
                    return true;
                }
                continue;
            }
            _ => continue,
        };
        let depth = depth + 1;
        if depth > limit {
            return true;
        }
        for child in children {
            if matches!(child, Value::Array(_) | Value::Object(_)) {
                stack.push((child, depth));
            }
        }
    }
    false
}

/// Drops `value` without recursion, however deep it nests: each array and object is
/// emptied onto an explicit stack before it is dropped, so no drop goes more than one
/// level down. (Cheap for a shallow value: a scalar or a flat container is dropped as
/// usual.)
pub fn drop_deep(value: Value) {
    let mut stack = vec![value];
    while let Some(mut value) = stack.pop() {
        match &mut value {
            Value::Array(items) => {
                stack.extend(items.drain(..).filter(is_container));
            }
            Value::Object(map) => {
                let map = std::mem::take(map);
                stack.extend(map.into_iter().map(|(_, v)| v).filter(is_container));
            }
            _ => {}
        }
        // `value` is now a scalar or an empty container: its drop does not recurse.
    }
}

fn is_container(value: &Value) -> bool {
    matches!(value, Value::Array(a) if !a.is_empty())
        || matches!(value, Value::Object(m) if !m.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Arrays and objects in turn, `depth` levels; each level takes the one below it by
    /// move (`json!` would copy it, recursively).
    fn nested(depth: usize) -> Value {
        let mut value = json!(1);
        for i in 0..depth {
            value = if i % 2 == 0 {
                Value::Array(vec![value])
            } else {
                let mut map = serde_json::Map::new();
                map.insert("k".into(), value);
                map.insert("flat".into(), json!(2));
                Value::Object(map)
            };
        }
        value
    }

    #[test]
    fn depth_is_counted_in_containers() {
        assert!(!nests_deeper_than(&json!(1), 0));
        assert!(nests_deeper_than(&json!([]), 0));
        assert!(!nests_deeper_than(&json!([]), 1));
        assert!(!nests_deeper_than(&json!({"a": [1, {"b": 2}]}), 3));
        assert!(nests_deeper_than(&json!({"a": [1, {"b": {}}]}), 3));
        for depth in [1, 127, 128, 129] {
            let value = nested(depth);
            assert_eq!(nests_deeper_than(&value, MAX_DEPTH), depth > MAX_DEPTH);
            assert!(!nests_deeper_than(&value, depth));
            assert!(nests_deeper_than(&value, depth - 1));
        }
    }

    /// A million levels: counted and dropped on a test thread's stack (a recursive drop
    /// of this value overflows it).
    #[test]
    fn a_million_levels_are_measured_and_dropped_without_recursion() {
        let value = nested(1_000_000);
        assert!(nests_deeper_than(&value, MAX_DEPTH));
        drop_deep(value);
    }
}
