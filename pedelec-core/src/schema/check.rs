//! The structural checks of a schema node. One implementation serves both the JSON reader
//! ([`SchemaNode::from_json`]) and schemas built in code ([`SchemaNode::problems`]).

use pedelec_rules::constraint;
use serde_json::Value;

use super::compiled::{CompiledSchema, compile_pattern};
use super::json::{push_token, show, type_name};
use super::node::{SchemaKind, SchemaNode};
use crate::error::Problem;

/// Which checks apply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Checks {
    /// Tool schemas: `type` required (unless `oneOf`), keywords fitting the type, bounds
    /// ordered, `items` on arrays, `enum` values of the type, `default` valid, …
    Strict,
    /// Any JSON Schema made of the wire keywords: only what makes validation impossible
    /// (invalid `pattern`, `multipleOf` not positive).
    Lenient,
}

impl SchemaNode {
    /// Every structural problem of this schema under the strict rules of
    /// [`SchemaNode::from_json`] (empty when it is sound), each with a JSON pointer into the
    /// schema's wire form. Useful for schemas built in code: a hand-written constant can
    /// still have an invalid `pattern` or a `default` that does not match.
    #[must_use]
    pub fn problems(&self) -> Vec<Problem> {
        let resolved = self.resolved();
        let this = &*resolved;
        let mut problems = Vec::new();
        check_tree(this, &mut String::new(), Checks::Strict, &mut problems);
        for def in this.definitions() {
            let mut pointer = String::new();
            push_token(&mut pointer, "$defs");
            push_token(&mut pointer, def.name());
            check_tree(def.schema(), &mut pointer, Checks::Strict, &mut problems);
        }
        check_refs(this, &mut problems);
        problems
    }
}

/// Every `$ref` of the schema rooted at `root` must name one of its `$defs` entries, and
/// two entries of one name must be the same definition (two recursive types of one name,
/// from different modules, would otherwise be confused).
pub(crate) fn check_refs(root: &SchemaNode, problems: &mut Vec<Problem>) {
    let defs = root.definitions();
    let mut seen: Vec<&super::Def> = Vec::new();
    let mut all = Vec::new();
    all_defs(root, &mut all);
    for def in all {
        match seen.iter().find(|d| d.name() == def.name()) {
            Some(first) if first.schema() != def.schema() => problems.push(Problem::at(
                format!("/$defs/{}", def.name()),
                format!(
                    "two different types are both named `{}` in `$defs`; rename one of them",
                    def.name()
                ),
            )),
            Some(_) => {}
            None => seen.push(def),
        }
    }
    let mut walk = |node: &SchemaNode, pointer: &mut String| {
        refs_resolve(node, &defs, pointer, problems);
    };
    walk(root, &mut String::new());
    for def in &defs {
        let mut pointer = String::new();
        push_token(&mut pointer, "$defs");
        push_token(&mut pointer, def.name());
        walk(def.schema(), &mut pointer);
    }
}

/// Every `$defs` entry met anywhere (with repeats), to find two different ones of one name.
fn all_defs<'a>(node: &'a SchemaNode, out: &mut Vec<&'a super::Def>) {
    for def in node.defs() {
        if out.iter().any(|d| std::ptr::eq(*d, def)) {
            continue;
        }
        out.push(def);
        if out.iter().filter(|d| d.name() == def.name()).count() == 1 {
            all_defs(def.schema(), out);
        }
    }
    for child in children(node) {
        all_defs(child, out);
    }
}

fn children(node: &SchemaNode) -> impl Iterator<Item = &SchemaNode> {
    node.items()
        .into_iter()
        .chain(node.properties().iter().map(super::Property::schema))
        .chain(match node.additional_properties() {
            Some(super::node::AdditionalProperties::Schema(s)) => Some(&**s),
            _ => None,
        })
        .chain(node.one_of_branches().unwrap_or(&[]).iter())
}

fn refs_resolve(
    node: &SchemaNode,
    defs: &[&super::Def],
    pointer: &mut String,
    problems: &mut Vec<Problem>,
) {
    if let Some(name) = node.reference_name()
        && !defs.iter().any(|d| d.name() == name)
    {
        let mut at = pointer.clone();
        push_token(&mut at, "$ref");
        problems.push(Problem::at(
            at,
            format!("`$ref` names \"#/$defs/{name}\", which is not an entry of the root's `$defs`"),
        ));
    }
    let len = pointer.len();
    if let Some(items) = node.items() {
        push_token(pointer, "items");
        refs_resolve(items, defs, pointer, problems);
        pointer.truncate(len);
    }
    for p in node.properties() {
        push_token(pointer, "properties");
        push_token(pointer, p.name());
        refs_resolve(p.schema(), defs, pointer, problems);
        pointer.truncate(len);
    }
    if let Some(super::node::AdditionalProperties::Schema(s)) = node.additional_properties() {
        push_token(pointer, "additionalProperties");
        refs_resolve(s, defs, pointer, problems);
        pointer.truncate(len);
    }
    for (i, b) in node.one_of_branches().unwrap_or(&[]).iter().enumerate() {
        push_token(pointer, "oneOf");
        push_token(pointer, &i.to_string());
        refs_resolve(b, defs, pointer, problems);
        pointer.truncate(len);
    }
}

/// Checks a whole tree, children first (the order of [`SchemaNode::from_json`]).
pub(crate) fn check_tree(
    node: &SchemaNode,
    pointer: &mut String,
    checks: Checks,
    problems: &mut Vec<Problem>,
) {
    let before = problems.len();
    let len = pointer.len();
    if let Some(items) = node.items() {
        push_token(pointer, "items");
        check_tree(items, pointer, checks, problems);
        pointer.truncate(len);
    }
    for p in node.properties() {
        push_token(pointer, "properties");
        push_token(pointer, p.name());
        check_tree(p.schema(), pointer, checks, problems);
        pointer.truncate(len);
    }
    if let Some(super::node::AdditionalProperties::Schema(schema)) = node.additional_properties() {
        push_token(pointer, "additionalProperties");
        check_tree(schema, pointer, checks, problems);
        pointer.truncate(len);
    }
    for (i, branch) in node.one_of_branches().unwrap_or(&[]).iter().enumerate() {
        push_token(pointer, "oneOf");
        push_token(pointer, &i.to_string());
        check_tree(branch, pointer, checks, problems);
        pointer.truncate(len);
    }
    let sound = problems.len() == before;
    check_local(node, pointer, checks, false, sound, problems);
}

/// The checks of one node (its children were checked already).
///
/// `kind_explained`: a missing kind was already explained by another problem of the JSON
/// (an unknown `type`, a malformed `oneOf`, an unsupported keyword such as `$ref`). `subtree_sound`: no problem was found below or in this node so far, so
/// the node can be compiled to check its `default`.
pub(crate) fn check_local(
    node: &SchemaNode,
    pointer: &str,
    checks: Checks,
    kind_explained: bool,
    subtree_sound: bool,
    problems: &mut Vec<Problem>,
) {
    // `keyword` is a keyword or `enum/<index>`: nothing to escape.
    let mut report = |keyword: &str, message: String| {
        let mut pointer = pointer.to_owned();
        if !keyword.is_empty() {
            pointer.push('/');
            pointer.push_str(keyword);
        }
        problems.push(Problem::at(pointer, message));
    };

    let strict = checks == Checks::Strict;
    if strict {
        check_kind(node, kind_explained, &mut report);
    }

    if let Some(pattern) = node.pattern()
        && let Err(e) = compile_pattern(pattern)
    {
        report("pattern", format!("invalid regular expression: {e}"));
    }
    if let Some(n) = node.multiple_of()
        && let Err(problem) = constraint::check_multiple_of(n)
    {
        report(problem.keyword().wire(), problem.to_string());
    }
    if !strict {
        return;
    }

    if let Some(values) = node.enum_values() {
        if values.is_empty() {
            report("enum", "`enum` must list at least one value".to_owned());
        }
        if let Some(kind) = node.kind() {
            for (i, value) in values.iter().enumerate() {
                let value = value.to_value();
                if !fits(kind, &value) {
                    report(
                        &format!("enum/{i}"),
                        format!(
                            "{} is not {}; every `enum` value must match the schema's `type`",
                            show(&value),
                            article(kind),
                        ),
                    );
                }
            }
        }
    }
    if node.one_of_branches().is_some_and(<[SchemaNode]>::is_empty) {
        report("oneOf", "`oneOf` must list at least one branch".to_owned());
    }

    for rule in [
        constraint::check_lengths(node.min_length(), node.max_length()),
        constraint::check_item_counts(node.min_items(), node.max_items()),
        constraint::check_range(&node.range(), node.kind() == Some(SchemaKind::Integer)),
    ] {
        if let Err(problem) = rule {
            report(problem.keyword().wire(), problem.to_string());
        }
    }

    if !node.required_extra.is_empty() {
        for name in node.required_extra.iter() {
            report(
                "required",
                format!(
                    "`required` names {}, which is not in `properties`; add the property or remove the name",
                    show(&Value::String(name.to_string()))
                ),
            );
        }
    }

    if subtree_sound
        && let Some(default) = node.default_value()
        && let Ok(compiled) = CompiledSchema::compile(node)
        && let Err(errors) = compiled.validate(&default.to_value())
    {
        let list = errors
            .errors()
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        report(
            "default",
            format!("`default` does not match the schema: {list}"),
        );
    }
}

/// `type` and which keywords may sit beside it.
fn check_kind(node: &SchemaNode, kind_explained: bool, report: &mut impl FnMut(&str, String)) {
    let present = present_keywords(node);
    match (node.kind(), node.one_of_branches()) {
        (None, None) => {
            if !kind_explained && node.reference_name().is_none() {
                report(
                    "",
                    "missing `type`; write one of \"string\", \"number\", \"integer\", \"boolean\", \"array\", \"object\", or list alternatives with `oneOf`".to_owned(),
                );
            }
        }
        (Some(_), Some(_)) => report(
            "oneOf",
            "`oneOf` cannot be combined with `type`; give each branch its own `type`".to_owned(),
        ),
        (None, Some(_)) => {
            for keyword in present {
                if !matches!(keyword, "description" | "default" | "oneOf") {
                    report(
                        keyword,
                        format!("`{keyword}` cannot sit beside `oneOf`; move it into each branch"),
                    );
                }
            }
        }
        (Some(kind), None) => {
            for keyword in present {
                if let Some(message) = misplaced(keyword, kind) {
                    report(keyword, message);
                }
            }
            if kind == SchemaKind::Array && node.items().is_none() {
                report(
                    "",
                    "an array schema needs `items`, the schema of its elements".to_owned(),
                );
            }
        }
    }
}

/// The keywords a node carries, in wire order.
fn present_keywords(node: &SchemaNode) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut add = |on: bool, keyword: &'static str| {
        if on {
            out.push(keyword);
        }
    };
    add(node.description().is_some(), "description");
    add(node.enum_values().is_some(), "enum");
    add(node.default_value().is_some(), "default");
    add(node.format().is_some(), "format");
    add(node.min_length().is_some(), "minLength");
    add(node.max_length().is_some(), "maxLength");
    add(node.pattern().is_some(), "pattern");
    add(node.minimum().is_some(), "minimum");
    add(node.maximum().is_some(), "maximum");
    add(node.exclusive_minimum().is_some(), "exclusiveMinimum");
    add(node.exclusive_maximum().is_some(), "exclusiveMaximum");
    add(node.multiple_of().is_some(), "multipleOf");
    add(node.items().is_some(), "items");
    add(node.min_items().is_some(), "minItems");
    add(node.max_items().is_some(), "maxItems");
    add(node.unique_items().is_some(), "uniqueItems");
    add(node.properties.is_some(), "properties");
    add(node.required().next().is_some(), "required");
    add(
        node.additional_properties().is_some(),
        "additionalProperties",
    );
    add(node.one_of_branches().is_some(), "oneOf");
    add(node.mcp_header().is_some(), "x-mcp-header");
    out
}

/// Why `keyword` does not fit a node of `kind`, or `None` when it does.
fn misplaced(keyword: &str, kind: SchemaKind) -> Option<String> {
    use SchemaKind::*;
    let (fits, applies_to) = match keyword {
        "format" | "minLength" | "maxLength" | "pattern" => (kind == String, "string"),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            (kind.is_numeric(), "number and integer")
        }
        "items" | "minItems" | "maxItems" | "uniqueItems" => (kind == Array, "array"),
        "properties" | "required" | "additionalProperties" => (kind == Object, "object"),
        "x-mcp-header" => (
            matches!(kind, String | Integer | Boolean),
            "string, integer and boolean",
        ),
        _ => (true, ""),
    };
    if fits {
        return None;
    }
    let instead = match (keyword, kind) {
        ("minLength" | "minimum", Array) => Some("`minItems`"),
        ("maxLength" | "maximum", Array) => Some("`maxItems`"),
        ("minItems" | "minimum", String) => Some("`minLength`"),
        ("maxItems" | "maximum", String) => Some("`maxLength`"),
        ("format", Integer | Number) => Some("`minimum` and `maximum` for the range"),
        _ => None,
    };
    let mut message = format!(
        "`{keyword}` applies to {applies_to} schemas, not to {} ones",
        kind.as_str()
    );
    if let Some(instead) = instead {
        message.push_str("; use ");
        message.push_str(instead);
    }
    Some(message)
}

/// Whether a value has the JSON type of `kind`.
fn fits(kind: SchemaKind, value: &Value) -> bool {
    match kind {
        SchemaKind::Number => value.is_number(),
        SchemaKind::Integer => type_name(value) == "integer",
        SchemaKind::String => value.is_string(),
        SchemaKind::Boolean => value.is_boolean(),
        SchemaKind::Array => value.is_array(),
        SchemaKind::Object => value.is_object(),
    }
}

fn article(kind: SchemaKind) -> &'static str {
    match kind {
        SchemaKind::String => "a string",
        SchemaKind::Number => "a number",
        SchemaKind::Integer => "an integer",
        SchemaKind::Boolean => "a boolean",
        SchemaKind::Array => "an array",
        SchemaKind::Object => "an object",
    }
}
