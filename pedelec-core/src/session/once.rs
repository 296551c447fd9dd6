//! Exactly-once calls (DESIGN §13): a call of a `#[tool(exactly_once)]` tool made with an
//! idempotency key claims the key in the session's store right after its scopes pass. The
//! first claim runs the call (rate limit, approval and all) and keeps its answer; a
//! concurrent duplicate, on any replica sharing the store, waits for that answer; a later
//! one gets it without costing any budget; the same key with other args is
//! `TOOL_IDEMPOTENCY_CONFLICT`; a call whose replica stopped before answering is answered
//! "outcome unknown" to its retry, never run twice.
//!
//! Keys are scoped by the caller's subject and the tool; args are compared by the SHA-256
//! of their RFC 8785 canonical JSON. A call that did not run (refused by the rate limit,
//! invalid args, no approval) or stopped to ask for input releases its key.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::dispatch::Shared;
use super::entry::ToolEntry;
use super::rate::store_failed;
use crate::call::encode::Encoded;
use crate::call::handler::{HandlerFuture, Out, start_in};
use crate::context::ToolCallContext;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::schema::decode::ArgsIn;
use crate::store::{Claim, Store};

/// How long a kept answer serves retries.
const RETENTION: Duration = Duration::from_hours(24);
/// How much longer than the tool's timeout a running call's claim lasts.
const LEASE_GRACE: Duration = Duration::from_secs(5);
/// How often a duplicate looks for the answer of the call that runs.
const POLL: Duration = Duration::from_millis(20);

/// Whether an error says the handler did not run (its retry may run).
fn did_not_run(error: &ToolError) -> bool {
    matches!(
        error.code(),
        ErrorCode::ToolRateLimited
            | ErrorCode::ToolArgsInvalid
            | ErrorCode::ToolHandlerNotFound
            | ErrorCode::ToolForbidden
            | ErrorCode::ToolApprovalRequired
            | ErrorCode::ToolApprovalDenied
            | ErrorCode::IoFailed
    )
}

impl Shared {
    /// Starts a call with an idempotency key (see the module docs).
    pub(super) fn start_once(
        &self,
        tool: &ToolEntry,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
    ) -> Result<HandlerFuture, ToolError> {
        let args: Value = match args {
            ArgsIn::Value(value) => value,
            ArgsIn::Text(text) => serde_json::from_str(text).map_err(|e| {
                crate::call::args::args_error(name, crate::schema::ArgsError::Syntax(e))
            })?,
        };
        let key = format!(
            "{}:{}:{}",
            tool.name,
            ctx.caller().map_or("", crate::context::Caller::subject),
            ctx.idempotency_key().unwrap_or_default()
        );
        let fingerprint = crate::manifest::json_digest(&args);
        let lease = tool.timeout.saturating_add(LEASE_GRACE);
        let session = self.this.clone();
        let name: Arc<str> = Arc::from(name);
        let store = self.store.clone();
        Ok(start_in(out, async move {
            if let Some(kept) = wait_for_claim(&*store, &key, &fingerprint, lease).await? {
                return kept.into_result();
            }
            let Some(shared) = session.upgrade() else {
                return Err(super::dispatch::session_gone());
            };
            let mut guard = Release {
                store: store.clone(),
                key: key.clone(),
                ctx: ctx.clone(),
                armed: true,
            };
            let result = shared.run_claimed(&name, args, ctx).await;
            guard.armed = false;
            match &result {
                Err(e) if did_not_run(e) => {
                    let _ = store.release(&key).await;
                }
                _ => {
                    let text = serde_json::to_string(&ToolResult::from(result.clone()))
                        .unwrap_or_default();
                    store
                        .finish(&key, &text, RETENTION)
                        .await
                        .map_err(|e| store_failed(&e))?;
                }
            }
            result
        }))
    }

    /// The claimed call: the rest of the policy and the handler, to its value.
    async fn run_claimed(
        &self,
        name: &str,
        args: Value,
        ctx: ToolCallContext,
    ) -> Result<Value, ToolError> {
        let mounted;
        let tool = match self.tool(name) {
            Some(tool) => Some(tool),
            None => {
                mounted = self.live_tool(name);
                mounted.as_deref()
            }
        };
        let mut permit = None;
        let started = self.start_admitted(
            tool,
            name,
            ArgsIn::Value(args),
            ctx,
            Out {
                encoding: crate::call::encode::Encoding::Value,
                spare: &mut None,
            },
            &mut permit,
        )?;
        let encoded: Encoded = started.await?;
        drop(permit);
        encoded.into_value()
    }
}

/// Claims `key`: `None` when this call runs, the kept answer of the call that had it, or
/// why neither.
async fn wait_for_claim(
    store: &dyn Store,
    key: &str,
    fingerprint: &str,
    lease: Duration,
) -> Result<Option<ToolResult>, ToolError> {
    let conflict = || {
        ToolError::with_code(
            ErrorCode::ToolIdempotencyConflict,
            "this idempotency key was used with other arguments; use a new key for a new call",
        )
    };
    loop {
        match store
            .claim(key, fingerprint, lease)
            .await
            .map_err(|e| store_failed(&e))?
        {
            Claim::First => return Ok(None),
            Claim::Answered {
                fingerprint: kept, ..
            }
            | Claim::Running { fingerprint: kept }
            | Claim::Unknown { fingerprint: kept }
                if kept != fingerprint =>
            {
                return Err(conflict());
            }
            Claim::Answered { answer, .. } => {
                return serde_json::from_str(&answer).map(Some).map_err(|e| {
                    ToolError::new(format!("the kept answer of this call is unreadable: {e}"))
                });
            }
            Claim::Unknown { .. } => {
                return Err(ToolError::new(
                    "the outcome of the first call with this idempotency key is unknown: it \
                     started and never answered (its replica stopped); it is not run again",
                ));
            }
            Claim::Running { .. } => tokio::time::sleep(POLL).await,
        }
    }
}

/// Releases a claimed key when the call stops without an answer and was not cancelled or
/// timed out (it stopped to ask for input: its retry runs). A cancelled or timed-out call
/// keeps its claim: its outcome is unknown once the lease ends.
struct Release {
    store: Arc<dyn Store>,
    key: String,
    ctx: ToolCallContext,
    armed: bool,
}

impl Drop for Release {
    fn drop(&mut self) {
        if !self.armed || self.ctx.is_cancelled() || self.ctx.remaining().is_zero() {
            return;
        }
        let (store, key) = (self.store.clone(), std::mem::take(&mut self.key));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = store.release(&key).await;
            });
        }
    }
}
