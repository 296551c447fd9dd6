//! The [`Tool`] trait (implemented by `#[tool]`) and [`ToolDefinition`], the run-time form
//! of a tool (`defineTool()`).

use std::fmt;
use std::future::Future;

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::call::ToolHandler;
use crate::call::args::CompiledArgs;
use crate::call::encode::Encoding;
use crate::call::handler::{HandlerFuture, start_in};
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
    /// The argument struct (its schema is the tool's argsSchema).
    type Args: ToolArgsRoot + DeserializeOwned + Send + 'static;
    /// What a successful call returns.
    type Output: Serialize + Send + 'static;
    /// The argsSchema, built at compile time.
    const ARGS_SCHEMA: ToolArgsSchema = ToolArgsSchema::from_node(<Self::Args as ToolArgs>::SCHEMA);

    /// Runs the tool's own (inline) handler.
    fn call(
        args: Self::Args,
        ctx: ToolCallContext,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send + 'static;
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
    encoding: Encoding,
    spare: &mut Option<HandlerFuture>,
) -> Result<HandlerFuture, ToolError> {
    match schema.decode::<T::Args>(args) {
        Ok(args) => Ok(start_in(spare, T::call(args, ctx), encoding)),
        Err(e) => Err(e),
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
}

/// The constant parts of a compile-time tool's definition.
struct ToolParts {
    name: &'static str,
    description: &'static str,
    timeout_ms: Option<u64>,
    title: Option<&'static str>,
    annotations: ToolAnnotations,
    output_schema: Option<OutputSchema>,
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
        }
    }

    /// The definition of a compile-time tool, with its function as the inline handler.
    #[must_use]
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
                }
            },
            T::ARGS_SCHEMA,
            ToolHandler::of_tool::<T>(),
        )
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
        }
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
            problems.push(Problem {
                path: "name".into(),
                message: p.to_string(),
            });
        }
        if pedelec_rules::is_blank(&self.description) {
            problems.push(Problem {
                path: "description".into(),
                message: pedelec_rules::BLANK_DESCRIPTION.into(),
            });
        }
        if let Some(ms) = self.timeout_ms
            && let Err(p) = pedelec_rules::check_timeout_ms(i128::from(ms))
        {
            problems.push(Problem {
                path: "timeoutMs".into(),
                message: p.to_string(),
            });
        }
        for p in self.args_schema.problems() {
            problems.push(Problem {
                path: format!("argsSchema{}", p.pointer),
                message: p.message,
            });
        }
        problems
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
            .finish()
    }
}
