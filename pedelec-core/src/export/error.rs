//! [`ExportError`]: every problem of an export, or what is wrong with a tool-call payload.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt;

use super::Target;
use crate::error::ErrorCode;

/// One problem: the tool (when there is one), a JSON pointer (into the tool's argsSchema for
/// an export, into the payload for a call), the rule, and a message saying what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportProblem {
    /// The tool's name, when the problem is about one tool.
    pub tool: Option<String>,
    /// A JSON pointer (`""` for the whole schema or payload).
    pub pointer: String,
    /// The rule's identifier (`name-length`, `strict-open-object`, `arguments`, …).
    pub rule: &'static str,
    /// What is wrong and what to do.
    pub message: String,
}

impl ExportProblem {
    pub(crate) fn new(
        tool: Option<&str>,
        pointer: impl Into<String>,
        rule: &'static str,
        message: impl Into<String>,
    ) -> Self {
        ExportProblem {
            tool: tool.map(str::to_owned),
            pointer: pointer.into(),
            rule,
            message: message.into(),
        }
    }
}

impl fmt::Display for ExportProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(tool) = &self.tool {
            write!(f, "tool `{tool}`")?;
            if !self.pointer.is_empty() {
                write!(f, " at `{}`", self.pointer)?;
            }
            f.write_str(": ")?;
        } else if !self.pointer.is_empty() {
            write!(f, "`{}`: ", self.pointer)?;
        }
        write!(f, "{} (rule `{}`)", self.message, self.rule)
    }
}

/// Why a skill set cannot be exported for a target (every problem, in order), or why a
/// tool-call payload cannot be decoded (one problem).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportError {
    target: Target,
    problems: Vec<ExportProblem>,
}

impl ExportError {
    pub(crate) fn new(target: Target, problems: Vec<ExportProblem>) -> Self {
        ExportError { target, problems }
    }

    pub(crate) fn payload(
        target: Target,
        pointer: &str,
        rule: &'static str,
        message: String,
    ) -> Self {
        ExportError::new(
            target,
            vec![ExportProblem::new(None, pointer, rule, message)],
        )
    }

    /// The target.
    #[must_use]
    pub const fn target(&self) -> Target {
        self.target
    }

    /// Every problem.
    #[must_use]
    pub fn problems(&self) -> &[ExportProblem] {
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
            [one] => write!(f, "{} ({}): {one}", self.target.title(), self.target),
            problems => {
                write!(
                    f,
                    "cannot export to {} ({}): {} problems",
                    self.target.title(),
                    self.target,
                    problems.len()
                )?;
                for p in problems {
                    write!(f, "\n- {p}")?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for ExportError {}
