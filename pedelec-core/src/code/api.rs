//! What a program sees: each tool it may call as a function, with the TypeScript signature
//! a model reads (`search_tools` answers it) and the path the program calls it by.

use std::collections::HashSet;
use std::time::Duration;

use super::worker::Pool;
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
    /// The idle workers programs run in; none: programs run in process
    /// (`Isolation::InProcess`).
    pub(crate) pool: Option<Pool>,
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
    /// The dotted path a program calls it by (`["billing", "refund_invoice"]`), or none
    /// when only `tools["…"]` reaches it.
    pub(crate) path: Option<Vec<String>>,
}

/// The functions of the tools a program may call, in the skill set's order, each with its
/// declaration rendered here, when code mode is turned on (microseconds a tool), not by the
/// compiler: a build that never turns code mode on pays nothing for them. `globals` are the
/// names a program's globals already take (`interp::globals`).
pub(crate) fn functions(tools: &[ToolDefinition], globals: &[String]) -> Vec<Function> {
    let names: HashSet<&str> = (tools.iter())
        .filter(|def| def.callable_by_program())
        .map(ToolDefinition::name)
        .collect();
    tools
        .iter()
        .filter(|def| def.callable_by_program())
        .map(|def| {
            let path = dotted(def.name(), &names, globals);
            Function {
                name: def.name().to_owned(),
                declaration: declaration(
                    def.name(),
                    path.as_deref(),
                    def.description(),
                    &signature(def),
                ),
                path,
            }
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

/// The dotted path of the tool `name` (`billing.refund_invoice`: names with dots are
/// objects), when it has one that reaches it: each part an identifier, the first not a
/// global the program already has (`Math.solve` would be `Math`'s), and no shorter prefix
/// the name of another tool (`report.daily` where `report` is a function). Otherwise only
/// `tools["…"]` reaches it.
pub(crate) fn dotted(name: &str, tools: &HashSet<&str>, globals: &[String]) -> Option<Vec<String>> {
    let parts: Vec<&str> = name.split('.').collect();
    if !parts.iter().all(|p| is_identifier(p))
        || RESERVED.contains(&parts[0])
        || globals.iter().any(|g| g == parts[0])
    {
        return None;
    }
    let mut prefix = String::new();
    for part in &parts[..parts.len() - 1] {
        if !prefix.is_empty() {
            prefix.push('.');
        }
        prefix.push_str(part);
        if tools.contains(prefix.as_str()) {
            return None;
        }
    }
    Some(parts.into_iter().map(str::to_owned).collect())
}

/// JavaScript's reserved words and the names strict code may not bind: no global of a
/// program can be one (`new(...)` does not parse).
const RESERVED: &[&str] = &[
    "arguments",
    "await",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "eval",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "function",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "let",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "static",
    "super",
    "switch",
    "this",
    "throw",
    "true",
    "try",
    "typeof",
    "undefined",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// `text` is a signature ([`signature`]): declarations (lines that start `type `, and their
/// members), then the signature proper, which starts with `(` at the start of a line.
///
/// The declaration is valid TypeScript (a `.d.ts`), whatever the path: `declare function
/// ping(…)` for a plain name, `declare namespace billing { function refund(…) }` for a
/// dotted one (namespaces merge), and a member of the `Tools` interface (`declare var
/// tools: Tools`; interfaces merge) for a tool only `tools["…"]` reaches.
fn declaration(name: &str, path: Option<&[String]>, description: &str, text: &str) -> String {
    let split = if text.starts_with('(') {
        0
    } else {
        text.find("\n(").map_or(0, |i| i + 1)
    };
    let (types, signature) = text.split_at(split);
    let mut out = String::with_capacity(text.len() + description.len() + 64);
    out.push_str(types);
    let (open, indent, member, close) = match path {
        Some([function]) => (
            String::new(),
            "",
            format!("declare function {function}"),
            "",
        ),
        Some([namespace @ .., function]) => (
            format!("declare namespace {} {{\n", namespace.join(".")),
            "  ",
            format!("function {function}"),
            "\n}",
        ),
        _ => (
            "interface Tools {\n".to_owned(),
            "  ",
            serde_json::Value::from(name).to_string(),
            "\n}\ndeclare var tools: Tools;",
        ),
    };
    out.push_str(&open);
    out.push_str(indent);
    out.push_str("/** ");
    let mut first = true;
    for word in description.split_whitespace() {
        if !first {
            out.push(' ');
        }
        first = false;
        out.push_str(&word.replace("*/", "*\\/"));
    }
    out.push_str(" */\n");
    out.push_str(indent);
    out.push_str(&member);
    if indent.is_empty() {
        out.push_str(signature);
    } else {
        out.push_str(&signature.replace('\n', &format!("\n{indent}")));
    }
    out.push(';');
    out.push_str(close);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How a program calls the tool `name`: its dotted path, or `tools["…"]`.
    fn call_path(name: &str, dotted: Option<&[String]>) -> String {
        match dotted {
            Some(parts) => parts.join("."),
            None => format!("tools[{}]", serde_json::Value::from(name)),
        }
    }

    #[test]
    fn paths_are_names_or_lookups() {
        let tools: HashSet<&str> = [
            "report",
            "report.daily",
            "Math.solve",
            "billing.refund_invoice",
        ]
        .into();
        let globals = ["Math".to_owned(), "JSON".to_owned()];
        let path = |name: &str| call_path(name, dotted(name, &tools, &globals).as_deref());
        assert_eq!(path("billing.refund_invoice"), "billing.refund_invoice");
        assert_eq!(path("get-weather"), r#"tools["get-weather"]"#);
        assert_eq!(path("a.1b"), r#"tools["a.1b"]"#);
        // A global's namespace, another tool's name: only `tools[…]` reaches them.
        assert_eq!(path("Math.solve"), r#"tools["Math.solve"]"#);
        assert_eq!(path("JSON"), r#"tools["JSON"]"#);
        assert_eq!(path("report"), "report");
        assert_eq!(path("report.daily"), r#"tools["report.daily"]"#);
    }

    #[test]
    fn declarations_put_types_first_then_the_documented_function() {
        let text = "type Node = {\n  a: Node[];\n};\n(args: Node): Promise<unknown>";
        let path = |p: &[&str]| p.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            declaration("walk", Some(&path(&["walk"])), "Walk a\ntree. */", text),
            "type Node = {\n  a: Node[];\n};\n/** Walk a tree. *\\/ */\ndeclare function walk(args: Node): Promise<unknown>;"
        );
        assert_eq!(
            declaration(
                "ping",
                Some(&path(&["ping"])),
                "Ping.",
                "(): Promise<boolean>"
            ),
            "/** Ping. */\ndeclare function ping(): Promise<boolean>;"
        );
        assert_eq!(
            declaration(
                "a.b.ping",
                Some(&path(&["a", "b", "ping"])),
                "Ping.",
                "(args: {\n  x: number;\n}): Promise<boolean>"
            ),
            "declare namespace a.b {\n  /** Ping. */\n  function ping(args: {\n    x: number;\n  }): Promise<boolean>;\n}"
        );
        assert_eq!(
            declaration("get-weather", None, "Weather.", "(): Promise<unknown>"),
            "interface Tools {\n  /** Weather. */\n  \"get-weather\"(): Promise<unknown>;\n}\ndeclare var tools: Tools;"
        );
    }
}
