//! The targets and the shape of a tool declaration in each provider's request.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt;
use std::str::FromStr;

use pedelec_rules::provider::Provider;
use serde_json::{Map, Value, json};

use super::CacheControl;
use crate::output::OutputSchema;
use crate::tool::Callers;

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

/// What a tool's declaration carries beyond its name, description and argsSchema, each
/// sent only where the target has the field (see [`add_fields`]).
pub(crate) struct Fields {
    /// `#[tool(callers = [...])]`, when declared.
    pub(crate) callers: Option<Callers>,
    /// The output schema in the target's form ([`output_schema`]).
    pub(crate) output: Option<Value>,
    /// [`ExportOptions::eager_input_streaming`](super::ExportOptions::eager_input_streaming).
    pub(crate) eager_input_streaming: Option<bool>,
}

/// Anthropic's name for a program caller: the newest code execution tool's type
/// (`anthropic` SDK, `types/tool_param.py`, `allowed_callers`: `direct`,
/// `code_execution_20250825`, `code_execution_20260120`, `code_execution_20260521`).
pub(crate) const ANTHROPIC_PROGRAM_CALLER: &str = "code_execution_20260521";

/// OpenAI Responses' name for a program caller (`openai` SDK,
/// `types/responses/function_tool_param.py`, `allowed_callers`: `direct`, `programmatic`).
pub(crate) const OPENAI_PROGRAM_CALLER: &str = "programmatic";

/// Adds `fields` to a declaration made by [`declaration`]: `allowed_callers` (OpenAI
/// Responses, Anthropic), the output schema (OpenAI Responses `output_schema`, Gemini
/// `responseJsonSchema`, Gemini OpenAPI `response`, MCP `outputSchema`), and
/// `eager_input_streaming` (Anthropic). Chat Completions' `FunctionDefinition` has none of
/// these fields.
pub(crate) fn add_fields(target: Target, declaration: &mut Value, fields: &Fields) {
    let Some(d) = declaration.as_object_mut() else {
        return;
    };
    if let Some(callers) = fields.callers {
        let program = match target {
            Target::OpenAiResponses => Some(OPENAI_PROGRAM_CALLER),
            Target::Anthropic => Some(ANTHROPIC_PROGRAM_CALLER),
            _ => None,
        };
        if let Some(program) = program {
            let names: Vec<Value> = callers
                .names()
                .map(|name| match name {
                    "program" => program.into(),
                    direct => direct.into(),
                })
                .collect();
            d.insert("allowed_callers".into(), Value::Array(names));
        }
    }
    if let Some(output) = &fields.output {
        let key = match target {
            Target::OpenAiResponses => Some("output_schema"),
            Target::Gemini => Some("responseJsonSchema"),
            Target::GeminiOpenApi => Some("response"),
            Target::Mcp => Some("outputSchema"),
            Target::OpenAiChat | Target::Anthropic => None,
        };
        if let Some(key) = key {
            d.insert(key.into(), output.clone());
        }
    }
    if target == Target::Anthropic
        && let Some(eager) = fields.eager_input_streaming
    {
        d.insert("eager_input_streaming".into(), Value::Bool(eager));
    }
}

/// A tool's output schema in `target`'s form, where the target documents one:
///
/// - MCP: the `outputSchema` of `tools/list` ([`OutputSchema::to_json`]), which the
///   result's `structuredContent` follows;
/// - OpenAI Responses (`output_schema`, "the JSON value encoded in string outputs"), Gemini
///   (`responseJsonSchema`): the schema of what the result message carries, the pedelec
///   result object `{"ok": true, "value": …}` or `{"ok": false, "error": …}`, its `value`
///   the tool's output schema;
/// - Gemini OpenAPI (`response`): that object in the OpenAPI subset, transformed as the
///   argsSchema is; left out when the subset cannot say it (a recursive output);
/// - Chat Completions and Anthropic: none (their tool declarations have no such field).
///
/// A result that is MCP content blocks ([`OutputSchema::is_content`]) has no output schema.
pub(crate) fn output_schema(target: Target, output: &OutputSchema) -> Option<Value> {
    if output.is_content() {
        return None;
    }
    match target {
        Target::Mcp => Some(output.to_json()),
        Target::OpenAiResponses | Target::Gemini => Some(result_schema(output.node().to_json())),
        Target::GeminiOpenApi => {
            let mut json = result_schema(output.node().to_json());
            // OpenAPI says "or null" with `nullable`, not a `oneOf` with a `null` branch:
            // take those branches out before reading the schema, and mark their places
            // `nullable` in the export.
            let mut nullable = Vec::new();
            strip_null_branches(&mut json, &mut String::new(), &mut nullable);
            let schema = crate::schema::ToolArgsSchema::from_json(&json).ok()?;
            let mut problems = Vec::new();
            let exported = super::transform::schema(
                Provider::GeminiOpenApi,
                false,
                &json,
                schema.node(),
                "",
                &mut problems,
            );
            let mut exported = problems.is_empty().then_some(exported)?;
            for pointer in &nullable {
                if let Some(Value::Object(node)) = exported.pointer_mut(pointer) {
                    node.insert("nullable".into(), Value::Bool(true));
                }
            }
            Some(exported)
        }
        Target::OpenAiChat | Target::Anthropic => None,
    }
}

/// Whether `branch` is a `oneOf` branch that only admits `null`.
fn is_null_branch(branch: &Value) -> bool {
    branch == &json!({"enum": [null]}) || branch == &json!({"type": "null"})
}

/// Rewrites every `{"oneOf": [T, null], …}` of an output schema (what `Option<T>` writes)
/// into `T` with the node's other keywords, pushing the JSON pointer of each place so
/// rewritten to `nullable`. Walks subschemas (`properties`, `items`,
/// `additionalProperties`, `oneOf`, `$defs`); an output schema nests as deep as its Rust
/// type, not as deep as input could.
fn strip_null_branches(schema: &mut Value, pointer: &mut String, nullable: &mut Vec<String>) {
    let Some(node) = schema.as_object_mut() else {
        return;
    };
    if let Some(Value::Array(branches)) = node.get("oneOf")
        && branches.len() == 2
        && let Some(null) = branches.iter().position(is_null_branch)
        && let Some(Value::Array(mut branches)) = node.shift_remove("oneOf")
    {
        let Value::Object(inner) = branches.swap_remove(1 - null) else {
            return;
        };
        // The node's own keywords (its description) win over the branch's.
        let outer = std::mem::take(node);
        node.extend(inner);
        node.extend(outer);
        nullable.push(pointer.clone());
    }
    let len = pointer.len();
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = node.get_mut(key) {
            pointer.push('/');
            pointer.push_str(key);
            strip_null_branches(sub, pointer, nullable);
            pointer.truncate(len);
        }
    }
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(map)) = node.get_mut(key) {
            for (name, sub) in map.iter_mut() {
                pointer.push('/');
                pointer.push_str(key);
                crate::schema::push_token(pointer, name);
                strip_null_branches(sub, pointer, nullable);
                pointer.truncate(len);
            }
        }
    }
    if let Some(Value::Array(branches)) = node.get_mut("oneOf") {
        for (i, sub) in branches.iter_mut().enumerate() {
            pointer.push_str("/oneOf/");
            pointer.push_str(&i.to_string());
            strip_null_branches(sub, pointer, nullable);
            pointer.truncate(len);
        }
    }
}

/// The schema of the pedelec result object whose `value` `value` describes. The value's
/// `$defs` move to the root, where its `$ref`s (`#/$defs/…`) point.
fn result_schema(mut value: Value) -> Value {
    let defs = value.as_object_mut().and_then(|v| {
        v.shift_remove("$schema");
        v.shift_remove("$defs")
    });
    let mut schema = json!({
        "type": "object",
        "description": "The result: `{\"ok\": true, \"value\": …}` when the call succeeded, \
                        `{\"ok\": false, \"error\": {\"code\": …, \"message\": …}}` when it failed.",
        "properties": {
            "ok": {"type": "boolean", "description": "Whether the call succeeded."},
            "value": value,
            "error": {
                "type": "object",
                "description": "Why the call failed (`details`, when present, says more).",
                "properties": {
                    "code": {"type": "string", "description": "The error code, like `TOOL_ARGS_INVALID`."},
                    "message": {"type": "string"}
                },
                "required": ["code", "message"]
            }
        },
        "required": ["ok"],
        "additionalProperties": false
    });
    if let Some(defs) = defs {
        schema["$defs"] = defs;
    }
    schema
}

/// Sets `cache_control` on the last declaration of an Anthropic request's `tools` that is
/// not deferred (`defer_loading: true`): a breakpoint there caches every tool before it.
pub(crate) fn mark_last_for_cache(tools: &mut Value, cache_control: CacheControl) {
    let Some(tools) = tools.as_array_mut() else {
        return;
    };
    if let Some(last) = tools
        .iter_mut()
        .rev()
        .find(|d| d.get("defer_loading") != Some(&Value::Bool(true)))
        && let Some(d) = last.as_object_mut()
    {
        d.insert("cache_control".into(), cache_control.to_json());
    }
}
