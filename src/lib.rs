//! # pedelec
//!
//! Declare the tools an AI agent may call as ordinary Rust functions. pedelec derives each
//! tool's argument schema at compile time, rejects invalid and duplicate tool names, generates
//! a typed `ToolName` enum, and at run time validates every call, finds its handler, enforces
//! timeouts and answers every call exactly once.
//!
//! See the README for a tour, and `DESIGN.md` for the architecture.

pub use pedelec_core::*;
pub use pedelec_macros::{ToolArgs, skills, tool};

/// Not public API: what generated code names. Everything it needs is reached as
/// `::pedelec::__private::…`, so it never depends on the user's imports or prelude.
#[doc(hidden)]
pub mod __private {
    pub use ::core::option::Option::{self, None, Some};
    pub use ::core::result::Result::{self, Err, Ok};
    pub use ::std::borrow::Cow;
    pub use ::std::vec::Vec;

    pub use pedelec_core::macro_support::{
        IntoToolResult, async_result, async_value, blocking_result, blocking_value,
        check_description, check_unique_tool_name, deserialize_tool_name, parse_tool_name,
        serialize_tool_name, tool_definition, tool_name,
    };
    pub use pedelec_core::schema::variant;
    pub use pedelec_core::{
        AdditionalProperties, InSkillSet, Literal, NoArgs, Num, Property, SchemaNode,
        SerializableSkillsManifest, SkillSet, SkillsInput, Tool, ToolArgs, ToolArgsRoot,
        ToolArgsSchema, ToolCallContext, ToolDefinition, ToolError, UnknownToolName,
    };
    pub use serde;
    pub use serde_json;
}
