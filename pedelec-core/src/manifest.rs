//! The serializable manifests sent to Core: no handlers, exactly the seed's camelCase keys.

use serde::{Deserialize, Serialize};

use crate::schema::ToolArgsSchema;

/// One tool as sent to Core: `{name, description, argsSchema, timeoutMs?}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SerializableToolManifest {
    /// Agent-facing name.
    pub name: String,
    /// Explanation of behavior, side effects and selection criteria.
    pub description: String,
    /// The argsSchema (root is an object).
    pub args_schema: ToolArgsSchema,
    /// Wait limit in milliseconds; omitted when unset (Core's default applies).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
}

/// The normalized skills payload sent through the bridge: `{guidance, tools}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SerializableSkillsManifest {
    /// Guidance for the model on using the tools.
    pub guidance: String,
    /// The tools.
    pub tools: Vec<SerializableToolManifest>,
}
