//! Code mode (DESIGN §15): the model writes one short program instead of many round trips.
//!
//! ```
//! # #[cfg(feature = "code-mode")] {
//! use std::time::Duration;
//! use pedelec_core::code::CodeMode;
//! # use pedelec_core::{Session, SkillsInput};
//! # let skills = SkillsInput::<String>::new("g", vec![]);
//! let session = Session::builder(skills)
//!     .code_mode(CodeMode::new().time_limit(Duration::from_secs(5)).max_calls(100))
//!     .create()?;
//! assert!(session.definitions().iter().any(|t| t.name() == "run_code"));
//! # }
//! # Ok::<(), pedelec_core::Error>(())
//! ```
//!
//! The session gains two tools:
//!
//! - `search_tools` (`{"query", "limit"?}`): the signatures of the tools that match, best
//!   first, among those the caller may call from a program; each a TypeScript declaration
//!   generated from the tool's argsSchema and output schema when code mode is turned on
//!   (`signature`).
//! - `run_code` (`{"code"}`): runs the program, JavaScript, in an embedded QuickJS sandbox
//!   (no files, network, clock, environment or modules; time, memory, stack, call and output
//!   limits), in a worker process of its own by default (`Isolation`): killed past its
//!   time limit whatever it is doing, its crash its own. Each tool is an async function (`await billing.refund_invoice({…})`, or
//!   `tools["name"](…)` for any name), and each call goes through the session with the outer
//!   call's caller: validation, scopes, rate limits, approval, timeouts, events. `run_code`
//!   answers `{"result": …, "output": "…"}`: the program's return value and what it printed.
//!
//! A call the session refuses throws a `ToolError` in the program (its `code`, `message`,
//! `details`); args that do not match the tool's schema throw at the call, before it
//! starts. An exception the program does not catch fails `run_code` with its message and
//! line (`details.line`).
//!
//! Programs see the tools whose `callers` include `program` (all by default; a tool with
//! `approval` only when it says so) and whose scopes the caller holds. Inside a program, a call that needs approval is
//! approved by the session's approver, or fails with `TOOL_APPROVAL_REQUIRED`: nobody is
//! asked mid-program.

#[cfg(feature = "code-mode")]
mod api;
#[cfg(feature = "code-mode")]
mod frame;
#[cfg(feature = "code-mode")]
mod interp;
#[cfg(feature = "code-mode")]
mod mode;
#[cfg(feature = "code-mode")]
mod sandbox;
#[cfg(feature = "code-mode")]
mod worker;

#[cfg(feature = "code-mode")]
pub use mode::CodeMode;
#[cfg(feature = "code-mode")]
pub(crate) use mode::declared;
#[cfg(feature = "code-mode")]
pub use mode::{Isolation, MAX_OUTPUT_RANGE, MEMORY_LIMIT_RANGE, STACK_LIMIT_RANGE};

/// The tool's signature as a program sees it (DESIGN §15): the TypeScript declarations of its
/// recursive types, then `(args: {…}): Promise<…>`, from its argsSchema and output schema
/// (what `search_tools` declares, after the tool's description and name). Rendered when asked,
/// in microseconds: a session renders its tools' once, when code mode is turned on.
#[cfg(feature = "code-mode")]
#[must_use]
pub fn signature(tool: &crate::tool::ToolDefinition) -> String {
    api::signature(tool)
}
