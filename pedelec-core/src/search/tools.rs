//! The tools a session adds to reach deferred tools (DESIGN §12): `search_tools` (the
//! definitions of the tools that match a query) and `call_tool` (a call of one of them by
//! name). Their names, descriptions, schemas and argument readers, in one place for every
//! consumer: the MCP bridge lists both; provider exports declare `search_tools` (the model
//! then calls what it loaded directly).

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Value, json};

/// The tool that finds deferred tools.
pub(crate) const SEARCH_TOOLS: &str = "search_tools";
/// The tool that calls a tool by name.
pub(crate) const CALL_TOOL: &str = "call_tool";
/// The tool that runs a program (code mode).
pub(crate) const RUN_CODE: &str = "run_code";
/// The names a skill set's tools cannot take: the session adds tools of these names.
pub(crate) const RESERVED: [&str; 3] = [SEARCH_TOOLS, CALL_TOOL, RUN_CODE];

/// The most definitions one search answers.
pub(crate) const MAX_LIMIT: u64 = 20;
/// How many definitions a search answers unless it asks for another number.
pub(crate) const DEFAULT_LIMIT: usize = 5;

/// `search_tools`' description: `with_call_tool` where the found tools are called through
/// `call_tool` (MCP), not directly (provider exports, which load them).
pub(crate) const fn search_tools_description(with_call_tool: bool) -> &'static str {
    if with_call_tool {
        "Find tools that are not listed yet: describe what you want to do, and get the full \
         definitions of the tools that match, best first. Call one with `call_tool`."
    } else {
        "Find tools that are not loaded yet: describe what you want to do, and get the full \
         definitions of the tools that match, best first. Once found, a tool can be called."
    }
}

/// `search_tools`' input schema: `query`, and `limit` where `with_limit` (MCP; provider
/// exports leave it out, so the schema is strict on every provider as it is).
pub(crate) fn search_tools_schema(with_limit: bool) -> Value {
    let mut schema = json!({
        "type": "object",
        "properties": {
            "query": {"type": "string", "description": "What the tool should do, in words."}
        },
        "required": ["query"],
        "additionalProperties": false
    });
    if with_limit {
        schema["properties"]["limit"] = json!({
            "type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
            "description": "How many tools to return (5 unless given)."
        });
    }
    schema
}

/// `call_tool`'s description.
pub(crate) const CALL_TOOL_DESCRIPTION: &str = "Call a tool that `search_tools` found, by its \
     name, with arguments that match its input schema.";

/// `call_tool`'s input schema.
pub(crate) fn call_tool_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "The tool's name, as `search_tools` gave it."},
            "arguments": {"type": "object", "description": "The tool's arguments."}
        },
        "required": ["name"],
        "additionalProperties": false
    })
}

/// A search's arguments, read.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Query {
    pub(crate) query: String,
    /// How many definitions to answer (1 to [`MAX_LIMIT`]).
    pub(crate) limit: usize,
}

/// Reads `search_tools`' arguments (`{"query", "limit"?}`); the error is the message for
/// the model.
pub(crate) fn read_query(args: &str) -> Result<Query, String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        query: String,
        limit: Option<u64>,
    }
    let args: Args = serde_json::from_str(args).map_err(|e| {
        format!("`{SEARCH_TOOLS}` takes {{\"query\": \"what the tool should do\"}}: {e}")
    })?;
    let limit = match args.limit {
        None => DEFAULT_LIMIT,
        Some(n @ 1..=MAX_LIMIT) => usize::try_from(n).unwrap_or(DEFAULT_LIMIT),
        Some(n) => {
            return Err(format!(
                "`limit` must be between 1 and {MAX_LIMIT}, not {n}"
            ));
        }
    };
    Ok(Query {
        query: args.query,
        limit,
    })
}

/// `call_tool`'s arguments: the tool's name, and its arguments' JSON text (`None`: none);
/// the error is the message for the model.
pub(crate) fn read_call(args: &str) -> Result<(String, Option<Box<RawValue>>), String> {
    #[derive(Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        name: String,
        arguments: Option<Box<RawValue>>,
    }
    let args: Args = serde_json::from_str(args).map_err(|e| {
        format!(
            "`{CALL_TOOL}` takes {{\"name\": \"a tool from {SEARCH_TOOLS}\", \"arguments\": {{…}}}}: {e}"
        )
    })?;
    if RESERVED.contains(&args.name.as_str()) {
        return Err(format!(
            "`{CALL_TOOL}` calls the skill set's tools, not `{}`",
            args.name
        ));
    }
    Ok((args.name, args.arguments))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_and_calls_are_read_or_refused_with_what_to_write() {
        assert_eq!(
            read_query(r#"{"query": "refund"}"#),
            Ok(Query {
                query: "refund".into(),
                limit: DEFAULT_LIMIT
            })
        );
        assert_eq!(
            read_query(r#"{"query": "a", "limit": 20}"#).unwrap().limit,
            20
        );
        let e = read_query(r#"{"query": "a", "limit": 21}"#).unwrap_err();
        assert!(e.contains("between 1 and 20, not 21"), "{e}");
        let e = read_query(r#"{"q": "a"}"#).unwrap_err();
        assert!(e.contains("takes {\"query\""), "{e}");
        let (name, args) = read_call(r#"{"name": "ping", "arguments": {"a": 1}}"#).unwrap();
        assert_eq!(
            (name.as_str(), args.unwrap().get()),
            ("ping", r#"{"a": 1}"#)
        );
        let e = read_call(r#"{"name": "run_code"}"#).unwrap_err();
        assert!(e.contains("not `run_code`"), "{e}");
    }
}
