//! Stateful sessions (`McpHttp::stateful(true)`): clients of the revisions before
//! 2026-07-28 that `initialize` get an `Mcp-Session-Id`, and over it the server can send
//! them requests (elicitation, sampling, roots) while a call runs. rmcp's session
//! transport (`StreamableHttpService` with its `LocalSessionManager`: session ids, SSE
//! streams with priming and resumption, routing the client's responses, `DELETE`) carries
//! them; every request it delivers is answered by the same protocol core as the stateless
//! endpoint, through [`Adapter`]: rmcp's typed params are turned back into the request's
//! JSON-RPC text, and the core's answer into rmcp's typed result (no method is handled
//! here: each handler method is the same one line).

// Logging (`logging/setLevel`) is deprecated from 2026-07-28 on, and served before it.
#![allow(deprecated)]

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use bytes::Bytes;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult,
    ServerConfig, ServerNotification, ServerRequest, SetLevelRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use tokio::sync::mpsc;

use crate::bridge::mcp::shared::{Connection, Exchange, Link, Server};
use crate::bridge::mcp::wire::Message;
use crate::context::{Caller, Cancellation, InputError, InputFuture};

/// rmcp's session transport over the core.
pub(super) struct Legacy {
    service: StreamableHttpService<Adapter, LocalSessionManager>,
}

impl Legacy {
    pub(super) fn new(server: Server, config: StreamableHttpServerConfig) -> Legacy {
        let service = StreamableHttpService::new(
            // One adapter per session: its connection keeps what `initialize` negotiated
            // and the log level the client set.
            move || {
                Ok(Adapter {
                    server: server.clone(),
                    connection: Arc::new(Connection::default()),
                })
            },
            Arc::new(LocalSessionManager::default()),
            config,
        );
        Legacy { service }
    }

    pub(super) async fn handle(&self, request: Request) -> Response {
        let ending = request.method() == axum::http::Method::DELETE;
        let mut response = self.service.handle(request).await.map(Body::new);
        // rmcp answers a session's end with `202 Accepted`; the transport's clients expect
        // `200`/`204` (the official Python client logs every other status as a failed
        // termination), and the session is already closed when rmcp answers: `204`.
        if ending && response.status() == axum::http::StatusCode::ACCEPTED {
            *response.status_mut() = axum::http::StatusCode::NO_CONTENT;
        }
        response
    }
}

/// A session's handler: every request through the core.
#[derive(Clone)]
pub(super) struct Adapter {
    server: Server,
    connection: Arc<Connection>,
}

/// The JSON-RPC text of a request rmcp parsed (its `_meta`, which rmcp moved into the
/// context, given back to its params).
fn request_text(
    method: &str,
    params: Option<Value>,
    context: &RequestContext<RoleServer>,
) -> Result<Vec<u8>, ErrorData> {
    let mut params = params.unwrap_or(Value::Null);
    if !context.meta.is_empty() {
        if !params.is_object() {
            params = Value::Object(serde_json::Map::new());
        }
        if let Value::Object(params) = &mut params {
            params.insert("_meta".into(), Value::Object(context.meta.0.0.clone()));
        }
    }
    let mut message = serde_json::json!({
        "jsonrpc": "2.0",
        "id": serde_json::to_value(&context.id).unwrap_or(Value::Null),
        "method": method,
    });
    if !params.is_null() {
        message["params"] = params;
    }
    serde_json::to_vec(&message)
        .map_err(|e| ErrorData::internal_error(format!("cannot re-write the request: {e}"), None))
}

impl Adapter {
    /// One request through the core: its params as JSON, its result read as `R`.
    async fn through<R: serde::de::DeserializeOwned>(
        &self,
        method: &'static str,
        params: Option<Value>,
        context: RequestContext<RoleServer>,
    ) -> Result<R, ErrorData> {
        let text = request_text(method, params, &context)?;
        let message = Message::parse(Bytes::from(text)).map_err(|u| u.error)?;
        let (notifications, mut outgoing) = mpsc::unbounded_channel::<ServerNotification>();
        let peer = context.peer.clone();
        // Notifications go out in order, before the answer.
        let forwarder = tokio::spawn(async move {
            while let Some(notification) = outgoing.recv().await {
                if peer.send_notification(notification).await.is_err() {
                    break;
                }
            }
        });
        let cancellation = Cancellation::new();
        let exchange = Exchange {
            connection: Some(self.connection.clone()),
            header_version: None,
            link: Arc::new(PeerLink {
                notifications,
                peer: context.peer.clone(),
            }),
            cancellation: Some(cancellation.clone()),
            // The caller the HTTP request was authenticated as (the endpoint or the OAuth
            // layer put it in the request's extensions).
            caller: context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| parts.extensions.get::<Arc<Caller>>())
                .cloned(),
            idempotency_key: context
                .extensions
                .get::<axum::http::request::Parts>()
                .and_then(|parts| super::gate::idempotency_key(&parts.headers)),
        };
        let reply = {
            let handled = self.server.handle(&message, &exchange);
            tokio::pin!(handled);
            loop {
                tokio::select! {
                    reply = &mut handled => break reply,
                    () = context.ct.cancelled(), if !cancellation.is_cancelled() => cancellation.cancel(),
                }
            }
        };
        drop(exchange);
        let _ = forwarder.await;
        let body = reply.map_or_else(|| b"{}".to_vec(), |r| r.body);
        let mut answer: Value = serde_json::from_slice(&body)
            .map_err(|e| ErrorData::internal_error(format!("cannot read the answer: {e}"), None))?;
        if let Some(error) = answer.get_mut("error").map(Value::take) {
            return Err(serde_json::from_value(error).unwrap_or_else(|e| {
                ErrorData::internal_error(format!("cannot read the error: {e}"), None)
            }));
        }
        let result = answer.get_mut("result").map_or(Value::Null, Value::take);
        serde_json::from_value(result).map_err(|e| {
            ErrorData::internal_error(format!("cannot read the result of `{method}`: {e}"), None)
        })
    }
}

fn json<T: serde::Serialize>(params: &T) -> Option<Value> {
    serde_json::to_value(params).ok()
}

impl ServerHandler for Adapter {
    fn get_info(&self) -> ServerConfig {
        self.server.now().config()
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.through("initialize", json(&request), context).await
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let _: Value = self
            .through("logging/setLevel", json(&request), context)
            .await?;
        Ok(())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.through("tools/list", request.as_ref().and_then(json), context)
            .await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let result: CallToolResult = self.through("tools/call", json(&request), context).await?;
        Ok(result.into())
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.through("prompts/list", request.as_ref().and_then(json), context)
            .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.through("resources/list", request.as_ref().and_then(json), context)
            .await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.through(
            "resources/templates/list",
            request.as_ref().and_then(json),
            context,
        )
        .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let result: GetPromptResult = self.through("prompts/get", json(&request), context).await?;
        Ok(result.into())
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let result: ReadResourceResult = self
            .through("resources/read", json(&request), context)
            .await?;
        Ok(result.into())
    }
}

/// A session request's way to its client: rmcp's peer.
struct PeerLink {
    notifications: mpsc::UnboundedSender<ServerNotification>,
    peer: rmcp::Peer<RoleServer>,
}

impl Link for PeerLink {
    fn notify(&self, message: Vec<u8>) {
        match serde_json::from_slice::<ServerNotification>(&message) {
            Ok(notification) => {
                let _ = self.notifications.send(notification);
            }
            Err(e) => {
                tracing::warn!(error = %e, "MCP session: a notification rmcp cannot carry was dropped");
            }
        }
    }

    fn request(&self, method: &'static str, params: Value) -> Option<InputFuture> {
        let request = serde_json::json!({ "method": method, "params": params });
        let request: ServerRequest = match serde_json::from_value(request) {
            Ok(request) => request,
            Err(e) => {
                return Some(Box::pin(std::future::ready(Err(InputError::Failed(
                    format!("rmcp cannot carry a `{method}` request: {e}"),
                )))));
            }
        };
        let peer = self.peer.clone();
        Some(Box::pin(async move {
            let answer = peer
                .send_request(request)
                .await
                .map_err(|e| InputError::Failed(format!("the client did not answer: {e}")))?;
            serde_json::to_value(answer).map_err(|e| InputError::Failed(e.to_string()))
        }))
    }
}
