//! Provider exports and call adapters: a skill set sent straight to a model API (OpenAI
//! Chat Completions and Responses, Anthropic Messages, Google Gemini, MCP), and the model's
//! tool calls brought back into a session.
//!
//! ```
//! use pedelec_core::export::{ExportOptions, Target};
//! use pedelec_core::{SkillsInput, ToolResult};
//! use serde_json::json;
//!
//! let skills = SkillsInput::from_json(&json!({
//!     "guidance": "Navigate.",
//!     "tools": [{
//!         "name": "nav.open_url",
//!         "description": "Open a URL.",
//!         "argsSchema": {
//!             "type": "object",
//!             "properties": {
//!                 "url": {"type": "string", "format": "uri"},
//!                 "new_tab": {"type": "boolean"}
//!             },
//!             "required": ["url"],
//!             "additionalProperties": false
//!         }
//!     }]
//! }))?;
//! let export = skills.export(Target::OpenAiChat, ExportOptions::default())?;
//! assert_eq!(export.provider_name("nav.open_url"), Some("nav_open_url"));
//! assert_eq!(export.tools()[0]["function"]["parameters"]["required"], json!(["url", "new_tab"]));
//!
//! // What the model sends back: the absent optional argument is a strict `null`.
//! let call = export.decode_call(&json!({
//!     "id": "call_1",
//!     "type": "function",
//!     "function": {"name": "nav_open_url", "arguments": "{\"url\":\"https://a.b\",\"new_tab\":null}"}
//! }))?;
//! assert_eq!(call.name, "nav.open_url");
//! assert_eq!(call.args, json!({"url": "https://a.b"}));
//! let message = export.encode_result(&call, &ToolResult::Ok(json!(true)));
//! assert_eq!(message, json!({"role": "tool", "tool_call_id": "call_1", "content": "{\"ok\":true,\"value\":true}"}));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Every export is lossless: each instance valid for a tool's argsSchema has a provider form
//! valid for the exported schema, and [`Export::decode_call`] gives the instance back. What
//! a provider cannot express moves into the property's description, in words, and the
//! session still enforces it. The modules: [`Target`]s and request shapes (`target`), the
//! schema transforms (`transform`), name mapping (`names`), the provider rules' inputs
//! (`facts`, computed by `const fn` so `skills![targets = [...]]` runs the same rules at
//! compile time), and the call adapters (`call`).

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

mod call;
mod choice;
mod error;
pub(crate) mod facts;
mod names;
mod raw;
mod search;
mod target;
mod transform;

use std::collections::HashMap;

use serde_json::Value;

pub use call::{ProviderCall, ProviderCaller};
pub use choice::Choice;
pub use error::ExportError;
pub(crate) use error::problem;
#[doc(hidden)]
pub(crate) use facts::tool_facts;
pub use search::Search;
pub(crate) use search::SearchCall;
pub use target::Target;

use crate::error::Problem;
use crate::manifest::SerializableSkillsManifest;
use crate::output::OutputSchema;
use crate::schema::{Str, ToolArgsSchema};
use crate::skills::SkillsInput;
use crate::tool::{Callers, ToolDefinition};

/// How to export: strict by default where the provider has a strict mode (OpenAI,
/// Anthropic), `ExportOptions::default().strict(false)` opts out; every tool in full by
/// default, `.search(Search::Provider)` or `.search(Search::Client)` defers the tools
/// marked `#[tool(defer)]`; Anthropic's request options `.cache_control(…)` and
/// `.eager_input_streaming(…)` (other targets have no such fields and leave them out).
///
/// ```
/// use pedelec_core::export::{CacheControl, ExportOptions, Target};
/// use pedelec_core::{SkillsInput, ToolArgsSchema, ToolDefinition};
/// use serde_json::json;
///
/// let schema = ToolArgsSchema::from_json(
///     &json!({"type": "object", "properties": {}, "additionalProperties": false}),
/// )?;
/// let skills = SkillsInput::new("Count.", vec![
///     ToolDefinition::new("read_counter", "Read the counter.", schema.clone()),
///     ToolDefinition::new("reset_counter", "Reset the counter.", schema),
/// ]);
/// let options = ExportOptions::default()
///     .cache_control(CacheControl::EphemeralOneHour)
///     .eager_input_streaming(true);
/// let export = skills.export(Target::Anthropic, options)?;
/// assert_eq!(export.tools()[0]["eager_input_streaming"], json!(true));
/// // The cache breakpoint is on the last tool: it caches every tool before it too.
/// assert!(export.tools()[0].get("cache_control").is_none());
/// assert_eq!(export.tools()[1]["cache_control"], json!({"type": "ephemeral", "ttl": "1h"}));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportOptions {
    strict: bool,
    search: Search,
    cache_control: Option<CacheControl>,
    eager_input_streaming: Option<bool>,
    code_mode: bool,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions {
            strict: true,
            search: Search::Off,
            cache_control: None,
            eager_input_streaming: None,
            code_mode: false,
        }
    }
}

impl ExportOptions {
    /// Whether to use the provider's strict mode (constrained decoding), where it has one.
    #[must_use]
    pub const fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Whether strict mode is asked for.
    #[must_use]
    pub const fn is_strict(&self) -> bool {
        self.strict
    }

    /// How the deferred tools (`#[tool(defer)]`) reach the model: see [`Search`].
    #[must_use]
    pub const fn search(mut self, search: Search) -> Self {
        self.search = search;
        self
    }

    /// The search mode asked for.
    #[must_use]
    pub const fn search_mode(&self) -> Search {
        self.search
    }

    /// Code mode (feature `code-mode`; DESIGN §15), for a session created with
    /// `SessionBuilder::code_mode`: the export declares its two functions, `search_tools`
    /// (the TypeScript declarations of the tools a program may call) and `run_code` (a
    /// program calling them), which [`Session::call_provider`](crate::Session::call_provider)
    /// hands to the session. Deferred tools a program may call are left out (its
    /// `search_tools` finds them), so [`search`](Self::search) does not apply.
    #[cfg(feature = "code-mode")]
    #[must_use]
    pub const fn code_mode(mut self, on: bool) -> Self {
        self.code_mode = on;
        self
    }

    /// Whether code mode's functions are declared.
    #[must_use]
    pub const fn is_code_mode(&self) -> bool {
        self.code_mode
    }

    /// Anthropic prompt caching: a `cache_control` breakpoint on the last tool of the
    /// request (the last one not deferred, with search), which caches the whole tool list
    /// (Anthropic's tools come first in the cached prefix). No other target has the field.
    #[must_use]
    pub const fn cache_control(mut self, cache_control: CacheControl) -> Self {
        self.cache_control = Some(cache_control);
        self
    }

    /// The cache breakpoint asked for, if any.
    #[must_use]
    pub const fn cache_control_mode(&self) -> Option<CacheControl> {
        self.cache_control
    }

    /// Anthropic's per-tool `eager_input_streaming`: `true` streams each tool's input as
    /// it is generated (fine-grained tool streaming: a streamed input may be partial or
    /// invalid JSON until it ends), `false` turns it off even under the beta header. Unset,
    /// the field is left out (Anthropic's default). No other target has the field.
    #[must_use]
    pub const fn eager_input_streaming(mut self, eager: bool) -> Self {
        self.eager_input_streaming = Some(eager);
        self
    }

    /// The `eager_input_streaming` asked for, if any.
    #[must_use]
    pub const fn eager_input_streaming_mode(&self) -> Option<bool> {
        self.eager_input_streaming
    }
}

/// An Anthropic prompt-cache breakpoint ([`ExportOptions::cache_control`]): the request's
/// `cache_control` (`{"type": "ephemeral", "ttl"?: "5m" | "1h"}`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CacheControl {
    /// `{"type": "ephemeral"}`: cached for Anthropic's default time (5 minutes).
    Ephemeral,
    /// `{"type": "ephemeral", "ttl": "1h"}`: cached for an hour.
    EphemeralOneHour,
}

impl CacheControl {
    /// The request's `cache_control` value.
    #[must_use]
    pub fn to_json(self) -> Value {
        match self {
            CacheControl::Ephemeral => serde_json::json!({"type": "ephemeral"}),
            CacheControl::EphemeralOneHour => serde_json::json!({"type": "ephemeral", "ttl": "1h"}),
        }
    }
}

/// What a tool carries beyond Core's manifest entry (from its `ToolDefinition`), for the
/// exports that send it.
#[derive(Clone, Copy, Default)]
struct Extras<'a> {
    examples: &'a [Str],
    deferred: bool,
    callers: Option<Callers>,
    output: Option<OutputSchema>,
}

/// A skill set exported for one provider: the request's `tools`, the name map, and what
/// [`decode_call`](Export::decode_call) needs to restore each call's arguments.
///
/// `N` is the type that names its tools: a `skills![]` set's `ToolName` for
/// `ToolName::export(..)` (or `ToolName::skills().export(..)`), which
/// [`tool_choice`](Export::tool_choice) takes; `String` for a manifest's export.
#[derive(Clone, Debug)]
pub struct Export<N = String> {
    target: Target,
    strict: bool,
    tools: Value,
    /// `(tool name, provider name)`, in the skill set's order.
    names: Vec<(String, String)>,
    /// Looked up on every provider call: a seeded hash, several times cheaper than SipHash.
    by_provider_name: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Each tool's argsSchema (to drop the `null`s standing for absent optional properties).
    schemas: Vec<ToolArgsSchema>,
    /// Per tool: whether its export has a map in the entries form, which `decode_call`
    /// turns back into an object.
    entries: Vec<bool>,
    /// How deferred tools reach the model (`Off` when none is deferred).
    search: Search,
    /// Per tool: deferred (`#[tool(defer)]`).
    deferred: Vec<bool>,
    /// With search: each tool's full declaration (inside its namespace, on OpenAI
    /// Responses), what a search loads. Empty with `Search::Off`.
    declarations: Vec<Value>,
    /// OpenAI Responses with search: the namespaces, and each tool's (an index).
    namespaces: Vec<search::Namespace>,
    namespace_of: Vec<Option<usize>>,
    /// Client search: the index over the tools, in the skill set's order.
    index: Option<crate::search::Index>,
    /// Per tool: its output schema (MCP answers a result's `structuredContent` by it).
    outputs: Vec<Option<OutputSchema>>,
    /// What the export says less precisely than a raw schema (see [`Export::narrowings`]).
    narrowings: Vec<Problem>,
    names_of: std::marker::PhantomData<fn() -> N>,
}

impl SerializableSkillsManifest {
    /// Exports the skill set for `target`: the request's `tools`, with every schema
    /// transformed into what the provider accepts, and names mapped where it rejects them.
    ///
    /// # Errors
    /// Every problem at once (tool, JSON pointer, rule): a name too long or colliding after
    /// mapping, a schema beyond the provider's documented limits, an object strict mode
    /// cannot close, a `oneOf` that cannot become `anyOf` without changing its meaning.
    ///
    /// The manifest is what Core receives and has exactly the seed's keys: no deferral, no
    /// callers, no output schemas, no examples. Exporting it would drop them without a word,
    /// so this is deprecated: export the skill set (`ToolName::export(..)`, or
    /// [`SkillsInput::export`]; a manifest read from elsewhere becomes a `SkillsInput` with
    /// [`SkillsInput::from_json`]).
    #[deprecated(
        since = "0.1.0",
        note = "a manifest has no deferral, callers, output schemas or examples, so its export drops them: export the skill set (`ToolName::export(target, options)` or `SkillsInput::export`)"
    )]
    pub fn export(&self, target: Target, options: ExportOptions) -> Result<Export, ExportError> {
        Export::new(self, &[], &[], target, options)
    }
}

impl<N> SkillsInput<N> {
    /// Exports the skill set for `target`, as
    /// [`SerializableSkillsManifest::export`] does, with each tool's examples
    /// ([`ToolDefinition::examples`](crate::ToolDefinition::examples)) where the provider
    /// has a field for them: Anthropic's `input_examples`. No other target has one (OpenAI,
    /// Gemini and MCP tool declarations have no examples field), so there they are left out.
    ///
    /// ```
    /// use pedelec_core::export::{ExportOptions, Target};
    /// use pedelec_core::{SkillsInput, ToolArgsSchema, ToolDefinition};
    /// use serde_json::json;
    ///
    /// let schema = ToolArgsSchema::from_json(&json!({
    ///     "type": "object",
    ///     "properties": {"delta": {"type": "integer"}},
    ///     "required": ["delta"],
    ///     "additionalProperties": false
    /// }))?;
    /// let tool = ToolDefinition::new("update_counter", "Update the counter.", schema)
    ///     .with_examples([r#"{"delta": 2}"#]); // `#[tool(example = r#"{"delta": 2}"#)]`
    /// let skills = SkillsInput::new("Count.", vec![tool]);
    /// let export = skills.export(Target::Anthropic, ExportOptions::default())?;
    /// assert_eq!(export.tools()[0]["input_examples"], json!([{"delta": 2}]));
    /// let export = skills.export(Target::OpenAiChat, ExportOptions::default())?;
    /// assert!(export.tools()[0]["function"].get("input_examples").is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As `SerializableSkillsManifest::export`, and, for Anthropic, an example that is not a
    /// JSON object valid for its tool's argsSchema (rule `input-example`).
    pub fn export(&self, target: Target, options: ExportOptions) -> Result<Export<N>, ExportError> {
        #[cfg(feature = "code-mode")]
        if options.code_mode {
            return self.export_code_mode(target, options);
        }
        self.export_tools(self.tools(), target, options)
    }

    /// Code mode's export: the tools not deferred (or that a program may not call), then
    /// `search_tools` and `run_code`.
    #[cfg(feature = "code-mode")]
    fn export_code_mode(
        &self,
        target: Target,
        options: ExportOptions,
    ) -> Result<Export<N>, ExportError> {
        let declared = crate::code::declared(false)
            .map_err(|p| ExportError::new(target, vec![p.rule("code-mode")]))?;
        let mut tools: Vec<ToolDefinition> = self
            .tools()
            .iter()
            .filter(|t| !t.defer() || !t.callable_by_program())
            .cloned()
            .collect();
        tools.extend(declared);
        self.export_tools(&tools, target, options.search(Search::Off))
    }

    fn export_tools(
        &self,
        tools: &[ToolDefinition],
        target: Target,
        options: ExportOptions,
    ) -> Result<Export<N>, ExportError> {
        let extras: Vec<Extras<'_>> = tools
            .iter()
            .map(|tool| Extras {
                examples: tool.examples(),
                deferred: tool.defer(),
                callers: tool.declared_callers(),
                output: tool.output_schema().copied(),
            })
            .collect();
        let described = self.namespaces();
        let manifest = SerializableSkillsManifest {
            guidance: self.guidance().to_owned(),
            tools: tools.iter().map(ToolDefinition::manifest).collect(),
        };
        Export::new(&manifest, &extras, described, target, options)
    }
}

impl<N> Export<N> {
    /// `extras[i]`: what the `i`-th tool carries beyond its manifest entry (nothing past
    /// the end); `described`: the namespaces' guidance.
    fn new(
        manifest: &SerializableSkillsManifest,
        extras: &[Extras<'_>],
        described: &[(Str, Str)],
        target: Target,
        options: ExportOptions,
    ) -> Result<Export<N>, ExportError> {
        let provider = target.provider();
        let strict = options.strict && provider.has_strict_mode();
        let mut problems = Vec::new();
        let mut narrowings = Vec::new();
        let names = names::map(provider, manifest, &mut problems);
        let extras: Vec<Extras<'_>> = (0..manifest.tools.len())
            .map(|i| extras.get(i).copied().unwrap_or_default())
            .collect();
        let deferred: Vec<bool> = extras.iter().map(|e| e.deferred).collect();
        let search = if deferred.contains(&true) {
            options.search.on(target)
        } else {
            Search::Off
        };
        // OpenAI Responses groups a searched catalog in namespaces (the part of a name
        // before its first `.`): its models are trained to search those.
        let (namespaces, namespace_of) =
            if target == Target::OpenAiResponses && search != Search::Off {
                search::namespaces(&names, described)
            } else {
                (Vec::new(), vec![None; names.len()])
            };
        let mut declarations = Vec::with_capacity(manifest.tools.len());
        let mut before = pedelec_rules::provider::SetFacts::NONE;
        for (i, (tool, (_, provider_name))) in manifest.tools.iter().zip(&names).enumerate() {
            let node = tool.args_schema.node();
            let facts = tool_facts(&tool.description, node);
            // A tool the model loads by searching is not in the first request: the set's
            // totals (tool count, strict grammar sizes) are the declared tools'. Except on
            // Anthropic, which sends deferred tools in the request (`defer_loading: true`)
            // and builds its strict grammar over every tool there, deferred ones included:
            // they count toward its strict limits.
            let searched = search != Search::Off
                && deferred[i]
                && provider != pedelec_rules::provider::Provider::Anthropic;
            let set = if searched {
                pedelec_rules::provider::SetFacts::NONE
            } else {
                before
            };
            let violations = pedelec_rules::provider::check_tool(provider, strict, &facts, &set);
            for rule in violations.iter() {
                // The schema walk reports these two with a pointer to each node.
                if !matches!(
                    rule,
                    pedelec_rules::provider::Rule::OpenObject
                        | pedelec_rules::provider::Rule::AmbiguousUnion
                        | pedelec_rules::provider::Rule::Recursive
                ) {
                    problems.push(problem(Some(&tool.name), "", rule.id(), rule.to_string()));
                }
            }
            if !searched {
                before = before.with(&facts);
            }
            let schema = if tool.args_schema.is_lenient() {
                transform::raw_schema(
                    provider,
                    strict,
                    &tool.args_schema,
                    &tool.name,
                    &mut problems,
                    &mut narrowings,
                )
            } else {
                transform::schema(
                    provider,
                    strict,
                    &tool.args_schema.to_json(),
                    node,
                    &tool.name,
                    &mut problems,
                )
            };
            let examples = if target::has_examples(target) {
                input_examples(tool, extras[i].examples, &mut problems)
            } else {
                Vec::new()
            };
            let declared_name = match namespace_of[i] {
                Some(k) => &names::inner_name(provider_name, &namespaces[k].name),
                None => provider_name,
            };
            let mut declaration = target::declaration(
                target,
                strict,
                declared_name,
                &tool.description,
                schema,
                facts::properties(node).is_empty()
                    && !matches!(
                        node.additional_properties,
                        Some(crate::schema::AdditionalProperties::Schema(_))
                    ),
                examples,
            );
            target::add_fields(
                target,
                &mut declaration,
                &target::Fields {
                    callers: extras[i].callers,
                    output: extras[i]
                        .output
                        .and_then(|output| target::output_schema(target, &output)),
                    eager_input_streaming: options.eager_input_streaming,
                },
            );
            declarations.push(declaration);
        }
        let search_schema = (search != Search::Off).then(|| {
            let json = crate::search::tools::search_tools_schema(target == Target::Mcp);
            // A schema of our own: it reads, and every provider takes it.
            ToolArgsSchema::from_json(&json).map(|schema| {
                transform::schema(
                    provider,
                    strict,
                    &json,
                    schema.node(),
                    "search_tools",
                    &mut problems,
                )
            })
        });
        if !problems.is_empty() {
            return Err(ExportError::new(target, problems));
        }
        let by_provider_name = names
            .iter()
            .enumerate()
            .map(|(i, (_, p))| (p.clone(), i))
            .collect();
        let mut export = Export {
            target,
            strict,
            tools: Value::Null,
            names,
            by_provider_name,
            schemas: manifest
                .tools
                .iter()
                .map(|t| t.args_schema.clone())
                .collect(),
            entries: manifest
                .tools
                .iter()
                .map(|t| transform::has_entries(provider, strict, t.args_schema.node()))
                .collect(),
            search,
            deferred,
            declarations: Vec::new(),
            namespaces,
            namespace_of,
            index: (search == Search::Client).then(|| crate::search::Index::of(manifest)),
            outputs: extras.iter().map(|e| e.output).collect(),
            narrowings,
            names_of: std::marker::PhantomData,
        };
        export.tools = match search_schema {
            Some(Ok(schema)) => {
                export.declarations = declarations;
                let search_tools = export.search_tools_declaration(schema);
                export.search_tools(search_tools)
            }
            _ => target::tools(target, declarations),
        };
        if target == Target::Anthropic
            && let Some(cache_control) = options.cache_control
        {
            target::mark_last_for_cache(&mut export.tools, cache_control);
        }
        Ok(export)
    }

    /// Where the export of a raw schema (one read by
    /// `ToolArgsSchema::from_json_lenient` (feature `raw-schemas`)) lets the model send less than the schema
    /// allows, per tool and pointer: an open object closed for a strict mode
    /// (`strict-closed-object`). Empty for tools declared in Rust, whose exports are exact.
    /// The session still validates every call against the raw schema.
    #[must_use]
    pub fn narrowings(&self) -> &[Problem] {
        &self.narrowings
    }

    /// Exactly what goes in the request's `tools` field.
    ///
    /// Anthropic reads `input_examples` (a tool's examples, from
    /// [`SkillsInput::export`]) only with the `advanced-tool-use-2025-11-20` beta header.
    #[must_use]
    pub fn tools(&self) -> &Value {
        &self.tools
    }

    /// The target.
    #[must_use]
    pub const fn target(&self) -> Target {
        self.target
    }

    /// Whether the tools are declared strict (asked for, and the provider has the mode).
    #[must_use]
    pub const fn is_strict(&self) -> bool {
        self.strict
    }

    /// The provider's name for a tool (`nav.open_url` → `nav_open_url` for OpenAI).
    #[must_use]
    pub fn provider_name(&self, tool_name: &str) -> Option<&str> {
        self.names
            .iter()
            .find(|(t, _)| t == tool_name)
            .map(|(_, p)| p.as_str())
    }

    /// The tool a provider name stands for (`nav_open_url` → `nav.open_url` for OpenAI).
    #[must_use]
    pub fn tool_name(&self, provider_name: &str) -> Option<&str> {
        self.by_provider_name
            .get(provider_name)
            .map(|&i| self.names[i].0.as_str())
    }
}

/// A tool's examples as the provider's `input_examples`, each checked (a JSON object valid
/// for the argsSchema, as a session checks them). Every instance valid for the argsSchema is
/// valid for each target's exported schema as it is, so the examples are sent unchanged.
fn input_examples(
    tool: &crate::manifest::SerializableToolManifest,
    examples: &[Str],
    problems: &mut Vec<Problem>,
) -> Vec<Value> {
    let mut out = Vec::with_capacity(examples.len());
    for (j, text) in examples.iter().enumerate() {
        let messages = crate::tool::example_problems(Some(&tool.args_schema), text);
        if messages.is_empty()
            && let Ok(value) = serde_json::from_str(text)
        {
            out.push(value);
        }
        for message in messages {
            problems.push(problem(
                Some(&tool.name),
                "",
                "input-example",
                format!("example {j}: {message}"),
            ));
        }
    }
    out
}
