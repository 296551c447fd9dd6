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

/// What the server keeps to answer `search_tools`.
pub(crate) struct Search {
    index: Index,
    /// Every tool's listed definition, in the skill set's order (what a search answers).
    tools: Vec<Tool>,
    /// Per tool: whether `tools/list` leaves it out (it is deferred).
    hidden: Vec<bool>,
    /// The two tools listed in place of the deferred ones.
    pub(super) listed: [Tool; 2],
}

impl Search {
    /// The search of a session whose tools are `tools` (listed forms, in order) with the
    /// `deferred` flags and the `index` over them; `None` when no tool is deferred. (No tool
    /// of a session has either name: they are reserved when it is created.)
    pub(super) fn plan(tools: &[Tool], deferred: &[bool], index: Index) -> Option<Search> {
        deferred.contains(&true).then(|| Search {
            index,
            tools: tools.to_vec(),
            hidden: deferred.to_vec(),
            listed: [search_tools(), call_tool()],
        })
    }

    /// Whether `tools/list` leaves out the tool at `position`.
    pub(super) fn hides(&self, position: usize) -> bool {
        self.hidden.get(position).copied().unwrap_or(false)
    }

    /// `search_tools`' answer to `args` (`{"query", "limit"?}`): `{"tools": [definition,
    /// …]}`, best match first, among the tools `visible` lets the caller see.
    pub(super) fn answer(
        &self,
        args: &str,
        visible: impl Fn(&str) -> bool,
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
            .search(&args.query, self.tools.len())
            .into_iter()
            .filter_map(|hit| self.tools.iter().find(|t| t.name == hit.name))
            .filter(|tool| visible(&tool.name))
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
