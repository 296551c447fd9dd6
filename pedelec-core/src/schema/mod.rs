//! Tool-args schemas: the model ([`SchemaNode`]), the schema trait ([`ToolArgs`]), the root
//! type ([`ToolArgsSchema`]), reading schemas from JSON, and their compiled form
//! ([`CompiledSchema`]), which validates and decodes.

pub(crate) mod arg;
pub(crate) mod args;
mod check;
mod compiled;
pub(crate) mod decode;
pub mod depth;
mod fast;
pub mod format;
mod json;
mod keywords;
#[cfg(feature = "raw-schemas")]
mod lenient;
pub(crate) mod mcp_header;
mod node;
mod options;
mod parse;
#[cfg(feature = "raw-schemas")]
mod plain;
mod raw;
mod resolve;
mod shortcuts;
pub(crate) mod tape;
#[cfg(any(feature = "code-mode", test))]
pub(crate) mod typescript;
mod validate;

pub use args::{MapKey, NoArgs, ToolArgs, ToolArgsRoot, schema_for};
pub use compiled::CompiledSchema;
pub use decode::ArgsError;
pub use format::{ASSERTED_FORMATS, check_format};
pub(crate) use json::did_you_mean;
pub use json::json_equal;
pub(crate) use json::push_token;
pub use node::{
    AdditionalProperties, Def, Literal, Property, SchemaKind, SchemaNode, SchemaRef, Str,
};
pub(crate) use node::{Path, Step, branches, deref, properties, step, target};
pub use options::ValidationOptions;
pub use parse::ParseOptions;
pub use pedelec_rules::Number;
pub use validate::{MAX_REF_DEPTH, ValidationErrors};

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use crate::error::Problem;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

/// Every structural problem found in a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaError {
    problems: Vec<Problem>,
}

impl SchemaError {
    /// An error from a list of problems (never empty).
    #[must_use]
    pub fn new(problems: Vec<Problem>) -> Self {
        debug_assert!(!problems.is_empty());
        SchemaError { problems }
    }

    /// The problems, in the order they were found: depth first through the schema, each
    /// node's keywords before the checks that relate several of them.
    #[must_use]
    pub fn problems(&self) -> &[Problem] {
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
///
/// Validation needs the schema compiled (regexes built, `enum` values converted, …).
/// [`from_json`](Self::from_json) compiles it; a schema from a `const` is compiled by
/// [`compile`](Self::compile), once. [`validate`](Self::validate) and
/// [`is_valid`](Self::is_valid) on a schema that was never compiled compile it on the fly
/// for that one call, which is correct but slow: the session compiles each tool's schema
/// once when it is created. Clones share the compiled form, which holds every other way to
/// validate and decode ([`CompiledSchema`]).
///
/// ```
/// use pedelec_core::ToolArgsSchema;
/// use serde_json::json;
///
/// let schema = ToolArgsSchema::from_json(&json!({
///     "type": "object",
///     "properties": {"delta": {"type": "integer"}},
///     "required": ["delta"],
///     "additionalProperties": false
/// }))?;
/// assert!(schema.is_valid(&json!({"delta": 2})));
/// let errors = schema.validate(&json!({"delta": "5"})).unwrap_err();
/// assert_eq!(errors.to_string(), r#"/delta: expected integer, got string "5""#);
/// # Ok::<(), pedelec_core::schema::SchemaError>(())
/// ```
#[derive(Clone)]
pub struct ToolArgsSchema {
    root: SchemaNode,
    compiled: Option<Arc<CompiledSchema>>,
    /// Read by `from_json_lenient`: written by others, so a strict export closes its open
    /// objects (a named narrowing) instead of refusing them.
    lenient: bool,
}

impl ToolArgsSchema {
    /// Wraps an object node. In a `const`, a root that is not an object fails compilation.
    /// The schema is not compiled yet (see [`compile`](Self::compile)).
    ///
    /// # Panics
    /// When `root` is not `{"type": "object", …}`, or when its `x-mcp-header` annotations
    /// break MCP's rules: one sits where a client cannot reach it from the root through
    /// `properties` alone (in an array's items, a map's values, a `oneOf` branch, a `$defs`
    /// entry), or two name the same header (case-insensitively).
    #[must_use]
    pub const fn from_node(root: SchemaNode) -> Self {
        assert!(
            root.is_object(),
            "the root of an argsSchema must be an object (`\"type\": \"object\"`)"
        );
        mcp_header::assert_kept(&root);
        ToolArgsSchema {
            root,
            compiled: None,
            lenient: false,
        }
    }

    /// The schema with the types its root names inlined as its wire form says (see
    /// [`SchemaNode::resolved`]): what a tool definition holds, so that every reader at run
    /// time sees plain nodes.
    #[must_use]
    pub fn resolved(mut self) -> Self {
        if let Cow::Owned(root) = self.root.resolved() {
            self.root = root;
        }
        self
    }

    /// The root node.
    #[must_use]
    pub const fn node(&self) -> &SchemaNode {
        &self.root
    }

    /// The wire JSON: a raw schema's as it was read (see
    /// `from_json_lenient` (feature `raw-schemas`)).
    #[must_use]
    pub fn to_json(&self) -> Value {
        match self.raw_json() {
            Some(raw) => raw.clone(),
            None => self.root.to_json(),
        }
    }

    /// Whether this is a raw schema (read by `from_json_lenient` (feature `raw-schemas`)
    /// from JSON Schema beyond the wire subset), validated by a 2020-12 validator; its
    /// [`node`](Self::node) is then the plain form, which accepts at least what it does.
    #[must_use]
    pub fn is_raw(&self) -> bool {
        self.raw_json().is_some()
    }

    /// Whether `from_json_lenient` (feature `raw-schemas`) read this schema (raw or
    /// not): a schema written by others, whose open objects a strict export closes (see
    /// [`Export::narrowings`](crate::export::Export::narrowings)).
    #[must_use]
    pub const fn is_lenient(&self) -> bool {
        self.lenient
    }

    /// A raw schema's JSON, as it was read; `None` for a schema in the wire subset.
    #[must_use]
    pub fn raw_json(&self) -> Option<&Value> {
        self.compiled
            .as_ref()?
            .raw
            .as_deref()
            .map(raw::RawSchema::json)
    }

    /// Reads a schema from its JSON form, reporting every structural problem, and compiles
    /// it. The rules are those of [`SchemaNode::from_json`], and the root must be an object.
    ///
    /// # Errors
    /// Every problem found, each with a JSON pointer into the schema.
    pub fn from_json(json: &Value) -> Result<Self, SchemaError> {
        let root = match SchemaNode::from_json(json) {
            Ok(root) => root,
            Err(mut e) => {
                // Say that the root must be an object even when other problems were found.
                if let Some(problem) = root_problem_of_json(json) {
                    e.problems.insert(0, problem);
                }
                return Err(e);
            }
        };
        if let Some(problem) = root_problem(&root) {
            return Err(SchemaError::new(vec![problem]));
        }
        let compiled = CompiledSchema::compile(&root)?;
        Ok(ToolArgsSchema {
            root,
            compiled: Some(Arc::new(compiled)),
            lenient: false,
        })
    }

    /// Structural problems of this schema (empty when it is sound): the checks of
    /// [`SchemaNode::from_json`], run on the built schema. A schema written by hand in a
    /// `const` can still have `minimum > maximum` or an invalid `pattern`.
    ///
    /// A raw schema (`from_json_lenient` (feature `raw-schemas`)) has none: the lenient
    /// reader judged it (what it accepts, a session accepts), its validator is a 2020-12
    /// one, and its plain node only approximates it (an untyped node, a `required` name
    /// without a property, an array without `items` are fine there).
    #[must_use]
    pub fn problems(&self) -> Vec<Problem> {
        if self.is_raw() {
            return Vec::new();
        }
        let mut problems = self.root.problems();
        if let Some(problem) = root_problem(&self.root) {
            problems.insert(0, problem);
        }
        problems
    }

    /// Compiles the schema for validation, once: later calls return the same compiled
    /// form, and so do clones made afterwards.
    ///
    /// # Errors
    /// When a `pattern` is not a valid regular expression or a `multipleOf` is not
    /// positive (see [`CompiledSchema::compile`]).
    pub fn compile(&mut self) -> Result<&CompiledSchema, SchemaError> {
        let compiled = match self.compiled.take() {
            Some(compiled) => compiled,
            None => {
                if let Cow::Owned(root) = self.root.resolved() {
                    self.root = root;
                }
                Arc::new(CompiledSchema::compile(&self.root)?)
            }
        };
        Ok(self.compiled.insert(compiled))
    }

    /// The compiled form, when [`compile`](Self::compile) or
    /// [`from_json`](Self::from_json) built it.
    #[must_use]
    pub fn compiled(&self) -> Option<&CompiledSchema> {
        self.compiled.as_deref()
    }

    /// The compiled form, shared (the session keeps one per tool).
    pub(crate) fn compiled_shared(&self) -> Option<&Arc<CompiledSchema>> {
        self.compiled.as_ref()
    }

    /// Validates tool arguments as plain JSON Schema 2020-12 (`format` an annotation, `null`
    /// a value). For other [`ValidationOptions`] (a session validates with
    /// `null_as_absent` and `assert_formats`), and for decoding arguments into a type, use
    /// the compiled form: [`compiled`](Self::compiled) or [`compile`](Self::compile), then
    /// [`CompiledSchema::validate_with`], [`CompiledSchema::deserialize_args_with`].
    ///
    /// # Errors
    /// Every reason `args` does not match (at most [`ValidationErrors::LIMIT`]). A schema
    /// that cannot be compiled (an invalid `pattern`) rejects every value, saying why.
    pub fn validate(&self, args: &Value) -> Result<(), ValidationErrors> {
        self.with_compiled(|compiled| compiled.validate(args), Err)
    }

    /// Whether `args` match, as [`validate`](Self::validate) judges them. Stops at the first
    /// error; allocates nothing when the schema is compiled.
    #[must_use]
    pub fn is_valid(&self, args: &Value) -> bool {
        self.with_compiled(|compiled| compiled.is_valid(args), |_| false)
    }

    /// Runs `f` on the compiled form, compiling it for this one call when the schema never
    /// was; a schema that cannot be compiled gets `unusable` with the errors that say why
    /// it rejects every value.
    #[inline]
    fn with_compiled<R>(
        &self,
        f: impl FnOnce(&CompiledSchema) -> R,
        unusable: impl FnOnce(ValidationErrors) -> R,
    ) -> R {
        match &self.compiled {
            Some(compiled) => f(compiled),
            None => self.with_uncompiled(f, unusable),
        }
    }

    /// [`with_compiled`](Self::with_compiled) for a schema that was not compiled, kept out
    /// of line: the compiled case is the hot one.
    #[cold]
    #[inline(never)]
    fn with_uncompiled<R>(
        &self,
        f: impl FnOnce(&CompiledSchema) -> R,
        unusable: impl FnOnce(ValidationErrors) -> R,
    ) -> R {
        match CompiledSchema::compile(&self.root) {
            Ok(compiled) => f(&compiled),
            Err(e) => unusable(unusable_schema(&e)),
        }
    }
}

/// The problem of a root that is not an object node.
fn root_problem(root: &SchemaNode) -> Option<Problem> {
    if root.is_object()
        && let Some(problem) = mcp_header::problem(root)
    {
        return Some(Problem::at(String::new(), problem.to_owned()));
    }
    (!root.is_object()).then(|| Problem::at(String::new(), match root.kind() {
            Some(kind) => format!(
                "the root of an argsSchema must be an object (`\"type\": \"object\"`), not {}",
                kind.as_str()
            ),
            None if root.one_of_branches().is_some() => "the root of an argsSchema must be an object (`\"type\": \"object\"`), not a `oneOf`".to_owned(),
            None => "the root of an argsSchema must be an object (`\"type\": \"object\"`)"
                .to_owned(),
        }))
}

/// The root problem, judged on JSON that did not read as a schema: only when its `type`
/// names another kind, or it is a `oneOf` (other cases are reported by the reader already).
fn root_problem_of_json(json: &Value) -> Option<Problem> {
    let kind = match json.get("type") {
        Some(Value::String(t)) => SchemaKind::from_name(t)?,
        None if json.get("oneOf").is_some() => {
            return Some(Problem::at(String::new(), "the root of an argsSchema must be an object (`\"type\": \"object\"`), not a `oneOf`".to_owned()));
        }
        _ => return None,
    };
    (kind != SchemaKind::Object).then(|| {
        Problem::at(
            String::new(),
            format!(
                "the root of an argsSchema must be an object (`\"type\": \"object\"`), not {}",
                kind.as_str()
            ),
        )
    })
}

/// The errors reported for every value when the schema itself cannot be compiled.
fn unusable_schema(error: &SchemaError) -> ValidationErrors {
    ValidationErrors::from_errors(
        error
            .problems()
            .iter()
            .map(|p| {
                Problem::at(
                    String::new(),
                    format!("the schema itself is invalid and accepts nothing: {p}"),
                )
                .rule(if p.place.ends_with("/pattern") {
                    "pattern"
                } else {
                    "multipleOf"
                })
            })
            .collect(),
    )
}

impl PartialEq for ToolArgsSchema {
    /// Schemas are equal when their nodes are (whether compiled or not).
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
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
        let read = ToolArgsSchema::from_json(&value);
        // With raw schemas, a manifest may hold what `from_json_lenient` read (its warnings
        // were the reader's to see); a schema in the subset reads as one.
        #[cfg(feature = "raw-schemas")]
        let read = read.or_else(|strict| {
            ToolArgsSchema::from_json_lenient(&value)
                .map(|(schema, _)| schema)
                .map_err(|_| strict)
        });
        read.map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    mod fast;
    mod from_json;
    #[cfg(feature = "raw-schemas")]
    mod lenient;
    mod validation;
}
