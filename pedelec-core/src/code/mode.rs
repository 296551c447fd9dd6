//! [`CodeMode`]: the options, and the two tools it mounts on a session.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::api::{Api, Limits, functions};
use super::interp::globals;
use super::sandbox;
use super::worker::Pool;
use crate::call::handler::ToolHandler;
use crate::context::ToolCallContext;
use crate::error::{ErrorCode, Problem, ToolError};
use crate::manifest::SerializableSkillsManifest;
use crate::output::ToolAnnotations;
use crate::schema::ToolArgsSchema;
use crate::search::Index;
use crate::search::tools::{RUN_CODE, SEARCH_TOOLS, read_query, search_tools_schema};
use crate::session::SessionBuilder;
use crate::session::mount::{Mount, SessionLink};
use crate::tool::{Callers, ToolDefinition};

/// Code mode's options (`SessionBuilder::code_mode`; DESIGN §15): the limits each program
/// runs under. Every limit stops the program with an error that names it; the session and
/// its other calls are unharmed.
#[derive(Clone, Debug)]
pub struct CodeMode {
    time_limit: Duration,
    max_calls: u32,
    memory_limit: usize,
    stack_limit: usize,
    max_output: usize,
    isolation: Isolation,
    pool_size: usize,
    idle_timeout: Duration,
}

/// Where programs run (`CodeMode::isolation`; `docs/code-mode.md` compares them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Isolation {
    /// Each program in a worker process of its own (the default on Linux): the host kills
    /// it past its time limit whatever it is doing, a crash of the interpreter ends the
    /// worker only, and the operating system bounds its memory. Workers are the current
    /// binary run again, started by an entry `pedelec-core` installs: nothing to add to
    /// `main`.
    #[default]
    Workers,
    /// Each program on a thread of the host (the default elsewhere): a few hundred
    /// microseconds less per program and no process, but a built-in that loops in C keeps
    /// its thread (and a core) busy after its answer, and a crash of the interpreter is
    /// the host's. For trusted programs, or platforms without worker processes.
    InProcess,
}

/// The allowed range of `CodeMode::memory_limit`, in bytes.
pub const MEMORY_LIMIT_RANGE: std::ops::RangeInclusive<usize> = (1 << 20)..=(4 << 30);
/// The allowed range of `CodeMode::stack_limit`, in bytes.
pub const STACK_LIMIT_RANGE: std::ops::RangeInclusive<usize> = (16 << 10)..=(64 << 20);
/// The allowed range of `CodeMode::max_output`, in bytes.
pub const MAX_OUTPUT_RANGE: std::ops::RangeInclusive<usize> = 64..=(64 << 20);

impl Default for CodeMode {
    fn default() -> Self {
        CodeMode::new()
    }
}

impl CodeMode {
    /// The defaults: 30 s per program, 50 tool calls, 64 MiB of memory, 256 KiB of stack,
    /// 64 KiB of answer (what it returns and prints); each program in a worker process
    /// (Linux; in process elsewhere), 2 idle workers kept ready, each let go after 5 idle
    /// minutes.
    #[must_use]
    pub const fn new() -> Self {
        CodeMode {
            time_limit: Duration::from_secs(30),
            max_calls: 50,
            memory_limit: 64 << 20,
            stack_limit: 256 << 10,
            max_output: 64 << 10,
            isolation: if cfg!(target_os = "linux") {
                Isolation::Workers
            } else {
                Isolation::InProcess
            },
            pool_size: 2,
            idle_timeout: Duration::from_mins(5),
        }
    }

    /// Where programs run: worker processes (the default on Linux) or the host's threads
    /// (see [`Isolation`]). Elsewhere than Linux, `Workers` runs programs in process.
    #[must_use]
    pub const fn isolation(mut self, isolation: Isolation) -> Self {
        self.isolation = isolation;
        self
    }

    /// How many idle workers the session keeps ready (`Isolation::Workers`): a program
    /// takes one (each worker serves one program, then exits: nothing survives between
    /// programs) and the pool starts another in the background. 0: each program starts
    /// its own worker (a few milliseconds more per program).
    #[must_use]
    pub const fn pool_size(mut self, workers: usize) -> Self {
        self.pool_size = workers;
        self
    }

    /// How long an idle worker is kept before it is let go (and replaced).
    #[must_use]
    pub const fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// How long a program may run, its tool calls included (`run_code`'s timeout; the
    /// outer call's own deadline and cancellation stop it sooner).
    #[must_use]
    pub const fn time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = limit;
        self
    }

    /// How many tool calls one program may make.
    #[must_use]
    pub const fn max_calls(mut self, max: u32) -> Self {
        self.max_calls = max;
        self
    }

    /// How much memory the interpreter may allocate, in bytes (1 MiB to 4 GiB: see
    /// [`MEMORY_LIMIT_RANGE`]; `create()` refuses others). A worker's operating-system limit
    /// is this plus its stack and a margin.
    #[must_use]
    pub const fn memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// How deep the program's stack may grow, in bytes (deep recursion stops there; 16 KiB
    /// to 64 MiB: see [`STACK_LIMIT_RANGE`]; `create()` refuses others).
    #[must_use]
    pub const fn stack_limit(mut self, bytes: usize) -> Self {
        self.stack_limit = bytes;
        self
    }

    /// How large the answer may be, in bytes: the returned value's JSON and the printed
    /// text together; an error answer (its message, details and printed text) is cut to
    /// it, with a marker of what was cut (64 B to 64 MiB: see [`MAX_OUTPUT_RANGE`]).
    #[must_use]
    pub const fn max_output(mut self, bytes: usize) -> Self {
        self.max_output = bytes;
        self
    }
}

impl<N> SessionBuilder<N> {
    /// Turns code mode on (feature `code-mode`; DESIGN §15): the session gains
    /// `search_tools` and `run_code` (see [`code`](crate::code)).
    #[must_use]
    pub fn code_mode(self, mode: CodeMode) -> Self {
        self.mount_own(Mounted { mode })
    }
}

struct Mounted {
    mode: CodeMode,
}

impl Mount for Mounted {
    fn tools(
        self: Box<Self>,
        _namespace: &str,
        skills: &[ToolDefinition],
        link: &SessionLink,
    ) -> Result<Vec<ToolDefinition>, Vec<Problem>> {
        let mode = self.mode;
        let mut problems = Vec::new();
        if mode.time_limit.is_zero() {
            problems.push(Problem::at(
                String::new(),
                "`CodeMode::time_limit` must be more than zero",
            ));
        }
        if mode.max_calls == 0 {
            problems.push(Problem::at(
                String::new(),
                "`CodeMode::max_calls` must be at least 1",
            ));
        }
        let ranges = [
            ("memory_limit", mode.memory_limit, MEMORY_LIMIT_RANGE),
            ("stack_limit", mode.stack_limit, STACK_LIMIT_RANGE),
            ("max_output", mode.max_output, MAX_OUTPUT_RANGE),
        ];
        for (setting, value, range) in ranges {
            if !range.contains(&value) {
                problems.push(Problem::at(
                    String::new(),
                    format!(
                        "`CodeMode::{setting}` is {value} bytes; it must be from {} to {} bytes",
                        range.start(),
                        range.end()
                    ),
                ));
            }
        }
        if !problems.is_empty() {
            return Err(problems);
        }
        let functions = functions(skills, globals());
        let manifest = SerializableSkillsManifest {
            guidance: String::new(),
            // The tools `functions` keeps, in the same order.
            tools: (skills.iter())
                .filter(|d| d.callable_by_program())
                .map(ToolDefinition::manifest)
                .collect(),
        };
        let api = Arc::new(Api {
            index: Index::of(&manifest),
            functions,
            limits: Limits {
                time: mode.time_limit,
                max_calls: mode.max_calls,
                memory: mode.memory_limit,
                stack: mode.stack_limit,
                max_output: mode.max_output,
            },
            link: link.clone(),
            pool: (mode.isolation == Isolation::Workers && cfg!(target_os = "linux")).then(|| {
                Pool::new(
                    mode.pool_size,
                    mode.idle_timeout,
                    mode.memory_limit,
                    mode.stack_limit,
                )
            }),
        });
        let [find, run] = declared(true).map_err(|e| vec![e])?;
        let timeout = mode.time_limit + Duration::from_secs(1);
        Ok(vec![
            find.with_handler(ToolHandler::json({
                let api = api.clone();
                move |args: Value, ctx: ToolCallContext| {
                    let api = api.clone();
                    async move { search(&api, &args, &ctx) }
                }
            })),
            // The program's own clock stops it first, with a message that says so; the
            // call's timeout is the backstop.
            run.with_timeout_ms(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX))
                .with_handler(ToolHandler::json(
                    move |args: Value, ctx: ToolCallContext| {
                        let api = api.clone();
                        async move {
                            let code = args.get("code").and_then(Value::as_str).unwrap_or("");
                            sandbox::run(&api, code, ctx).await
                        }
                    },
                )),
        ])
    }
}

/// Code mode's two tools as a model sees them (no handlers): `search_tools` (with its
/// `limit` where `with_limit`: provider exports leave it out, so the schema is strict
/// everywhere) and `run_code`. The session mounts them; exports declare them
/// ([`ExportOptions::code_mode`](crate::export::ExportOptions::code_mode)).
pub(crate) fn declared(with_limit: bool) -> Result<[ToolDefinition; 2], Problem> {
    let schema = |json: &Value| {
        ToolArgsSchema::from_json(json)
            .map_err(|e| Problem::at(String::new(), format!("code mode: {e}")))
    };
    Ok([
        ToolDefinition::new(
            SEARCH_TOOLS,
            SEARCH_DESCRIPTION,
            schema(&search_tools_schema(with_limit))?,
        )
        .with_annotations(
            ToolAnnotations::NONE
                .with_read_only(true)
                .with_open_world(false),
        )
        .with_callers(Callers::DIRECT),
        ToolDefinition::new(RUN_CODE, RUN_DESCRIPTION, schema(&run_code_schema())?)
            .with_callers(Callers::DIRECT),
    ])
}

/// `run_code`'s input schema.
fn run_code_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "code": {
                "type": "string",
                "description": "The program: the body of an async JavaScript function. \
                                `await` each tool call; `return` the answer (JSON)."
            }
        },
        "required": ["code"],
        "additionalProperties": false
    })
}

const SEARCH_DESCRIPTION: &str = "Find the functions a `run_code` program can call: describe \
     what you want to do, and get the TypeScript declarations of the tools that match, best \
     first.";

const RUN_DESCRIPTION: &str = "Run a short JavaScript program that calls tools, instead of \
     calling them one by one: each tool is an async function (`await \
     billing.refund_invoice({invoiceId: \"A1\"})`; `tools[\"any-name\"](…)` reaches any name), \
     whose declaration `search_tools` gives. The code is the body of an async function: \
     `return` the answer (a JSON value); `console.log` prints. A failed call throws an Error \
     with `code` and `message`. No files, network, clock or modules.";

/// `search_tools`' answer: `{"tools": [{"name", "declaration"}]}`, best first, among the
/// functions the caller may call.
fn search(api: &Api, args: &Value, ctx: &ToolCallContext) -> Result<Value, ToolError> {
    let query = read_query(&args.to_string())
        .map_err(|m| ToolError::with_code(ErrorCode::ToolArgsInvalid, m))?;
    let session = api.link.session();
    let found: Vec<Value> = api
        .index
        .ranked(&query.query)
        .into_iter()
        .filter_map(|(position, _)| api.functions.get(position))
        .filter(|f| {
            session
                .as_ref()
                .is_some_and(|s| s.may_call(&f.name, ctx.caller()))
        })
        .take(query.limit)
        .map(|f| json!({ "name": f.name, "declaration": f.declaration }))
        .collect();
    Ok(json!({ "tools": found }))
}
