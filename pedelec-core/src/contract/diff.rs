//! The comparison: every difference between two locks, each sorted into breaking or
//! compatible.
//!
//! Schemas are walked structurally, keyword by keyword, with the variance of where they
//! sit: an argsSchema is what a caller sends, so a change that admits more values is
//! compatible and one that admits fewer is breaking; an outputSchema is what a consumer
//! reads, so it is the other way round (a field removed breaks, a field added does not).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::change::{Change, ChangeKind};
use super::lock::{Lock, LockEntry};

/// Which way a schema is read.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Side {
    /// Arguments: sent by callers. Admitting fewer values breaks.
    Args,
    /// Results: read by consumers. Admitting more values breaks.
    Output,
}

impl Side {
    /// Whether a change that makes the schema admit fewer values (`tighter`) or more
    /// (`!tighter`) breaks on this side.
    fn breaks(self, tighter: bool) -> bool {
        match self {
            Side::Args => tighter,
            Side::Output => !tighter,
        }
    }
}

/// Every change from `old` to `new`, tool by tool in name order.
pub(crate) fn diff(old: &Lock, new: &Lock) -> Vec<Change> {
    let mut out = Vec::new();
    let mut added: Vec<&LockEntry> = new
        .entries()
        .filter(|e| old.get(&e.name).is_none())
        .collect();
    for entry in old.entries() {
        if let Some(current) = new.get(&entry.name) {
            entry_changes(&entry.name, entry, current, &mut out);
            continue;
        }
        // A removed tool whose description and schemas one new tool has, and no other: a
        // rename (breaking too, but said as such; its version is compared).
        let same: Vec<usize> = added
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                a.description == entry.description
                    && a.args_schema == entry.args_schema
                    && a.output_schema == entry.output_schema
            })
            .map(|(i, _)| i)
            .collect();
        if let [i] = same[..] {
            let to = added.remove(i);
            out.push(Change::new(
                &entry.name,
                "",
                ChangeKind::ToolRenamed {
                    to: to.name.clone(),
                },
                true,
            ));
            version_change(&entry.name, entry, to, &mut out);
            if entry.timeout_ms != to.timeout_ms {
                out.push(timeout_change(&entry.name, entry, to));
            }
        } else {
            out.push(Change::new(&entry.name, "", ChangeKind::ToolRemoved, true));
        }
    }
    for entry in added {
        out.push(Change::new(&entry.name, "", ChangeKind::ToolAdded, false));
    }
    out.sort_by(|a, b| a.tool.cmp(&b.tool));
    out
}

fn version_change(tool: &str, old: &LockEntry, new: &LockEntry, out: &mut Vec<Change>) {
    let (from, to) = (old.version, new.version);
    if to > from {
        out.push(Change::new(
            tool,
            "/version",
            ChangeKind::VersionRaised { from, to },
            false,
        ));
    } else if to < from {
        out.push(Change::new(
            tool,
            "/version",
            ChangeKind::VersionLowered { from, to },
            true,
        ));
    }
}

fn timeout_change(tool: &str, old: &LockEntry, new: &LockEntry) -> Change {
    Change::new(
        tool,
        "/timeoutMs",
        ChangeKind::TimeoutChanged {
            from: old.timeout_ms,
            to: new.timeout_ms,
        },
        false,
    )
}

/// The changes of one tool present in both locks.
fn entry_changes(tool: &str, old: &LockEntry, new: &LockEntry, out: &mut Vec<Change>) {
    version_change(tool, old, new, out);
    if old.description != new.description {
        out.push(Change::new(
            tool,
            "/description",
            ChangeKind::DescriptionChanged,
            false,
        ));
    }
    if old.timeout_ms != new.timeout_ms {
        out.push(timeout_change(tool, old, new));
    }
    let mut walk = Walk { tool, out };
    walk.schema(
        Side::Args,
        "/argsSchema",
        &old.args_schema,
        &new.args_schema,
    );
    match (&old.output_schema, &new.output_schema) {
        (Some(o), Some(n)) => walk.schema(Side::Output, "/outputSchema", o, n),
        (None, Some(_)) => walk.push("/outputSchema", ChangeKind::OutputSchemaAdded, false),
        (Some(_), None) => walk.push("/outputSchema", ChangeKind::OutputSchemaRemoved, true),
        (None, None) => {}
    }
}

/// Annotations: they change no value's validity.
const ANNOTATIONS: &[&str] = &[
    "title",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
];

/// Bounds that admit fewer values as they grow.
const LOWER_BOUNDS: &[&str] = &[
    "minimum",
    "exclusiveMinimum",
    "minLength",
    "minItems",
    "minProperties",
];

/// Bounds that admit fewer values as they shrink.
const UPPER_BOUNDS: &[&str] = &[
    "maximum",
    "exclusiveMaximum",
    "maxLength",
    "maxItems",
    "maxProperties",
];

/// Keywords that admit fewer values when added and more when removed, and that cannot be
/// ordered when replaced.
const FILTERS: &[&str] = &["pattern", "format"];

/// The keywords compared together with another (`required` with `properties`,
/// `additionalProperties` as a bound and as a schema).
const HANDLED: &[&str] = &[
    "type",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "oneOf",
    "anyOf",
    "$defs",
    "$ref",
    "description",
    "multipleOf",
    "uniqueItems",
];

struct Walk<'a> {
    tool: &'a str,
    out: &'a mut Vec<Change>,
}

impl Walk<'_> {
    fn push(&mut self, pointer: &str, kind: ChangeKind, breaking: bool) {
        self.out
            .push(Change::new(self.tool, pointer, kind, breaking));
    }

    /// A keyword changed in a way that admits fewer (`tighter`) or more values.
    fn bound(
        &mut self,
        side: Side,
        at: &str,
        key: &str,
        old: Option<&Value>,
        new: Option<&Value>,
        tighter: bool,
    ) {
        let (keyword, from, to) = (key.to_owned(), old.cloned(), new.cloned());
        let kind = if tighter {
            ChangeKind::BoundTightened { keyword, from, to }
        } else {
            ChangeKind::BoundLoosened { keyword, from, to }
        };
        self.push(&pointer(at, key), kind, side.breaks(tighter));
    }

    /// A keyword replaced by one neither looser nor tighter for certain: breaking either way.
    fn replaced(&mut self, at: &str, key: &str, old: Option<&Value>, new: Option<&Value>) {
        let kind = ChangeKind::BoundChanged {
            keyword: key.to_owned(),
            from: old.cloned(),
            to: new.cloned(),
        };
        self.push(&pointer(at, key), kind, true);
    }

    fn schema(&mut self, side: Side, at: &str, old: &Value, new: &Value) {
        if old == new {
            return;
        }
        let (Some(o), Some(n)) = (old.as_object(), new.as_object()) else {
            // A boolean schema (`true`, `false`) on either side.
            let tighter = new == &Value::Bool(false) || old == &Value::Bool(true);
            if old.is_boolean() && new.is_boolean() {
                self.push(
                    at,
                    ChangeKind::BoundTightened {
                        keyword: String::new(),
                        from: Some(old.clone()),
                        to: Some(new.clone()),
                    },
                    side.breaks(tighter),
                );
            } else {
                self.push(
                    at,
                    ChangeKind::KeywordChanged {
                        keyword: String::new(),
                        from: Some(old.clone()),
                        to: Some(new.clone()),
                    },
                    true,
                );
            }
            return;
        };
        self.types(side, at, o.get("type"), n.get("type"));
        self.enums(side, at, o.get("enum"), n.get("enum"));
        self.properties(side, at, o, n);
        self.additional(
            side,
            at,
            o.get("additionalProperties"),
            n.get("additionalProperties"),
        );
        self.sub(side, at, "items", o.get("items"), n.get("items"));
        for key in ["oneOf", "anyOf"] {
            self.variants(side, at, key, o.get(key), n.get(key));
        }
        if let (Some(Value::Object(od)), Some(Value::Object(nd))) = (o.get("$defs"), n.get("$defs"))
        {
            // A definition added or removed shows where it is (or was) referred to.
            for (name, old_def) in od {
                if let Some(new_def) = nd.get(name) {
                    let at = pointer(&pointer(at, "$defs"), name);
                    self.schema(side, &at, old_def, new_def);
                }
            }
        }
        if o.get("$ref") != n.get("$ref") {
            let text = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or("").to_owned();
            self.push(
                &pointer(at, "$ref"),
                ChangeKind::RefChanged {
                    from: text(o.get("$ref")),
                    to: text(n.get("$ref")),
                },
                true,
            );
        }
        if o.get("description") != n.get("description") {
            self.push(
                &pointer(at, "description"),
                ChangeKind::DescriptionChanged,
                false,
            );
        }
        self.bounds(side, at, o, n);
        // Every other keyword.
        let keys: BTreeSet<&String> = o.keys().chain(n.keys()).collect();
        for key in keys {
            let key = key.as_str();
            let known = HANDLED.contains(&key)
                || LOWER_BOUNDS.contains(&key)
                || UPPER_BOUNDS.contains(&key)
                || FILTERS.contains(&key);
            let (ov, nv) = (o.get(key), n.get(key));
            if known || ov == nv {
                continue;
            }
            let kind = if ANNOTATIONS.contains(&key) {
                ChangeKind::AnnotationChanged {
                    keyword: key.to_owned(),
                }
            } else {
                ChangeKind::KeywordChanged {
                    keyword: key.to_owned(),
                    from: ov.cloned(),
                    to: nv.cloned(),
                }
            };
            let breaking = !ANNOTATIONS.contains(&key);
            self.push(&pointer(at, key), kind, breaking);
        }
    }

    fn types(&mut self, side: Side, at: &str, old: Option<&Value>, new: Option<&Value>) {
        let (o, n) = (type_set(old), type_set(new));
        if o == n {
            return;
        }
        // `None` is any type.
        let covers = |wide: &Option<BTreeSet<String>>, narrow: &Option<BTreeSet<String>>| match (
            wide, narrow,
        ) {
            (None, _) => true,
            (Some(_), None) => false,
            (Some(w), Some(n)) => n
                .iter()
                .all(|t| w.contains(t) || (t == "integer" && w.contains("number"))),
        };
        let wider = covers(&n, &o);
        let narrower = covers(&o, &n);
        let breaking = match side {
            Side::Args => !wider,
            Side::Output => !narrower,
        };
        self.push(
            &pointer(at, "type"),
            ChangeKind::TypeChanged {
                from: type_text(old),
                to: type_text(new),
            },
            breaking,
        );
    }

    fn enums(&mut self, side: Side, at: &str, old: Option<&Value>, new: Option<&Value>) {
        let at_enum = pointer(at, "enum");
        match (old.and_then(Value::as_array), new.and_then(Value::as_array)) {
            (Some(o), Some(n)) => {
                for value in o.iter().filter(|v| !n.contains(v)) {
                    let kind = ChangeKind::EnumValueRemoved {
                        value: value.clone(),
                    };
                    self.push(&at_enum, kind, side.breaks(true));
                }
                for value in n.iter().filter(|v| !o.contains(v)) {
                    let kind = ChangeKind::EnumValueAdded {
                        value: value.clone(),
                    };
                    self.push(&at_enum, kind, side.breaks(false));
                }
            }
            (None, Some(_)) => self.bound(side, at, "enum", old, new, true),
            (Some(_), None) => self.bound(side, at, "enum", old, new, false),
            (None, None) => {}
        }
    }

    fn properties(&mut self, side: Side, at: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        let empty = Map::new();
        let props = |m: &Map<String, Value>| -> BTreeMap<String, Value> {
            m.get("properties")
                .and_then(Value::as_object)
                .unwrap_or(&empty)
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect()
        };
        let required = |m: &Map<String, Value>| -> BTreeSet<String> {
            m.get("required")
                .and_then(Value::as_array)
                .map(|r| {
                    r.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let (op, np) = (props(o), props(n));
        let (or, nr) = (required(o), required(n));
        let closed = n.get("additionalProperties") == Some(&Value::Bool(false));
        let at_props = pointer(at, "properties");
        for (name, old_schema) in &op {
            let at = pointer(&at_props, name);
            match np.get(name) {
                // A caller still sending it is refused only by a closed object.
                None => self.push(
                    &at,
                    ChangeKind::PropertyRemoved,
                    side == Side::Output || closed,
                ),
                Some(new_schema) => {
                    self.schema(side, &at, old_schema, new_schema);
                    match (or.contains(name), nr.contains(name)) {
                        (false, true) => {
                            self.push(&at, ChangeKind::BecameRequired, side.breaks(true));
                        }
                        (true, false) => {
                            self.push(&at, ChangeKind::BecameOptional, side.breaks(false));
                        }
                        _ => {}
                    }
                }
            }
        }
        for name in np.keys().filter(|k| !op.contains_key(*k)) {
            let required = nr.contains(name);
            let breaking = side == Side::Args && required;
            self.push(
                &pointer(&at_props, name),
                ChangeKind::PropertyAdded { required },
                breaking,
            );
        }
    }

    fn additional(&mut self, side: Side, at: &str, old: Option<&Value>, new: Option<&Value>) {
        if old == new {
            return;
        }
        let key = "additionalProperties";
        let closed = |v: Option<&Value>| v == Some(&Value::Bool(false));
        let open = |v: Option<&Value>| v.is_none() || v == Some(&Value::Bool(true));
        match (old, new) {
            (Some(o @ Value::Object(_)), Some(n @ Value::Object(_))) => {
                self.schema(side, &pointer(at, key), o, n);
            }
            _ if open(new) || closed(old) => self.bound(side, at, key, old, new, false),
            _ => self.bound(side, at, key, old, new, true),
        }
    }

    /// A subschema keyword (`items`): compared in place; added is tighter, removed looser.
    fn sub(&mut self, side: Side, at: &str, key: &str, old: Option<&Value>, new: Option<&Value>) {
        match (old, new) {
            (Some(o), Some(n)) => self.schema(side, &pointer(at, key), o, n),
            (None, Some(_)) => self.bound(side, at, key, old, new, true),
            (Some(_), None) => self.bound(side, at, key, old, new, false),
            (None, None) => {}
        }
    }

    /// `oneOf`/`anyOf`: variants compared by position; one added admits more values.
    fn variants(
        &mut self,
        side: Side,
        at: &str,
        key: &str,
        old: Option<&Value>,
        new: Option<&Value>,
    ) {
        let empty = Vec::new();
        let o = old.and_then(Value::as_array).unwrap_or(&empty);
        let n = new.and_then(Value::as_array).unwrap_or(&empty);
        let at = pointer(at, key);
        for (i, (ov, nv)) in o.iter().zip(n).enumerate() {
            self.schema(side, &pointer(&at, &i.to_string()), ov, nv);
        }
        for i in n.len()..o.len() {
            self.push(
                &pointer(&at, &i.to_string()),
                ChangeKind::VariantRemoved,
                side.breaks(true),
            );
        }
        for i in o.len()..n.len() {
            self.push(
                &pointer(&at, &i.to_string()),
                ChangeKind::VariantAdded,
                side.breaks(false),
            );
        }
    }

    /// The numeric bounds, `multipleOf`, `uniqueItems`, `pattern` and `format`.
    fn bounds(&mut self, side: Side, at: &str, o: &Map<String, Value>, n: &Map<String, Value>) {
        for (keys, lower) in [(LOWER_BOUNDS, true), (UPPER_BOUNDS, false)] {
            for &key in keys {
                let (ov, nv) = (o.get(key), n.get(key));
                if ov == nv {
                    continue;
                }
                let tighter = match (ov.and_then(Value::as_f64), nv.and_then(Value::as_f64)) {
                    // Equal as numbers (`1` and `1.0`): no change.
                    (Some(a), Some(b)) if a.total_cmp(&b).is_eq() => continue,
                    (Some(a), Some(b)) => (b > a) == lower,
                    (None, Some(_)) if ov.is_none() => true,
                    (Some(_), None) if nv.is_none() => false,
                    // Not numbers: nothing to order.
                    _ => {
                        self.replaced(at, key, ov, nv);
                        continue;
                    }
                };
                self.bound(side, at, key, ov, nv, tighter);
            }
        }
        let key = "multipleOf";
        let (ov, nv) = (o.get(key), n.get(key));
        if ov != nv {
            match (ov.and_then(Value::as_f64), nv.and_then(Value::as_f64)) {
                (Some(a), Some(b)) if is_multiple(b, a) => self.bound(side, at, key, ov, nv, true),
                (Some(a), Some(b)) if is_multiple(a, b) => self.bound(side, at, key, ov, nv, false),
                (None, Some(_)) => self.bound(side, at, key, ov, nv, true),
                (Some(_), None) => self.bound(side, at, key, ov, nv, false),
                _ => self.replaced(at, key, ov, nv),
            }
        }
        let key = "uniqueItems";
        let unique = |v: Option<&Value>| v == Some(&Value::Bool(true));
        let (ov, nv) = (o.get(key), n.get(key));
        if unique(ov) != unique(nv) {
            self.bound(side, at, key, ov, nv, unique(nv));
        }
        for &key in FILTERS {
            let (ov, nv) = (o.get(key), n.get(key));
            match (ov, nv) {
                _ if ov == nv => {}
                (None, Some(_)) => self.bound(side, at, key, ov, nv, true),
                (Some(_), None) => self.bound(side, at, key, ov, nv, false),
                _ => self.replaced(at, key, ov, nv),
            }
        }
    }
}

/// Whether `a` is a whole multiple of `b` (every multiple of `a` is then one of `b`).
fn is_multiple(a: f64, b: f64) -> bool {
    b != 0.0 && (a / b).fract() == 0.0
}

/// `type` as a set of names; `None` when absent (any type).
fn type_set(value: Option<&Value>) -> Option<BTreeSet<String>> {
    match value? {
        Value::String(s) => Some(BTreeSet::from([s.clone()])),
        Value::Array(types) => Some(
            types
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
        ),
        _ => Some(BTreeSet::new()),
    }
}

/// `type` as a message shows it: `integer`, `string or null`, `any`.
fn type_text(value: Option<&Value>) -> String {
    match type_set(value) {
        None => "any".to_owned(),
        Some(set) => set.into_iter().collect::<Vec<_>>().join(" or "),
    }
}

/// `at` followed by `key`, escaped as RFC 6901 says (`~` as `~0`, `/` as `~1`).
fn pointer(at: &str, key: &str) -> String {
    format!("{at}/{}", key.replace('~', "~0").replace('/', "~1"))
}
