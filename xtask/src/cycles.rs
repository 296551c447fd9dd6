//! File-level cycles inside a module: `cargo xtask layers` also fails when two files (or
//! folders) that are children of the same module name each other, directly or through a
//! chain of siblings (`bridge/mcp/{call,server}`: `call.rs` names `server`'s items while
//! `server.rs` names `call`'s).
//!
//! Every path written as `crate::…`, `super::…` or `self::…` (comments, strings and
//! `#[cfg(test)]` modules aside; `use` groups expanded) is resolved to the deepest module
//! file it reaches. An edge from file `a/b/c.rs` to `a/b/d/e.rs` is an edge between the
//! siblings `c` and `d` of module `a::b`. A child naming its parent (`super::Session`) or a
//! parent naming its child (`mod call; pub use call::X`) is not a sibling edge: a parent
//! module is its children's face, as `session/mod.rs` is. The crate root's children are
//! checked by the layers themselves.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

use crate::layers::{code_only, collect};

/// The crates whose files are checked, relative to the workspace root.
pub const CRATES: &[&str] = &["pedelec-core", "pedelec-rules", "pedelec-macros", "."];

/// One use of a sibling by a file, inside the module `parent`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SiblingEdge {
    /// The module whose children these are (`bridge::mcp`).
    pub parent: String,
    pub from: String,
    pub to: String,
    pub file: String,
    pub line: usize,
}

/// The module path of a source file relative to `src` (`a/b/mod.rs` → `[a, b]`,
/// `a/b/c.rs` → `[a, b, c]`, `lib.rs` → `[]`).
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if let Some(last) = parts.pop() {
        let stem = last.trim_end_matches(".rs");
        if !matches!(stem, "mod" | "lib" | "main") {
            parts.push(stem.to_owned());
        }
    }
    parts
}

/// Every sibling edge of the crate whose sources are under `src` (named `shown` in
/// messages, e.g. `pedelec-core/src`).
pub fn sibling_edges(src: &Path, shown: &str) -> Result<Vec<SiblingEdge>, String> {
    let mut files = Vec::new();
    collect(src, &mut files)?;
    files.sort();
    let modules: BTreeSet<Vec<String>> = files
        .iter()
        .map(|f| module_of(f.strip_prefix(src).unwrap_or(f)))
        .collect();
    let mut out = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(src).unwrap_or(file);
        let here = module_of(rel);
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let code = without_test_modules(&code_only(&text));
        for (path, line) in paths(&code) {
            let Some(target) = resolve(&here, &path, &modules) else {
                continue;
            };
            // The lowest common ancestor, and the two children of it on each side.
            let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == 0 || common >= here.len() || common >= target.len() {
                continue; // the crate root's children (layers), or parent and child
            }
            out.push(SiblingEdge {
                parent: here[..common].join("::"),
                from: here[common].clone(),
                to: target[common].clone(),
                file: format!("{shown}/{}", rel.display()),
                line,
            });
        }
    }
    out.sort();
    out.dedup_by(|a, b| a.parent == b.parent && a.from == b.from && a.to == b.to);
    Ok(out)
}

/// Every cycle among siblings, one block per cycle (empty when there is none).
pub fn check(edges: &[SiblingEdge]) -> String {
    let mut by_parent: BTreeMap<&str, Vec<&SiblingEdge>> = BTreeMap::new();
    for e in edges {
        by_parent.entry(&e.parent).or_default().push(e);
    }
    let mut out = String::new();
    for (parent, edges) in by_parent {
        for cycle in strongly_connected(&edges) {
            let _ = writeln!(
                out,
                "file-level cycle inside `{parent}`: {{{}}} name each other; move what they share into a leaf file, or invert one use:",
                cycle.iter().copied().collect::<Vec<_>>().join(", ")
            );
            for e in &edges {
                if cycle.contains(e.from.as_str()) && cycle.contains(e.to.as_str()) {
                    let _ = writeln!(out, "  {}:{}: `{}` uses `{}`", e.file, e.line, e.from, e.to);
                }
            }
        }
    }
    out
}

/// The strongly connected components with more than one member (Tarjan's algorithm).
fn strongly_connected<'a>(edges: &[&'a SiblingEdge]) -> Vec<BTreeSet<&'a str>> {
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for e in edges {
        next.entry(&e.from).or_default().insert(&e.to);
        next.entry(&e.to).or_default();
    }
    struct State<'a> {
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        found: Vec<BTreeSet<&'a str>>,
    }
    fn visit<'a>(v: &'a str, next: &BTreeMap<&'a str, BTreeSet<&'a str>>, s: &mut State<'a>) {
        let i = s.index.len();
        s.index.insert(v, i);
        s.low.insert(v, i);
        s.stack.push(v);
        s.on_stack.insert(v);
        for &w in &next[v] {
            if !s.index.contains_key(w) {
                visit(w, next, s);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.on_stack.contains(w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                s.on_stack.remove(w);
                component.insert(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for &v in next.keys() {
        if !state.index.contains_key(v) {
            visit(v, &next, &mut state);
        }
    }
    state.found
}

/// The module a path written in module `here` reaches: the deepest module file it names.
fn resolve(
    here: &[String],
    path: &[String],
    modules: &BTreeSet<Vec<String>>,
) -> Option<Vec<String>> {
    let mut base: Vec<String> = match path.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self") => here.to_vec(),
        Some("super") => {
            let mut base = here.to_vec();
            base.pop()?;
            base
        }
        _ => return None,
    };
    let mut rest = &path[1..];
    while rest.first().is_some_and(|s| s == "super") {
        base.pop()?;
        rest = &rest[1..];
    }
    let full: Vec<String> = base.iter().chain(rest).cloned().collect();
    (0..=full.len())
        .rev()
        .map(|n| full[..n].to_vec())
        .find(|m| modules.contains(m))
}

/// `code` without its `#[cfg(test)] mod … { … }` blocks (their `super` is the file itself).
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_owned();
    let mut from = 0;
    while let Some(p) = out[from..].find("#[cfg(test)]") {
        let at = from + p;
        let after = out[at + 12..].trim_start();
        let is_mod = after.starts_with("mod ") || after.starts_with("pub(crate) mod ");
        let open = out[at..].find(['{', ';']).map(|k| at + k);
        match (is_mod, open) {
            (true, Some(open)) if out.as_bytes()[open] == b'{' => {
                let mut depth = 0usize;
                let mut end = out.len();
                for (k, c) in out[open..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = open + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                // Byte for byte, so that the offsets after it stay right.
                let blanked: String = out[at..end]
                    .chars()
                    .map(|c| {
                        if c == '\n' {
                            "\n".to_owned()
                        } else {
                            " ".repeat(c.len_utf8())
                        }
                    })
                    .collect();
                out.replace_range(at..end, &blanked);
                from = end;
            }
            _ => from = at + 12,
        }
    }
    out
}

/// Every path that starts with `crate::`, `super::` or `self::`, with its line; `use`
/// groups (`super::{a::X, b::{self, Y}}`) give one path per leaf.
pub fn paths(code: &str) -> Vec<(Vec<String>, usize)> {
    let b = code.as_bytes();
    let line_of = |at: usize| 1 + code[..at].matches('\n').count();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let starts = ["crate::", "super::", "self::"]
            .iter()
            .find(|k| b[i..].starts_with(k.as_bytes()));
        let prefixed =
            i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] == b':');
        match starts {
            Some(_) if !prefixed => {
                let line = line_of(i);
                let mut leaves = Vec::new();
                let end = tree(code, i, Vec::new(), &mut leaves);
                out.extend(leaves.into_iter().map(|p| (p, line)));
                i = end.max(i + 1);
            }
            _ => i += 1,
        }
    }
    out
}

/// Reads one path or use tree at `at`, pushing each leaf (prefixed by `prefix`) to
/// `leaves`; returns where it ends.
fn tree(
    code: &str,
    mut at: usize,
    mut prefix: Vec<String>,
    leaves: &mut Vec<Vec<String>>,
) -> usize {
    let b = code.as_bytes();
    let skip_ws = |mut k: usize| {
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        k
    };
    loop {
        at = skip_ws(at);
        if b.get(at) == Some(&b'{') {
            at += 1;
            loop {
                at = skip_ws(at);
                match b.get(at) {
                    Some(b'}') => return at + 1,
                    Some(b',') => at += 1,
                    Some(_) => {
                        let before = at;
                        at = tree(code, at, prefix.clone(), leaves);
                        if at == before {
                            return at;
                        }
                    }
                    None => return at,
                }
            }
        }
        let start = at;
        while at < b.len() && (b[at].is_ascii_alphanumeric() || b[at] == b'_') {
            at += 1;
        }
        if at == start {
            if !prefix.is_empty() {
                leaves.push(prefix);
            }
            return at;
        }
        let segment = &code[start..at];
        if segment != "self" || prefix.is_empty() {
            prefix.push(segment.to_owned());
        }
        let next = skip_ws(at);
        if code[next..].starts_with("::") {
            at = next + 2;
        } else {
            leaves.push(prefix);
            return at;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|x| (*x).to_owned()).collect()
    }

    #[test]
    fn use_trees_give_one_path_per_leaf() {
        let code =
            "use super::{call::{self, CallSettings}, meta::X};\nlet y = crate::a::b(); self::c::D;";
        let found: Vec<Vec<String>> = paths(code).into_iter().map(|(p, _)| p).collect();
        assert_eq!(
            found,
            [
                s(&["super", "call"]),
                s(&["super", "call", "CallSettings"]),
                s(&["super", "meta", "X"]),
                s(&["crate", "a", "b"]),
                s(&["self", "c", "D"]),
            ]
        );
    }

    #[test]
    fn paths_resolve_to_the_deepest_module_file() {
        let modules: BTreeSet<Vec<String>> = [
            vec![],
            s(&["bridge"]),
            s(&["bridge", "mcp"]),
            s(&["bridge", "mcp", "call"]),
            s(&["bridge", "mcp", "server"]),
        ]
        .into_iter()
        .collect();
        let here = s(&["bridge", "mcp", "call"]);
        assert_eq!(
            resolve(&here, &s(&["super", "server", "Inner"]), &modules),
            Some(s(&["bridge", "mcp", "server"]))
        );
        assert_eq!(
            resolve(&here, &s(&["crate", "bridge", "mcp", "Mcp"]), &modules),
            Some(s(&["bridge", "mcp"]))
        );
        assert_eq!(
            resolve(&here, &s(&["super", "super", "super", "super"]), &modules),
            None
        );
    }

    #[test]
    fn a_cycle_among_siblings_is_reported_and_a_parent_is_not_a_sibling() {
        let edge = |from: &str, to: &str| SiblingEdge {
            parent: "bridge::mcp".into(),
            from: from.into(),
            to: to.into(),
            file: format!("src/bridge/mcp/{from}.rs"),
            line: 7,
        };
        assert!(check(&[edge("call", "wire"), edge("server", "call")]).is_empty());
        let problems = check(&[
            edge("call", "server"),
            edge("server", "tasks"),
            edge("tasks", "call"),
        ]);
        assert!(
            problems.contains("inside `bridge::mcp`: {call, server, tasks}"),
            "{problems}"
        );
        assert!(
            problems.contains("src/bridge/mcp/tasks.rs:7: `tasks` uses `call`"),
            "{problems}"
        );
        let code = "#[cfg(test)]\nmod tests {\n    use super::*;\n    fn f() { super::x::Y; }\n}\n";
        assert!(paths(&without_test_modules(code)).is_empty());
    }

    #[test]
    fn no_crate_has_a_file_level_cycle() {
        let root = crate::workspace_root();
        let mut problems = String::new();
        for krate in CRATES {
            let edges =
                sibling_edges(&root.join(krate).join("src"), &format!("{krate}/src")).unwrap();
            problems.push_str(&check(&edges));
        }
        assert!(problems.is_empty(), "{problems}");
    }
}
