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

impl SerializableToolManifest {
    /// The tool's fingerprint: 64 lowercase hex digits, the SHA-256 of the RFC 8785 (JCS)
    /// canonical JSON of this entry (keys in UTF-16 order, no whitespace, numbers in their
    /// ECMAScript form). The same entry gives the same fingerprint on every build and
    /// platform; any change to what Core receives (name, description, argsSchema, timeout)
    /// gives another.
    ///
    /// ```
    /// use pedelec_core::manifest::SerializableToolManifest;
    /// use pedelec_core::ToolArgsSchema;
    /// let entry = SerializableToolManifest {
    ///     name: "ping".into(),
    ///     description: "Answer pong.".into(),
    ///     args_schema: ToolArgsSchema::from_json(&serde_json::json!({"type": "object"}))?,
    ///     timeout_ms: None,
    /// };
    /// // sha256 of {"argsSchema":{"type":"object"},"description":"Answer pong.","name":"ping"}
    /// assert_eq!(
    ///     entry.fingerprint(),
    ///     "1e77652972042b5cf7e089b59f2c1a59f2db047e5919b2cf75f479cce684d7fc",
    /// );
    /// # Ok::<(), pedelec_core::schema::SchemaError>(())
    /// ```
    #[must_use]
    pub fn fingerprint(&self) -> String {
        // Through a `Value` first: a number that is not finite becomes `null`, as in the
        // manifest's own JSON, so canonicalizing cannot fail.
        let value = serde_json::to_value(self).expect("a manifest entry is a JSON object");
        json_digest(&value)
    }
}

/// The SHA-256 (64 lowercase hex digits) of a JSON value's RFC 8785 canonical form: a
/// tool's fingerprint, and how an exactly-once call's args are compared.
pub(crate) fn json_digest(value: &serde_json::Value) -> String {
    use sha2::Digest as _;
    use std::fmt::Write as _;
    let canonical = serde_json_canonicalizer::to_vec(value)
        .expect("a JSON value holds only finite numbers and string keys");
    let digest = sha2::Sha256::digest(&canonical);
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
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
