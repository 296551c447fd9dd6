//! Deferred tools in provider exports (DESIGN §12): [`Search`] picks how the tools marked
//! `#[tool(defer)]` reach the model, the request's `tools` are laid out for it, and
//! [`Session::call_provider`](crate::Session::call_provider) answers the model's searches.
//!
//! | target | `Search::Provider` | `Search::Client` |
//! |---|---|---|
//! | OpenAI Responses | `{"type": "tool_search"}`; deferred functions `defer_loading: true`; one `namespace` per namespace | `tool_search` with `execution: "client"`; deferred functions left out, a `tool_search_output` loads them |
//! | Anthropic | `tool_search_tool_bm25`; deferred tools `defer_loading: true` | a `search_tools` tool; deferred tools `defer_loading: true`, loaded by `tool_reference` blocks |
//! | Chat Completions, Gemini | (no provider search: as `Client`) | a `search_tools` function answering the matches' definitions; deferred tools left out until [`Export::tools_with`] declares them |
//! | MCP | (as `Client`) | `search_tools` and `call_tool`, as the MCP bridge lists them |
//!
//! With no deferred tool, every mode is `Off`: nothing to search.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use serde_json::{Map, Value, json};

use super::names::namespaced;
use super::{Export, Target};
use crate::search::tools::{
    CALL_TOOL, CALL_TOOL_DESCRIPTION, SEARCH_TOOLS, call_tool_schema, search_tools_description,
};

/// How an export's deferred tools (`#[tool(defer)]`) reach the model
/// ([`ExportOptions::search`](super::ExportOptions::search)). Tools that are not deferred
/// are always declared in full.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Search {
    /// Every tool declared in full, deferred or not.
    #[default]
    Off,
    /// The provider's own tool search, where it has one: OpenAI Responses' hosted
    /// `tool_search` (deferred functions `defer_loading: true`, one `namespace` per
    /// namespace), Anthropic's BM25 tool search tool (deferred tools `defer_loading: true`).
    /// Elsewhere, `Client`.
    Provider,
    /// pedelec's own index answers the model's searches
    /// ([`Session::call_provider`](crate::Session::call_provider)): OpenAI Responses'
    /// `tool_search` with `execution: "client"`, Anthropic client search answered with
    /// `tool_reference` blocks, elsewhere a `search_tools` function whose answer carries the
    /// matches' definitions.
    Client,
}

impl Search {
    /// The mode a target gets: `Provider` on a target without provider search is `Client`.
    pub(super) const fn on(self, target: Target) -> Search {
        match (self, target) {
            (Search::Provider, Target::OpenAiResponses | Target::Anthropic) | (Search::Off, _) => {
                self
            }
            _ => Search::Client,
        }
    }
}

/// A namespace of an OpenAI Responses export: the part of its tools' names before the
/// first `.`.
#[derive(Clone, Debug)]
pub(super) struct Namespace {
    pub(super) name: String,
    pub(super) description: String,
}

/// A search the model asked this export's client search for.
pub(crate) struct SearchCall {
    pub(crate) id: Option<String>,
    /// `search_tools`' (or `tool_search`'s) arguments, as JSON text.
    pub(crate) args: String,
    /// MCP's `call_tool`, not a search: the call it names goes to the session.
    pub(crate) call_tool: bool,
}

/// The namespaces of `names` (tool names): the part before the first `.` of each name that
/// has one, in order of first appearance, and each tool's namespace (an index). A namespace
/// is described by its guidance in `described`, or else by the names of its tools.
pub(super) fn namespaces(
    names: &[(String, String)],
    described: &[(crate::schema::Str, crate::schema::Str)],
) -> (Vec<Namespace>, Vec<Option<usize>>) {
    let mut spaces: Vec<Namespace> = Vec::new();
    let mut members: Vec<Vec<&str>> = Vec::new();
    let mut of = Vec::with_capacity(names.len());
    for (name, _) in names {
        let Some((space, rest)) = name.split_once('.') else {
            of.push(None);
            continue;
        };
        let k = match spaces.iter().position(|s| s.name == space) {
            Some(k) => k,
            None => {
                spaces.push(Namespace {
                    name: space.to_owned(),
                    description: String::new(),
                });
                members.push(Vec::new());
                spaces.len() - 1
            }
        };
        members[k].push(rest);
        of.push(Some(k));
    }
    // OpenAI shows the model a namespace's name and description before its functions are
    // loaded: say what is inside.
    for (space, members) in spaces.iter_mut().zip(members) {
        space.description = match described.iter().find(|(n, _)| **n == *space.name) {
            Some((_, guidance)) if !guidance.trim().is_empty() => guidance.to_string(),
            _ => format!("Tools: {}.", members.join(", ")),
        };
    }
    (spaces, of)
}

/// `declaration` with `defer_loading: true` when `deferred`.
fn deferring(mut declaration: Value, deferred: bool) -> Value {
    if deferred && let Some(d) = declaration.as_object_mut() {
        d.insert("defer_loading".into(), Value::Bool(true));
    }
    declaration
}

impl<N> Export<N> {
    /// The request's `tools` for a search mode (`self.search` is not `Off`): see the table
    /// in the module docs. `search_tools`: the declaration of the client search tool in
    /// this target's form (unused by provider search).
    pub(super) fn search_tools(&self, search_tools: Value) -> Value {
        let deferred = |i: usize| self.deferred[i];
        match (self.target, self.search) {
            (Target::OpenAiResponses, mode) => {
                let client = mode == Search::Client;
                let kept = (0..self.names.len()).filter(|&i| !(client && deferred(i)));
                let mut out = self.responses_entries(kept, true);
                out.push(if client {
                    search_tools
                } else {
                    json!({"type": "tool_search"})
                });
                Value::Array(out)
            }
            (Target::Anthropic, mode) => {
                let mut out: Vec<Value> = self
                    .declarations
                    .iter()
                    .enumerate()
                    .map(|(i, d)| deferring(d.clone(), deferred(i)))
                    .collect();
                out.push(if mode == Search::Client {
                    search_tools
                } else {
                    json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
                });
                Value::Array(out)
            }
            (target, _) => {
                let mut out: Vec<Value> = self
                    .declarations
                    .iter()
                    .enumerate()
                    .filter(|&(i, _)| !deferred(i))
                    .map(|(_, d)| d.clone())
                    .collect();
                out.push(search_tools);
                if target == Target::Mcp {
                    out.push(json!({
                        "name": CALL_TOOL,
                        "description": CALL_TOOL_DESCRIPTION,
                        "inputSchema": call_tool_schema(),
                    }));
                }
                super::target::tools(target, out)
            }
        }
    }

    /// OpenAI Responses entries for the tools at `positions`, in that order, each namespace
    /// at its first member's place; with `mark`, deferred functions say
    /// `defer_loading: true`.
    fn responses_entries(&self, positions: impl Iterator<Item = usize>, mark: bool) -> Vec<Value> {
        let mut out = Vec::new();
        let mut placed: Vec<Option<usize>> = vec![None; self.namespaces.len()];
        for i in positions {
            let declaration = deferring(self.declarations[i].clone(), mark && self.deferred[i]);
            match self.namespace_of[i] {
                None => out.push(declaration),
                Some(k) => match placed[k] {
                    Some(at) => {
                        if let Some(Value::Array(tools)) = out[at].get_mut("tools") {
                            tools.push(declaration);
                        }
                    }
                    None => {
                        placed[k] = Some(out.len());
                        let space = &self.namespaces[k];
                        out.push(json!({
                            "type": "namespace",
                            "name": space.name,
                            "description": space.description,
                            "tools": [declaration],
                        }));
                    }
                },
            }
        }
        out
    }

    /// The client search tool's declaration in this target's form (`schema`: its input
    /// schema, already in the provider's form).
    pub(super) fn search_tools_declaration(&self, schema: Value) -> Value {
        let description = search_tools_description(self.target == Target::Mcp);
        match self.target {
            Target::OpenAiResponses => {
                // What the model can find: the namespaces whose functions are all deferred
                // are not in the request at all.
                let mut description = description.to_owned();
                let hidden: Vec<&Namespace> = self
                    .namespaces
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| {
                        self.namespace_of
                            .iter()
                            .enumerate()
                            .filter(|&(_, of)| *of == Some(k))
                            .all(|(i, _)| self.deferred[i])
                    })
                    .map(|(_, space)| space)
                    .collect();
                if !hidden.is_empty() {
                    description.push_str(" Namespaces to search: ");
                    let names: Vec<String> = hidden
                        .iter()
                        .map(|s| format!("{} ({})", s.name, s.description))
                        .collect();
                    description.push_str(&names.join("; "));
                }
                json!({
                    "type": "tool_search",
                    "execution": "client",
                    "description": description,
                    "parameters": schema,
                })
            }
            target => super::target::declaration(
                target,
                self.strict,
                SEARCH_TOOLS,
                description,
                schema,
                false,
                Vec::new(),
            ),
        }
    }

    /// The search mode this export was made with, after the target's fallback
    /// (`Provider` on a target without provider search is `Client`), and `Off` when no tool
    /// is deferred.
    #[must_use]
    pub const fn search(&self) -> Search {
        self.search
    }

    /// Whether the tool `name` (its own name) is deferred in this export.
    #[must_use]
    pub fn is_deferred(&self, name: &str) -> bool {
        self.names
            .iter()
            .position(|(t, _)| t == name)
            .is_some_and(|i| self.deferred[i])
    }

    /// The tools as the model sees them before any search, by each provider's documented
    /// rules: every tool of [`tools`](Self::tools), but a deferred OpenAI function shows only
    /// its name and description (a namespace of deferred functions only its own), and a
    /// deferred Anthropic tool nothing. What the first request costs in the model's context.
    #[must_use]
    pub fn in_context(&self) -> Value {
        match (self.target, self.search) {
            (Target::OpenAiResponses, Search::Provider) => {
                Value::Array(self.tools.as_array().map_or_else(Vec::new, |entries| {
                    entries.iter().map(responses_in_context).collect()
                }))
            }
            (Target::Anthropic, Search::Provider | Search::Client) => {
                Value::Array(self.tools.as_array().map_or_else(Vec::new, |entries| {
                    entries
                        .iter()
                        .filter(|d| d.get("defer_loading") != Some(&Value::Bool(true)))
                        .cloned()
                        .collect()
                }))
            }
            _ => self.tools.clone(),
        }
    }

    /// The request's `tools` once the model has loaded `loaded` (tool names, as
    /// [`loaded_by`](Self::loaded_by) reads them from search answers): on Chat Completions
    /// and Gemini, where a function must be declared to be called, the loaded deferred
    /// tools are declared in full after the others; elsewhere the provider keeps what a
    /// search loaded (a `tool_search_output`, a `tool_reference`, MCP's `call_tool`), and
    /// this is [`tools`](Self::tools). Names that are not deferred tools of this export
    /// are ignored.
    #[must_use]
    pub fn tools_with<S: AsRef<str>>(&self, loaded: &[S]) -> Value {
        if !matches!(
            self.target,
            Target::OpenAiChat | Target::Gemini | Target::GeminiOpenApi
        ) || self.search == Search::Off
        {
            return self.tools.clone();
        }
        let mut tools = self.tools.clone();
        let list = match self.target {
            Target::OpenAiChat => tools.as_array_mut(),
            _ => tools
                .pointer_mut("/0/functionDeclarations")
                .and_then(Value::as_array_mut),
        };
        if let Some(list) = list {
            for (i, (name, _)) in self.names.iter().enumerate() {
                if self.deferred[i] && loaded.iter().any(|l| l.as_ref() == name) {
                    list.push(self.declarations[i].clone());
                }
            }
        }
        tools
    }

    /// The tools (their own names) a search answer loads: a message
    /// [`Session::call_provider`](crate::Session::call_provider) answered a search with
    /// (a `tool_search_output` item, a `tool_result` of `tool_reference` blocks, a
    /// `search_tools` result). Empty for any other message.
    #[must_use]
    pub fn loaded_by(&self, answer: &Value) -> Vec<String> {
        let provider_names: Vec<String> = match self.target {
            Target::OpenAiResponses => {
                if answer.get("type").and_then(Value::as_str) != Some("tool_search_output") {
                    return Vec::new();
                }
                let mut names = Vec::new();
                for entry in answer["tools"].as_array().into_iter().flatten() {
                    match entry.get("type").and_then(Value::as_str) {
                        Some("namespace") => {
                            let space = entry["name"].as_str().unwrap_or_default();
                            for member in entry["tools"].as_array().into_iter().flatten() {
                                if let Some(name) = member["name"].as_str() {
                                    names.push(namespaced(space, name));
                                }
                            }
                        }
                        _ => names.extend(entry["name"].as_str().map(str::to_owned)),
                    }
                }
                names
            }
            Target::Anthropic => answer["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|b| b["type"] == "tool_reference")
                .filter_map(|b| b["tool_name"].as_str().map(str::to_owned))
                .collect(),
            Target::OpenAiChat => answer["content"]
                .as_str()
                .and_then(|text| serde_json::from_str::<Value>(text).ok())
                .map(|result| {
                    result
                        .pointer("/value/tools")
                        .and_then(Value::as_array)
                        .into_iter()
                        .flatten()
                        .filter_map(|d| d.pointer("/function/name").and_then(Value::as_str))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            Target::Gemini | Target::GeminiOpenApi => answer
                .pointer("/functionResponse/response/value/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|d| d["name"].as_str().map(str::to_owned))
                .collect(),
            Target::Mcp => answer
                .pointer("/structuredContent/tools")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|d| d["name"].as_str().map(str::to_owned))
                .collect(),
        };
        provider_names
            .iter()
            .filter_map(|p| self.tool_name(p).map(str::to_owned))
            .collect()
    }

    /// The model's search in `payload`, when this export answers searches itself (client
    /// search with a deferred tool): a Responses `tool_search_call` run by the client, or a
    /// call of `search_tools` (and MCP's `call_tool`). `None` for anything else.
    pub(crate) fn search_call(&self, payload: &Value) -> Option<SearchCall> {
        self.index.as_ref()?;
        let text = |v: Option<&Value>| match v {
            Some(Value::String(s)) => s.clone(),
            Some(v) => v.to_string(),
            None => "{}".to_owned(),
        };
        let id = |v: Option<&Value>| v.and_then(Value::as_str).map(str::to_owned);
        let (name, id, args) = match self.target {
            Target::OpenAiResponses => {
                if payload.get("type")? != "tool_search_call"
                    || payload.get("execution").is_some_and(|e| e != "client")
                {
                    return None;
                }
                return Some(SearchCall {
                    id: id(payload.get("call_id")),
                    args: text(payload.get("arguments")),
                    call_tool: false,
                });
            }
            Target::OpenAiChat => {
                let function = payload.get("function")?;
                (
                    function.get("name")?.as_str()?,
                    id(payload.get("id")),
                    text(function.get("arguments")),
                )
            }
            Target::Anthropic => {
                if payload.get("type").is_some_and(|t| t != "tool_use") {
                    return None;
                }
                (
                    payload.get("name")?.as_str()?,
                    id(payload.get("id")),
                    text(payload.get("input")),
                )
            }
            Target::Gemini | Target::GeminiOpenApi => {
                let call = payload.get("functionCall").unwrap_or(payload);
                (
                    call.get("name")?.as_str()?,
                    id(call.get("id")),
                    text(call.get("args")),
                )
            }
            Target::Mcp => {
                let params = payload.get("params").unwrap_or(payload);
                (
                    params.get("name")?.as_str()?,
                    None,
                    text(params.get("arguments")),
                )
            }
        };
        let call_tool = self.target == Target::Mcp && name == CALL_TOOL;
        (name == SEARCH_TOOLS || call_tool).then_some(SearchCall {
            id,
            args,
            call_tool,
        })
    }

    /// The positions of the deferred tools that match `query`, best first, at most
    /// `limit`, among those `visible` lets the caller see.
    pub(crate) fn find(
        &self,
        query: &str,
        limit: usize,
        visible: impl Fn(&str) -> bool,
    ) -> Vec<usize> {
        let Some(index) = &self.index else {
            return Vec::new();
        };
        index
            .ranked(query)
            .into_iter()
            .map(|(position, _)| position)
            .filter(|&i| self.deferred[i] && visible(&self.names[i].0))
            .take(limit)
            .collect()
    }

    /// The answer to a search: the tools at `found` loaded, in this target's form (`Err`:
    /// the search's arguments were not understood, and why).
    pub(crate) fn search_answer(&self, id: Option<&str>, found: Result<&[usize], &str>) -> Value {
        let definitions = |found: &[usize]| -> Vec<Value> {
            found
                .iter()
                .map(|&i| self.declarations[i].clone())
                .collect()
        };
        match self.target {
            Target::OpenAiResponses => {
                // Best match first; a namespace where its first match is.
                let tools = match found {
                    Ok(found) => self.responses_entries(found.iter().copied(), false),
                    Err(_) => Vec::new(),
                };
                json!({
                    "type": "tool_search_output",
                    "call_id": id,
                    "execution": "client",
                    "status": "completed",
                    "tools": tools,
                })
            }
            Target::Anthropic => {
                let content: Vec<Value> = match found {
                    Ok([]) => vec![
                        json!({"type": "text", "text": "No tool matches; search with other words."}),
                    ],
                    Ok(found) => found
                        .iter()
                        .map(|&i| json!({"type": "tool_reference", "tool_name": self.names[i].1}))
                        .collect(),
                    Err(message) => vec![json!({"type": "text", "text": message})],
                };
                let mut block = json!({
                    "type": "tool_result",
                    "tool_use_id": id,
                    "content": content,
                });
                if found.is_err() {
                    block["is_error"] = Value::Bool(true);
                }
                block
            }
            target => {
                let result = match found {
                    Ok(found) => json!({"ok": true, "value": {"tools": definitions(found)}}),
                    Err(message) => json!({"ok": false, "error": {
                        "code": crate::error::ErrorCode::ToolArgsInvalid.as_str(),
                        "message": message,
                    }}),
                };
                match target {
                    Target::OpenAiChat => json!({
                        "role": "tool",
                        "tool_call_id": id,
                        "content": result.to_string(),
                    }),
                    Target::Mcp => {
                        let failed = found.is_err();
                        let mut out = Map::new();
                        out.insert(
                            "content".into(),
                            json!([{"type": "text", "text": result.to_string()}]),
                        );
                        if let Some(value) = result.get("value") {
                            out.insert("structuredContent".into(), value.clone());
                        }
                        out.insert("isError".into(), Value::Bool(failed));
                        Value::Object(out)
                    }
                    _ => {
                        let mut response = Map::new();
                        if let Some(id) = id {
                            response.insert("id".into(), id.into());
                        }
                        response.insert("name".into(), SEARCH_TOOLS.into());
                        response.insert("response".into(), result);
                        json!({ "functionResponse": response })
                    }
                }
            }
        }
    }
}

/// An OpenAI Responses entry as the model sees it before a search: a deferred function
/// as its name and description, a namespace without its deferred functions.
fn responses_in_context(entry: &Value) -> Value {
    let deferred = |d: &Value| d.get("defer_loading") == Some(&Value::Bool(true));
    let shown =
        |d: &Value| json!({"type": d["type"], "name": d["name"], "description": d["description"]});
    if entry["type"] == "namespace" {
        let members: Vec<Value> = entry["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| !deferred(d))
            .cloned()
            .collect();
        let mut out = shown(entry);
        if !members.is_empty() {
            out["tools"] = Value::Array(members);
        }
        out
    } else if deferred(entry) {
        shown(entry)
    } else {
        entry.clone()
    }
}
