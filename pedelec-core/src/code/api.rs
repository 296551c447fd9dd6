//! What a program sees: each tool it may call as a function, with the TypeScript signature
//! a model reads (`search_tools` answers it) and the path the program calls it by.

use std::time::Duration;

use crate::schema::typescript::{self, is_identifier};
use crate::search::Index;
use crate::session::mount::SessionLink;
use crate::tool::ToolDefinition;

/// What code mode's two tools share: the functions, their search index, the limits, and
/// the way back to the session.
pub(crate) struct Api {
    pub(crate) functions: Vec<Function>,
    /// Over `functions`, in the same order.
    pub(crate) index: Index,
    pub(crate) limits: Limits,
    pub(crate) link: SessionLink,
}

/// The limits a program runs under (`CodeMode`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) time: Duration,
    pub(crate) max_calls: u32,
    pub(crate) memory: usize,
    pub(crate) stack: usize,
    pub(crate) max_output: usize,
}

/// A tool as a program sees it.
#[derive(Clone, Debug)]
pub(crate) struct Function {
    /// The tool's wire name (`billing.refund_invoice`).
    pub(crate) name: String,
    /// The declaration a model reads: the tool's recursive types, its description as a doc
    /// comment, then `function <path>(args: {…}): Promise<…>;`.
    pub(crate) declaration: String,
}

/// The functions of the tools a program may call, in the skill set's order, each with its
/// declaration rendered here, when code mode is turned on (microseconds a tool), not by the
/// compiler: a build that never turns code mode on pays nothing for them.
pub(crate) fn functions(tools: &[ToolDefinition]) -> Vec<Function> {
    tools
        .iter()
        .filter(|def| def.callable_by_program())
        .map(|def| Function {
            name: def.name().to_owned(),
            declaration: declaration(def.name(), def.description(), &signature(def)),
        })
        .collect()
}

/// The tool's code-mode signature: the declarations of its recursive types, then `(args:
/// {…}): Promise<…>`, from its argsSchema and output schema.
pub(crate) fn signature(def: &ToolDefinition) -> String {
    let output = def
        .output_schema()
        .filter(|o| !o.is_content())
        .map(crate::output::OutputSchema::node);
    typescript::render(def.args_schema().node(), output)
}

/// How a program reaches the tool `name`: the name itself when each dotted part is an
/// identifier (`billing.refund_invoice`: names with dots are objects), else `tools["…"]`.
pub(crate) fn path(name: &str) -> String {
    if name.split('.').all(is_identifier) {
        name.to_owned()
    } else {
        format!("tools[{}]", serde_json::Value::from(name))
    }
}

/// `text` is a signature ([`signature`]): declarations (lines that start `type `, and their
/// members), then the signature proper, which starts with `(` at the start of a line.
fn declaration(name: &str, description: &str, text: &str) -> String {
    let split = if text.starts_with('(') {
        0
    } else {
        text.find("\n(").map_or(0, |i| i + 1)
    };
    let (types, signature) = text.split_at(split);
    let mut out = String::with_capacity(text.len() + description.len() + 32);
    out.push_str(types);
    out.push_str("/** ");
    let mut first = true;
    for word in description.split_whitespace() {
        if !first {
            out.push(' ');
        }
        first = false;
        out.push_str(&word.replace("*/", "*\\/"));
    }
    out.push_str(" */\nfunction ");
    out.push_str(&path(name));
    out.push_str(signature);
    out.push(';');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_names_or_lookups() {
        assert_eq!(path("billing.refund_invoice"), "billing.refund_invoice");
        assert_eq!(path("get-weather"), r#"tools["get-weather"]"#);
        assert_eq!(path("a.1b"), r#"tools["a.1b"]"#);
    }

    #[test]
    fn declarations_put_types_first_then_the_documented_function() {
        let text = "type Node = {\n  a: Node[];\n};\n(args: Node): Promise<unknown>";
        assert_eq!(
            declaration("walk", "Walk a\ntree. */", text),
            "type Node = {\n  a: Node[];\n};\n/** Walk a tree. *\\/ */\nfunction walk(args: Node): Promise<unknown>;"
        );
        assert_eq!(
            declaration("ping", "Ping.", "(): Promise<boolean>"),
            "/** Ping. */\nfunction ping(): Promise<boolean>;"
        );
    }
}
