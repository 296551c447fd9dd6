//! What the provider rules need to know about a schema, computed by `const fn`s over a
//! [`SchemaNode`]: once at compile time (the `const _` checks `skills![targets = [...]]`
//! generates) and once at run time ([`export`](super::export)), with the same code. The
//! rules themselves are in [`pedelec_rules::provider`].

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::borrow::Cow;

use pedelec_rules::provider::{
    Message, Provider, SchemaFacts, SetFacts, ToolFacts, check_name, check_tool,
    provider_names_collide,
};

use crate::schema::{
    AdditionalProperties, Literal, Path, Property, SchemaKind, SchemaNode, Step, deref, step,
    target,
};
pub(crate) use crate::schema::{branches, properties};
use crate::skills::InSkillSet;

const fn enum_values(node: &SchemaNode) -> Option<&[Literal]> {
    match &node.enum_values {
        Some(Cow::Borrowed(e)) => Some(e),
        Some(Cow::Owned(e)) => Some(e.as_slice()),
        None => None,
    }
}

#[allow(clippy::ptr_arg, reason = "`Cow::deref` is not `const`")]
const fn str_of<'a>(s: &'a Cow<'static, str>) -> &'a str {
    match s {
        Cow::Borrowed(s) => s,
        Cow::Owned(s) => s.as_str(),
    }
}

pub(crate) const fn is_closed(node: &SchemaNode) -> bool {
    matches!(
        node.additional_properties,
        Some(AdditionalProperties::Bool(false))
    )
}

/// Whether `node` is a map: an object whose only keyword about its members is
/// `additionalProperties: <schema>` (`HashMap<String, V>`, `BTreeMap<String, V>`). Strict
/// modes, which cannot express an open object, take a map as an array of
/// `{"key", "value"}` entries, and `decode_call` turns it back.
pub(crate) const fn is_map(node: &SchemaNode) -> bool {
    node.is_kind(SchemaKind::Object)
        && properties(node).is_empty()
        && match &node.required_extra {
            Cow::Borrowed(r) => r.is_empty(),
            Cow::Owned(r) => r.is_empty(),
        }
        && matches!(
            node.additional_properties,
            Some(AdditionalProperties::Schema(_))
        )
}

/// Whether a map ([`is_map`]) is anywhere in the schema rooted at `root`, its `$defs`
/// entries included.
pub(crate) fn has_map(root: &SchemaNode) -> bool {
    schema_has_map(root)
        || root
            .definitions()
            .iter()
            .any(|d| schema_has_map(d.schema()))
}

fn schema_has_map(node: &SchemaNode) -> bool {
    is_map(node)
        || properties(node).iter().any(|p| schema_has_map(&p.schema))
        || node.items.as_ref().is_some_and(|i| schema_has_map(i))
        || matches!(&node.additional_properties, Some(AdditionalProperties::Schema(v)) if schema_has_map(v))
        || branches(node).iter().any(schema_has_map)
}

/// The facts of one argsSchema (its root is an object).
#[must_use]
pub const fn schema_facts(root: &SchemaNode) -> SchemaFacts {
    let mut facts = SchemaFacts {
        depth: 0,
        properties: 0,
        enum_values: 0,
        optional: 0,
        unions: 0,
        open_objects: 0,
        ambiguous_unions: 0,
        refs: 0,
    };
    walk(root, 0, &mut facts, None);
    facts
}

/// Walks the tree; a `$ref` is counted, not followed (its entry's body is the tree of the
/// type that holds it, walked where that type is used).
const fn walk(node: &SchemaNode, depth: usize, facts: &mut SchemaFacts, path: Option<&Path<'_>>) {
    let here;
    let (node, path) = match step(node, path) {
        // A type met again inside itself: a `$ref` to it.
        Step::Ref(_) => {
            facts.refs += 1;
            return;
        }
        Step::Plain(body) => (body, path),
        Step::Enter(named, body) => {
            here = Path::inside(named, body, path);
            (body, Some(&here))
        }
    };
    let mut depth = depth;
    if node.reference.is_some() {
        facts.refs += 1;
    }
    if node.is_kind(SchemaKind::Object) {
        depth += 1;
        if depth > facts.depth {
            facts.depth = depth;
        }
        if !is_closed(node) && !is_map(node) {
            facts.open_objects += 1;
        }
    }
    if let Some(values) = enum_values(node) {
        facts.enum_values += values.len();
    }
    let props = properties(node);
    let mut i = 0;
    while i < props.len() {
        facts.properties += 1;
        if !props[i].required {
            facts.optional += 1;
        }
        walk(&props[i].schema, depth, facts, path);
        i += 1;
    }
    if let Some(items) = &node.items {
        walk(deref(items), depth, facts, path);
    }
    if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties {
        walk(deref(values), depth, facts, path);
    }
    if node.one_of.is_some() {
        facts.unions += 1;
        let b = branches(node);
        if !one_of_is_disjoint(b) {
            facts.ambiguous_unions += 1;
        }
        let mut i = 0;
        while i < b.len() {
            walk(&b[i], depth, facts, path);
            i += 1;
        }
    }
}

/// Whether no value can match two branches of a `oneOf`, which makes it equivalent to an
/// `anyOf` of the same branches: `oneOf` accepts a value matching exactly one branch,
/// `anyOf` one matching at least one, and when no value matches two branches "at least
/// one" and "exactly one" are the same set. Proven pairwise from the tags `derive(ToolArgs)`
/// writes for every serde enum representation (see [`branches_disjoint`]); anything else
/// is "not provable", never assumed.
#[must_use]
pub const fn one_of_is_disjoint(branches: &[SchemaNode]) -> bool {
    let mut i = 0;
    while i < branches.len() {
        let mut j = i + 1;
        while j < branches.len() {
            if !branches_disjoint(&branches[i], &branches[j]) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// Whether two schemas provably accept no common value:
/// - different types (`integer` and `number` overlap), e.g. a unit variant's string enum
///   against a data variant's object (externally tagged enums);
/// - `enum`s with no common value (unit variants);
/// - objects with a required property whose `enum`s are disjoint: a serde `tag` (internally
///   and adjacently tagged enums);
/// - objects where one requires a property the other, closed, does not declare: a value
///   would need it and could not have it (externally tagged enums: `{"Variant": …}`).
#[must_use]
pub const fn branches_disjoint(a: &SchemaNode, b: &SchemaNode) -> bool {
    let (a, b) = (target(a), target(b));
    if let (Some(ka), Some(kb)) = (a.kind, b.kind)
        && ka as u8 != kb as u8
        && !(ka.is_numeric() && kb.is_numeric())
    {
        return true;
    }
    if let (Some(ea), Some(eb)) = (enum_values(a), enum_values(b))
        && enums_disjoint(ea, eb)
    {
        return true;
    }
    if !(a.is_kind(SchemaKind::Object) && b.is_kind(SchemaKind::Object)) {
        return false;
    }
    let (pa, pb) = (properties(a), properties(b));
    let mut i = 0;
    while i < pa.len() {
        let name = str_of(&pa[i].name);
        if pa[i].required {
            match find(pb, name) {
                Some(q) => {
                    if q.required
                        && let (Some(ea), Some(eb)) =
                            (enum_values(&pa[i].schema), enum_values(&q.schema))
                        && enums_disjoint(ea, eb)
                    {
                        return true;
                    }
                }
                None => {
                    if is_closed(b) {
                        return true;
                    }
                }
            }
        }
        i += 1;
    }
    let mut i = 0;
    while i < pb.len() {
        if pb[i].required && find(pa, str_of(&pb[i].name)).is_none() && is_closed(a) {
            return true;
        }
        i += 1;
    }
    false
}

const fn find<'a>(props: &'a [Property], name: &str) -> Option<&'a Property> {
    let mut i = 0;
    while i < props.len() {
        if pedelec_rules::str_eq(str_of(&props[i].name), name) {
            return Some(&props[i]);
        }
        i += 1;
    }
    None
}

const fn enums_disjoint(a: &[Literal], b: &[Literal]) -> bool {
    let mut i = 0;
    while i < a.len() {
        let mut j = 0;
        while j < b.len() {
            if !literals_differ(&a[i], &b[j]) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// Whether two literals are provably different JSON values (arrays and objects are
/// compared only by kind: "maybe equal" otherwise).
const fn literals_differ(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Bool(x), Literal::Bool(y)) => *x != *y,
        (Literal::Num(x), Literal::Num(y)) => {
            !matches!(x.exact_cmp(*y), Some(std::cmp::Ordering::Equal) | None)
        }
        (Literal::Str(x), Literal::Str(y)) => !pedelec_rules::str_eq(str_of(x), str_of(y)),
        (Literal::Null, Literal::Null)
        | (Literal::Array(_), Literal::Array(_))
        | (Literal::Object(_), Literal::Object(_)) => false,
        _ => true,
    }
}

/// The facts of a tool (its name is checked apart, by [`check_name`]).
#[must_use]
pub const fn tool_facts(description: &str, root: &SchemaNode) -> ToolFacts {
    ToolFacts {
        description_chars: pedelec_rules::provider::char_count(description),
        schema: schema_facts(root),
    }
}

/// One entry of a `skills![targets = [...]]` invocation, as its checks see it.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct CompileTool {
    /// The tool's name.
    pub name: &'static str,
    /// The entry as written (`counter::update`).
    pub entry: &'static str,
    /// Its facts.
    pub facts: ToolFacts,
}

/// The [`CompileTool`] of a tool of the skill set `S` (reached through its `InSkillSet` impl,
/// like every other use of a listed tool).
#[doc(hidden)]
#[must_use]
pub const fn compile_tool<S, T: InSkillSet<S>>(entry: &'static str) -> CompileTool {
    let schema = const { &T::ARGS_SCHEMA };
    CompileTool {
        name: T::WIRE_NAME,
        entry,
        facts: tool_facts(T::DESCRIPTION, schema.node()),
    }
}

/// Checks the `index`-th tool of a `skills![targets = [...]]` list against every target
/// (strict, as `ExportOptions::default()` exports), failing compilation with a message
/// naming the tool, the target and the rule.
#[doc(hidden)]
pub const fn check_targets(tools: &[CompileTool], index: usize, targets: &[Provider]) {
    let tool = &tools[index];
    let mut t = 0;
    while t < targets.len() {
        let provider = targets[t];
        let mut before = SetFacts::NONE;
        let mut i = 0;
        while i < index {
            if provider_names_collide(provider, tools[i].name, tool.name) {
                let mut m = header(tool, provider);
                m.push("its provider name is the same as `");
                m.push(tools[i].entry);
                m.push("`'s (`");
                m.push(tools[i].name);
                m.push("`), as ");
                m.push(provider.title());
                m.push(
                    " names cannot contain `.` (it becomes `_`): rename one with \
                        `#[tool(name = \"…\")]` (rule `name-collision`)",
                );
                panic!("{}", m.as_str());
            }
            before = before.with(&tools[i].facts);
            i += 1;
        }
        let rule = match check_name(provider, tool.name) {
            Some(rule) => Some(rule),
            None => check_tool(provider, true, &tool.facts, &before).get(0),
        };
        if let Some(rule) = rule {
            let mut m = header(tool, provider);
            rule.write(&mut m);
            m.push(" (rule `");
            m.push(rule.id());
            m.push("`)");
            panic!("{}", m.as_str());
        }
        t += 1;
    }
}

const fn header(tool: &CompileTool, provider: Provider) -> Message {
    let mut m = Message::new();
    m.push("tool `");
    m.push(tool.name);
    m.push("` (`");
    m.push(tool.entry);
    m.push("`) cannot be exported to `");
    m.push(provider.name());
    m.push("`: ");
    m
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn node(v: serde_json::Value) -> SchemaNode {
        SchemaNode::from_json(&v).unwrap()
    }

    fn disjoint(a: serde_json::Value, b: serde_json::Value) -> bool {
        let (a, b) = (node(a), node(b));
        branches_disjoint(&a, &b) && branches_disjoint(&b, &a)
    }

    #[test]
    fn disjoint_branches_are_proven_by_their_tags() {
        // Different types; `integer` and `number` overlap.
        assert!(disjoint(
            json!({"type": "string"}),
            json!({"type": "boolean"})
        ));
        assert!(!disjoint(
            json!({"type": "integer"}),
            json!({"type": "number"})
        ));
        // Enums.
        assert!(disjoint(
            json!({"type": "string", "enum": ["a"]}),
            json!({"type": "string", "enum": ["b", "c"]})
        ));
        assert!(!disjoint(
            json!({"type": "integer", "enum": [1]}),
            json!({"type": "number", "enum": [1.0]})
        ));
        // A required tag property with disjoint enums (internally / adjacently tagged).
        let tagged = |tag: &str| {
            json!({"type": "object", "properties": {"kind": {"type": "string", "enum": [tag]}},
                   "required": ["kind"]})
        };
        assert!(disjoint(tagged("a"), tagged("b")));
        assert!(!disjoint(tagged("a"), tagged("a")));
        // An optional tag proves nothing.
        let optional =
            json!({"type": "object", "properties": {"kind": {"type": "string", "enum": ["b"]}}});
        assert!(!disjoint(tagged("a"), optional));
        // Externally tagged: a required key the other, closed, branch cannot have.
        let external = |key: &str| {
            json!({"type": "object", "properties": {key: {"type": "string"}}, "required": [key],
                   "additionalProperties": false})
        };
        assert!(disjoint(external("sms"), external("email")));
        // One closed side is enough: it cannot carry the other's required key.
        let open = |key: &str| json!({"type": "object", "properties": {key: {"type": "string"}}, "required": [key]});
        assert!(disjoint(external("sms"), open("email")));
        // Two open ones: `{"sms": "…", "email": "…"}` matches both.
        assert!(!disjoint(open("sms"), open("email")));
        assert!(!one_of_is_disjoint(&[
            node(external("sms")),
            node(open("sms")),
            node(open("email"))
        ]));
    }

    #[test]
    fn facts_count_what_the_rules_need() {
        let root = node(json!({
            "type": "object",
            "properties": {
                "a": {"type": "object", "properties": {"b": {"type": "string", "enum": ["x", "y"]}},
                      "additionalProperties": false},
                "m": {"type": "object", "additionalProperties": {"type": "integer"}},
                "u": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
                "o": {"type": "object", "properties": {}},
                "r": {"$ref": "#/$defs/R"}
            },
            "required": ["a"],
            "additionalProperties": false,
            "$defs": {"R": {"type": "string"}}
        }));
        let f = schema_facts(&root);
        assert_eq!(
            (
                f.depth,
                f.properties,
                f.enum_values,
                f.optional,
                f.unions,
                f.open_objects,
                f.ambiguous_unions,
                f.refs
            ),
            // The map `m` is not an open object: strict modes take it as entries.
            (2, 6, 2, 5, 1, 1, 1, 1)
        );
    }
}
