//! Approval (DESIGN §14), the last step before a handler runs: a call of a tool marked
//! `#[tool(approval)]` has its args validated, its handler started (a future not yet
//! polled: nothing of it has run), and then waits for the decision of the call's approver,
//! the session's, or the person at the client. A denial (`TOOL_APPROVAL_DENIED`) or nobody
//! to ask (`TOOL_APPROVAL_REQUIRED`) drops the handler unpolled. Every request and decision
//! is a [`SessionEvent`].

use std::sync::Weak;

use super::behind::Behind;
use super::dispatch::Shared;
use super::entry::ToolEntry;
use super::events::SessionEvent;
use crate::call::handler::{HandlerFuture, Out};
use crate::context::{Approval, ApprovalRequest, ToolCallContext};
use crate::error::{ErrorCode, ToolError};
use crate::schema::decode::ArgsIn;
use crate::tool::ApprovalCheck;

impl Shared {
    /// Validates the args, asks `check` whether this call needs approval, and starts the
    /// handler behind the approval when it does.
    pub(super) fn approving(
        &self,
        tool: &ToolEntry,
        name: &str,
        args: ArgsIn<'_>,
        ctx: ToolCallContext,
        out: Out<'_>,
        check: ApprovalCheck,
    ) -> Result<HandlerFuture, ToolError> {
        // Invalid args are reported before approval is asked for: a person sees valid args.
        let args = tool.args.prepare(args)?;
        if !check.needed(&args, ctx.caller()) {
            return self.handler(tool, name, ArgsIn::Value(args), ctx, out);
        }
        let request = ApprovalRequest::new(ctx.call_id(), name, args.clone(), ctx.caller_arc());
        let inner = self.handler(
            tool,
            name,
            ArgsIn::Value(args),
            ctx.clone(),
            Out {
                encoding: out.encoding,
                spare: &mut None,
            },
        )?;
        let approval = decide(self.this.clone(), ctx, request, self.approver.clone());
        Ok(Behind::wrap(approval, inner))
    }

    fn event(&self, event: impl FnOnce() -> SessionEvent) {
        if self.events.enabled() {
            self.events.send(event());
        }
    }
}

/// The decision on one call, with its events.
async fn decide(
    session: Weak<Shared>,
    ctx: ToolCallContext,
    request: ApprovalRequest,
    approver: Option<crate::context::ApproverFn>,
) -> Result<(), ToolError> {
    let (call_id, tool) = (request.call_id().to_owned(), request.tool().to_owned());
    let emit = |event: SessionEvent| {
        if let Some(shared) = session.upgrade() {
            shared.event(|| event);
        }
    };
    emit(SessionEvent::ApprovalRequested {
        call_id: call_id.clone(),
        tool: tool.clone(),
    });
    let decided = ctx.ask_approval(request, approver).await;
    let (approved, reason) = match &decided {
        Ok(Approval::Approve) => (true, None),
        Ok(Approval::Deny(reason)) => (false, Some(reason.clone())),
        Err(e) => (false, Some(e.message().to_owned())),
    };
    emit(SessionEvent::ApprovalDecided {
        call_id,
        tool: tool.clone(),
        approved,
        reason,
    });
    match decided? {
        Approval::Approve => Ok(()),
        Approval::Deny(reason) => Err(ToolError::with_code(
            ErrorCode::ToolApprovalDenied,
            format!("the call of `{tool}` was not approved: {reason}"),
        )),
    }
}
