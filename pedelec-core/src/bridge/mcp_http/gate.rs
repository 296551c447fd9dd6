//! The request gate: whether one HTTP request to `/mcp` is admitted, and as whom. Hosts
//! and origins (once, for both paths), the bearer token or the OAuth layer's caller, the
//! method and media types, the body within its limit and deadline, and the MCP headers
//! against the body (the version, SEP-2243's `Mcp-Method`/`Mcp-Name`/`Mcp-Param-*`). Each
//! check answers with the response that refuses the request ([`responder`](super::responder)
//! builds them); nothing here answers a request that passed.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method as HttpMethod, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use http_body_util::BodyExt;
use rmcp::model::{ErrorData, ProtocolVersion};

use super::Access;
use super::guard::{Guard, Refusal, bearer_matches};
use super::responder::{EVENT_STREAM, JSON, plain, rpc_error, unauthorized};
use crate::bridge::mcp::meta::{self, Meta, Revision};
use crate::bridge::mcp::shared::Server;
use crate::bridge::mcp::wire::{Message, Method, NameField};
use crate::context::Caller;
use crate::schema::mcp_header::ParamHeader;

pub(super) const HEADER_VERSION: &str = "mcp-protocol-version";
const HEADER_METHOD: &str = "mcp-method";
const HEADER_NAME: &str = "mcp-name";
pub(super) const HEADER_SESSION: &str = "mcp-session-id";

/// The single value of a header, trimmed; `Err` when it is given more than once or is not
/// text.
fn single<'h>(headers: &'h HeaderMap, name: &str) -> Result<Option<&'h str>, String> {
    let mut values = headers.get_all(name).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(format!("duplicate {name} header"));
    }
    value
        .to_str()
        .map(|v| Some(v.trim()))
        .map_err(|_| format!("{name} header contains invalid characters"))
}

/// A header value as SEP-2243 encodes it: plain, or `=?base64?…?=`.
fn decode_header(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        Some(encoded) => {
            use base64::Engine as _;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(value.to_owned()),
    }
}

fn accepts(headers: &HeaderMap) -> (bool, bool) {
    let mut json = false;
    let mut sse = false;
    for value in headers.get_all(header::ACCEPT) {
        let Ok(value) = value.to_str() else { continue };
        for range in value.split(',') {
            let mut parts = range.split(';');
            let essence = parts.next().unwrap_or("").trim();
            // `q=0` excludes the range.
            let excluded = parts.any(|p| {
                p.trim()
                    .strip_prefix("q=")
                    .is_some_and(|q| q.trim().parse::<f32>().is_ok_and(|q| q == 0.0))
            });
            if excluded {
                continue;
            }
            json |= essence.eq_ignore_ascii_case(JSON)
                || essence == "*/*"
                || essence.eq_ignore_ascii_case("application/*");
            sse |= essence.eq_ignore_ascii_case(EVENT_STREAM)
                || essence == "*/*"
                || essence.eq_ignore_ascii_case("text/*");
        }
    }
    (json, sse)
}

/// What a request is checked against.
pub(super) struct Gate {
    /// The protocol core: which tools need which scopes, and mirror which arguments into
    /// headers.
    pub(super) server: Server,
    pub(super) guard: Guard,
    pub(super) access: Access,
    pub(super) max_body_bytes: usize,
    pub(super) body_timeout: Duration,
}

impl Gate {
    /// The first gate, for every request on both paths: its `Host` and `Origin`, then its
    /// caller (see [`authenticate`](Self::authenticate)), attached to the request for
    /// rmcp's sessions (`legacy`) to read.
    #[allow(clippy::result_large_err, reason = "the error is the response")]
    pub(super) fn admit(&self, request: &mut Request) -> Result<Option<Arc<Caller>>, Response> {
        match self.guard.check(request.uri(), request.headers()) {
            Ok(()) => {}
            Err(Refusal::BadHost) => {
                return Err(plain(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: invalid or missing Host header",
                ));
            }
            Err(Refusal::Forbidden(why)) => return Err(plain(StatusCode::FORBIDDEN, why)),
        }
        let caller = self.authenticate(request)?;
        if let Some(caller) = &caller {
            request.extensions_mut().insert(caller.clone());
        }
        Ok(caller)
    }

    /// What a stateless request must be: a `POST` that accepts both JSON and an event
    /// stream, with a JSON body.
    #[allow(clippy::result_large_err, reason = "the error is the response")]
    pub(super) fn stateless_shape(request: &Request) -> Result<(), Response> {
        if request.method() != HttpMethod::POST {
            let mut response = plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method Not Allowed: this stateless MCP endpoint takes POST (no server-initiated stream, no session to delete)",
            );
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            return Err(response);
        }
        let (json_ok, sse_ok) = accepts(request.headers());
        if !json_ok || !sse_ok {
            return Err(plain(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: the client must accept both application/json and text/event-stream",
            ));
        }
        let json_body = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.split(';')
                    .next()
                    .is_some_and(|e| e.trim().eq_ignore_ascii_case(JSON))
            });
        if !json_body {
            return Err(plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: Content-Type must be application/json",
            ));
        }
        Ok(())
    }

    /// The caller of a request: `None` (anonymous) without authentication, the static
    /// token's holder, or the one the OAuth layer in front admitted.
    #[allow(clippy::result_large_err, reason = "the error is the response")]
    fn authenticate(&self, request: &Request) -> Result<Option<Arc<Caller>>, Response> {
        match &self.access {
            Access::Anonymous => Ok(None),
            Access::Static(token, caller) => {
                if bearer_matches(request.headers(), token) {
                    Ok(Some(caller.clone()))
                } else {
                    Err(unauthorized())
                }
            }
            #[cfg(feature = "oauth")]
            Access::OAuth(_) => Ok(request.extensions().get::<Arc<Caller>>().cloned()),
        }
    }

    /// With OAuth, `403 insufficient_scope` (step-up) for a `tools/call` of a tool whose
    /// scopes the caller lacks.
    #[cfg_attr(
        not(feature = "oauth"),
        allow(clippy::unused_self, unused_variables, reason = "OAuth's step-up only")
    )]
    pub(super) fn step_up(&self, message: &Message, caller: Option<&Caller>) -> Option<Response> {
        #[cfg(feature = "oauth")]
        if let Access::OAuth(auth) = &self.access
            && message.method == Method::ToolsCall
            && let Ok(Some(name)) = message.string(&message.params.name)
            && let Some(required) = self.server.scopes_of(&name)
        {
            return auth.insufficient_scope(caller, &required);
        }
        None
    }

    /// A request's body, within the size limit and the deadline.
    #[allow(clippy::result_large_err, reason = "the error is the response")]
    pub(super) async fn read_body(&self, body: Body) -> Result<Bytes, Response> {
        let read = tokio::time::timeout(
            self.body_timeout,
            http_body_util::Limited::new(body, self.max_body_bytes).collect(),
        )
        .await;
        match read {
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => Err(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload Too Large: the request body is over the limit",
            )),
            Ok(Err(_)) => Err(plain(
                StatusCode::BAD_REQUEST,
                "Bad Request: the request body could not be read",
            )),
            Err(_) => Err(plain(
                StatusCode::REQUEST_TIMEOUT,
                "Request Timeout: the request body did not arrive in time",
            )),
        }
    }

    /// The version header and the SEP-2243 routing headers against the body.
    #[allow(clippy::result_large_err, reason = "the error is the response")]
    pub(super) fn check_headers(
        &self,
        headers: &HeaderMap,
        message: &Message,
        header_version: Option<&str>,
    ) -> Result<(), Response> {
        let id = message.id();
        let mismatch = |why: String| {
            rpc_error(
                id,
                &ErrorData::header_mismatch(format!("Header mismatch: {why}"), None),
                400,
            )
        };
        if message.method == Method::Initialize {
            let body_version = message
                .string(&message.params.protocol_version)
                .ok()
                .flatten();
            if let (Some(header), Some(body)) = (header_version, body_version.as_deref())
                && header != body
            {
                return Err(rpc_error(
                    id,
                    &ErrorData::invalid_request(
                        format!(
                            "Invalid Request: the MCP-Protocol-Version header ({header}) does not match initialize's protocolVersion ({body})"
                        ),
                        None,
                    ),
                    400,
                ));
            }
            if header_version.is_some_and(|v| v >= meta::CURRENT) {
                match single(headers, HEADER_METHOD) {
                    Ok(None | Some("initialize")) => {}
                    Ok(Some(other)) => {
                        return Err(mismatch(format!(
                            "Mcp-Method header `{other}` does not match body method `initialize`"
                        )));
                    }
                    Err(why) => return Err(mismatch(why)),
                }
            }
            return Ok(());
        }
        if let Some(version) = header_version
            && Revision::of(version).is_none()
        {
            let error = ErrorData::unsupported_protocol_version(
                serde_json::from_value::<ProtocolVersion>(serde_json::Value::from(version))
                    .unwrap_or_default(),
                meta::supported_versions(),
            );
            return Err(rpc_error(id, &error, 400));
        }
        let meta_version = Meta::parse(message.raw(&message.params.meta))
            .ok()
            .and_then(|m| m.version().map(str::to_owned));
        if let Some(meta_version) = &meta_version {
            match header_version {
                None => {
                    return Err(mismatch(
                        "a request whose _meta names its protocol version needs the MCP-Protocol-Version header".into(),
                    ));
                }
                Some(header) if header != meta_version => {
                    return Err(mismatch(format!(
                        "the MCP-Protocol-Version header ({header}) does not match _meta's protocolVersion ({meta_version})"
                    )));
                }
                Some(_) => {}
            }
        }
        if header_version.is_none_or(|v| v < meta::CURRENT) {
            return Ok(());
        }
        match single(headers, HEADER_METHOD) {
            Ok(None) => return Err(mismatch("missing required Mcp-Method header".into())),
            Ok(Some(value)) if value != message.method_name() => {
                return Err(mismatch(format!(
                    "Mcp-Method header `{value}` does not match body method `{}`",
                    message.method_name()
                )));
            }
            Ok(Some(_)) => {}
            Err(why) => return Err(mismatch(why)),
        }
        let field = match message.method.name_field() {
            Some(NameField::Name) => &message.params.name,
            Some(NameField::Uri) => &message.params.uri,
            Some(NameField::TaskId) => &message.params.task_id,
            None => return Ok(()),
        };
        let Ok(Some(expected)) = message.string(field) else {
            return Ok(());
        };
        match single(headers, HEADER_NAME) {
            Ok(None) => {
                return Err(mismatch(format!(
                    "missing required Mcp-Name header for `{}`",
                    message.method_name()
                )));
            }
            Ok(Some(raw)) => match decode_header(raw) {
                None => return Err(mismatch("Mcp-Name header is not valid Base64".into())),
                Some(decoded) if decoded != *expected => {
                    return Err(mismatch(format!(
                        "Mcp-Name header `{decoded}` does not match body value `{expected}`"
                    )));
                }
                Some(_) => {}
            },
            Err(why) => return Err(mismatch(why)),
        }
        if message.method == Method::ToolsCall {
            let mirrored = self.server.param_headers_of(&expected);
            if !mirrored.is_empty() {
                let arguments = message.raw(&message.params.arguments);
                check_param_headers(headers, arguments, mirrored).map_err(mismatch)?;
            }
        }
        Ok(())
    }
}

/// The `Mcp-Param-*` headers of a `tools/call` against its arguments (SEP-2243): an argument
/// with a value (not `null`) needs its header, and they must agree (a string exactly, a
/// number numerically, a boolean as `true`/`false`); an argument left out or `null` must
/// have no header. A load balancer may have routed on the header while the tool acts on
/// the body, so any disagreement refuses the call.
fn check_param_headers(
    headers: &HeaderMap,
    arguments: Option<&str>,
    mirrored: &[ParamHeader],
) -> Result<(), String> {
    let arguments: Option<serde_json::Value> = arguments.and_then(|a| serde_json::from_str(a).ok());
    for param in mirrored {
        let value = arguments
            .as_ref()
            .and_then(|a| param.path.iter().try_fold(a, |v, key| v.get(&**key)))
            .filter(|v| !v.is_null());
        let header = format!("mcp-param-{}", param.name.to_ascii_lowercase());
        let argument = param.path.join(".");
        match (value, single(headers, &header)?) {
            (None, None) => {}
            (None, Some(_)) => {
                return Err(format!(
                    "Mcp-Param-{} header is sent but the argument `{argument}` is not",
                    param.name
                ));
            }
            (Some(_), None) => {
                return Err(format!(
                    "missing required Mcp-Param-{} header for the argument `{argument}`",
                    param.name
                ));
            }
            (Some(value), Some(raw)) => {
                let Some(decoded) = decode_header(raw) else {
                    return Err(format!(
                        "Mcp-Param-{} header is not valid Base64",
                        param.name
                    ));
                };
                if !header_agrees(value, &decoded) {
                    return Err(format!(
                        "Mcp-Param-{} header `{decoded}` does not match the argument `{argument}` ({value})",
                        param.name
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Whether a decoded `Mcp-Param-*` value stands for the argument `value`.
fn header_agrees(value: &serde_json::Value, header: &str) -> bool {
    use serde_json::Value;
    match value {
        Value::String(s) => s == header,
        Value::Bool(b) => header == if *b { "true" } else { "false" },
        Value::Number(_) => serde_json::from_str::<serde_json::Number>(header)
            .is_ok_and(|n| crate::schema::json_equal(value, &Value::Number(n))),
        _ => false,
    }
}

/// The `Idempotency-Key` header (IETF httpapi draft: a string, usually quoted), for the
/// call the request carries (`#[tool(exactly_once)]`).
pub(super) fn idempotency_key(headers: &HeaderMap) -> Option<Box<str>> {
    let value = headers.get("idempotency-key")?.to_str().ok()?;
    let key = value.trim().trim_matches('"');
    (!key.is_empty()).then(|| Box::from(key))
}
