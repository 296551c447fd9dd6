//! The [`Tool`] trait (implemented by `#[tool]`) and [`ToolDefinition`], the run-time form
//! of a tool (`defineTool()`).

use std::fmt;
use std::future::Future;

use serde::de::DeserializeOwned;
use serde::{Deserialize as _, Serialize};

use crate::call::ToolHandler;
use crate::call::args::CompiledArgs;
use crate::call::handler::{HandlerFuture, Out, start_in};
use crate::context::ToolCallContext;
use crate::error::{Problem, ToolError};
use crate::manifest::SerializableToolManifest;
use crate::output::{OutputSchema, ToolAnnotations};
use crate::schema::decode::ArgsIn;
use crate::schema::{Str, ToolArgs, ToolArgsRoot, ToolArgsSchema};

/// A tool known at compile time. `#[tool]` implements it on a type named like the function
/// (in the type namespace, so the function stays callable as written).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool",
    label = "not a `#[tool]` function",
    note = "`#[pedelec::tool]` on a function declares a tool of the same name; add it to the function, or implement `pedelec::Tool` for this type"
)]
pub trait Tool: Send + Sync + 'static {
    /// The agent-facing name (checked at compile time against the Pedelec rule).
    const NAME: &'static str;
    /// What the tool does, its side effects and when to use it (never empty).
    const DESCRIPTION: &'static str;
    /// The wait limit of a call, in milliseconds; `None` means the Core default (60 s).
    const TIMEOUT_MS: Option<u64> = None;
    /// A human-readable title for hosts' tool lists (MCP `title`; not sent to Core).
    const TITLE: Option<&'static str> = None;
    /// MCP behaviour hints (`readOnlyHint`, …; not sent to Core).
    const ANNOTATIONS: ToolAnnotations = ToolAnnotations::NONE;
    /// The MCP `outputSchema`: set by `#[tool]` when `Output` implements
    /// [`ToolOutput`](crate::ToolOutput).
    const OUTPUT_SCHEMA: Option<OutputSchema> = None;
    /// The OAuth scopes a caller must hold to call the tool (`#[tool(scopes = [...])]`, RFC
    /// 6749 scope tokens); none means any caller may. Not sent to Core.
    const SCOPES: &'static [&'static str] = &[];
    /// The most calls of this tool that may run at once, across callers
    /// (`#[tool(max_concurrency = 4)]`); `None` means no limit.
    const MAX_CONCURRENCY: Option<u32> = None;
    /// The icon hosts show beside the tool (`#[tool(icon = "…")]`): an `https:` URL or a
    /// `data:` URI of an image (MCP `icons[0].src`; not sent to Core).
    const ICON: Option<&'static str> = None;
    /// Whether the tool runs as an MCP task (`#[tool(task = optional)]`).
    const TASK: TaskSupport = TaskSupport::Forbidden;
    /// Example arguments, each a JSON object as text (`#[tool(example = r#"{…}"#)]`),
    /// checked against the argsSchema when a session is created; exported as Anthropic's
    /// `input_examples`.
    const EXAMPLES: &'static [&'static str] = &[];
    /// Whether the tool is deferred (`#[tool(defer)]`): in a large catalog, left out of the
    /// lists a model sees until a search loads it (DESIGN §12). A property of the definition
    /// and of exports and MCP lists, not of Core's manifest.
    const DEFER: bool = false;
    /// The tool's contract version (`#[tool(version = 2)]`), from 1 (the default). Raise it
    /// with a breaking change (an argument added as required, a type changed, a bound
    /// tightened, …): a contract check (`pedelec::contract`) lets a breaking change pass only
    /// when the version went up. Not sent to Core.
    const VERSION: u32 = 1;
    /// Who may call the tool (`#[tool(callers = [direct, program])]`): the model directly,
    /// a program the model wrote (code mode, a provider's programmatic tool calling), or
    /// both. `None`, the default, means not declared: both may, and exports send no
    /// `allowed_callers` (the provider's default). Not sent to Core.
    const CALLERS: Option<Callers> = None;
    /// The tool's fingerprint: 64 lowercase hex digits, the SHA-256 of the RFC 8785
    /// canonical JSON of its manifest entry (what Core receives: name, description,
    /// argsSchema, timeout; [`SerializableToolManifest::fingerprint`]). Equal on every build
    /// and platform; any change to the entry changes it.
    ///
    /// A handle rather than a `&'static str`: the argsSchema is another macro's output, so
    /// the digest is computed on first read (once per tool and process) rather than by
    /// `const` evaluation, which would need SHA-256 and JSON canonicalization written by hand.
    /// Read it with [`Fingerprint::as_str`], or compare it with a string. Keep the default.
    const FINGERPRINT: Fingerprint = Fingerprint::of::<Self>();
    /// Whether a person approves calls of the tool before they run (`#[tool(approval)]`,
    /// or `#[tool(approval = path)]` for some calls: see [`needs_approval`](Self::needs_approval)).
    /// Approval runs after validation, just before the handler (DESIGN §14).
    const APPROVAL: bool = false;
    /// Whether a call made with an idempotency key runs at most once (`#[tool(exactly_once)]`;
    /// DESIGN §13): a retry with the same key gets the first call's answer, across every
    /// replica sharing the session's store. Not the MCP `idempotent` hint.
    const EXACTLY_ONCE: bool = false;
    /// The argument struct (its schema is the tool's argsSchema).
    type Args: ToolArgsRoot + DeserializeOwned + Send + 'static;
    /// What a successful call returns.
    type Output: Serialize + Send + 'static;
    /// The argsSchema, built at compile time.
    const ARGS_SCHEMA: ToolArgsSchema = ToolArgsSchema::from_node(<Self::Args as ToolArgs>::SCHEMA);

    /// Whether this call needs approval, given its validated args and caller: `APPROVAL`
    /// unless `#[tool(approval = path)]` names a `fn(&Args, Option<&Caller>) -> bool`.
    fn needs_approval(args: &Self::Args, caller: Option<&crate::context::Caller>) -> bool {
        let _ = (args, caller);
        Self::APPROVAL
    }

    /// Runs the tool's own (inline) handler.
    fn call(
        args: Self::Args,
        ctx: ToolCallContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send + 'static;
}

/// A tool's fingerprint ([`Tool::FINGERPRINT`]): 64 lowercase hex digits, computed on first
/// read and kept for the process. It reads as a `str` (`Deref`, `Display`, `==` with a
/// string).
#[derive(Clone, Copy)]
pub struct Fingerprint {
    of: fn() -> &'static str,
}

impl Fingerprint {
    /// The fingerprint of `T`.
    #[must_use]
    pub const fn of<T: Tool + ?Sized>() -> Self {
        Fingerprint {
            of: fingerprint_of::<T>,
        }
    }

    /// The 64 hex digits.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        (self.of)()
    }
}

/// The fingerprint of `T`, computed on its first read (one leaked string per tool type).
fn fingerprint_of<T: Tool + ?Sized>() -> &'static str {
    use std::any::TypeId;
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock, PoisonError};
    static DONE: OnceLock<Mutex<HashMap<TypeId, &'static str>>> = OnceLock::new();
    let done = DONE.get_or_init(Mutex::default);
    let mut done = done.lock().unwrap_or_else(PoisonError::into_inner);
    done.entry(TypeId::of::<T>()).or_insert_with(|| {
        let entry = SerializableToolManifest {
            name: T::NAME.to_owned(),
            description: T::DESCRIPTION.to_owned(),
            args_schema: T::ARGS_SCHEMA,
            timeout_ms: T::TIMEOUT_MS,
        };
        entry.fingerprint().leak()
    })
}

impl std::ops::Deref for Fingerprint {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Fingerprint {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl fmt::Debug for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq for Fingerprint {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for Fingerprint {}

impl PartialEq<str> for Fingerprint {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Fingerprint {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Fingerprint {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

impl ToolHandler {
    /// The inline handler of a compile-time tool (its function, through [`Tool::call`]).
    #[must_use]
    pub fn of_tool<T: Tool>() -> Self {
        ToolHandler::of_start(start_tool::<T>)
    }
}

/// Starts compile-time tool `T`: decodes its args (recorded by the shared decoder, replayed)
/// and starts its call. The one function compiled per tool to run it, besides its args'
/// `Deserialize` impl and the handler future's `poll`.
fn start_tool<T: Tool>(
    args: ArgsIn<'_>,
    schema: &CompiledArgs,
    ctx: ToolCallContext,
    out: Out<'_>,
) -> Result<HandlerFuture, ToolError> {
    match schema.decode::<T::Args>(args) {
        Ok(args) => Ok(start_in(out, T::call(args, ctx))),
        Err(e) => Err(e),
    }
}

/// Whether a tool runs as an MCP task: MCP's `execution.taskSupport` (2025-11-25), the tasks
/// extension `io.modelcontextprotocol/tasks` (2026-07-28). Written `#[tool(task = optional)]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TaskSupport {
    /// Called directly only (MCP's default).
    #[default]
    Forbidden,
    /// Called directly, or as a task when the client asks for one.
    Optional,
    /// Called as a task only.
    Required,
}

impl TaskSupport {
    /// Every value, in the order of [`pedelec_rules::TASK_SUPPORT`].
    pub const ALL: [TaskSupport; 3] = [
        TaskSupport::Forbidden,
        TaskSupport::Optional,
        TaskSupport::Required,
    ];

    /// MCP's name for it: `forbidden`, `optional` or `required`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        pedelec_rules::TASK_SUPPORT[self as usize]
    }

    /// The value MCP names `name`.
    #[must_use]
    pub fn from_name(name: &str) -> Option<TaskSupport> {
        TaskSupport::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

impl fmt::Display for TaskSupport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

/// Who may call a tool (`#[tool(callers = [direct, program])]`, DESIGN §14): the model
/// directly (`direct`), a program the model wrote (`program`: pedelec's code mode, OpenAI's
/// and Anthropic's programmatic tool calling), or both ([`Callers::BOTH`], the default).
///
/// Exports send it as `allowed_callers`: OpenAI Responses `"direct"` and `"programmatic"`;
/// Anthropic `"direct"` and `"code_execution_20260521"` (the newest code execution tool,
/// which the request must then include). Other targets have no such field.
///
/// ```
/// use pedelec_core::tool::Callers;
/// assert!(Callers::BOTH.direct() && Callers::BOTH.program());
/// assert_eq!(Callers::from_names(["program"]), Ok(Callers::PROGRAM));
/// assert_eq!(Callers::PROGRAM.names().collect::<Vec<_>>(), ["program"]);
/// ```
#[allow(
    clippy::doc_markdown,
    reason = "provider names (OpenAI) are prose here, not code"
)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Callers {
    direct: bool,
    program: bool,
}

impl Callers {
    /// The model, directly (a tool call in its answer).
    pub const DIRECT: Callers = Callers {
        direct: true,
        program: false,
    };
    /// A program the model wrote, only.
    pub const PROGRAM: Callers = Callers {
        direct: false,
        program: true,
    };
    /// Both (the default).
    pub const BOTH: Callers = Callers {
        direct: true,
        program: true,
    };
    /// The names, as `#[tool(callers = [...])]` and the JSON key `callers` write them.
    pub const NAMES: [&'static str; 2] = ["direct", "program"];

    /// Whether the model may call the tool directly.
    #[must_use]
    pub const fn direct(self) -> bool {
        self.direct
    }

    /// Whether a program the model wrote may call the tool.
    #[must_use]
    pub const fn program(self) -> bool {
        self.program
    }

    /// The callers' names (`direct`, `program`), in that order.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        [self.direct, self.program]
            .into_iter()
            .zip(Callers::NAMES)
            .filter_map(|(on, name)| on.then_some(name))
    }

    /// The callers named (`direct`, `program`), each once, at least one.
    ///
    /// # Errors
    /// A message saying what is wrong: an unknown name, a name given twice, no name.
    pub fn from_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<Callers, String> {
        let mut callers = Callers {
            direct: false,
            program: false,
        };
        for name in names {
            let slot = match name {
                "direct" => &mut callers.direct,
                "program" => &mut callers.program,
                other => {
                    return Err(format!(
                        "unknown caller {other:?}; expected \"direct\" (the model) or \"program\" \
                         (a program the model wrote)"
                    ));
                }
            };
            if *slot {
                return Err(format!("duplicate caller {name:?}: list each caller once"));
            }
            *slot = true;
        }
        if !callers.direct && !callers.program {
            return Err("no caller: list `direct`, `program` or both".to_owned());
        }
        Ok(callers)
    }
}

/// A tool as the runtime sees it: the `defineTool()` equivalent. Name, description,
/// argsSchema, optional timeout, optional inline handler.
///
/// Building one does not validate it (like `defineTool()`); creating a session does, and
/// reports every problem at once.
#[derive(Clone)]
pub struct ToolDefinition {
    name: Str,
    description: Str,
    args_schema: ToolArgsSchema,
    timeout_ms: Option<u64>,
    handler: Option<ToolHandler>,
    title: Option<Str>,
    annotations: ToolAnnotations,
    output_schema: Option<OutputSchema>,
    scopes: Vec<Str>,
    max_concurrency: Option<u32>,
    icon: Option<Str>,
    task_support: TaskSupport,
    examples: Vec<Str>,
    defer: bool,
    version: u32,
    approval: Option<ApprovalCheck>,
    exactly_once: bool,
    callers: Option<Callers>,
    /// The tool as a remote MCP server listed it (a gateway's tool): MCP lists it as is.
    remote: Option<std::sync::Arc<serde_json::Map<String, serde_json::Value>>>,
}

/// Which calls of a tool need approval: every call, or those a compile-time tool's
/// `needs_approval` picks (given the validated args as JSON and the caller).
#[derive(Clone, Copy)]
pub(crate) enum ApprovalCheck {
    Always,
    When(fn(&serde_json::Value, Option<&crate::context::Caller>) -> bool),
}

impl ApprovalCheck {
    /// Whether the call with these (validated) args needs approval.
    pub(crate) fn needed(
        self,
        args: &serde_json::Value,
        caller: Option<&crate::context::Caller>,
    ) -> bool {
        match self {
            ApprovalCheck::Always => true,
            ApprovalCheck::When(check) => check(args, caller),
        }
    }
}

/// `T::needs_approval` on args as JSON (args that do not decode need approval: nothing
/// runs unapproved by mistake).
fn approval_of<T: Tool>(args: &serde_json::Value, caller: Option<&crate::context::Caller>) -> bool {
    match T::Args::deserialize(args) {
        Ok(args) => T::needs_approval(&args, caller),
        Err(_) => true,
    }
}

/// The constant parts of a compile-time tool's definition.
struct ToolParts {
    name: &'static str,
    description: &'static str,
    timeout_ms: Option<u64>,
    title: Option<&'static str>,
    annotations: ToolAnnotations,
    output_schema: Option<OutputSchema>,
    scopes: &'static [&'static str],
    max_concurrency: Option<u32>,
    icon: Option<&'static str>,
    task_support: TaskSupport,
    examples: &'static [&'static str],
    defer: bool,
    version: u32,
    callers: Option<Callers>,
}

impl ToolDefinition {
    /// A definition without a handler (it is served by a named or fallback handler).
    pub fn new(
        name: impl Into<Str>,
        description: impl Into<Str>,
        args_schema: ToolArgsSchema,
    ) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            args_schema,
            timeout_ms: None,
            handler: None,
            title: None,
            annotations: ToolAnnotations::NONE,
            output_schema: None,
            scopes: Vec::new(),
            max_concurrency: None,
            icon: None,
            task_support: TaskSupport::Forbidden,
            examples: Vec::new(),
            defer: false,
            version: 1,
            approval: None,
            exactly_once: false,
            callers: None,
            remote: None,
        }
    }

    /// The definition of a compile-time tool, with its function as the inline handler.
    #[must_use]
    #[doc(alias = "defineTool")]
    pub fn of<T: Tool>() -> Self {
        // The constant parts are one static per tool, read by a function compiled once.
        ToolDefinition::of_parts(
            const {
                &ToolParts {
                    name: T::NAME,
                    description: T::DESCRIPTION,
                    timeout_ms: T::TIMEOUT_MS,
                    title: T::TITLE,
                    annotations: T::ANNOTATIONS,
                    output_schema: T::OUTPUT_SCHEMA,
                    scopes: T::SCOPES,
                    max_concurrency: T::MAX_CONCURRENCY,
                    icon: T::ICON,
                    task_support: T::TASK,
                    examples: T::EXAMPLES,
                    defer: T::DEFER,
                    version: T::VERSION,
                    callers: T::CALLERS,
                }
            },
            T::ARGS_SCHEMA.resolved(),
            ToolHandler::of_tool::<T>(),
        )
        .with_approval_check(T::APPROVAL.then_some(ApprovalCheck::When(approval_of::<T>)))
        .with_exactly_once(T::EXACTLY_ONCE)
    }

    fn of_parts(parts: &ToolParts, args_schema: ToolArgsSchema, handler: ToolHandler) -> Self {
        ToolDefinition {
            name: Str::Borrowed(parts.name),
            description: Str::Borrowed(parts.description),
            args_schema,
            timeout_ms: parts.timeout_ms,
            handler: Some(handler),
            title: parts.title.map(Str::Borrowed),
            annotations: parts.annotations,
            output_schema: parts.output_schema,
            scopes: parts.scopes.iter().map(|s| Str::Borrowed(s)).collect(),
            max_concurrency: parts.max_concurrency,
            icon: parts.icon.map(Str::Borrowed),
            task_support: parts.task_support,
            examples: parts.examples.iter().map(|e| Str::Borrowed(e)).collect(),
            defer: parts.defer,
            version: parts.version,
            approval: None,
            exactly_once: false,
            callers: parts.callers,
            remote: None,
        }
    }

    /// Marks the tool as a remote MCP server's (a gateway's, `bridge::McpRemote`): `tool`
    /// is its `tools/list` entry with the wire name, which the MCP bridge lists verbatim
    /// (input and output schemas, title, annotations, icons, `_meta` as the remote wrote
    /// them); its handler's value is the remote's `CallToolResult`, answered as is.
    #[cfg_attr(not(feature = "gateway"), allow(dead_code, reason = "gateways"))]
    #[must_use]
    pub(crate) fn with_remote(
        mut self,
        tool: std::sync::Arc<serde_json::Map<String, serde_json::Value>>,
    ) -> Self {
        self.remote = Some(tool);
        self
    }

    /// The tool as a remote MCP server listed it, when it is a gateway's.
    #[cfg_attr(not(feature = "mcp"), allow(dead_code, reason = "MCP lists it"))]
    pub(crate) fn remote(&self) -> Option<&serde_json::Map<String, serde_json::Value>> {
        self.remote.as_deref()
    }

    /// Sets whether a call made with an idempotency key runs at most once
    /// (`#[tool(exactly_once)]`): a retry with the same key gets the first call's answer.
    #[must_use]
    pub const fn with_exactly_once(mut self, exactly_once: bool) -> Self {
        self.exactly_once = exactly_once;
        self
    }

    /// Whether calls with an idempotency key run at most once.
    #[must_use]
    pub const fn exactly_once(&self) -> bool {
        self.exactly_once
    }

    const fn with_approval_check(mut self, approval: Option<ApprovalCheck>) -> Self {
        self.approval = approval;
        self
    }

    /// Sets whether every call of the tool needs a person's approval before it runs
    /// (`#[tool(approval)]`; DESIGN §14): an approver (`SessionBuilder::approver`,
    /// `CallOptions::approver`) decides, or over MCP the person at the client.
    #[must_use]
    pub const fn with_approval(self, approval: bool) -> Self {
        self.with_approval_check(if approval {
            Some(ApprovalCheck::Always)
        } else {
            None
        })
    }

    /// Whether calls of the tool need approval (all of them, or those its
    /// `#[tool(approval = path)]` picks).
    #[must_use]
    pub const fn approval(&self) -> bool {
        self.approval.is_some()
    }

    /// Which calls need approval.
    pub(crate) const fn approval_check(&self) -> Option<ApprovalCheck> {
        self.approval
    }

    /// Sets the title (MCP `title`).
    #[must_use]
    pub fn with_title(mut self, title: impl Into<Str>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// Sets the MCP annotations.
    #[must_use]
    pub const fn with_annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// Sets the MCP `outputSchema`.
    #[must_use]
    pub const fn with_output_schema(mut self, output_schema: OutputSchema) -> Self {
        self.output_schema = Some(output_schema);
        self
    }

    /// The title, if set (MCP only).
    #[must_use]
    pub fn title(&self) -> Option<&str> {
        self.title.as_deref()
    }

    /// The MCP annotations ([`ToolAnnotations::NONE`] unless set).
    #[must_use]
    pub const fn annotations(&self) -> ToolAnnotations {
        self.annotations
    }

    /// The MCP `outputSchema`, if the result type has one.
    #[must_use]
    pub const fn output_schema(&self) -> Option<&OutputSchema> {
        self.output_schema.as_ref()
    }

    /// Sets the OAuth scopes a caller must hold to call the tool (RFC 6749 scope tokens,
    /// each once; checked by [`problems`](Self::problems)). None (the default) means any
    /// caller may.
    #[must_use]
    pub fn with_scopes<S: Into<Str>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// The OAuth scopes a caller must hold to call the tool (empty: any caller may).
    #[must_use]
    pub fn scopes(&self) -> &[Str] {
        &self.scopes
    }

    /// Sets the most calls of this tool that may run at once (positive; checked by
    /// [`problems`](Self::problems)).
    #[must_use]
    pub const fn with_max_concurrency(mut self, max_concurrency: u32) -> Self {
        self.max_concurrency = Some(max_concurrency);
        self
    }

    /// The most calls of this tool that may run at once, if limited.
    #[must_use]
    pub const fn max_concurrency(&self) -> Option<u32> {
        self.max_concurrency
    }

    /// Sets the icon: an `https:` URL or a `data:` URI of an image (checked by
    /// [`problems`](Self::problems)).
    #[must_use]
    pub fn with_icon(mut self, icon: impl Into<Str>) -> Self {
        self.icon = Some(icon.into());
        self
    }

    /// The icon's `src`, if set (MCP only).
    #[must_use]
    pub fn icon(&self) -> Option<&str> {
        self.icon.as_deref()
    }

    /// The media type of the icon when it is a `data:` URI (`image/svg+xml`): MCP's
    /// `Icon.mimeType`, derived, never guessed. `None` for an `https:` URL, whose type is the
    /// server's `Content-Type` (a file extension proves nothing), and for an invalid icon.
    #[must_use]
    pub fn icon_mime_type(&self) -> Option<&str> {
        self.icon
            .as_deref()
            .and_then(pedelec_rules::icon::icon_media_type)
    }

    /// Sets whether the tool runs as an MCP task.
    #[must_use]
    pub const fn with_task_support(mut self, task_support: TaskSupport) -> Self {
        self.task_support = task_support;
        self
    }

    /// Whether the tool runs as an MCP task ([`TaskSupport::Forbidden`] unless set).
    #[must_use]
    pub const fn task_support(&self) -> TaskSupport {
        self.task_support
    }

    /// The same tool under another name (a namespaced skill set's wire name).
    #[doc(hidden)]
    #[must_use]
    pub fn renamed(mut self, name: &'static str) -> Self {
        self.name = Str::Borrowed(name);
        self
    }

    /// Sets whether the tool is deferred: listed by name only until a search loads it
    /// (`#[tool(defer)]`; DESIGN §12).
    #[must_use]
    pub const fn with_defer(mut self, defer: bool) -> Self {
        self.defer = defer;
        self
    }

    /// Whether the tool is deferred (`false` unless set).
    #[must_use]
    pub const fn defer(&self) -> bool {
        self.defer
    }

    /// Sets the contract version (from 1, the default; checked by
    /// [`problems`](Self::problems)): raise it with a breaking change, which a
    /// contract check (`pedelec::contract`) then lets pass.
    #[must_use]
    pub const fn with_version(mut self, version: u32) -> Self {
        self.version = version;
        self
    }

    /// The contract version (1 unless set).
    #[must_use]
    pub const fn version(&self) -> u32 {
        self.version
    }

    /// Declares who may call the tool (`#[tool(callers = [...])]`): exported as the
    /// providers' `allowed_callers` (see [`Callers`]). A tool that programs only may call is still
    /// callable in process ([`Session::call`](crate::Session::call)).
    #[must_use]
    pub const fn with_callers(mut self, callers: Callers) -> Self {
        self.callers = Some(callers);
        self
    }

    /// Who may call the tool: as declared, or [`Callers::BOTH`] when not declared.
    #[must_use]
    pub const fn callers(&self) -> Callers {
        match self.callers {
            Some(callers) => callers,
            None => Callers::BOTH,
        }
    }

    /// Whether a program the model wrote may call the tool (code mode; DESIGN's
    /// clarification): its declared callers include `program`; undeclared, unless the tool
    /// needs approval (then only the model calls it directly).
    #[must_use]
    pub const fn callable_by_program(&self) -> bool {
        match self.callers {
            Some(callers) => callers.program(),
            None => !self.approval(),
        }
    }

    /// Who may call the tool, when declared (`None`: not declared; exports then send no
    /// `allowed_callers`, and the providers' default is direct calls only).
    #[must_use]
    pub const fn declared_callers(&self) -> Option<Callers> {
        self.callers
    }

    /// Sets the example arguments, each a JSON object as text (checked against the
    /// argsSchema by [`problems`](Self::problems)).
    #[must_use]
    pub fn with_examples<S: Into<Str>>(mut self, examples: impl IntoIterator<Item = S>) -> Self {
        self.examples = examples.into_iter().map(Into::into).collect();
        self
    }

    /// The example arguments, each a JSON object as text.
    #[must_use]
    pub fn examples(&self) -> &[Str] {
        &self.examples
    }

    /// Sets the timeout in milliseconds.
    #[must_use]
    pub fn with_timeout_ms(mut self, timeout_ms: u64) -> Self {
        self.timeout_ms = Some(timeout_ms);
        self
    }

    /// Sets (or replaces) the inline handler.
    #[must_use]
    pub fn with_handler(mut self, handler: impl Into<ToolHandler>) -> Self {
        self.handler = Some(handler.into());
        self
    }

    /// The agent-facing name.
    #[must_use]
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The description.
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// The argsSchema.
    #[must_use]
    pub const fn args_schema(&self) -> &ToolArgsSchema {
        &self.args_schema
    }

    /// The timeout in milliseconds, if set.
    #[must_use]
    pub const fn timeout_ms(&self) -> Option<u64> {
        self.timeout_ms
    }

    /// The inline handler, if any.
    #[must_use]
    pub const fn handler(&self) -> Option<&ToolHandler> {
        self.handler.as_ref()
    }

    /// The fingerprint of [`manifest`](Self::manifest): 64 lowercase hex digits
    /// ([`SerializableToolManifest::fingerprint`]); for the definition of a compile-time tool
    /// `T`, [`T::FINGERPRINT`](Tool::FINGERPRINT) unless its entry was changed since.
    #[must_use]
    pub fn fingerprint(&self) -> String {
        self.manifest().fingerprint()
    }

    /// The serializable form sent to Core (no handler).
    #[must_use]
    pub fn manifest(&self) -> SerializableToolManifest {
        SerializableToolManifest {
            name: self.name.to_string(),
            description: self.description.to_string(),
            args_schema: self.args_schema.clone(),
            timeout_ms: self.timeout_ms,
        }
    }

    /// Every problem with this definition, each with a path relative to the definition
    /// (`name`, `description`, `timeoutMs`, `argsSchema/...`).
    #[must_use]
    pub fn problems(&self) -> Vec<Problem> {
        let mut problems = Vec::new();
        if let Err(p) = pedelec_rules::check_tool_name(&self.name) {
            problems.push(Problem::at("name", p.to_string()));
        }
        if pedelec_rules::is_blank(&self.description) {
            problems.push(Problem::at("description", pedelec_rules::BLANK_DESCRIPTION));
        }
        if let Some(ms) = self.timeout_ms
            && let Err(p) = pedelec_rules::check_timeout_ms(i128::from(ms))
        {
            problems.push(Problem::at("timeoutMs", p.to_string()));
        }
        if let Err(p) = pedelec_rules::check_tool_version(i128::from(self.version)) {
            problems.push(Problem::at("version", p.to_string()));
        }
        let schema_ok = problems.len();
        for p in self.args_schema.problems() {
            problems.push(Problem::at(format!("argsSchema{}", p.place), p.message));
        }
        let schema_ok = problems.len() == schema_ok;
        problems.extend(self.option_problems(schema_ok));
        problems
    }

    /// The problems of the keys beyond the seed's (`scopes`, `maxConcurrency`, `icon`,
    /// `examples`); `schema_ok` says whether the examples can be checked against the
    /// argsSchema.
    fn option_problems(&self, schema_ok: bool) -> Vec<Problem> {
        option_problems(
            &self.scopes,
            self.max_concurrency,
            self.icon.as_deref(),
            &self.examples,
            schema_ok.then_some(&self.args_schema),
        )
    }
}

/// The problems of a tool's `scopes`, `maxConcurrency`, `icon` and `examples` (the examples
/// checked against `schema` when there is one), each with a path relative to the tool.
/// Shared with [`SkillsInput::from_json`](crate::SkillsInput::from_json), which reports them
/// even when the rest of the tool is wrong.
pub(crate) fn option_problems(
    scopes: &[Str],
    max_concurrency: Option<u32>,
    icon: Option<&str>,
    examples: &[Str],
    schema: Option<&ToolArgsSchema>,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let scopes: Vec<&str> = scopes.iter().map(|s| &**s).collect();
    for (j, scope) in scopes.iter().enumerate() {
        if let Err(p) = pedelec_rules::scope::check_scope(scope) {
            problems.push(Problem::at(format!("scopes[{j}]"), p.to_string()));
        } else if let Some(k) = pedelec_rules::scope::earlier_duplicate(&scopes, j) {
            problems.push(Problem::at(
                format!("scopes[{j}]"),
                format!(
                    "duplicate scope {scope:?}: `scopes[{k}]` already has it; list each scope \
                     once"
                ),
            ));
        }
    }
    if let Some(limit) = max_concurrency
        && let Err(p) = pedelec_rules::check_max_concurrency(i128::from(limit))
    {
        problems.push(Problem::at("maxConcurrency", p.to_string()));
    }
    if let Some(icon) = icon
        && let Err(p) = pedelec_rules::icon::check_icon(icon)
    {
        problems.push(Problem::at("icon", p.to_string()));
    }
    for (j, example) in examples.iter().enumerate() {
        for message in example_problems(schema, example) {
            problems.push(Problem::at(format!("examples[{j}]"), message));
        }
    }
    problems
}

/// What is wrong with one example (a JSON object, as text, valid for `schema` when there is
/// one): each message stands alone (`/delta: expected integer, got string "5"`).
pub(crate) fn example_problems(schema: Option<&ToolArgsSchema>, text: &str) -> Vec<String> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => return vec![format!("the example is not valid JSON: {e}")],
    };
    if !value.is_object() {
        return vec![format!(
            "an example is the tool's arguments, a JSON object, not {}",
            crate::error::describe_value(&value)
        )];
    }
    match schema.map(|schema| schema.validate(&value)) {
        Some(Err(errors)) => errors.iter().map(ToString::to_string).collect(),
        _ => Vec::new(),
    }
}

impl fmt::Debug for ToolDefinition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolDefinition")
            .field("name", &self.name)
            .field("description", &self.description)
            .field("args_schema", &self.args_schema)
            .field("timeout_ms", &self.timeout_ms)
            .field("handler", &self.handler.as_ref().map(|_| "<handler>"))
            .field("title", &self.title)
            .field("annotations", &self.annotations)
            .field("output_schema", &self.output_schema)
            .field("scopes", &self.scopes)
            .field("max_concurrency", &self.max_concurrency)
            .field("icon", &self.icon)
            .field("task_support", &self.task_support)
            .field("examples", &self.examples)
            .field("defer", &self.defer)
            .field("version", &self.version)
            .field("approval", &self.approval.is_some())
            .field("exactly_once", &self.exactly_once)
            .field("callers", &self.callers)
            .field("remote", &self.remote.is_some())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn definition() -> ToolDefinition {
        let schema = ToolArgsSchema::from_json(&json!({
            "type": "object",
            "properties": {"delta": {"type": "integer"}, "note": {"type": "string"}},
            "required": ["delta"],
            "additionalProperties": false
        }))
        .unwrap();
        ToolDefinition::new("update_counter", "Update the counter.", schema)
    }

    fn problems(def: &ToolDefinition) -> Vec<String> {
        def.problems().iter().map(ToString::to_string).collect()
    }

    #[test]
    fn the_new_keys_default_to_nothing() {
        let def = definition();
        assert!(def.scopes().is_empty());
        assert_eq!(def.max_concurrency(), None);
        assert_eq!(def.icon(), None);
        assert_eq!(def.icon_mime_type(), None);
        assert_eq!(def.task_support(), TaskSupport::Forbidden);
        assert!(def.examples().is_empty());
        assert_eq!(def.version(), 1);
        assert!(def.problems().is_empty());
    }

    #[test]
    fn valid_values_are_kept_and_pass() {
        let def = definition()
            .with_scopes(["counter:read", "counter:write"])
            .with_max_concurrency(4)
            .with_icon("data:image/svg+xml;base64,PHN2Zy8+")
            .with_task_support(TaskSupport::Optional)
            .with_examples([r#"{"delta": 2}"#, r#"{"delta": -1, "note": "undo"}"#])
            .with_version(3);
        assert_eq!(def.version(), 3);
        assert_eq!(def.scopes(), ["counter:read", "counter:write"]);
        assert_eq!(def.max_concurrency(), Some(4));
        assert_eq!(def.icon(), Some("data:image/svg+xml;base64,PHN2Zy8+"));
        assert_eq!(def.icon_mime_type(), Some("image/svg+xml"));
        assert_eq!(def.task_support().as_str(), "optional");
        assert_eq!(def.examples().len(), 2);
        assert!(def.problems().is_empty(), "{:?}", def.problems());
        // An `https:` icon's type is the server's to say.
        let def = def.with_icon("https://example.com/counter.png");
        assert_eq!(def.icon_mime_type(), None);
        assert!(def.problems().is_empty());
    }

    #[test]
    fn every_bad_value_is_a_problem_with_its_path() {
        let def = definition()
            .with_scopes(["counter:read", "counter read", "", "counter:read"])
            .with_max_concurrency(0)
            .with_version(0)
            .with_icon("http://example.com/counter.png")
            .with_examples([
                r#"{"delta": "5"}"#,
                r#"{"delta": 1, "extra": true}"#,
                "[1]",
                "{delta: 1}",
            ]);
        assert_eq!(
            problems(&def),
            [
                "version: a tool version must be at least 1, not 0: versions count from 1, the \
                 default",
                "scopes[1]: scope \"counter read\" contains a space, which separates scopes in \
                 OAuth; each scope is one token",
                "scopes[2]: scope is empty",
                "scopes[3]: duplicate scope \"counter:read\": `scopes[0]` already has it; list \
                 each scope once",
                "maxConcurrency: max concurrency must be a positive integer, not 0: a limit of 0 \
                 would refuse every call",
                "icon: icon URL uses `http:`, and MCP clients must refuse icons that are not \
                 `https:` or `data:` URIs (an `http:` icon can be altered in transit); serve it \
                 over `https:`",
                "examples[0]: /delta: expected integer, got string \"5\"",
                "examples[1]: /: unknown property \"extra\"; expected one of \"delta\", \"note\"",
                "examples[2]: an example is the tool's arguments, a JSON object, not an array",
                "examples[3]: the example is not valid JSON: key must be a string at line 1 \
                 column 2",
            ]
        );
    }

    #[test]
    fn examples_are_not_checked_against_a_broken_schema() {
        let schema = ToolArgsSchema::from_json(&json!({"type": "object"})).unwrap();
        let def = ToolDefinition::new("t", "T.", schema).with_examples([r#"{"any": 1}"#]);
        assert!(def.problems().is_empty());
        assert_eq!(
            option_problems(&[], None, None, &[r#"{"x": 1}"#.into(), "1".into()], None)
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>(),
            ["examples[1]: an example is the tool's arguments, a JSON object, not a number (`1`)"]
        );
    }

    #[test]
    fn task_support_names() {
        for t in TaskSupport::ALL {
            assert_eq!(TaskSupport::from_name(t.as_str()), Some(t));
            assert_eq!(t.to_string(), t.as_str());
        }
        assert_eq!(TaskSupport::from_name("sometimes"), None);
        assert_eq!(TaskSupport::default(), TaskSupport::Forbidden);
    }
}
