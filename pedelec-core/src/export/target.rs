//! The targets and the shape of a tool declaration in each provider's request.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt;
use std::str::FromStr;

use pedelec_rules::provider::Provider;
use serde_json::{Map, Value, json};

/// A model API (or MCP) to export a skill set for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// OpenAI Chat Completions: `{"type": "function", "function": {name, description,
    /// parameters, strict}}`.
    OpenAiChat,
    /// OpenAI Responses: `{"type": "function", name, description, parameters, strict}`.
    OpenAiResponses,
    /// Anthropic Messages: `{name, description, input_schema, strict?}`.
    Anthropic,
    /// Google Gemini: `[{"functionDeclarations": [{name, description,
    /// parametersJsonSchema}]}]`.
    Gemini,
    /// Google Gemini with the older `parameters` (an OpenAPI 3.0 subset).
    GeminiOpenApi,
    /// MCP `tools/list`: `{name, description, inputSchema}`.
    Mcp,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 6] = [
        Target::OpenAiChat,
        Target::OpenAiResponses,
        Target::Anthropic,
        Target::Gemini,
        Target::GeminiOpenApi,
        Target::Mcp,
    ];

    /// The provider whose rules apply.
    #[must_use]
    pub const fn provider(self) -> Provider {
        match self {
            Target::OpenAiChat | Target::OpenAiResponses => Provider::OpenAi,
            Target::Anthropic => Provider::Anthropic,
            Target::Gemini => Provider::Gemini,
            Target::GeminiOpenApi => Provider::GeminiOpenApi,
            Target::Mcp => Provider::Mcp,
        }
    }

    /// A short name (`openai`, `openai-responses`, `anthropic`, `gemini`,
    /// `gemini-openapi`, `mcp`), also read by [`FromStr`].
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Target::OpenAiChat => "openai",
            Target::OpenAiResponses => "openai-responses",
            Target::Anthropic => "anthropic",
            Target::Gemini => "gemini",
            Target::GeminiOpenApi => "gemini-openapi",
            Target::Mcp => "mcp",
        }
    }

    /// The API, as people write it.
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            Target::OpenAiChat => "OpenAI Chat Completions",
            Target::OpenAiResponses => "OpenAI Responses",
            Target::Anthropic => "Anthropic Messages",
            Target::Gemini => "Gemini",
            Target::GeminiOpenApi => "Gemini (OpenAPI parameters)",
            Target::Mcp => "MCP",
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Target {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Target::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| {
                let names: Vec<_> = Target::ALL.iter().map(|t| format!("`{t}`")).collect();
                format!("unknown target `{s}`; expected one of {}", names.join(", "))
            })
    }
}

/// Whether the target's declarations have a field for example arguments: Anthropic's
/// `input_examples` ("an array of example input objects", platform.claude.com `define-tools`).
pub(crate) const fn has_examples(target: Target) -> bool {
    matches!(target, Target::Anthropic)
}

/// One tool's declaration (`examples`: empty unless [`has_examples`]).
pub(crate) fn declaration(
    target: Target,
    strict: bool,
    name: &str,
    description: &str,
    schema: Value,
    no_arguments: bool,
    examples: Vec<Value>,
) -> Value {
    match target {
        Target::OpenAiChat => json!({
            "type": "function",
            "function": {
                "name": name,
                "description": description,
                "parameters": schema,
                "strict": strict,
            }
        }),
        Target::OpenAiResponses => json!({
            "type": "function",
            "name": name,
            "description": description,
            "parameters": schema,
            // Responses treats an omitted `strict` as `true`: always say it.
            "strict": strict,
        }),
        Target::Anthropic => {
            let mut d = json!({
                "name": name,
                "description": description,
                "input_schema": schema,
            });
            if !examples.is_empty() {
                d["input_examples"] = Value::Array(examples);
            }
            if strict {
                d["strict"] = Value::Bool(true);
            }
            d
        }
        Target::Gemini => json!({
            "name": name,
            "description": description,
            "parametersJsonSchema": schema,
        }),
        Target::GeminiOpenApi => {
            let mut d = Map::new();
            d.insert("name".into(), name.into());
            d.insert("description".into(), description.into());
            // `parameters` with no properties is rejected ("should be non-empty for OBJECT
            // type"); a tool without arguments declares none.
            if !no_arguments {
                d.insert("parameters".into(), schema);
            }
            Value::Object(d)
        }
        Target::Mcp => json!({
            "name": name,
            "description": description,
            "inputSchema": schema,
        }),
    }
}

/// The request's `tools` field.
pub(crate) fn tools(target: Target, declarations: Vec<Value>) -> Value {
    match target {
        Target::Gemini | Target::GeminiOpenApi => {
            json!([{ "functionDeclarations": declarations }])
        }
        _ => Value::Array(declarations),
    }
}
