//! A remote server's `tools/list` as the session's definitions: wire names mapped
//! ([`super::names`]), input schemas read leniently (what pedelec validates calls with),
//! and each tool's listing kept verbatim for the MCP bridge.

use std::sync::Arc;

use serde_json::{Map, Value};

use super::names::wire_name;
use crate::error::Problem;
use crate::schema::ToolArgsSchema;
use crate::tool::ToolDefinition;

/// What a listing keeps of one remote tool: its definition (without a handler yet) and its
/// remote name.
pub(super) struct Listed {
    pub(super) definition: ToolDefinition,
    pub(super) remote: String,
}

/// The definitions of `tools` (each the remote's JSON `Tool`), with the warnings of the
/// listing; a tool that cannot be served is left out with a warning saying why.
pub(super) fn definitions(
    namespace: &str,
    tools: Vec<Value>,
    policy: &super::Policy,
) -> (Vec<Listed>, Vec<Problem>) {
    let mut listed = Vec::new();
    let mut warnings = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for tool in tools {
        let Value::Object(mut tool) = tool else {
            continue;
        };
        let Some(remote) = tool.get("name").and_then(Value::as_str).map(str::to_owned) else {
            warnings.push(Problem::at(
                String::new(),
                "a tool without a `name` was left out",
            ));
            continue;
        };
        let place = format!("tools/{remote}");
        if remote.is_empty() {
            warnings.push(Problem::at(place, "a tool with an empty name was left out"));
            continue;
        }
        let wire = wire_name(namespace, &remote);
        if wire[namespace.len() + 1..] != *remote {
            warnings.push(Problem::at(
                place.clone(),
                format!("`{remote}` breaks the tool name rule: listed as `{wire}`"),
            ));
        }
        if !seen.insert(wire.clone()) {
            warnings.push(Problem::at(
                place,
                format!("a second tool named `{remote}` was left out"),
            ));
            continue;
        }
        let description = match tool.get("description").and_then(Value::as_str) {
            Some(d) if !pedelec_rules::is_blank(d) => d.to_owned(),
            // MCP's description is optional; pedelec's is not.
            _ => tool
                .get("title")
                .and_then(Value::as_str)
                .filter(|t| !pedelec_rules::is_blank(t))
                .map_or_else(
                    || format!("`{remote}` of the remote server `{namespace}`"),
                    str::to_owned,
                ),
        };
        let input = tool
            .get("inputSchema")
            .cloned()
            .unwrap_or_else(|| serde_json::json!({"type": "object"}));
        let (schema, mut schema_warnings) = match read_lenient(&input) {
            Ok(read) => read,
            Err(e) => {
                warnings.push(Problem::at(
                    format!("{place}/inputSchema"),
                    format!("left out: its inputSchema holds no value: {e}"),
                ));
                continue;
            }
        };
        warnings.extend(
            schema_warnings
                .drain(..)
                .map(|p| Problem::at(format!("{place}/inputSchema{}", p.place), p.message)),
        );
        tool.insert("name".to_owned(), Value::String(wire.clone()));
        let mut definition = ToolDefinition::new(wire, description, schema)
            .with_scopes(policy.scopes.iter().cloned())
            .with_approval(policy.approval);
        if let Some(title) = tool.get("title").and_then(Value::as_str) {
            definition = definition.with_title(title.to_owned());
        }
        if let Some(ms) = policy.timeout_ms {
            definition = definition.with_timeout_ms(ms);
        }
        listed.push(Listed {
            definition: definition.with_remote(Arc::new(tool)),
            remote,
        });
    }
    (listed, warnings)
}

/// Reads a schema as people write it (full 2020-12: a raw schema validated by a 2020-12
/// validator), with its warnings.
fn read_lenient(json: &Value) -> Result<(ToolArgsSchema, Vec<Problem>), String> {
    ToolArgsSchema::from_json_lenient(json).map_err(|e| e.to_string())
}

/// `{"content": .., "structuredContent"?: .., "_meta"?: ..}` of a remote result, as the
/// tool's value (its `isError` and `resultType` left out).
pub(super) fn result_value(mut result: Map<String, Value>) -> Value {
    result.remove("isError");
    result.remove("resultType");
    Value::Object(result)
}
