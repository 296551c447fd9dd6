//! Tool-args schemas: the model ([`SchemaNode`]), the schema trait ([`ToolArgs`]), the root
//! type ([`ToolArgsSchema`]), reading schemas from JSON, and validation.

mod args;
pub mod format;
mod node;

pub use args::{MapKey, NoArgs, ToolArgs, ToolArgsRoot, schema_for, variant};
pub use format::{ASSERTED_FORMATS, check_format};
pub use node::{
    AdditionalProperties, Literal, Num, Property, SchemaKind, SchemaNode, SchemaRef, Str,
};

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// One structural problem in a schema: where (a JSON pointer into the schema) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaProblem {
    /// JSON pointer into the schema (`""` for the root, `/properties/delta/minimum`, …).
    pub pointer: String,
    /// What is wrong, and what to write instead.
    pub message: String,
}

impl fmt::Display for SchemaProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() {
            "/"
        } else {
            &self.pointer
        };
        write!(f, "{pointer}: {}", self.message)
    }
}

/// Every structural problem found in a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    problems: Vec<SchemaProblem>,
}

impl SchemaError {
    /// An error from a list of problems (never empty).
    #[must_use]
    pub fn new(problems: Vec<SchemaProblem>) -> Self {
        debug_assert!(!problems.is_empty());
        SchemaError { problems }
    }

    /// The problems, in document order.
    #[must_use]
    pub fn problems(&self) -> &[SchemaProblem] {
        &self.problems
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problems.as_slice() {
            [one] => write!(f, "invalid schema: {one}"),
            many => {
                write!(f, "invalid schema: {} problems", many.len())?;
                for p in many {
                    write!(f, "\n  - {p}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for SchemaError {}

/// The schema of a tool's arguments: a [`SchemaNode`] whose root is an object.
///
/// Built in a `const` by `#[derive(ToolArgs)]` / `#[tool]` ([`ToolArgsSchema::from_node`]),
/// or read from JSON for tools defined at run time ([`ToolArgsSchema::from_json`]).
#[derive(Clone, PartialEq)]
pub struct ToolArgsSchema {
    root: SchemaNode,
}

impl ToolArgsSchema {
    /// Wraps an object node. In a `const`, a root that is not an object fails compilation.
    ///
    /// # Panics
    /// When `root` is not `{"type": "object", …}`.
    #[must_use]
    pub const fn from_node(root: SchemaNode) -> Self {
        assert!(
            root.is_object(),
            "the root of an argsSchema must be an object (`\"type\": \"object\"`)"
        );
        ToolArgsSchema { root }
    }

    /// The root node.
    #[must_use]
    pub const fn node(&self) -> &SchemaNode {
        &self.root
    }

    /// The wire JSON.
    #[must_use]
    pub fn to_json(&self) -> Value {
        self.root.to_json()
    }

    /// Reads a schema from its JSON form, reporting every structural problem.
    ///
    /// # Errors
    /// Every problem found, each with a JSON pointer into the schema.
    pub fn from_json(json: &Value) -> Result<Self, SchemaError> {
        let _ = json;
        todo!("schema work: from_json")
    }

    /// Structural problems of this schema (empty when it is sound).
    #[must_use]
    pub fn problems(&self) -> Vec<SchemaProblem> {
        Vec::new()
    }
}

impl fmt::Debug for ToolArgsSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.root, f)
    }
}

impl Serialize for ToolArgsSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.root.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolArgsSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        ToolArgsSchema::from_json(&value).map_err(serde::de::Error::custom)
    }
}
