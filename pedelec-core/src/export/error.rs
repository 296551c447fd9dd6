//! [`ExportError`]: every problem of an export, or what is wrong with a tool-call payload.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt;

use super::Target;
use crate::error::{ErrorCode, Problem};

/// A problem of an export: the tool (when there is one), a JSON pointer (into the tool's
/// argsSchema for an export, into the payload for a call), the provider's rule, and a
/// message saying what to do.
pub(crate) fn problem(
    tool: Option<&str>,
    pointer: impl Into<String>,
    rule: &'static str,
    message: impl Into<String>,
) -> Problem {
    Problem::at(pointer, message).rule(rule).tool(tool)
}

/// A problem and its rule, as an export error shows them:
/// ``tool `x` at `/p`: message (rule `name-length`)``.
struct WithRule<'a>(&'a Problem);

impl fmt::Display for WithRule<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        if p.tool.is_none() && p.place.is_empty() {
            // About the whole payload: no place to show.
            write!(f, "{} (rule `{}`)", p.message, p.rule)
        } else {
            write!(f, "{p} (rule `{}`)", p.rule)
        }
    }
}

/// Why a skill set cannot be exported for a target (every problem, in order), or why a
/// tool-call payload cannot be decoded (one problem).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportError {
    target: Target,
    problems: Vec<Problem>,
}

impl ExportError {
    pub(crate) fn new(target: Target, problems: Vec<Problem>) -> Self {
        ExportError { target, problems }
    }

    pub(crate) fn payload(
        target: Target,
        pointer: &str,
        rule: &'static str,
        message: String,
    ) -> Self {
        ExportError::new(target, vec![problem(None, pointer, rule, message)])
    }

    /// The target.
    #[must_use]
    pub const fn target(&self) -> Target {
        self.target
    }

    /// Every problem.
    #[must_use]
    pub fn problems(&self) -> &[Problem] {
        &self.problems
    }

    /// The error code of a call that failed to decode: `TOOL_HANDLER_NOT_FOUND` for an
    /// unknown tool, `TOOL_ARGS_INVALID` for arguments that are not a JSON object,
    /// `INVALID_INPUT` for a payload that is not a tool call.
    #[must_use]
    pub fn code(&self) -> ErrorCode {
        match self.problems.first().map(|p| p.rule) {
            Some("unknown-tool") => ErrorCode::ToolHandlerNotFound,
            Some("arguments" | "map-entries") => ErrorCode::ToolArgsInvalid,
            _ => ErrorCode::InvalidInput,
        }
    }
}

impl fmt::Display for ExportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.problems.as_slice() {
            [one] => write!(
                f,
                "{} ({}): {}",
                self.target.title(),
                self.target,
                WithRule(one)
            ),
            problems => {
                write!(
                    f,
                    "cannot export to {} ({}): {} problems",
                    self.target.title(),
                    self.target,
                    problems.len()
                )?;
                for p in problems {
                    write!(f, "\n- {}", WithRule(p))?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ExportError {}
