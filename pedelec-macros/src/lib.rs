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
/// `#[tool]` returning it lists an MCP `outputSchema`. Reads `#[serde(...)]` on the serialize
/// side (`rename`, `rename_all`, `skip`/`skip_serializing`, `skip_serializing_if` → not
/// required, `into`, enum tagging) and `#[arg(...)]` (descriptions, constraints, `schema`)
/// like `#[derive(ToolArgs)]`, with the same type mapping and checks.
#[proc_macro_derive(ToolOutput, attributes(arg, serde))]
pub fn derive_tool_output(input: TokenStream) -> TokenStream {
    derive::derive_output(input.into()).into()
}

/// Declares a tool from a function: `#[tool]`, or
/// `#[tool(name = "…", description = "…", timeout_ms = 5_000)]`, on an `fn` or `async fn`.
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
