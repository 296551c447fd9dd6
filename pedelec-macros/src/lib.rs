//! Procedural macros of [pedelec](https://docs.rs/pedelec): `#[derive(ToolArgs)]`,
//! `#[tool]` and `skills![]`. Use them through the `pedelec` crate.

use proc_macro::TokenStream;

mod derive;
mod skills;
mod tool;
mod util;

#[cfg(test)]
mod tests;

#[doc = include_str!("derive/README.md")]
#[proc_macro_derive(ToolArgs, attributes(arg, serde))]
pub fn derive_tool_args(input: TokenStream) -> TokenStream {
    derive::derive(input.into()).into()
}

/// Derives `pedelec::ToolOutput`: the `const` schema of what the type *serializes* to, so a
/// `#[tool]` returning it lists an MCP `outputSchema` (a non-object result is wrapped as
/// `{"result": …}`). It reads `#[serde(...)]` on the serialize side (`rename`, `rename_all`,
/// `skip`/`skip_serializing`, `skip_serializing_if` → not required, `into`, enum tagging)
/// and `#[arg(...)]` (descriptions, constraints, `schema`) like `#[derive(ToolArgs)]`, with
/// the same type mapping and checks (`#[arg(default = …)]` describes arguments and is not
/// part of an output schema, so one type can derive both). An `Option` field is serialized
/// as `null` when absent, so it stays required and its schema allows `null`.
///
/// ```
/// use pedelec::ToolOutput;
/// use pedelec::output::OutputSchema;
/// use serde::Serialize;
///
/// #[derive(Serialize, ToolOutput)]
/// #[serde(rename_all = "camelCase")]
/// struct CounterValue {
///     /// The counter after the update.
///     current_value: i64,
///     #[serde(skip_serializing_if = "Option::is_none")]
///     note: Option<String>,
/// }
///
/// assert_eq!(
///     OutputSchema::of::<CounterValue>().to_json(),
///     serde_json::json!({
///         "type": "object",
///         "properties": {
///             "currentValue": {"type": "integer", "description": "The counter after the update."},
///             "note": {"oneOf": [{"type": "string"}, {"enum": [null]}]}
///         },
///         "required": ["currentValue"],
///         "additionalProperties": false
///     })
/// );
/// ```
#[proc_macro_derive(ToolOutput, attributes(arg, serde))]
pub fn derive_tool_output(input: TokenStream) -> TokenStream {
    derive::derive_output(input.into()).into()
}

/// Declares a tool from a function: `#[tool]`, or
/// `#[tool(name = "…", description = "…", timeout_ms = 5_000)]`, on an `fn` or `async fn`.
///
/// MCP-only metadata (never in Core's manifest): `title = "…"` (a human-readable name) and
/// the behaviour hints `read_only`, `destructive`, `idempotent`, `open_world` (MCP's
/// `readOnlyHint`, …). A hint is written alone; `destructive = false` and
/// `open_world = false` say the opposite of MCP's defaults. `read_only` with `destructive`
/// or `idempotent` is rejected (a read-only tool modifies nothing). When the result type
/// implements `ToolOutput`, the tool also lists its `outputSchema`.
#[proc_macro_attribute]
pub fn tool(args: TokenStream, input: TokenStream) -> TokenStream {
    tool::expand(args.into(), input.into()).into()
}

/// Declares a skill set and its typed tool names:
/// `skills![pub enum ToolName, guidance = "…", tools = [tool_a, module::tool_b as B]]`.
#[proc_macro]
pub fn skills(input: TokenStream) -> TokenStream {
    skills::expand(input.into()).into()
}
