//! One HTTP request to `/mcp`: checked (hosts, origins, token, headers), its body read
//! with a limit and a deadline, and answered by the protocol core on the connection's own
//! task: plain JSON when the answer is all there is, server-sent events when the call
//! sends notifications first (progress, logs), the call then driven by the response body
//! itself. Stateful sessions (`McpHttp::stateful(true)`, revisions before 2026-07-28) go
//! to rmcp's session transport, which answers through the same core
//! ([`legacy`](super::legacy)).

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, Method as HttpMethod, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use http_body::Frame;
use http_body_util::BodyExt;
use rmcp::model::{ErrorCode, ErrorData, ProtocolVersion};

use super::Access;
use super::guard::{Guard, Refusal, bearer_matches};
use super::legacy::Legacy;
use crate::bridge::mcp::meta::{self, Meta, Revision};
use crate::bridge::mcp::shared::{Exchange, Link, Reply, Server};
use crate::bridge::mcp::wire::{self, Kind, Message, Method, NameField};
use crate::context::Caller;
use crate::schema::mcp_header::ParamHeader;

const JSON: &str = "application/json";
const EVENT_STREAM: &str = "text/event-stream";
const HEADER_VERSION: &str = "mcp-protocol-version";
const HEADER_METHOD: &str = "mcp-method";
const HEADER_NAME: &str = "mcp-name";
const HEADER_SESSION: &str = "mcp-session-id";

/// What a request is checked against, and where it goes.
pub(super) struct Endpoint {
    pub(super) server: Server,
    pub(super) guard: Guard,
    pub(super) access: Access,
    pub(super) max_body_bytes: usize,
    pub(super) body_timeout: Duration,
    /// rmcp's session transport, when sessions are kept.
    pub(super) legacy: Option<Legacy>,
}

fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

fn json(status: u16, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    response
}

fn rpc_error(id: Option<&str>, error: &ErrorData, status: u16) -> Response {
    json(status, wire::error(id, error))
}

fn unauthorized() -> Response {
    let mut response = plain(
        StatusCode::UNAUTHORIZED,
        "Unauthorized: this MCP server requires `Authorization: Bearer <token>`",
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

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

impl Endpoint {
    /// The caller of a request: today, whether it holds the bearer token (when one is
    /// required). This is where an authenticated caller (`Caller`, from the token) will be
    /// attached to the request for every call it makes, and where a scope failure becomes
    /// `403` with `WWW-Authenticate: Bearer error="insufficient_scope"`.
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
    fn step_up(&self, message: &Message, caller: Option<&Caller>) -> Option<Response> {
        #[cfg(feature = "oauth")]
        if let Access::OAuth(auth) = &self.access
            && message.method == Method::ToolsCall
            && let Ok(Some(name)) = message.string(&message.params.name)
            && let Some(required) = self.server.scopes_of(&name)
        {
            return auth.insufficient_scope(caller, required);
        }
        None
    }

    /// A request's body, within the size limit and the deadline.
    #[allow(clippy::result_large_err, reason = "the error is the response")]
    async fn read_body(&self, body: Body) -> Result<Bytes, Response> {
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

    /// A request to rmcp's sessions; with OAuth, a `tools/call` of a tool whose scopes
    /// the caller lacks is answered `403` first, as on the stateless path.
    async fn to_legacy(
        &self,
        legacy: &Legacy,
        request: Request,
        caller: Option<&Caller>,
    ) -> Response {
        #[cfg(feature = "oauth")]
        if matches!(self.access, Access::OAuth(_)) && request.method() == HttpMethod::POST {
            let (parts, body) = request.into_parts();
            let bytes = match self.read_body(body).await {
                Ok(bytes) => bytes,
                Err(response) => return response,
            };
            if let Ok(message) = Message::parse(bytes.clone())
                && let Some(response) = self.step_up(&message, caller)
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

    pub(super) async fn handle(self: Arc<Self>, request: Request) -> Response {
        match self.guard.check(request.uri(), request.headers()) {
            Ok(()) => {}
            Err(Refusal::BadHost) => {
                return plain(
                    StatusCode::BAD_REQUEST,
                    "Bad Request: invalid or missing Host header",
                );
            }
            Err(Refusal::Forbidden(why)) => return plain(StatusCode::FORBIDDEN, why),
        }
        let caller = match self.authenticate(&request) {
            Ok(caller) => caller,
            Err(response) => return response,
        };
        let mut request = request;
        if let Some(caller) = &caller {
            // rmcp's sessions read it from the request (`legacy`).
            request.extensions_mut().insert(caller.clone());
        }
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
        if request.method() != HttpMethod::POST {
            let mut response = plain(
                StatusCode::METHOD_NOT_ALLOWED,
                "Method Not Allowed: this stateless MCP endpoint takes POST (no server-initiated stream, no session to delete)",
            );
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            return response;
        }
        let (json_ok, sse_ok) = accepts(request.headers());
        if !json_ok || !sse_ok {
            return plain(
                StatusCode::NOT_ACCEPTABLE,
                "Not Acceptable: the client must accept both application/json and text/event-stream",
            );
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
            return plain(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type: Content-Type must be application/json",
            );
        }
        let (parts, body) = request.into_parts();
        let bytes = match self.read_body(body).await {
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
        if let Err(response) = self.check_headers(&parts.headers, &message, header_version) {
            return response;
        }
        if let Some(response) = self.step_up(&message, caller.as_deref()) {
            return response;
        }
        let link = Arc::new(HttpLink::default());
        let exchange = Exchange {
            connection: None,
            header_version: header_version.map(Box::from),
            link: link.clone(),
            cancellation: None,
            caller,
        };
        answer(self.server.clone(), message, link, exchange).await
    }

    /// The version header and the SEP-2243 routing headers against the body.
    #[allow(clippy::result_large_err, reason = "the error is the response")]
    fn check_headers(
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

/// Runs the request on this task: a JSON answer when nothing comes before it, an event
/// stream (driving the rest of the call from the response body) when something does.
async fn answer(
    server: Server,
    message: Message,
    link: Arc<HttpLink>,
    exchange: Exchange,
) -> Response {
    let http_link: &HttpLink = &link;
    let handled: Pin<Box<dyn Future<Output = Option<Reply>> + Send>> =
        Box::pin(async move { server.handle(&message, &exchange).await });
    let mut handled = Some(handled);
    let first = std::future::poll_fn(|cx| {
        let Some(future) = handled.as_mut() else {
            return Poll::Ready(None);
        };
        match future.as_mut().poll(cx) {
            Poll::Ready(reply) => Poll::Ready(Some(reply)),
            Poll::Pending if http_link.has_messages(cx.waker()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    })
    .await;
    match first {
        Some(Some(reply)) if !http_link.any_sent() => json(reply.status, reply.body),
        Some(None) if !http_link.any_sent() => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::ACCEPTED;
            response
        }
        Some(reply) => events(link.clone(), None, reply),
        None => events(link.clone(), handled.take(), None),
    }
}

/// An event-stream answer: the notifications so far, then the rest as the call goes.
fn events(
    link: Arc<HttpLink>,
    call: Option<Pin<Box<dyn Future<Output = Option<Reply>> + Send>>>,
    reply: Option<Reply>,
) -> Response {
    let body = Events {
        link,
        call,
        reply: reply.map(|r| r.body),
    };
    let mut response = Response::new(Body::new(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The notifications of a request, until its answer.
#[derive(Default)]
pub(super) struct HttpLink {
    state: Mutex<LinkState>,
}

#[derive(Default)]
struct LinkState {
    queue: VecDeque<Vec<u8>>,
    waker: Option<Waker>,
    sent: bool,
}

impl HttpLink {
    fn lock(&self) -> std::sync::MutexGuard<'_, LinkState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a notification waits; otherwise `waker` is woken when one comes.
    fn has_messages(&self, waker: &Waker) -> bool {
        let mut state = self.lock();
        if state.queue.is_empty() {
            if !state.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
                state.waker = Some(waker.clone());
            }
            false
        } else {
            true
        }
    }

    fn any_sent(&self) -> bool {
        let state = self.lock();
        state.sent || !state.queue.is_empty()
    }

    fn pop(&self) -> Option<Vec<u8>> {
        self.lock().queue.pop_front()
    }
}

impl Link for HttpLink {
    fn notify(&self, message: Vec<u8>) {
        let waker = {
            let mut state = self.lock();
            state.queue.push_back(message);
            state.sent = true;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn why_no_requests(&self) -> &'static str {
        "a stateless HTTP request cannot carry a request to the client"
    }
}

/// The body of an event-stream answer: drives the call and sends what it sends.
struct Events {
    link: Arc<HttpLink>,
    call: Option<Pin<Box<dyn Future<Output = Option<Reply>> + Send>>>,
    reply: Option<Vec<u8>>,
}

fn event(message: &[u8]) -> Frame<Bytes> {
    let mut out = Vec::with_capacity(message.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(message);
    out.extend_from_slice(b"\n\n");
    Frame::data(Bytes::from(out))
}

impl http_body::Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let link = self.link.clone();
        if let Some(message) = link.pop() {
            return Poll::Ready(Some(Ok(event(&message))));
        }
        if let Some(call) = self.call.as_mut() {
            match call.as_mut().poll(cx) {
                Poll::Ready(reply) => {
                    self.call = None;
                    self.reply = reply.map(|r| r.body);
                }
                Poll::Pending => {
                    if link.has_messages(cx.waker()) {
                        cx.waker().wake_by_ref();
                    }
                    return Poll::Pending;
                }
            }
            if let Some(message) = link.pop() {
                return Poll::Ready(Some(Ok(event(&message))));
            }
        }
        match self.reply.take() {
            Some(reply) => Poll::Ready(Some(Ok(event(&reply)))),
            None => Poll::Ready(None),
        }
    }
}

/// The JSON-RPC error of a request the server could not serve at all.
#[allow(dead_code, reason = "used by the listener's refusals")]
pub(super) fn overloaded(why: &str) -> Vec<u8> {
    wire::error(
        None,
        &ErrorData::new(ErrorCode(-32000), why.to_owned(), None),
    )
}
