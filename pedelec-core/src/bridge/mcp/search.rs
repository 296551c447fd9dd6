//! Deferred tools over MCP (DESIGN §12): a tool marked `#[tool(defer)]` leaves
//! `tools/list`, and two tools take its place, `search_tools` (the full definitions of the
//! tools that match a query) and `call_tool` (a call of one of them by name, through the same
//! policy as any call). With no deferred tool, or `search(false)` on the bridge, nothing
//! changes. A leaf: the server and the call consult it.

use std::sync::Arc;

use rmcp::model::Tool;
use serde_json::json;
use serde_json::value::RawValue;

use crate::error::{ErrorCode, ToolError};
use crate::search::Index;
pub(super) use crate::search::tools::{CALL_TOOL, SEARCH_TOOLS};
use crate::search::tools::{
    CALL_TOOL_DESCRIPTION, call_tool_schema, read_call, read_query, search_tools_description,
    search_tools_schema,
};

/// What the server keeps to answer `search_tools` (the session's tools are deferred or not
/// in the server's `Listed`; no tool of a session has either name: they are reserved when it
/// is created).
pub(crate) struct Search {
    /// Over the session's tools, in the skill set's order.
    index: Index,
    /// Every tool's listed definition, in the same order (what a search answers).
    tools: Vec<Tool>,
    /// The two tools listed in place of the deferred ones.
    pub(super) listed: [Tool; 2],
}

impl Search {
    /// The search over `tools` (listed forms, in the skill set's order) with the `index`
    /// built over the same tools in the same order.
    pub(super) fn new(tools: Vec<Tool>, index: Index) -> Search {
        Search {
            index,
            tools,
            listed: [
                tool(
                    SEARCH_TOOLS,
                    search_tools_description(true),
                    &search_tools_schema(true),
                ),
                tool(CALL_TOOL, CALL_TOOL_DESCRIPTION, &call_tool_schema()),
            ],
        }
    }

    /// `search_tools`' answer to `args` (`{"query", "limit"?}`): `{"tools": [definition,
    /// …]}`, best match first, among the tools (by position) that `visible` lets the caller
    /// see.
    pub(super) fn answer(
        &self,
        args: &str,
        visible: impl Fn(usize) -> bool,
    ) -> Result<String, ToolError> {
        let query = read_query(args).map_err(invalid)?;
        let found: Vec<&Tool> = self
            .index
            .ranked(&query.query)
            .into_iter()
            .filter(|&(position, _)| visible(position))
            .filter_map(|(position, _)| self.tools.get(position))
            .take(query.limit)
            .collect();
        Ok(json!({ "tools": found }).to_string())
    }
}

/// `call_tool`'s arguments: the tool's name, and its arguments' JSON text (`None`: none).
pub(super) fn unwrap_call(args: &str) -> Result<(String, Option<Box<RawValue>>), ToolError> {
    read_call(args).map_err(invalid)
}

fn invalid(message: String) -> ToolError {
    ToolError::with_code(ErrorCode::ToolArgsInvalid, message)
}

fn tool(name: &str, description: &str, schema: &serde_json::Value) -> Tool {
    let schema = schema.as_object().cloned().unwrap_or_default();
    Tool::new(name.to_owned(), description.to_owned(), Arc::new(schema))
}
