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

use super::node::{AdditionalProperties, SchemaNode, Str, branches, deref, properties};

/// Why the `x-mcp-header` annotations of the argsSchema `root` break MCP's rules, or
/// `None` when they keep them (or there are none).
#[must_use]
pub(crate) const fn problem(root: &SchemaNode) -> Option<&'static str> {
    reachable(root, root)
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
        if anywhere(deref(&defs[i].schema)) {
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
const fn reachable(root: &SchemaNode, node: &SchemaNode) -> Option<&'static str> {
    if let Some(name) = &node.mcp_header
        && count(root, str_of(name)) > 1
    {
        return Some(DUPLICATE);
    }
    if defs_annotated(node) {
        return Some(UNREACHABLE);
    }
    let props = properties(node);
    let mut i = 0;
    while i < props.len() {
        if let Some(problem) = reachable(root, &props[i].schema) {
            return Some(problem);
        }
        i += 1;
    }
    if let Some(items) = &node.items
        && anywhere(deref(items))
    {
        return Some(UNREACHABLE);
    }
    if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties
        && anywhere(deref(values))
    {
        return Some(UNREACHABLE);
    }
    let b = branches(node);
    let mut i = 0;
    while i < b.len() {
        if anywhere(&b[i]) {
            return Some(UNREACHABLE);
        }
        i += 1;
    }
    None
}

/// How many annotations reached through `properties` from `node` name `header`.
const fn count(node: &SchemaNode, header: &str) -> usize {
    let mut n = match &node.mcp_header {
        Some(name) if same_header(str_of(name), header) => 1,
        _ => 0,
    };
    let props = properties(node);
    let mut i = 0;
    while i < props.len() {
        n += count(&props[i].schema, header);
        i += 1;
    }
    n
}

/// Whether the schema `root` (its `$defs` entries included) carries any `x-mcp-header`.
pub(crate) fn annotated(root: &SchemaNode) -> bool {
    anywhere(root)
}

/// Whether any node of the tree rooted at `node` (not following `$ref`s) is annotated.
const fn anywhere(node: &SchemaNode) -> bool {
    if node.mcp_header.is_some() || defs_annotated(node) {
        return true;
    }
    let props = properties(node);
    let mut i = 0;
    while i < props.len() {
        if anywhere(&props[i].schema) {
            return true;
        }
        i += 1;
    }
    if let Some(items) = &node.items
        && anywhere(deref(items))
    {
        return true;
    }
    if let Some(AdditionalProperties::Schema(values)) = &node.additional_properties
        && anywhere(deref(values))
    {
        return true;
    }
    let b = branches(node);
    let mut i = 0;
    while i < b.len() {
        if anywhere(&b[i]) {
            return true;
        }
        i += 1;
    }
    false
}

#[allow(clippy::ptr_arg, reason = "`Cow::deref` is not `const`")]
const fn str_of(s: &Str) -> &str {
    match s {
        std::borrow::Cow::Borrowed(s) => s,
        std::borrow::Cow::Owned(s) => s.as_str(),
    }
}

/// One argument mirrored into a header: where it is in the arguments, and the header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ParamHeader {
    /// The property names from the root to the argument.
    pub(crate) path: Box<[Box<str>]>,
    /// The header is `Mcp-Param-{name}`.
    pub(crate) name: Box<str>,
}

/// Every argument of the argsSchema `root` a client mirrors into a header, in schema order
/// (only those reached through `properties`, the ones [`problem`] allows).
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
    walk(root, &mut Vec::new(), &mut out);
    out
}
