//! The serializable manifests sent to Core: no handlers, exactly the seed's camelCase keys.

use serde::{Deserialize, Serialize};

use crate::schema::ToolArgsSchema;

/// One tool as sent to Core: `{name, description, argsSchema, timeoutMs?, defer?}`.
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
    /// A deferred tool (`#[tool(defer)]`): listed by name only until a search loads it
    /// (DESIGN §12). Written only when `true`, so a manifest without deferred tools is the
    /// seed's exactly.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub defer: bool,
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
