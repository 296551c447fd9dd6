//! The validated model of a `skills![]` invocation: the enum's declaration, the guidance,
//! and the tools with their variant names, checked for duplicates and emptiness. Entries
//! that cannot be generated (a duplicate) are reported and left out, so the rest of the
//! skill set is still generated.

use proc_macro2::Span;
use quote::ToTokens;
use syn::ext::IdentExt;
use syn::{Attribute, Expr, Ident, Visibility};

use super::parse::{Header, Keys};
use crate::util::Errors;

/// One skill set.
pub struct SkillSet {
    /// The enum's attributes (its doc comment, when given).
    pub attrs: Vec<Attribute>,
    /// The enum's visibility.
    pub vis: Visibility,
    /// The enum's name.
    pub ident: Ident,
    /// The guidance; `None` only in a fallback.
    pub guidance: Option<Expr>,
    /// The tools, in declaration order.
    pub tools: Vec<Tool>,
    /// `namespace = "…"` (checked): the tools' wire names are `namespace.name`.
    pub namespace: Option<syn::LitStr>,
    /// The skill sets composed into this one (`include = [...]`), in order.
    pub includes: Vec<Include>,
    /// The providers every tool is checked against at compile time.
    pub targets: Vec<(Ident, pedelec_rules::provider::Provider)>,
}

/// One skill set included in a composed one.
pub struct Include {
    /// The path to its enum.
    pub path: syn::Path,
    /// The variant that holds its tools (`Billing(billing::ToolName)`).
    pub variant: Ident,
    /// The path as written, for messages.
    pub display: String,
}

/// One tool of the set.
pub struct Tool {
    /// The path to the `#[tool]` function (its type, in the type namespace).
    pub path: syn::Path,
    /// The enum variant.
    pub variant: Ident,
    /// The path as written (`counter::update`), for messages.
    pub display: String,
}

impl SkillSet {
    /// Builds the model, recording problems.
    pub fn new(header: Option<Header>, keys: Keys, errors: &mut Errors) -> Self {
        let (attrs, vis, ident) = match header {
            Some(h) => (h.attrs, h.vis, h.ident),
            None => (
                Vec::new(),
                syn::parse_quote!(pub),
                Ident::new("ToolName", Span::call_site()),
            ),
        };
        let mut tools: Vec<Tool> = Vec::new();
        let composed = keys.include.as_ref().is_some_and(|(e, _)| !e.is_empty());
        if let Some((entries, brackets)) = keys.tools {
            if entries.is_empty() && !composed {
                errors.at_span(
                    brackets,
                    "`tools` is empty; list the skill set's `#[tool]` functions, like \
                     `tools = [get_current_page, update_counter]`",
                );
            }
            for entry in entries {
                let display = path_string(&entry.path);
                if let Some(earlier) = tools.iter().find(|t| t.display == display) {
                    errors.at(
                        &entry.path,
                        format!(
                            "`{display}` is listed twice in `tools`; remove this entry \
                             (it is already `{ident}::{}`)",
                            earlier.variant
                        ),
                    );
                    continue;
                }
                let Some(variant) = variant(&entry.path, entry.rename, &ident, errors) else {
                    continue;
                };
                if let Some(earlier) = tools.iter().find(|t| t.variant == variant) {
                    let suggestion = suggested_variant(&entry.path);
                    errors.at(
                        &variant,
                        format!(
                            "duplicate variant `{ident}::{variant}`: `{}` and `{display}` both \
                             become it; rename one with `as`, like `{display} as {suggestion}`",
                            earlier.display
                        ),
                    );
                    continue;
                }
                tools.push(Tool {
                    path: entry.path,
                    variant,
                    display,
                });
            }
        }
        let mut includes: Vec<Include> = Vec::new();
        let include = keys.include.map_or_else(Vec::new, |(entries, brackets)| {
            if entries.is_empty() {
                errors.at_span(
                    brackets,
                    "`include` is empty; list the skill sets to compose, like \
                     `include = [billing::ToolName, crm::ToolName]`, or remove it",
                );
            }
            entries
        });
        for entry in include {
            let display = path_string(&entry.path);
            if includes.iter().any(|i| i.display == display) {
                errors.at(
                    &entry.path,
                    format!("`{display}` is listed twice in `include`; remove this entry"),
                );
                continue;
            }
            let Some(variant) = include_variant(&entry.path, entry.rename, &ident, errors) else {
                continue;
            };
            let earlier = tools
                .iter()
                .map(|t| (&t.variant, &t.display))
                .chain(includes.iter().map(|i| (&i.variant, &i.display)))
                .find(|(v, _)| **v == variant);
            if let Some((_, earlier)) = earlier {
                errors.at(
                    &variant,
                    format!(
                        "duplicate variant `{ident}::{variant}`: `{earlier}` and `{display}` both \
                         become it; rename one with `as`, like `{display} as {variant}Set`"
                    ),
                );
                continue;
            }
            includes.push(Include {
                path: entry.path,
                variant,
                display,
            });
        }
        let namespace = keys
            .namespace
            .filter(|lit| check_namespace(lit, !includes.is_empty(), errors));
        SkillSet {
            attrs,
            vis,
            ident,
            guidance: keys.guidance,
            tools,
            namespace,
            includes,
            targets: keys.targets,
        }
    }
}

/// Whether `namespace = "…"` is usable: one segment of a tool name (ASCII letters, digits,
/// `_` and `-`, starting with a letter), on a set that composes none. Reports why not.
fn check_namespace(lit: &syn::LitStr, composed: bool, errors: &mut Errors) -> bool {
    let value = lit.value();
    if composed {
        errors.at(
            lit,
            "a composed set (`include = [...]`) takes no `namespace`: give each included set \
             its own (`skills![namespace = \"…\", …]`), and this set's own tools keep their names",
        );
        return false;
    }
    let problem = match pedelec_rules::check_tool_name(&value) {
        Err(problem) => Some(problem.to_string().replacen("tool name", "namespace", 1)),
        Ok(()) if value.contains('.') => Some(format!(
            "namespace {value:?} must be one segment: it is joined to each tool's name with `.`"
        )),
        Ok(()) => None,
    };
    let Some(problem) = problem else {
        return true;
    };
    let suggestion = pedelec_rules::suggest_tool_name(&value.replace('.', "_"))
        .map(|s| format!("; try `namespace = {s:?}`"))
        .unwrap_or_default();
    errors.at(lit, format!("{problem}{suggestion}"));
    false
}

/// The variant of an included set: its `as` name, or the module it is in, in `PascalCase`
/// (`billing::ToolName` → `Billing`), or the enum's own name when it is named alone.
fn include_variant(
    path: &syn::Path,
    rename: Option<Ident>,
    enum_ident: &Ident,
    errors: &mut Errors,
) -> Option<Ident> {
    if let Some(rename) = rename {
        return Some(rename);
    }
    let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
    let from = match segments.as_slice() {
        [.., module, _]
            if module.ident != "crate" && module.ident != "self" && module.ident != "super" =>
        {
            &module.ident
        }
        [.., last] => &last.ident,
        [] => return None,
    };
    let pascal = pascal_case(&from.unraw().to_string());
    match syn::parse_str::<Ident>(&pascal) {
        Ok(_) if *enum_ident != pascal => Some(Ident::new(&pascal, from.span())),
        _ => {
            let display = path_string(path);
            errors.at(
                path,
                format!(
                    "cannot name the `{enum_ident}` variant of `{display}` after `{from}`; name it \
                     with `as`, like `{display} as Billing`"
                ),
            );
            None
        }
    }
}

/// The variant of an entry: its `as` name, or the function's name in `PascalCase`, spanned
/// at the tokens it comes from.
fn variant(
    path: &syn::Path,
    rename: Option<Ident>,
    enum_ident: &Ident,
    errors: &mut Errors,
) -> Option<Ident> {
    if let Some(rename) = rename {
        return Some(rename);
    }
    let last = &path.segments.last()?.ident;
    let pascal = pascal_case(&last.unraw().to_string());
    match syn::parse_str::<Ident>(&pascal) {
        // A keyword (`Self`) or nothing at all (`_`) does not parse.
        Ok(_) => Some(Ident::new(&pascal, last.span())),
        _ => {
            errors.at(
                path,
                format!(
                    "cannot name the `{enum_ident}` variant of `{last}` after it (`{pascal}` is \
                     not a usable name); name it with `as`, like `{last} as MyTool`"
                ),
            );
            None
        }
    }
}

/// `get_current_page` → `GetCurrentPage`; `getCurrentPage` → `GetCurrentPage`.
pub fn pascal_case(name: &str) -> String {
    name.split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_uppercase().chain(chars).collect::<String>()
            })
        })
        .collect()
}

/// A variant name for a renamed duplicate: the whole path in `PascalCase`
/// (`counter::update_counter` → `CounterUpdateCounter`).
fn suggested_variant(path: &syn::Path) -> String {
    path.segments
        .iter()
        .map(|s| pascal_case(&s.ident.unraw().to_string()))
        .collect()
}

/// The path as written, `::`-separated.
pub fn path_string(path: &syn::Path) -> String {
    let mut out = String::new();
    if path.leading_colon.is_some() {
        out.push_str("::");
    }
    for (i, segment) in path.segments.iter().enumerate() {
        if i > 0 {
            out.push_str("::");
        }
        out.push_str(&segment.ident.to_token_stream().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_names() {
        assert_eq!(pascal_case("get_current_page"), "GetCurrentPage");
        assert_eq!(pascal_case("getCurrentPage"), "GetCurrentPage");
        assert_eq!(pascal_case("__open_url2_x"), "OpenUrl2X");
        assert_eq!(pascal_case("écrire"), "Écrire");
        assert_eq!(pascal_case("_"), "");
        let path: syn::Path = syn::parse_quote!(counter::update_counter);
        assert_eq!(suggested_variant(&path), "CounterUpdateCounter");
        assert_eq!(path_string(&path), "counter::update_counter");
        let path: syn::Path = syn::parse_quote!(::a::r#type);
        assert_eq!(path_string(&path), "::a::r#type");
    }
}
