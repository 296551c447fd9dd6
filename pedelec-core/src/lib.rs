//! The runtime of [pedelec](https://docs.rs/pedelec): tool-args schemas and their
//! validation, tool definitions, skill sets and manifests, sessions and bridges.
//!
//! Users depend on the `pedelec` facade, which re-exports everything here at its root
//! together with the macros.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod bridge;
pub mod call;
pub mod context;
pub mod error;
pub mod export;
#[doc(hidden)]
pub mod macro_support;
pub mod manifest;
pub mod output;
pub mod schema;
pub mod session;
pub mod skills;
pub mod tool;

pub use call::{BoxFuture, ToolCall, ToolHandler, run_blocking};
pub use context::{Cancellation, ProgressUpdate, StateMap, ToolCallContext};
pub use error::{Error, ErrorCode, Problem, ToolError, ToolResult};
pub use manifest::{SerializableSkillsManifest, SerializableToolManifest};
pub use output::{OutputSchema, ToolAnnotations, ToolOutput};
pub use schema::{
    AdditionalProperties, ArgsError, CompiledSchema, Literal, MapKey, NoArgs, Num, ParseOptions,
    Property, SchemaError, SchemaKind, SchemaNode, SchemaProblem, SchemaRef, Str, ToolArgs,
    ToolArgsRoot, ToolArgsSchema, ValidationError, ValidationErrors, ValidationOptions, json_equal,
    schema_for,
};
pub use session::{
    CallOptions, EventStream, HandlerFn, PendingCall, Session, SessionBuilder, SessionEvent,
    ToolKey, create_session,
};
pub use skills::{InSkillSet, SkillSet, SkillsInput, UnknownToolName};
pub use tool::{TaskSupport, Tool, ToolDefinition};

/// The rules shared with the macros (tool names, descriptions, timeouts).
pub use pedelec_rules as rules;
