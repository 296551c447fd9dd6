//! Doc comments as descriptions.
//!
//! A description is read by a model, not rendered by rustdoc, so the comment's hard line
//! wraps are undone: the lines of a paragraph are joined with a space, and paragraphs are
//! separated by a blank line (`\n\n`). Markdown structure that depends on line starts is
//! kept on its own line: list items, headings, block quotes, table rows, hard breaks
//! (two trailing spaces or `\`), indented and fenced code blocks (kept verbatim).

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The description written in the doc comments among `attrs`, if any.
///
/// `#[doc = …]` attributes whose value is not a string literal (`include_str!(…)`) are
/// skipped: the macro cannot read them.
pub fn description(attrs: &[Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        if let Meta::NameValue(nv) = &attr.meta
            && let Expr::Lit(ExprLit {
                lit: Lit::Str(s), ..
            }) = &nv.value
        {
            for line in s.value().split('\n') {
                let line = line.trim_end_matches('\r');
                let trimmed = line.trim_end();
                // Markdown's hard break (two trailing spaces) becomes a trailing `\`.
                if line.ends_with("  ") && !trimmed.is_empty() {
                    lines.push(format!("{trimmed}\\"));
                } else {
                    lines.push(trimmed.to_owned());
                }
            }
        }
    }
    reflow(&unindent(&lines))
}

/// Removes the indentation common to every non-blank line (the space after `///`).
fn unindent(lines: &[String]) -> Vec<&str> {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    lines
        .iter()
        .map(|l| {
            if l.trim().is_empty() {
                ""
            } else {
                &l[indent..]
            }
        })
        .collect()
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// A line that must start on a new line: a list item, heading, quote, table row, or an
/// indented code line.
fn starts_block(line: &str) -> bool {
    if line.starts_with("    ") || line.starts_with('\t') {
        return true;
    }
    let t = line.trim_start();
    if t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") {
        return true;
    }
    if t.starts_with('#') || t.starts_with('>') || t.starts_with('|') {
        return true;
    }
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
}

fn reflow(lines: &[&str]) -> Option<String> {
    let mut out = String::new();
    // What separates the next line from the text so far.
    let mut pending: Option<&str> = None;
    let mut in_fence = false;
    let mut previous_forces_break = false;
    for &line in lines {
        if in_fence {
            out.push('\n');
            out.push_str(line);
            if is_fence(line) {
                in_fence = false;
                previous_forces_break = true;
            }
            continue;
        }
        if line.is_empty() {
            if !out.is_empty() {
                pending = Some("\n\n");
            }
            continue;
        }
        if !out.is_empty() {
            let separator = pending.take().unwrap_or(
                if previous_forces_break || starts_block(line) || is_fence(line) {
                    "\n"
                } else {
                    " "
                },
            );
            out.push_str(separator);
        }
        pending = None;
        if is_fence(line) {
            in_fence = true;
            out.push_str(line);
            continue;
        }
        let code = line.starts_with("    ") || line.starts_with('\t');
        let hard_break = line.ends_with('\\');
        let text = if code {
            line
        } else if out.ends_with(' ') || out.is_empty() || out.ends_with('\n') {
            line.trim_start()
        } else {
            line
        };
        out.push_str(text.strip_suffix('\\').unwrap_or(text));
        let t = line.trim_start();
        previous_forces_break = code || hard_break || t.starts_with('#') || t.starts_with('|');
    }
    let out = out.trim().to_owned();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(lines: &[&str]) -> Option<String> {
        let attrs: Vec<Attribute> = lines
            .iter()
            .map(|l| syn::parse_quote!(#[doc = #l]))
            .collect();
        description(&attrs)
    }

    #[test]
    fn paragraphs_are_joined_and_separated() {
        assert_eq!(
            doc(&[
                " Update the counter",
                " by `delta`.",
                "",
                "",
                " Second paragraph."
            ])
            .as_deref(),
            Some("Update the counter by `delta`.\n\nSecond paragraph.")
        );
        assert_eq!(doc(&[]), None);
        assert_eq!(doc(&["", "   "]), None);
    }

    #[test]
    fn markdown_line_starts_are_kept() {
        assert_eq!(
            doc(&[
                " Modes:",
                " - `fast`: skips",
                "   the checks",
                " - `slow`",
                " 1. first",
                " # Heading",
                " text after",
            ])
            .as_deref(),
            Some("Modes:\n- `fast`: skips the checks\n- `slow`\n1. first\n# Heading\ntext after")
        );
        assert_eq!(
            doc(&[
                " Example:",
                " ```json",
                " {\"a\":",
                "   1}",
                " ```",
                " Done."
            ])
            .as_deref(),
            Some("Example:\n```json\n{\"a\":\n  1}\n```\nDone.")
        );
        assert_eq!(
            doc(&[" line one\\", " line two  ", " three"]).as_deref(),
            Some("line one\nline two\nthree")
        );
    }

    #[test]
    fn block_comments_are_unindented() {
        assert_eq!(
            doc(&["\n    The first line\n    and the second.\n  "]).as_deref(),
            Some("The first line and the second.")
        );
    }
}
