//! One HTTP request to `/mcp`, routed: through the [`gate`](super::gate) (hosts, origins,
//! caller, shape, body, headers), then to rmcp's session transport for the stateful
//! sessions of revisions before 2026-07-28 ([`legacy`](super::legacy), which answers
//! through the same protocol core), or answered here by the [`responder`](super::responder).

use std::sync::Arc;

use axum::body::Body;
use axum::extract::Request;
use axum::http::Method as HttpMethod;
use axum::response::Response;
use rmcp::model::ErrorData;

#[cfg(feature = "oauth")]
use super::Access;
use super::gate::{Gate, HEADER_SESSION, HEADER_VERSION};
use super::legacy::Legacy;
use super::responder::{HttpLink, answer, rpc_error};
use crate::bridge::mcp::meta;
use crate::bridge::mcp::shared::Exchange;
use crate::bridge::mcp::wire::{Kind, Message, Method};
use crate::context::Caller;

/// What a request is checked against, and where it goes.
pub(super) struct Endpoint {
    pub(super) gate: Gate,
    /// rmcp's session transport, when sessions are kept.
    pub(super) legacy: Option<Legacy>,
}

impl Endpoint {
    /// A request to rmcp's sessions; with OAuth, a `tools/call` of a tool whose scopes
    /// the caller lacks is answered `403` first, as on the stateless path.
    async fn to_legacy(
        &self,
        legacy: &Legacy,
        request: Request,
        caller: Option<&Caller>,
    ) -> Response {
        #[cfg(feature = "oauth")]
        if matches!(self.gate.access, Access::OAuth(_)) && request.method() == HttpMethod::POST {
            let (parts, body) = request.into_parts();
            let bytes = match self.gate.read_body(body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            if let Ok(message) = Message::parse(bytes.clone())
                && let Some(response) = self.gate.step_up(&message, caller)
            {
                return response;
            }
            return legacy
                .handle(Request::from_parts(parts, Body::from(bytes)))
                .await;
        }
        let _ = caller;
        legacy.handle(request).await
    }

    /// One request: through the gate, then to rmcp's sessions or answered here.
    pub(super) async fn handle(self: Arc<Self>, mut request: Request) -> Response {
        let caller = match self.gate.admit(&mut request) {
            Ok(caller) => caller,
            Err(response) => return response,
        };
        let header_version: Option<Box<str>> = request
            .headers()
            .get(HEADER_VERSION)
            .and_then(|v| v.to_str().ok())
            .map(|v| Box::from(v.trim()));
        let header_version = header_version.as_deref();
        let current = header_version.is_some_and(|v| v >= meta::CURRENT);
        if let Some(legacy) = &self.legacy
            && !current
            && (request.method() != HttpMethod::POST
                || request.headers().contains_key(HEADER_SESSION))
        {
            return self.to_legacy(legacy, request, caller.as_deref()).await;
        }
        if let Err(response) = Gate::stateless_shape(&request) {
            return response;
        }
        let (parts, body) = request.into_parts();
        let bytes = match self.gate.read_body(body).await {
            Ok(bytes) => bytes,
            Err(response) => return response,
        };
        let message = match Message::parse(bytes.clone()) {
            Ok(message) => message,
            Err(unreadable) => {
                let id = unreadable
                    .id
                    .as_deref()
                    .map(serde_json::value::RawValue::get);
                return rpc_error(id, &unreadable.error, 400);
            }
        };
        if let Some(legacy) = &self.legacy
            && !current
            && message.method == Method::Initialize
        {
            let request = Request::from_parts(parts, Body::from(bytes));
            return legacy.handle(request).await;
        }
        if message.kind == Kind::Response {
            return rpc_error(
                None,
                &ErrorData::invalid_request(
                    "Invalid Request: this stateless endpoint has no request of its own waiting for an answer",
                    None,
                ),
                400,
            );
        }
        if let Err(response) = self
            .gate
            .check_headers(&parts.headers, &message, header_version)
        {
            return response;
        }
        if let Some(response) = self.gate.step_up(&message, caller.as_deref()) {
            return response;
        }
        let link = Arc::new(HttpLink::default());
        let exchange = Exchange {
            connection: None,
            header_version: header_version.map(Box::from),
            link: link.clone(),
            cancellation: None,
            caller,
            idempotency_key: super::gate::idempotency_key(&parts.headers),
        };
        answer(self.gate.server.clone(), message, link, exchange).await
    }
}
