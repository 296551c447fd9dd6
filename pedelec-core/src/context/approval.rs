//! A person in the loop (DESIGN §14): a tool marked `#[tool(approval)]` runs only once an
//! [`Approver`] (or, over MCP without one, the person at the client, asked through an
//! elicitation) approves the call, after its args are validated and before its handler runs.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Value, json};

use super::client::InputRequest;
use super::{Caller, ToolCallContext};
use crate::error::{ErrorCode, ToolError};

/// A call waiting for approval: the tool, its validated args, the caller.
#[derive(Clone, Debug)]
pub struct ApprovalRequest {
    call_id: String,
    tool: String,
    args: Value,
    caller: Option<Arc<Caller>>,
}

impl ApprovalRequest {
    /// A request (sessions make these; tests of an approver may too).
    #[must_use]
    pub fn new(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        args: Value,
        caller: Option<Arc<Caller>>,
    ) -> Self {
        ApprovalRequest {
            call_id: call_id.into(),
            tool: tool.into(),
            args,
            caller,
        }
    }

    /// The call's id.
    #[must_use]
    pub fn call_id(&self) -> &str {
        &self.call_id
    }

    /// The tool's wire name.
    #[must_use]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The call's args, validated against the tool's argsSchema.
    #[must_use]
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// Who makes the call, if known.
    #[must_use]
    pub fn caller(&self) -> Option<&Caller> {
        self.caller.as_deref()
    }
}

/// An approver's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Approval {
    /// Run the call.
    Approve,
    /// Do not run it: `TOOL_APPROVAL_DENIED`, with this reason for the model.
    Deny(String),
}

impl From<bool> for Approval {
    /// `true` approves; `false` denies without a reason.
    fn from(approved: bool) -> Self {
        if approved {
            Approval::Approve
        } else {
            Approval::Deny("the approver refused".to_owned())
        }
    }
}

/// A boxed, `Send`, `'static` future of a decision.
pub type ApprovalFuture = Pin<Box<dyn Future<Output = Approval> + Send + 'static>>;

/// Who approves calls of tools that need it: `SessionBuilder::approver(..)` for every call,
/// `CallOptions::approver(..)` for one. Any `Fn(ApprovalRequest) -> impl Future<Output =
/// Approval>` is one:
///
/// ```
/// use pedelec_core::context::{Approval, ApprovalRequest};
///
/// let approver = |request: ApprovalRequest| async move {
///     if request.args()["amount_cents"].as_u64() < Some(10_000) {
///         Approval::Approve
///     } else {
///         Approval::Deny("refunds of 100 € or more need a manager".into())
///     }
/// };
/// # let _ = pedelec_core::CallOptions::new().approver(approver);
/// ```
pub trait Approver: Send + Sync + 'static {
    /// Decides on one call.
    fn approve(&self, request: ApprovalRequest) -> ApprovalFuture;
}

impl<F, Fut> Approver for F
where
    F: Fn(ApprovalRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Approval> + Send + 'static,
{
    fn approve(&self, request: ApprovalRequest) -> ApprovalFuture {
        Box::pin(self(request))
    }
}

/// A shared approver.
pub(crate) type ApproverFn = Arc<dyn Approver>;

/// The elicitation key approval is asked under (one per call).
pub(crate) const APPROVAL_KEY: &str = "dev.pedelec/approval";

impl fmt::Debug for dyn Approver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Approver")
    }
}

impl ToolCallContext {
    /// Asks for approval of this call: the call's approver (`CallOptions::approver`), else
    /// `fallback` (the session's), else the person at the client (an MCP elicitation:
    /// approve, decline or cancel), else `TOOL_APPROVAL_REQUIRED`. A refusal is
    /// `TOOL_APPROVAL_DENIED`; the decision is returned for the session's events.
    pub(crate) async fn ask_approval(
        &self,
        request: ApprovalRequest,
        fallback: Option<ApproverFn>,
    ) -> Result<Approval, ToolError> {
        let approver = self.extras().and_then(|x| x.approver.clone()).or(fallback);
        if let Some(approver) = approver {
            return Ok(approver.approve(request).await);
        }
        if self.client_fn().is_none() {
            return Err(ToolError::with_code(
                ErrorCode::ToolApprovalRequired,
                format!(
                    "`{}` runs only once a person approves the call, and nobody here can: set \
                     an approver (`SessionBuilder::approver` or `CallOptions::approver`), or \
                     call it over MCP from a client that supports elicitation",
                    request.tool()
                ),
            ));
        }
        let args = serde_json::to_string_pretty(request.args()).unwrap_or_default();
        let message = format!(
            "Approve this call of `{}`?\n\n{args}\n\nIt runs only if you approve.",
            request.tool()
        );
        let schema = json!({
            "type": "object",
            "properties": {
                "approve": {
                    "type": "boolean",
                    "title": "Approve",
                    "description": format!("Run `{}` with these arguments.", request.tool()),
                    "default": true
                }
            }
        });
        let answer = match self
            .ask(
                APPROVAL_KEY,
                InputRequest::Elicit {
                    message,
                    requested_schema: schema,
                },
            )
            .await
        {
            Ok(answer) => answer,
            // A client that cannot be asked: nobody can approve.
            Err(e) if e.code() == ErrorCode::ToolHandlerError => {
                return Err(ToolError::with_code(
                    ErrorCode::ToolApprovalRequired,
                    format!(
                        "`{}` runs only once a person approves the call: {}",
                        request.tool(),
                        e.message()
                    ),
                ));
            }
            Err(e) => return Err(e),
        };
        let action = answer.get("action").and_then(Value::as_str).unwrap_or("");
        // Approved only by an explicit `approve: true`: a form accepted without it (a
        // client that sent no content, or dropped the field) approves nothing.
        let approved = answer.pointer("/content/approve").and_then(Value::as_bool);
        Ok(match action {
            "accept" if approved == Some(true) => Approval::Approve,
            "accept" if approved.is_none() => Approval::Deny(
                "the person accepted the form without `approve: true`; an approval is never \
                 given by default"
                    .to_owned(),
            ),
            "accept" => Approval::Deny("the person did not approve the call".to_owned()),
            "decline" => Approval::Deny("the person declined the call".to_owned()),
            _ => Approval::Deny("the person dismissed the approval without deciding".to_owned()),
        })
    }
}
