//! Tool names as each provider accepts them. OpenAI and Anthropic reject `.` (their names
//! match `^[a-zA-Z0-9_-]+$`): it becomes `_`. The map is deterministic, and reversible
//! through the [`Export`](super::Export), which keeps both names; two tools whose provider
//! names collide are an error, never a silent shadowing.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use pedelec_rules::provider::{Provider, check_name, provider_byte, provider_names_collide};

use super::problem;
use crate::error::Problem;
use crate::manifest::SerializableSkillsManifest;

/// The provider name of a tool name (a Pedelec name is ASCII).
pub(crate) fn provider_name(provider: Provider, name: &str) -> String {
    name.bytes()
        .map(|b| char::from(provider_byte(provider, b)))
        .collect()
}

/// The provider name of the function `name` of the OpenAI Responses namespace `space` (a
/// call names both): `billing` and `refund_invoice` are `billing_refund_invoice`, as the
/// export names the tool `billing.refund_invoice`. [`inner_name`] is its inverse.
pub(crate) fn namespaced(space: &str, name: &str) -> String {
    format!("{space}_{name}")
}

/// The name of a namespaced tool inside its OpenAI namespace: its provider name after the
/// namespace (`billing_refund_invoice` in `billing` is `refund_invoice`).
pub(crate) fn inner_name(provider_name: &str, namespace: &str) -> String {
    provider_name
        .get(namespace.len() + 1..)
        .unwrap_or(provider_name)
        .to_owned()
}

/// `(tool name, provider name)` for every tool, recording invalid names and collisions.
pub(crate) fn map(
    provider: Provider,
    manifest: &SerializableSkillsManifest,
    problems: &mut Vec<Problem>,
) -> Vec<(String, String)> {
    let mut names: Vec<(String, String)> = Vec::with_capacity(manifest.tools.len());
    for tool in &manifest.tools {
        if let Err(p) = pedelec_rules::check_tool_name(&tool.name) {
            problems.push(problem(Some(&tool.name), "", "tool-name", p.to_string()));
        } else if let Some(rule) = check_name(provider, &tool.name) {
            problems.push(problem(Some(&tool.name), "", rule.id(), rule.to_string()));
        }
        let mapped = provider_name(provider, &tool.name);
        if let Some((earlier, _)) = names
            .iter()
            .find(|(earlier, _)| provider_names_collide(provider, earlier, &tool.name))
        {
            let message = if *earlier == tool.name {
                "two tools have this name; rename one with `#[tool(name = \"…\")]`".to_owned()
            } else {
                format!(
                    "its provider name `{mapped}` is also `{earlier}`'s, as {} names cannot \
                     contain `.` (it becomes `_`); rename one with `#[tool(name = \"…\")]`",
                    provider.title()
                )
            };
            problems.push(problem(Some(&tool.name), "", "name-collision", message));
        }
        names.push((tool.name.clone(), mapped));
    }
    names
}
