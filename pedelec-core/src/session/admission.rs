//! Admission, the call policy's checks before a handler: who may call a tool (scopes), how
//! often (`rate.rs`), how many at once (`concurrency.rs`); what wraps a call is `layers.rs`.
//! The dispatcher runs these same checks on the plain path and on the layered one.
//!
//! On every call path (`call`, `call_raw`, JSON Lines, MCP), outside in:
//!
//! 1. scopes: a tool declared with `#[tool(scopes = [...])]` answers `TOOL_FORBIDDEN`
//!    unless the call's [`Caller`] holds them all;
//! 2. [`RateLimit`]: a token bucket per caller, `TOOL_RATE_LIMITED` when empty;
//! 3. the session's [`layers`](super::SessionBuilder::layer) (tower layers around every call,
//!    the first added outermost);
//! 4. `#[tool(max_concurrency = N)]`: `TOOL_RATE_LIMITED` past N calls of the tool at once;
//! 5. the tool's [`layer_for`](super::SessionBuilder::layer_for) layers;
//! 6. validation of the args as they are then, and the handler.
//!
//! pedelec's own limits never queue: a call over one is answered at once, with an integer
//! `details.retryAfterMs`. The call's timeout runs from its start and covers the layers.
//! A session without layers takes the plain path: the checks of steps 1, 2 and 4 are a
//! branch each when unused.

use std::sync::Arc;

use super::concurrency::{ConcurrencyLimit, Permit};
use crate::context::Caller;
use crate::error::{ErrorCode, ToolError};

/// Step 1: `TOOL_FORBIDDEN` unless the caller holds every scope of the tool.
pub(super) fn check_scopes<S: AsRef<str>>(
    tool: &str,
    scopes: &[S],
    caller: Option<&Caller>,
) -> Result<(), ToolError> {
    match caller {
        Some(caller) if caller.holds_all(scopes) => Ok(()),
        _ => Err(forbidden(tool, caller, scopes)),
    }
}

/// Step 4: a slot of the tool's `max_concurrency`, held while the call runs (none when the
/// tool has no limit).
#[inline]
pub(super) fn hold(
    tool: &str,
    limit: Option<&Arc<ConcurrencyLimit>>,
) -> Result<Option<Permit>, ToolError> {
    limit.map(|limit| limit.acquire(tool)).transpose()
}

/// The `TOOL_FORBIDDEN` answer for a caller without the tool's scopes.
pub(super) fn forbidden<S: AsRef<str>>(
    tool: &str,
    caller: Option<&Caller>,
    required: &[S],
) -> ToolError {
    let missing: Vec<&str> = match caller {
        Some(caller) => caller.missing(required),
        None => required.iter().map(AsRef::as_ref).collect(),
    };
    let who = match caller {
        Some(caller) => format!("the caller `{}`", caller.subject()),
        None => "an anonymous caller".to_owned(),
    };
    let list = |scopes: &[&str]| {
        scopes
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let required: Vec<&str> = required.iter().map(AsRef::as_ref).collect();
    ToolError::with_code(
        ErrorCode::ToolForbidden,
        format!(
            "`{tool}` requires the scopes {}, and {who} does not hold {}",
            list(&required),
            list(&missing)
        ),
    )
    .with_details(serde_json::json!({
        "requiredScopes": required,
        "missingScopes": missing,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_names_the_missing_scopes() {
        let caller = Caller::new("alice").with_scopes(["a"]);
        let err = forbidden("t", Some(&caller), &["a", "b"]);
        assert_eq!(err.code(), ErrorCode::ToolForbidden);
        assert_eq!(
            err.message(),
            "`t` requires the scopes `a`, `b`, and the caller `alice` does not hold `b`"
        );
        assert_eq!(
            err.details().unwrap(),
            &serde_json::json!({"requiredScopes": ["a", "b"], "missingScopes": ["b"]})
        );
        let err = forbidden("t", None, &["a"]);
        assert!(
            err.message()
                .contains("an anonymous caller does not hold `a`")
        );
    }
}
