//! # pedelec
//!
//! Declare the tools an AI agent may call as ordinary Rust functions. pedelec derives each
//! tool's argument schema at compile time, rejects invalid and duplicate tool names, generates
//! a typed `ToolName` enum, and at run time validates every call, finds its handler, enforces
//! timeouts and answers every call exactly once.
//!
//! ## What to import
//!
//! `use pedelec::{ToolArgs, ToolCallContext, ToolError, skills, tool};` declares tools;
//! [`Session`] serves them; [`bridge::JsonLines`] and `bridge::Mcp` (feature `mcp`) connect
//! them to Core. The names a program usually writes are at this root; the modules hold the
//! rest: [`session`] (events, pending calls, handler traits), [`context`] (cancellation,
//! progress, state), [`schema`] (schemas by hand), [`call`] (handlers by hand), [`export`]
//! (provider APIs), [`contract`] (a skill set held to its lock file), [`bridge`]
//! (transports).
//!
//! ## In what order to read
//!
//! 1. [`tool`](macro@tool): a function becomes a tool; [`ToolArgs`](derive@ToolArgs): its
//!    argument struct becomes its argsSchema.
//! 2. [`skills!`]: the skill set, its `ToolName` enum and its manifest.
//! 3. [`Session`]: handlers ([`Session::on_tool`]), in-process calls ([`Session::call`],
//!    [`Session::call_with`] with [`CallOptions`]), and [`ToolCallContext`] inside a handler.
//! 4. [`ToolResult`], [`ToolError`] and [`ErrorCode`]: what a call answers.
//! 5. [`bridge`]: serving a session to Core ([`Session::serve`]); `docs/protocol.md` for the
//!    wire format.
//! 6. [`schema`]: [`ToolArgsSchema`] and [`schema::SchemaNode`] for tools defined at run
//!    time ([`ToolArgsSchema::from_json`], [`SkillsInput::from_json`]).
//!
//! See the README for a tour, and `CONTRIBUTING.md` for how the crates are laid out.

#![cfg_attr(docsrs, feature(doc_cfg))]

pub use pedelec_core::{
    bridge, call, code, context, contract, error, export, manifest, output, schema, search,
    session, skills, store, tool,
};

pub use pedelec_core::{
    CallOptions, Error, ErrorCode, Session, SkillsInput, Tool, ToolArgs, ToolArgsSchema, ToolCall,
    ToolCallContext, ToolDefinition, ToolError, ToolOutput, ToolResult, create_session, schema_for,
};

/// The README's tour, compiled and run as a doctest so that it stays true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeTour;
pub use pedelec_macros::ToolArgs;
pub use pedelec_macros::ToolOutput;

/// # Declaring a tool
///
/// ```
/// use pedelec::{Tool, ToolArgs, ToolCallContext, ToolError, tool};
/// use serde::{Deserialize, Serialize};
///
/// #[derive(Deserialize, ToolArgs)]
/// struct UpdateCounterArgs {
///     /// How much to add.
///     #[arg(minimum = -100, maximum = 100)]
///     delta: i64,
/// }
///
/// #[derive(Serialize)]
/// struct CounterValue {
///     value: i64,
/// }
///
/// /// Update the visible counter by delta.
/// #[tool(name = "update_counter", timeout_ms = 5_000)]
/// async fn update_counter(
///     args: UpdateCounterArgs,
///     ctx: ToolCallContext,
/// ) -> Result<CounterValue, ToolError> {
///     let _ = ctx;
///     Ok(CounterValue { value: args.delta })
/// }
///
/// assert_eq!(update_counter::NAME, "update_counter");
/// assert_eq!(update_counter::DESCRIPTION, "Update the visible counter by delta.");
/// assert_eq!(update_counter::TIMEOUT_MS, Some(5_000));
/// // SHA-256 of the RFC 8785 canonical JSON of the tool's manifest entry.
/// assert_eq!(update_counter::FINGERPRINT.len(), 64);
/// let definition = update_counter::definition(); // `defineTool()`, handler included
/// assert_eq!(definition.name(), "update_counter");
/// assert_eq!(
///     definition.args_schema().to_json(),
///     serde_json::json!({
///         "type": "object",
///         "properties": {
///             "delta": {
///                 "type": "integer",
///                 "description": "How much to add.",
///                 "minimum": -100,
///                 "maximum": 100
///             }
///         },
///         "required": ["delta"],
///         "additionalProperties": false
///     })
/// );
/// ```
///
/// ## Keys
///
/// - `name = "…"`: the agent-facing name; by default the function's name. It must start
///   with an ASCII letter and contain only ASCII letters, digits, `_`, `.` and `-`.
/// - `description = …`: what the tool does, its side effects and when to use it; a string
///   literal, `concat!(…)` or the path to a `&str` constant. By default the doc comment
///   (the lines of a paragraph joined, paragraphs separated by a blank line). Never blank.
/// - `timeout_ms = 5_000`: how long a call may run, a positive integer literal; by default
///   Core's 60 000 ms.
/// - `title = "…"`, `read_only`, `destructive`, `idempotent`, `open_world`: MCP's title and
///   behaviour hints.
/// - `scopes = ["counter:read", "counter:write"]`: the OAuth scopes a caller must hold, each
///   an RFC 6749 scope token (printable ASCII without space, `"` or `\`), listed once.
/// - `max_concurrency = 4`: the most calls of the tool running at once, across callers; a
///   positive integer literal that fits in a `u32`.
/// - `icon = "https://…"` or `icon = "data:image/svg+xml;base64,…"`: the icon hosts show
///   (MCP `icons`); an `https:` URL, or a `data:` URI of an image whose base64 data starts
///   like the image type it names. `http:` and other schemes are refused, as MCP clients
///   must refuse them.
/// - `task = optional` or `task = required`: whether the tool runs as an MCP task (`forbidden`,
///   the default, when unset).
/// - `version = 2`: the tool's contract version, an integer from 1 (the default). Raise it
///   with a breaking change (an argument added as required, a type changed, a bound
///   tightened, …): a contract check ([`contract`]) lets a breaking change pass only
///   when the version went up.
/// - `example = r#"{"delta": 2}"#`, repeatable: example arguments, each a JSON object. They
///   are checked against the argsSchema when a session is created (the argsSchema is another
///   macro's output), and exported as Anthropic's `input_examples`
///   ([`SkillsInput::export`]).
/// - `defer`: in a large catalog, the tool is left out of the lists a model sees until a
///   search loads it (MCP `search_tools`, a provider's tool search, code mode's
///   `search_tools`; [`export::Search`]). Its calls are served as any other's.
/// - `approval`, or `approval = path`: a person approves each call before it runs (after
///   validation, just before the handler): the session's approver, or the MCP client
///   through an elicitation. With a path, `fn(&Args, Option<&Caller>) -> bool` decides per
///   call (`approval = needs_review`).
/// - `exactly_once`: a call made with an idempotency key runs at most once; a retry with the
///   same key gets the first call's answer, across every replica sharing the session's
///   store ([`store`]).
/// - `callers = [direct, program]`: who may call the tool: the model itself (`direct`), a
///   program the model wrote (`program`: code mode, a provider's programmatic tool
///   calling), or both. Unset, both may and exports say nothing (the provider's default).
///
/// ```
/// use pedelec::context::Caller;
/// use pedelec::{ToolArgs, tool};
/// use serde::Deserialize;
///
/// #[derive(Deserialize, ToolArgs)]
/// struct RefundArgs {
///     /// In cents.
///     cents: u32,
/// }
///
/// /// Large refunds need a person's approval.
/// fn large(args: &RefundArgs, _caller: Option<&Caller>) -> bool {
///     args.cents > 10_000
/// }
///
/// /// Refund a payment (charges nothing twice: retries with the same key get the answer).
/// #[tool(approval = large, exactly_once, callers = [direct], defer)]
/// fn refund(args: RefundArgs) -> u32 {
///     args.cents
/// }
/// ```
///
/// None of these reaches Core's manifest. Each key is checked at compile time, with an error
/// at the offending token that says what to write instead; so are unknown keys ("did you
/// mean") and the legacy `input = …`.
///
/// ## Signatures
///
/// - `async fn` or plain `fn`, not generic, not `unsafe`, not a method.
/// - Parameters: none; the argument struct (`T: ToolArgs` whose schema is an object:
///   `#[derive(ToolArgs, Deserialize)]` on a struct with named fields; any pattern);
///   the `ToolCallContext`; or the argument struct then the context.
/// - Result: any `T: Serialize` (`()` is `null`), or `Result<T, E>` where `E` converts into
///   [`ToolError`] (`ToolError` itself, `anyhow::Error`, any `std::error::Error + Send +
///   Sync + 'static`); aliases whose last segment is `Result` work too (`anyhow::Result<T>`,
///   `std::io::Result<T>`). An `Err` becomes a `TOOL_HANDLER_ERROR` result.
///
/// ## What it generates
///
/// The function stays exactly as written (call it directly; it is also the tool's inline
/// handler). Beside it, a type of the same name, `struct update_counter {}` (it lives in
/// the type namespace, so one `use` imports both), implementing [`Tool`] (`NAME`,
/// `DESCRIPTION`, `TIMEOUT_MS`, `VERSION`, `Args`, `Output`, the argsSchema as a `const`,
/// `FINGERPRINT`, the SHA-256 of the tool's manifest entry, `call`), with
/// `update_counter::definition()` returning the [`ToolDefinition`]. List it in [`skills!`].
///
/// A plain `fn` tool may block (file or network I/O, locks, heavy work), so its calls run
/// on Tokio's blocking pool: a stuck sync tool cannot stall the async workers or other
/// calls' timeouts; the hand-off costs about 15 µs per call (`cargo bench --bench
/// tool_call`). Write `async fn` for tools that do not block: they run in place. A long
/// sync tool can check `ctx.is_cancelled()` to stop once its call timed out.
pub use pedelec_macros::tool;

/// # Declaring a skill set
///
/// ```
/// use pedelec::{ToolCallContext, ToolError, skills, tool};
///
/// /// Read the current page.
/// #[tool]
/// async fn get_current_page(ctx: ToolCallContext) -> Result<String, ToolError> {
///     Ok(format!("call {}", ctx.call_id()))
/// }
///
/// mod nav {
///     /// Open a URL.
///     #[pedelec::tool(name = "nav.open_url")]
///     pub fn open_url() -> bool {
///         true
///     }
/// }
///
/// skills![
///     pub enum ToolName,                                   // optional; this is the default
///     guidance = "Read current state before making changes.",
///     tools = [get_current_page, nav::open_url as OpenUrl],
/// ];
///
/// assert_eq!(ToolName::ALL, [ToolName::GetCurrentPage, ToolName::OpenUrl]);
/// assert_eq!(ToolName::OpenUrl.as_str(), "nav.open_url");
/// assert_eq!("get_current_page".parse::<ToolName>(), Ok(ToolName::GetCurrentPage));
/// assert_eq!(serde_json::to_string(&ToolName::OpenUrl)?, r#""nav.open_url""#);
/// let manifest = ToolName::manifest(); // what is sent to Core
/// assert_eq!(manifest.tools.len(), 2);
/// let skills = ToolName::skills(); // give it to a session
/// assert_eq!(skills.guidance(), "Read current state before making changes.");
/// # Ok::<(), serde_json::Error>(())
/// ```
///
/// ## Grammar
///
/// - `VIS enum Name,` (optional, first; outer attributes such as a doc comment allowed):
///   the enum's name and visibility, `pub enum ToolName` by default.
/// - `guidance = …`: a string literal, `concat!(…)` or the path to a `&str` constant.
/// - `tools = [path, path as Variant, …]`: the `#[tool]` functions, by path. Variants are
///   the function names in `PascalCase`, or the `as` name.
/// - `namespace = "billing"` (optional): every tool's wire name is prefixed
///   (`billing.refund_invoice`); the variants are not (`ToolName::RefundInvoice`), and the
///   set's guidance describes the namespace to providers that show one before a search.
/// - `include = [billing::ToolName, crm::ToolName as Customers, …]` (optional): composes
///   other sets (each with its own namespace) into this one: one enum whose variants wrap
///   each child's (`ToolName::Customers(crm::ToolName::FindCustomer)`), one manifest, one
///   session; each tool keeps its scopes, limits and deferral. `tools` may then be empty.
/// - `targets = [openai, anthropic, gemini, gemini_openapi, mcp]` (optional): every tool is
///   checked against each provider's rules at compile time, as [`export`] checks them at run
///   time (names of at most 64 characters, at most 128 tools per request for `openai`,
///   strict mode's schema limits, …), with an error at the entry that breaks one, naming the
///   rule.
///
/// ## What it generates
///
/// The enum (`Clone`, `Copy`, `Eq`, `Ord`, `Hash`, `Debug`; each variant documented) with
/// `ALL` (every tool, in order), `const fn as_str` (the wire name, the tool's `#[tool]`
/// name), `Display`, `FromStr` (its error, [`UnknownToolName`](skills::UnknownToolName), lists the valid names),
/// `Serialize`/`Deserialize` as the wire name, `skills()` (the [`SkillsInput`], handlers
/// included) and `manifest()` (the [`SerializableSkillsManifest`](manifest::SerializableSkillsManifest)); it implements
/// [`SkillSet`](skills::SkillSet), and every listed tool implements [`InSkillSet`](skills::InSkillSet) for it, so a typed handler
/// for a tool outside the set does not compile.
///
/// The enum names a tool wherever a name does: `session.call(ToolName::OpenUrl, args)`
/// (any [`CallName`](session::CallName)), and `session.call_tool::<open_url>(args)` takes
/// the tool's own argument type and answers its output type. `skills()` also records the
/// declaring crate's Cargo name and version, what an MCP server says it is by default.
///
/// Compile errors, at the entry and naming the tool: two tools with the same name, two
/// entries with the same variant (rename one with `as`), an empty list, an entry that is
/// not a `#[tool]`, a missing `guidance` or `tools`, an unknown key.
pub use pedelec_macros::skills;

/// Not public API: what generated code names. Everything it needs is reached as
/// `::pedelec::__private::…`, so it never depends on the user's imports or prelude.
#[doc(hidden)]
pub mod __private {
    pub use ::core::option::Option::{self, None, Some};
    pub use ::core::result::Result::{self, Err, Ok};
    pub use ::std::borrow::Cow;
    pub use ::std::vec::Vec;

    pub use pedelec_core::__private::*;
    pub use serde;
    pub use serde_json;
}
