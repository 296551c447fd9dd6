//! `x-mcp-header` across one tool's argsSchema (MCP 2026-07-28, SEP-2243).
//!
//! A node carries its own header name ([`SchemaNode::with_mcp_header`], checked there: the
//! name is a token, the node a string, integer or boolean). What only the whole schema
//! shows is checked here, by one `const fn` that runs at compile time for every `#[tool]`
//! (in [`ToolArgsSchema::from_node`](super::ToolArgsSchema::from_node)) and at run time
//! for schemas read from JSON: an annotation must be reached from the root through
//! `properties` alone (a client finds no value to mirror inside an array, a map, a `oneOf`
//! branch or a `$defs` entry), and no two may name the same header, case-insensitively.
//! MCP clients drop a tool that breaks either rule, so pedelec never lists one.

use pedelec_rules::mcp_header::same_header;

use super::node::{
    AdditionalProperties, Path, SchemaNode, Step, branches, deref, properties, step, str_of,
};

/// Why the `x-mcp-header` annotations of the argsSchema `root` break MCP's rules, or
/// `None` when they keep them (or there are none).
#[must_use]
pub(crate) const fn problem(root: &SchemaNode) -> Option<&'static str> {
    reachable(root, root, None)
}

/// Fails (at compile time, in a `const`) when [`problem`] finds one: what
/// [`ToolArgsSchema::from_node`](super::ToolArgsSchema::from_node) and each `#[tool]`'s
/// `check_args` assert.
pub(crate) const fn assert_kept(root: &SchemaNode) {
    if let Some(problem) = problem(root) {
        panic!("{}", problem);
    }
}

/// Whether a `$defs` entry `node` brings is annotated anywhere.
const fn defs_annotated(node: &SchemaNode) -> bool {
    let defs = match &node.defs {
        Some(std::borrow::Cow::Borrowed(d)) => *d,
        Some(std::borrow::Cow::Owned(d)) => d.as_slice(),
        None => return false,
    };
    let mut i = 0;
    while i < defs.len() {
        if anywhere(deref(&defs[i].schema), None) {
            return true;
        }
        i += 1;
    }
    false
}

const UNREACHABLE: &str = "an `x-mcp-header` annotation sits inside an array's items, a map's \
     values, a `oneOf` branch or a recursive type: MCP clients mirror only arguments reached \
     from the root through `properties`, and drop the whole tool otherwise; annotate a property \
     reached through `properties` (with the derive: a field of the arguments struct, or of a \
     struct nested in it)";

const DUPLICATE: &str = "two arguments of this tool have the same `x-mcp-header` (header names \
     are case-insensitive), so a client could not send both; give each its own name";

/// Checks the annotations reached from `node` through `properties`; everything else below
/// `node` must carry none.
const fn reachable(
    root: &SchemaNode,
    node: &SchemaNode,
    path: Option<&Path<'_>>,
) -> Option<&'static str> {
    let here;
    let (node, path) = match step(node, path) {
        // A type met again inside itself: it is a `$defs` entry, annotated nowhere.
        Step::Ref(name) => {
            return match Path::find(path, name) {
                Some(p) if anywhere(p.body(), Some(p)) => Some(UNREACHABLE),
                _ => None,
            };
        }
        Step::Plain(body) => (body, path),
        Step::Enter(named, body) => {
            here = Path::inside(named, body, path);
            (body, Some(&here))
        }
    };
    if let Some(name) = &node.mcp_header
        && count(root, str_of(name), None) > 1
    {
        return Some(DUPLICATE);
    }
    if defs_annotated(node) {
        return Some(UNREACHABLE);
    }
    let props = properties(node);
    let mut i = 0;
    while i < props.len() {
        if let Some(problem) = reachable(root, &props[i].schema, path) {
            return Some(problem);
        }
        i += 1;
    }
    if let Some(items) = &node.items
        && anywhere(deref(items), path)
    {
        return Some(UNREACHABLE);
    }
    if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties
        && anywhere(deref(values), path)
    {
        return Some(UNREACHABLE);
    }
    let b = branches(node);
    let mut i = 0;
    while i < b.len() {
        if anywhere(&b[i], path) {
            return Some(UNREACHABLE);
        }
        i += 1;
    }
    None
}

/// How many annotations reached through `properties` from `node` name `header`.
const fn count(node: &SchemaNode, header: &str, path: Option<&Path<'_>>) -> usize {
    let here;
    let (node, path) = match step(node, path) {
        Step::Ref(_) => return 0,
        Step::Plain(body) => (body, path),
        Step::Enter(named, body) => {
            here = Path::inside(named, body, path);
            (body, Some(&here))
        }
    };
    let mut n = match &node.mcp_header {
        Some(name) if same_header(str_of(name), header) => 1,
        _ => 0,
    };
    let props = properties(node);
    let mut i = 0;
    while i < props.len() {
        n += count(&props[i].schema, header, path);
        i += 1;
    }
    n
}

/// Whether the schema `root` (its `$defs` entries included) carries any `x-mcp-header`.
pub(crate) fn annotated(root: &SchemaNode) -> bool {
    anywhere(root, None)
}

/// Whether any node of the tree rooted at `node` (not following `$ref`s) is annotated.
const fn anywhere(node: &SchemaNode, path: Option<&Path<'_>>) -> bool {
    let here;
    let (node, path) = match step(node, path) {
        Step::Ref(_) => return false,
        Step::Plain(body) => (body, path),
        Step::Enter(named, body) => {
            here = Path::inside(named, body, path);
            (body, Some(&here))
        }
    };
    if node.mcp_header.is_some() || defs_annotated(node) {
        return true;
    }
    let props = properties(node);
    let mut i = 0;
    while i < props.len() {
        if anywhere(&props[i].schema, path) {
            return true;
        }
        i += 1;
    }
    if let Some(items) = &node.items
        && anywhere(deref(items), path)
    {
        return true;
    }
    if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties
        && anywhere(deref(values), path)
    {
        return true;
    }
    let b = branches(node);
    let mut i = 0;
    while i < b.len() {
        if anywhere(&b[i], path) {
            return true;
        }
        i += 1;
    }
    false
}

/// One argument mirrored into a header: where it is in the arguments, and the header.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(
    not(feature = "mcp"),
    allow(dead_code, reason = "read by MCP over HTTP")
)]
pub(crate) struct ParamHeader {
    /// The property names from the root to the argument.
    pub(crate) path: Box<[Box<str>]>,
    /// The header is `Mcp-Param-{name}`.
    pub(crate) name: Box<str>,
}

/// Every argument of the argsSchema `root` a client mirrors into a header, in schema order
/// (only those reached through `properties`, the ones [`problem`] allows).
#[cfg_attr(
    not(feature = "mcp"),
    allow(dead_code, reason = "read by MCP over HTTP")
)]
pub(crate) fn param_headers(root: &SchemaNode) -> Vec<ParamHeader> {
    fn walk(node: &SchemaNode, path: &mut Vec<Box<str>>, out: &mut Vec<ParamHeader>) {
        if let Some(name) = node.mcp_header() {
            out.push(ParamHeader {
                path: path.clone().into_boxed_slice(),
                name: name.into(),
            });
        }
        for p in properties(node) {
            path.push(p.name().into());
            walk(p.schema(), path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(&root.resolved(), &mut Vec::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::schema::{Property, ToolArgsSchema};

    fn args(region: Value) -> Value {
        json!({
            "type": "object",
            "properties": {
                "region": region,
                "target": {
                    "type": "object",
                    "properties": {"zone": {"type": "string", "x-mcp-header": "Zone"}},
                    "required": ["zone"],
                    "additionalProperties": false,
                },
            },
            "required": ["region", "target"],
            "additionalProperties": false,
        })
    }

    fn refused(json: &Value) -> String {
        match ToolArgsSchema::from_json(json) {
            Ok(_) => panic!("{json} should be refused"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn the_annotation_is_read_written_and_found_through_properties() {
        let json = args(json!({"type": "string", "x-mcp-header": "Region"}));
        let schema = ToolArgsSchema::from_json(&json).unwrap();
        assert_eq!(schema.to_json(), json);
        let found = param_headers(schema.node());
        let pairs: Vec<_> = found.iter().map(|p| (p.path.join("."), &*p.name)).collect();
        assert_eq!(
            pairs,
            [("region".into(), "Region"), ("target.zone".into(), "Zone")]
        );

        const NODE: SchemaNode = SchemaNode::object(
            const {
                &[Property::new(
                    "priority",
                    SchemaNode::integer().with_mcp_header("Priority"),
                    true,
                )]
            },
        );
        assert_eq!(
            ToolArgsSchema::from_node(NODE).to_json()["properties"]["priority"],
            json!({"type": "integer", "x-mcp-header": "Priority"})
        );
    }

    #[test]
    fn schemas_that_break_a_rule_are_refused() {
        let on_number = refused(&args(json!({"type": "number", "x-mcp-header": "Region"})));
        assert!(on_number.contains("x-mcp-header"), "{on_number}");
        let bad_name = refused(&args(json!({"type": "string", "x-mcp-header": "Re gion"})));
        assert!(bad_name.contains("x-mcp-header"), "{bad_name}");
        let duplicate = refused(&args(json!({"type": "string", "x-mcp-header": "zone"})));
        assert!(duplicate.contains("same `x-mcp-header`"), "{duplicate}");
        let in_items = refused(&json!({
            "type": "object",
            "properties": {"regions": {
                "type": "array",
                "items": {"type": "string", "x-mcp-header": "Region"},
            }},
        }));
        assert!(in_items.contains("array's items"), "{in_items}");
        let in_branch = refused(&json!({
            "type": "object",
            "properties": {"where": {"oneOf": [
                {"type": "string", "x-mcp-header": "Region"},
                {"type": "integer"},
            ]}},
        }));
        assert!(in_branch.contains("`oneOf` branch"), "{in_branch}");
    }
}
