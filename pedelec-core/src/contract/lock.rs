//! The lock file's model: one [`LockEntry`] per tool (its manifest entry, output schema and
//! version), keyed by wire name, and how it is read and written.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::manifest::{SerializableSkillsManifest, SerializableToolManifest};
use crate::skills::SkillsInput;
use crate::tool::ToolDefinition;

/// One tool as the lock file records it: the manifest entry Core receives (`name`,
/// `description`, `argsSchema`, `timeoutMs`), plus the MCP `outputSchema` and the tool's
/// `version`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[non_exhaustive]
pub struct LockEntry {
    /// The wire name.
    pub name: String,
    /// The description.
    pub description: String,
    /// The argsSchema, as JSON.
    pub args_schema: Value,
    /// The timeout in milliseconds, when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// The MCP `outputSchema`, when the tool's result has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The contract version (`#[tool(version = 2)]`), from 1.
    pub version: u32,
}

impl LockEntry {
    /// The entry of a tool definition.
    #[must_use]
    pub fn of(definition: &ToolDefinition) -> Self {
        LockEntry {
            name: definition.name().to_owned(),
            description: definition.description().to_owned(),
            args_schema: definition.args_schema().to_json(),
            timeout_ms: definition.timeout_ms(),
            // As MCP lists it: none for a result made of content blocks.
            output_schema: definition
                .output_schema()
                .filter(|o| !o.is_content())
                .map(crate::output::OutputSchema::to_json),
            version: definition.version(),
        }
    }

    /// The entry of a manifest entry alone: no output schema, version 1 (a manifest carries
    /// neither; lock a skill set to have them).
    #[must_use]
    pub fn of_manifest(entry: &SerializableToolManifest) -> Self {
        LockEntry {
            name: entry.name.clone(),
            description: entry.description.clone(),
            args_schema: entry.args_schema.to_json(),
            timeout_ms: entry.timeout_ms,
            output_schema: None,
            version: 1,
        }
    }
}

/// A skill set as the lock file (`tools.lock.json`) records it: a JSON object whose keys are
/// the tools' wire names, in order, and whose values are [`LockEntry`]s.
///
/// Built from a skill set (`Lock::from(&ToolName::skills())`, with output schemas and
/// versions) or from a manifest (`Lock::from(&ToolName::manifest())`, which has neither).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Lock {
    tools: BTreeMap<String, LockEntry>,
}

impl Lock {
    /// A lock of these entries (a later entry replaces an earlier one of the same name; a
    /// valid skill set has none).
    #[must_use]
    pub fn new(entries: impl IntoIterator<Item = LockEntry>) -> Self {
        Lock {
            tools: entries.into_iter().map(|e| (e.name.clone(), e)).collect(),
        }
    }

    /// The entry of the tool named `name`.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&LockEntry> {
        self.tools.get(name)
    }

    /// Every entry, by wire name.
    #[must_use]
    pub fn entries(&self) -> impl ExactSizeIterator<Item = &LockEntry> {
        self.tools.values()
    }

    /// The lock file's text: pretty JSON with a final newline (one line per key, so a diff
    /// of the file shows what changed).
    #[must_use]
    pub fn to_json_string(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).expect("a lock is JSON");
        text.push('\n');
        text
    }

    /// Reads a lock file's text.
    ///
    /// # Errors
    /// A message saying what is wrong: not JSON, not an object of entries, an entry with a
    /// missing or unknown key, or filed under another name than its own.
    pub fn from_json_str(text: &str) -> Result<Self, String> {
        let lock: Lock = serde_json::from_str(text).map_err(|e| e.to_string())?;
        for (key, entry) in &lock.tools {
            if *key != entry.name {
                return Err(format!(
                    "the entry under {key:?} is named {:?}; each tool is filed under its own \
                     name",
                    entry.name
                ));
            }
        }
        Ok(lock)
    }
}

impl<N> From<&SkillsInput<N>> for Lock {
    fn from(skills: &SkillsInput<N>) -> Self {
        Lock::new(skills.tools().iter().map(LockEntry::of))
    }
}

impl From<&SerializableSkillsManifest> for Lock {
    fn from(manifest: &SerializableSkillsManifest) -> Self {
        Lock::new(manifest.tools.iter().map(LockEntry::of_manifest))
    }
}

impl From<&Lock> for Lock {
    fn from(lock: &Lock) -> Self {
        lock.clone()
    }
}
