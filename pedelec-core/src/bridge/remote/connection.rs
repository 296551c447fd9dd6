//! One remote's connection: a task that connects (a child process, or streamable HTTP),
//! lists the tools into the session's live table, re-lists on `list_changed`, and
//! reconnects with backoff; and the forwarding of one call (progress in, cancellation out).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock, Weak};

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
    ClientRequest, ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestId,
    ServerResult,
};
use rmcp::service::{NotificationContext, Peer, PeerRequestOptions, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde_json::Value;

use super::listing::{self, Listed};
use super::{McpRemote, Target};
use crate::call::handler::ToolHandler;
use crate::context::ToolCallContext;
use crate::error::{ErrorCode, ToolError};
use crate::session::live::LiveTools;

/// What the connection task and the tools' handlers share.
struct State {
    namespace: String,
    /// The remote, for messages.
    describe: String,
    remote: McpRemote,
    /// Weak: the session owns the table; the task ends once it is gone.
    live: Weak<LiveTools>,
    /// The connection, while there is one.
    peer: RwLock<Option<Peer<RoleClient>>>,
    /// The calls in flight that asked for progress, by the token sent to the remote.
    progress: Mutex<HashMap<ProgressToken, ToolCallContext>>,
    /// Signalled by `notifications/tools/list_changed`.
    relist: tokio::sync::Notify,
}

pub(super) fn start(
    runtime: &tokio::runtime::Handle,
    namespace: &str,
    remote: McpRemote,
    live: Arc<LiveTools>,
) {
    let state = Arc::new(State {
        namespace: namespace.to_owned(),
        describe: remote.describe(),
        remote,
        live: Arc::downgrade(&live),
        peer: RwLock::new(None),
        progress: Mutex::new(HashMap::new()),
        relist: tokio::sync::Notify::new(),
    });
    live.set_down(Some(state.not_connected("is not connected yet")));
    // The task runs until the session is dropped: the session's table keeps the token's
    // drop guard, and the task holds the table only weakly (never across a wait), so
    // dropping the session cancels the task wherever it waits, and what it holds (the
    // connection, the child process) goes with it.
    let ended = tokio_util::sync::CancellationToken::new();
    live.end_with_session(Box::new(ended.clone().drop_guard()));
    runtime.spawn(async move {
        ended.run_until_cancelled(supervise(state)).await;
    });
}

impl State {
    fn not_connected(&self, why: &str) -> String {
        format!(
            "the remote MCP server `{}` ({}) {why}; its tools cannot be called until it is reconnected",
            self.namespace, self.describe
        )
    }

    fn down(&self, why: &str) -> ToolError {
        ToolError::with_code(ErrorCode::IoFailed, self.not_connected(why))
            .with_details(serde_json::json!({ "remote": self.namespace }))
    }

    fn peer(&self) -> Option<Peer<RoleClient>> {
        self.peer
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn set_peer(&self, peer: Option<Peer<RoleClient>>) {
        *self.peer.write().unwrap_or_else(PoisonError::into_inner) = peer;
    }
}

/// Connects, lists, follows, and reconnects with backoff; run until the session is
/// dropped (see [`start`]). Holds the session's table only between waits.
async fn supervise(state: Arc<State>) {
    let (min, max) = state.remote.backoff;
    let mut delay = min;
    loop {
        let why = match connect(&state).await {
            Ok(running) => {
                let peer = running.peer().clone();
                match list(&state, &peer).await {
                    Ok(listed) => {
                        let Some(live) = state.live.upgrade() else {
                            return;
                        };
                        // Connected before listed: who waits for the tools can call them.
                        state.set_peer(Some(peer.clone()));
                        live.set_down(None);
                        publish(&state, &live, listed);
                        drop(live);
                        delay = min;
                        let why = follow(&state, running, &peer).await;
                        state.set_peer(None);
                        why
                    }
                    Err(e) => e,
                }
            }
            Err(e) => e,
        };
        let Some(live) = state.live.upgrade() else {
            return;
        };
        tracing::warn!(remote = %state.namespace, "{why}; reconnecting in {delay:?}");
        live.set_down(Some(state.not_connected(&why)));
        drop(live);
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(max);
    }
}

/// While connected: re-lists on `list_changed`, until the connection ends (the reason)
/// or the session is gone.
async fn follow(
    state: &Arc<State>,
    running: RunningService<RoleClient, Client>,
    peer: &Peer<RoleClient>,
) -> String {
    let mut waiting = std::pin::pin!(running.waiting());
    loop {
        tokio::select! {
            quit = &mut waiting => {
                return match quit {
                    Ok(reason) => format!("closed the connection ({reason:?})"),
                    Err(e) => format!("failed: {e}"),
                };
            }
            () = state.relist.notified() => {
                match list(state, peer).await {
                    Ok(listed) => match state.live.upgrade() {
                        Some(live) => publish(state, &live, listed),
                        // Dropping the connection closes it.
                        None => return "was left: the session is gone".to_owned(),
                    },
                    Err(e) => tracing::warn!(remote = %state.namespace, "re-listing failed: {e}"),
                }
            }
        }
    }
}

/// Starts or reaches the remote and runs `initialize`, within the remote's step deadline
/// (past it, what was started is dropped: a child process is killed).
async fn connect(state: &Arc<State>) -> Result<RunningService<RoleClient, Client>, String> {
    let deadline = state.remote.step_timeout;
    tokio::time::timeout(deadline, connect_now(state))
        .await
        .unwrap_or_else(|_| Err(format!("did not initialize within {deadline:?}")))
}

async fn connect_now(state: &Arc<State>) -> Result<RunningService<RoleClient, Client>, String> {
    let client = Client {
        state: Arc::downgrade(state),
    };
    match &state.remote.target {
        Target::Stdio { program, args, env } => {
            let mut command = tokio::process::Command::new(program);
            command.args(args).envs(env);
            let transport = rmcp::transport::TokioChildProcess::builder(command)
                .stderr(std::process::Stdio::inherit())
                .spawn()
                .map_err(|e| format!("could not be started: {e}"))?
                .0;
            client
                .serve(transport)
                .await
                .map_err(|e| format!("did not initialize: {e}"))
        }
        Target::Http {
            url,
            bearer,
            headers,
        } => {
            use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
            let mut custom = HashMap::new();
            for (name, value) in headers {
                let name = axum::http::HeaderName::from_bytes(name.as_bytes())
                    .map_err(|e| format!("has a bad header name `{name}`: {e}"))?;
                let value = axum::http::HeaderValue::from_str(value)
                    .map_err(|e| format!("has a bad value for header `{name}`: {e}"))?;
                custom.insert(name, value);
            }
            let mut config =
                StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(custom);
            if let Some(token) = bearer {
                config = config.auth_header(token.clone());
            }
            let transport = rmcp::transport::StreamableHttpClientTransport::from_config(config);
            client
                .serve(transport)
                .await
                .map_err(|e| format!("could not be reached: {e}"))
        }
    }
}

/// The remote's tools as the session's, with the listing's warnings.
type Listing = (Vec<Listed>, Vec<crate::error::Problem>);

async fn list(state: &Arc<State>, peer: &Peer<RoleClient>) -> Result<Listing, String> {
    let deadline = state.remote.step_timeout;
    let tools = tokio::time::timeout(deadline, peer.list_all_tools())
        .await
        .map_err(|_| format!("did not list its tools within {deadline:?}"))?
        .map_err(|e| format!("did not list its tools: {e}"))?;
    let tools = tools
        .into_iter()
        .filter_map(|t| serde_json::to_value(t).ok())
        .collect();
    let (listed, warnings) = listing::definitions(&state.namespace, tools, &state.remote.policy);
    let listed = listed.into_iter().map(|l| with_handler(state, l)).collect();
    Ok((listed, warnings))
}

fn publish(state: &State, live: &LiveTools, (listed, warnings): Listing) {
    let problems = live.replace(listed.into_iter().map(|l| l.definition).collect(), warnings);
    for p in &problems {
        tracing::warn!(remote = %state.namespace, place = %p.place, "{}", p.message);
    }
}

/// The definition with its forwarding handler.
fn with_handler(state: &Arc<State>, listed: Listed) -> Listed {
    let weak = Arc::downgrade(state);
    let remote: Arc<str> = listed.remote.as_str().into();
    let handler = ToolHandler::json(move |args: Value, ctx: ToolCallContext| {
        let state = weak.upgrade();
        let remote = remote.clone();
        async move {
            match state {
                Some(state) => forward(&state, &remote, args, ctx).await,
                None => Err(ToolError::new("the gateway was dropped")),
            }
        }
    });
    Listed {
        definition: listed.definition.with_handler(handler),
        remote: listed.remote,
    }
}

/// One call at the remote: progress relayed, cancelled there when this future is dropped
/// before the answer (the call was cancelled, timed out, or its caller went away).
async fn forward(
    state: &Arc<State>,
    remote: &str,
    args: Value,
    ctx: ToolCallContext,
) -> Result<Value, ToolError> {
    let Some(peer) = state.peer() else {
        return Err(state.down("is not connected"));
    };
    let mut params = CallToolRequestParams::new(remote.to_owned());
    params.arguments = match args {
        Value::Object(map) => Some(map),
        _ => None,
    };
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(|e| state.down(&format!("could not be sent the call: {e}")))?;
    let token = handle.progress_token.clone();
    state
        .progress
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(token.clone(), ctx.clone());
    let mut guard = InFlight {
        state,
        token,
        cancel: Some((peer, handle.id.clone())),
    };
    let answer = handle.rx.await;
    guard.cancel = None;
    let answer = match answer {
        Ok(Ok(answer)) => answer,
        Ok(Err(e)) => return Err(remote_error(state, remote, &e)),
        Err(_) => return Err(state.down("closed the connection during the call")),
    };
    let result = match answer {
        ServerResult::CallToolResult(result) => result,
        other => {
            return Err(ToolError::with_code(
                ErrorCode::ToolResultInvalid,
                format!(
                    "the remote MCP server `{}` answered `{remote}` with something other than a tool result: {}",
                    state.namespace,
                    serde_json::to_string(&other).unwrap_or_default()
                ),
            ));
        }
    };
    let is_error = result.is_error == Some(true);
    let Ok(Value::Object(result)) = serde_json::to_value(result) else {
        return Err(ToolError::new("the remote's result could not be read"));
    };
    let value = listing::result_value(result);
    if is_error {
        let text = value["content"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        return Err(ToolError::with_code(
            ErrorCode::ToolHandlerError,
            format!(
                "`{remote}` of the remote MCP server `{}` failed: {text}",
                state.namespace
            ),
        )
        .with_details(serde_json::json!({ "remote": state.namespace, "result": value })));
    }
    Ok(value)
}

fn remote_error(state: &State, remote: &str, e: &rmcp::ServiceError) -> ToolError {
    match e {
        rmcp::ServiceError::McpError(data) => ToolError::with_code(
            ErrorCode::ToolHandlerError,
            format!(
                "the remote MCP server `{}` refused the call of `{remote}`: {} ({})",
                state.namespace, data.message, data.code.0
            ),
        )
        .with_details(serde_json::json!({ "remote": state.namespace, "error": data })),
        other => state.down(&format!("failed during the call: {other}")),
    }
}

/// A call at the remote: forgets its progress token when done, and cancels it at the
/// remote when dropped before the answer.
struct InFlight<'a> {
    state: &'a State,
    token: ProgressToken,
    cancel: Option<(Peer<RoleClient>, RequestId)>,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.state
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.token);
        if let Some((peer, id)) = self.cancel.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                let notification = CancelledNotification::new(CancelledNotificationParam::new(
                    Some(id),
                    Some("cancelled by the gateway's caller".to_owned()),
                ));
                let _ = peer.send_notification(notification.into()).await;
            });
        }
    }
}

/// The gateway's MCP client: progress to the calls, `list_changed` to the task.
struct Client {
    state: Weak<State>,
}

impl ClientHandler for Client {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(state) = self.state.upgrade() else {
            return;
        };
        let ctx = state
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&params.progress_token)
            .cloned();
        if let Some(ctx) = ctx {
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                reason = "MCP's progress is a float; pedelec counts whole units"
            )]
            let whole = |x: f64| x.max(0.0).round() as u64;
            ctx.progress(
                whole(params.progress),
                params.total.map(whole),
                params.message.unwrap_or_default(),
            );
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some(state) = self.state.upgrade() {
            state.relist.notify_one();
        }
    }

    fn get_info(&self) -> rmcp::model::ClientConfig {
        let mut info = rmcp::model::ClientConfig::default();
        // Sessions with `initialize`, whose notifications arrive without a `listen` stream.
        info.protocol_version = ProtocolVersion::LATEST_WITH_INITIALIZE;
        info.client_info =
            rmcp::model::Implementation::new("pedelec-gateway", env!("CARGO_PKG_VERSION"));
        info
    }
}
