//! Deferred tools over MCP (DESIGN §12): a tool marked `#[tool(defer)]` leaves
//! `tools/list`, and two tools take its place, `search_tools` (the full definitions of the
//! tools that match a query) and `call_tool` (a call of one of them by name, through the same
//! policy as any call). With no deferred tool, or `search(false)` on the bridge, nothing
//! changes. A leaf: the server and the call consult it.

use std::sync::Arc;

use rmcp::model::Tool;
use serde::Deserialize;
use serde_json::json;
use serde_json::value::RawValue;

use crate::error::{ErrorCode, ToolError};
use crate::search::Index;

/// The name of the tool that finds deferred tools.
pub(super) const SEARCH_TOOLS: &str = "search_tools";
/// The name of the tool that calls a tool by name.
pub(super) const CALL_TOOL: &str = "call_tool";
/// The most definitions one search answers.
const MAX_LIMIT: u64 = 20;

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
            listed: [search_tools(), call_tool()],
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
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Args {
            query: String,
            limit: Option<u64>,
        }
        let args: Args = serde_json::from_str(args).map_err(|e| {
            invalid(format!(
                "`{SEARCH_TOOLS}` takes {{\"query\": \"what the tool should do\", \"limit\": 5}}: {e}"
            ))
        })?;
        let limit = match args.limit {
            None => 5,
            Some(n @ 1..=MAX_LIMIT) => n,
            Some(n) => {
                return Err(invalid(format!(
                    "`limit` must be between 1 and {MAX_LIMIT}, not {n}"
                )));
            }
        };
        let limit = usize::try_from(limit).unwrap_or(5);
        let found: Vec<&Tool> = self
            .index
            .ranked(&args.query)
            .into_iter()
            .filter(|&(position, _)| visible(position))
            .filter_map(|(position, _)| self.tools.get(position))
            .take(limit)
            .collect();
        Ok(json!({ "tools": found }).to_string())
    }
}

/// `call_tool`'s arguments: the tool's name, and its arguments' JSON text (`None`: none).
pub(super) fn unwrap_call(args: &str) -> Result<(String, Option<Box<RawValue>>), ToolError> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        name: String,
        arguments: Option<Box<RawValue>>,
    }
    let args: Args = serde_json::from_str(args).map_err(|e| {
        invalid(format!(
            "`{CALL_TOOL}` takes {{\"name\": \"a tool from {SEARCH_TOOLS}\", \"arguments\": {{…}}}}: {e}"
        ))
    })?;
    if args.name == SEARCH_TOOLS || args.name == CALL_TOOL {
        return Err(invalid(format!(
            "`{CALL_TOOL}` calls the skill set's tools, not `{}`",
            args.name
        )));
    }
    Ok((args.name, args.arguments))
}

fn invalid(message: String) -> ToolError {
    ToolError::with_code(ErrorCode::ToolArgsInvalid, message)
}

fn tool(name: &str, description: &str, schema: &serde_json::Value) -> Tool {
    let schema = schema.as_object().cloned().unwrap_or_default();
    Tool::new(name.to_owned(), description.to_owned(), Arc::new(schema))
}

fn search_tools() -> Tool {
    tool(
        SEARCH_TOOLS,
        "Find tools that are not listed yet: describe what you want to do, and get the full \
         definitions of the tools that match, best first. Call one with `call_tool`.",
        &json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "What the tool should do, in words."},
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
                          "description": "How many tools to return (5 unless given)."}
            },
            "required": ["query"],
            "additionalProperties": false
        }),
    )
}

fn call_tool() -> Tool {
    tool(
        CALL_TOOL,
        "Call a tool that `search_tools` found, by its name, with arguments that match its \
         input schema.",
        &json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The tool's name, as `search_tools` gave it."},
                "arguments": {"type": "object", "description": "The tool's arguments."}
            },
            "required": ["name"],
            "additionalProperties": false
        }),
    )
}
