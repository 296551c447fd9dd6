//! Exactly-once calls (DESIGN §13): a call of a `#[tool(exactly_once)]` tool made with an
//! idempotency key claims the key in the session's store right after its scopes pass. The
//! first claim runs the call (rate limit, approval and all) and keeps its answer; a
//! concurrent duplicate, on any replica sharing the store, waits for that answer; a later
//! one gets it without costing any budget; the same key with other args is
//! `TOOL_IDEMPOTENCY_CONFLICT`. A running call renews its claim every [`RENEWAL`] for a
//! [`LEASE`]; a duplicate waits to be woken (the store's [`Store::changed`]), claiming again
//! at least every 1.5 s: when the replica running the call stopped, its lease lapses and
//! the retry is answered `TOOL_OUTCOME_UNKNOWN` within 5 s, never run twice.
//!
//! Keys are scoped by the caller's subject and the tool; args are compared by the SHA-256
//! of their RFC 8785 canonical JSON. Whether the key is released is decided by what
//! happened, not guessed from the error's code: a call refused before its handler started
//! (rate limit, invalid args, no approval, …: [`Outcome::Refused`]) releases it; one whose
//! handler started ([`Outcome::Ran`]) never does, whatever it answered; a call that stopped to
//! ask its client for input (the context says it is parked) releases it, its retry bringing
//! the answers. When the answer cannot be kept, the caller still gets it (and the session's
//! events say it was not kept).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::dispatch::Shared;
use super::entry::ToolEntry;
use super::events::SessionEvent;
use super::rate::store_failed;
use crate::call::encode::Encoded;
use crate::call::handler::{HandlerFuture, Out, start_in};
use crate::context::ToolCallContext;
use crate::error::{ErrorCode, ToolError, ToolResult};
use crate::schema::decode::ArgsIn;
use crate::store::{Claim, LEASE, RENEWAL, Store, StoreError};

/// How long a kept answer serves retries.
const RETENTION: Duration = Duration::from_hours(24);
/// The longest a duplicate waits to be woken before it claims again (and so finds a lease
/// that lapsed): with the [`LEASE`], a dead call's retry is answered within 4.5 s.
const RECHECK: Duration = Duration::from_millis(1_500);

/// What became of a claimed call.
enum Outcome {
    /// Refused before its handler started (nothing of it ran): its retry may run.
    Refused(ToolError),
    /// Its handler started: this is its answer, kept for every retry.
    Ran(Result<Value, ToolError>),
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
        let session = self.this.clone();
        let name: Arc<str> = Arc::from(name);
        let store = self.store.clone();
        Ok(start_in(out, async move {
            if let Some(kept) = wait_for_claim(&*store, &key, &fingerprint).await? {
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
            let outcome =
                renewing(&*store, &key, shared.run_claimed(&name, args, ctx.clone())).await;
            guard.armed = false;
            match outcome {
                Outcome::Refused(error) => {
                    let _ = store.release(&key).await;
                    Err(error)
                }
                Outcome::Ran(result) => {
                    let text = serde_json::to_string(&ToolResult::from(result.clone()))
                        .unwrap_or_default();
                    if let Err(e) = store.finish(&key, &text, RETENTION).await {
                        shared.answer_not_kept(&ctx, &name, &e);
                    }
                    result
                }
            }
        }))
    }

    /// The answer of a call that ran could not be kept: the caller gets it all the same,
    /// and the session says so (a retry is answered `TOOL_OUTCOME_UNKNOWN`).
    #[cold]
    fn answer_not_kept(&self, ctx: &ToolCallContext, tool: &str, error: &StoreError) {
        tracing::warn!(
            tool,
            error = %error,
            "the answer of an exactly-once call could not be kept; a retry will be answered TOOL_OUTCOME_UNKNOWN"
        );
        if self.events.enabled() {
            self.events.send(SessionEvent::AnswerNotKept {
                call_id: ctx.call_id_raw().to_string(),
                tool: tool.to_owned(),
                reason: error.to_string(),
            });
        }
    }

    /// The claimed call: the rest of the policy and the handler, to its value, and whether
    /// its handler started.
    async fn run_claimed(&self, name: &str, args: Value, ctx: ToolCallContext) -> Outcome {
        let mounted;
        let tool = match self.tool(name) {
            Some(tool) => Some(tool),
            None => {
                mounted = self.live_tool(name);
                mounted.as_deref()
            }
        };
        let mut permit = None;
        let started = match self.start_admitted(
            tool,
            name,
            ArgsIn::Value(args),
            ctx.clone(),
            Out {
                encoding: crate::call::encode::Encoding::Value,
                spare: &mut None,
            },
            &mut permit,
        ) {
            Ok(started) => started,
            Err(error) => return Outcome::Refused(error),
        };
        let result = started.await.and_then(Encoded::into_value);
        drop(permit);
        match result {
            // A check behind which the handler waited (a shared rate limit, an approval)
            // or a layer refused it before it was polled.
            Err(error) if !ctx.handler_started() => Outcome::Refused(error),
            result => Outcome::Ran(result),
        }
    }
}

/// Claims `key`: `None` when this call runs, the kept answer of the call that had it, or
/// why neither.
async fn wait_for_claim(
    store: &dyn Store,
    key: &str,
    fingerprint: &str,
) -> Result<Option<ToolResult>, ToolError> {
    let conflict = || {
        ToolError::with_code(
            ErrorCode::ToolIdempotencyConflict,
            "this idempotency key was used with other arguments; use a new key for a new call",
        )
    };
    loop {
        match store
            .claim(key, fingerprint, LEASE)
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
                return Err(ToolError::with_code(
                    ErrorCode::ToolOutcomeUnknown,
                    "the outcome of the first call with this idempotency key is unknown: it \
                     started and never answered (its replica stopped, or its answer could not \
                     be kept); it is not run again: check its effect, or call again with a new \
                     key",
                ));
            }
            // Woken when the running call answers or releases the key; else, a while
            // later, claims again (a lapsed lease is then an unknown outcome).
            Claim::Running { .. } => store
                .changed(key, RECHECK)
                .await
                .map_err(|e| store_failed(&e))?,
        }
    }
}

/// `run`, its claim on `key` renewed every [`RENEWAL`] while it runs: when this future stops
/// being polled (its replica stopped, or the call was dropped), the claim lapses within a
/// [`LEASE`].
async fn renewing<F: Future>(store: &dyn Store, key: &str, run: F) -> F::Output {
    let mut run = std::pin::pin!(run);
    let mut renewal = tokio::time::interval_at(tokio::time::Instant::now() + RENEWAL, RENEWAL);
    renewal.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            output = &mut run => return output,
            _ = renewal.tick() => {
                // A renewal that fails leaves the claim to lapse: a retry then hears the
                // outcome is unknown, never runs it again.
                if let Err(e) = store.renew(key, LEASE).await {
                    tracing::warn!(error = %e, "an exactly-once call's claim could not be renewed");
                }
            }
        }
    }
}

/// Releases a claimed key when the call stops without an answer before its handler
/// started, or because it stopped to ask its client for input (its context is parked: its
/// retry brings the answers). A call that stops otherwise once its handler started
/// (cancelled, timed out, its caller gone) keeps its claim: its outcome is unknown once the
/// lease ends.
struct Release {
    store: Arc<dyn Store>,
    key: String,
    ctx: ToolCallContext,
    armed: bool,
}

impl Drop for Release {
    fn drop(&mut self) {
        if !self.armed || (self.ctx.handler_started() && !self.ctx.parked()) {
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
