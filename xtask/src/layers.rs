//! `cargo xtask layers`: checks that `pedelec-core`'s top-level modules form layers, each
//! using only the modules above it (no cycle, no reach upwards), as `pedelec-core/src/lib.rs`
//! lists them.
//!
//! Every `crate::…` path in the code (comments and strings aside, `use crate::{a::X, b}`
//! groups included) is an edge from the module of the file it is written in to the
//! top-level module it names. The crate root (`lib.rs`) may name every module.
//!
//! It also fails on a file-level cycle inside any module of the workspace's crates
//! (`cycles.rs`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// The layers, bottom first: a module may use the modules listed before it.
pub const LAYERS: &[&str] = &[
    "error",
    "schema",
    "output",
    "manifest",
    "context",
    "call",
    "tool",
    "store",
    "search",
    "skills",
    "contract",
    "macro_support",
    "session",
    "code",
    "export",
    "bridge",
];

/// One use of a module by another: where it is written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Edge {
    pub from: String,
    pub to: String,
    pub file: String,
    pub line: usize,
}

pub fn run(root: &Path) -> Result<(), String> {
    let src = root.join("pedelec-core/src");
    let edges = edges(&src)?;
    let mut summary: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for e in &edges {
        *summary.entry((&e.from, &e.to)).or_default() += 1;
    }
    println!("pedelec-core layers, bottom first: {}", LAYERS.join(" → "));
    for ((from, to), n) in &summary {
        println!("  {from} → {to} ({n})");
    }
    let mut problems = check(&edges);
    for krate in crate::cycles::CRATES {
        let shown = format!("{krate}/src");
        problems.push_str(&crate::cycles::check(&crate::cycles::sibling_edges(
            &root.join(krate).join("src"),
            &shown,
        )?));
    }
    if problems.is_empty() {
        println!(
            "ok: no cycle, every module uses only the layers below it, and no files inside a module name each other in a cycle"
        );
        Ok(())
    } else {
        Err(problems)
    }
}

/// Every violation, one per line (empty when the modules are layered).
pub fn check(edges: &[Edge]) -> String {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m);
    let mut out = String::new();
    let mut unknown = BTreeSet::new();
    for e in edges {
        match (rank(&e.from), rank(&e.to)) {
            (Some(from), Some(to)) if to < from => {}
            (Some(_), Some(_)) => {
                let _ = writeln!(
                    out,
                    "{}:{}: `{}` uses `{}`, which is not below it (layers: {})",
                    e.file,
                    e.line,
                    e.from,
                    e.to,
                    LAYERS.join(" → ")
                );
            }
            (from, to) => {
                for (m, r) in [(&e.from, from), (&e.to, to)] {
                    if r.is_none() && unknown.insert(m.clone()) {
                        let _ = writeln!(
                            out,
                            "{}:{}: module `{m}` is not in xtask's LAYERS: place it in a layer",
                            e.file, e.line
                        );
                    }
                }
            }
        }
    }
    out
}

/// The edges of every `.rs` file under `src` (the crate root's excepted).
pub fn edges(src: &Path) -> Result<Vec<Edge>, String> {
    let mut files = Vec::new();
    collect(src, &mut files)?;
    files.sort();
    let mut edges = Vec::new();
    for file in files {
        let rel = file.strip_prefix(src).unwrap_or(&file);
        let Some(first) = rel.components().next() else {
            continue;
        };
        let from = first
            .as_os_str()
            .to_string_lossy()
            .trim_end_matches(".rs")
            .to_owned();
        if from == "lib" {
            continue;
        }
        let text = std::fs::read_to_string(&file)
            .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let shown = format!("pedelec-core/src/{}", rel.display());
        for (to, line) in crate_paths(&code_only(&text)) {
            if to != from {
                edges.push(Edge {
                    from: from.clone(),
                    to,
                    file: shown.clone(),
                    line,
                });
            }
        }
    }
    Ok(edges)
}

/// Every `.rs` file below `dir`.
pub(crate) fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> Result<(), String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry.map_err(|e| e.to_string())?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|x| x == "rs") {
            out.push(path);
        }
    }
    Ok(())
}

/// `text` with comments and the contents of string and char literals blanked (newlines
/// kept, so line numbers stay right).
pub fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |c: u8| if c == b'\n' { b'\n' } else { b' ' };
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                out.push(b' ');
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    out.extend_from_slice(b"  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    out.push(blank(b[i]));
                    i += 1;
                }
            }
        } else if b[i] == b'r' && matches!(b.get(i + 1), Some(b'"' | b'#')) && !ident_before(b, i) {
            // A raw string: r"…", r#"…"#.
            let mut j = i + 1;
            while b.get(j) == Some(&b'#') {
                j += 1;
            }
            if b.get(j) != Some(&b'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let hashes = j - i - 1;
            out.resize(out.len() + (j + 1 - i), b' ');
            i = j + 1;
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            while i < b.len() && !b[i..].starts_with(&close) {
                out.push(blank(b[i]));
                i += 1;
            }
            out.resize(out.len() + close.len().min(b.len() - i), b' ');
            i += close.len();
        } else if b[i] == b'"' {
            out.push(b' ');
            i += 1;
            while i < b.len() && b[i] != b'"' {
                if b[i] == b'\\' && i + 1 < b.len() {
                    out.push(b' ');
                    i += 1;
                }
                out.push(blank(b[i]));
                i += 1;
            }
            out.push(b' ');
            i += 1;
        } else if b[i] == b'\'' {
            // A char literal ('a', '\n', '\u{..}') or a lifetime ('a).
            let end = if b.get(i + 1) == Some(&b'\\') {
                b[i + 2..]
                    .iter()
                    .position(|&c| c == b'\'')
                    .map(|p| i + 2 + p)
            } else if b.get(i + 2) == Some(&b'\'') {
                Some(i + 2)
            } else {
                None
            };
            match end {
                Some(end) => {
                    out.resize(out.len() + (end + 1 - i), b' ');
                    i = end + 1;
                }
                None => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The top-level modules named by `crate::…` paths in `code`, with their lines.
pub fn crate_paths(code: &str) -> Vec<(String, usize)> {
    let b = code.as_bytes();
    let line_of = |at: usize| 1 + code[..at].matches('\n').count();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("crate::") {
        let at = from + p;
        from = at + 7;
        if ident_before(b, at) {
            continue;
        }
        let rest = &code[from..];
        if let Some(group) = rest.strip_prefix('{') {
            // `crate::{a::X, b, c::{..}}`: the first segment of each top-level entry.
            let mut depth = 0usize;
            let mut entry_start = true;
            for (k, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => entry_start = true,
                    c if entry_start && (c.is_ascii_alphabetic() || c == '_') => {
                        entry_start = false;
                        let name: String = group[k..]
                            .chars()
                            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                            .collect();
                        out.push((name, line_of(from + 1 + k)));
                    }
                    _ => {}
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push((name, line_of(at)));
            }
        }
    }
    // Items of the root (`crate::Foo`, re-exports) are not modules: keep lower-case names.
    out.retain(|(name, _)| name.starts_with(|c: char| c.is_ascii_lowercase()));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_core_crate_is_layered() {
        let root = crate::workspace_root();
        let edges = edges(&root.join("pedelec-core/src")).unwrap();
        assert!(edges.len() > 20, "too few edges found: {edges:?}");
        let problems = check(&edges);
        assert!(problems.is_empty(), "{problems}");
    }

    #[test]
    fn paths_in_code_are_found_and_comments_and_strings_skipped() {
        let code = code_only(
            "use crate::a::X;\n// crate::b\n/* crate::c */ let s = \"crate::d\";\n\
             use crate::{e::Y, f, g::{h, i}};\nlet r = r#\"crate::j\"#; let c = '\"'; crate::k::z();\n\
             fn l<'a>(x: &'a str) {} crate::Root;",
        );
        let names: Vec<(String, usize)> = crate_paths(&code);
        assert_eq!(
            names,
            [
                ("a".to_owned(), 1),
                ("e".to_owned(), 4),
                ("f".to_owned(), 4),
                ("g".to_owned(), 4),
                ("k".to_owned(), 5),
            ]
        );
    }

    #[test]
    fn an_upward_use_and_an_unknown_module_are_reported() {
        let edge = |from: &str, to: &str| Edge {
            from: from.into(),
            to: to.into(),
            file: "f.rs".into(),
            line: 3,
        };
        assert!(check(&[edge("session", "call"), edge("call", "error")]).is_empty());
        let problems = check(&[edge("context", "call")]);
        assert!(
            problems.contains("f.rs:3: `context` uses `call`"),
            "{problems}"
        );
        let problems = check(&[edge("newmod", "error")]);
        assert!(
            problems.contains("module `newmod` is not in xtask's LAYERS"),
            "{problems}"
        );
    }
}
