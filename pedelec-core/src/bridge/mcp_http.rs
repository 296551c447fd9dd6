//! The Model Context Protocol over streamable HTTP (cargo feature `mcp`): [`McpHttp`].
//!
//! The session is served at `/mcp` through `rmcp`'s streamable HTTP service, with the same
//! server handler as the stdio bridge ([`Mcp`](super::Mcp)). Stateless by default: every
//! request stands alone, so replicas behind any HTTP load balancer serve one skill set.
//!
//! Security, as the MCP specification asks of HTTP servers:
//! - the `Host` header must name an allowed host, and a present `Origin` header an allowed
//!   origin (`403 Forbidden` otherwise), so that a web page cannot reach a local server
//!   through DNS rebinding. Bound to a loopback address, the defaults are the loopback
//!   names (`localhost`, `127.0.0.1`, `::1`, any port);
//! - with [`bearer_token`](McpHttp::bearer_token), every request must carry
//!   `Authorization: Bearer <token>` (`401 Unauthorized` otherwise; compared in constant
//!   time), and its calls' caller (`ctx.caller()`) is `"bearer"`, holding every scope;
//!   with `oauth` (cargo feature `oauth`), the server is an OAuth 2.1 resource server
//!   (`bridge::OAuth`): each request's access token says who calls and with which scopes,
//!   `tools/list` shows the tools the caller may call, and a call of another one is
//!   answered `403` with `WWW-Authenticate: Bearer error="insufficient_scope"`. Without
//!   either, calls are anonymous (a tool with scopes answers `TOOL_FORBIDDEN`);
//! - request bodies are limited ([`max_body_bytes`](McpHttp::max_body_bytes), 4 MiB by
//!   default; `413 Payload Too Large` beyond);
//! - shutdown is graceful: once the shutdown signal fires, no connection is accepted, and
//!   every call in flight is answered before [`Session::serve`] returns.

use std::fmt;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::Bridge;
use super::mcp::Handler;
#[cfg(feature = "oauth")]
use super::oauth::{OAuth, OAuthLayer};
use crate::context::Caller;
use crate::error::{Error, ErrorCode};
use crate::session::Session;

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The default request body limit: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];
const LOOPBACK_ORIGINS: [&str; 6] = [
    "http://localhost:*",
    "http://127.0.0.1:*",
    "http://[::1]:*",
    "https://localhost:*",
    "https://127.0.0.1:*",
    "https://[::1]:*",
];

type ShutdownSignal = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The MCP streamable HTTP bridge: `session.serve(McpHttp::bind("127.0.0.1:8080"))` serves
/// the session at `http://127.0.0.1:8080/mcp` until Ctrl-C (or
/// [`shutdown_on`](Self::shutdown_on)); [`McpHttp::router`] gives an `axum::Router` to
/// mount into an existing app instead.
///
/// ```no_run
/// use pedelec_core::bridge::McpHttp;
/// # async fn run(session: pedelec_core::Session) -> Result<(), pedelec_core::Error> {
/// let token = std::env::var("MCP_TOKEN").expect("a token");
/// session.serve(McpHttp::bind("127.0.0.1:8080").bearer_token(token)).await
/// # }
/// ```
pub struct McpHttp {
    listen: Listen,
    options: Options,
    shutdown: Option<ShutdownSignal>,
}

enum Listen {
    Address(String),
    Listener(TcpListener),
    Nowhere,
}

#[derive(Clone, Debug)]
struct Options {
    bearer_token: Option<Arc<[u8]>>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    max_body_bytes: usize,
    stateful: bool,
    #[cfg(feature = "oauth")]
    oauth: Option<OAuth>,
}

impl fmt::Debug for McpHttp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let listen = match &self.listen {
            Listen::Address(a) => a.clone(),
            Listen::Listener(l) => l
                .local_addr()
                .map_or_else(|_| "a listener".into(), |a| a.to_string()),
            Listen::Nowhere => "nowhere (a router)".into(),
        };
        f.debug_struct("McpHttp")
            .field("listen", &listen)
            .field(
                "bearer_token",
                &self.options.bearer_token.as_ref().map(|_| "…"),
            )
            .field("allowed_hosts", &self.options.allowed_hosts)
            .field("allowed_origins", &self.options.allowed_origins)
            .field("max_body_bytes", &self.options.max_body_bytes)
            .field("stateful", &self.options.stateful)
            .finish_non_exhaustive()
    }
}

impl McpHttp {
    fn with_listen(listen: Listen) -> Self {
        McpHttp {
            listen,
            options: Options {
                bearer_token: None,
                allowed_hosts: None,
                allowed_origins: None,
                max_body_bytes: DEFAULT_MAX_BODY_BYTES,
                stateful: false,
                #[cfg(feature = "oauth")]
                oauth: None,
            },
            shutdown: None,
        }
    }

    /// Serves at `addr` (`"127.0.0.1:8080"`, `"localhost:8080"`, `"[::1]:0"`), bound when
    /// [`Session::serve`] starts.
    #[must_use]
    pub fn bind(addr: impl Into<String>) -> Self {
        McpHttp::with_listen(Listen::Address(addr.into()))
    }

    /// Serves on a listener already bound (for instance to port 0, whose address the caller
    /// reads first).
    #[must_use]
    pub fn from_listener(listener: TcpListener) -> Self {
        McpHttp::with_listen(Listen::Listener(listener))
    }

    /// The options of a router ([`into_router`](Self::into_router)), with no address of its
    /// own: the allowed hosts and origins default to the loopback names.
    #[must_use]
    pub fn options() -> Self {
        McpHttp::with_listen(Listen::Nowhere)
    }

    /// The MCP endpoint of `session` at `/mcp`, with the default options (loopback hosts
    /// and origins, no token, 4 MiB bodies, stateless), to mount into an existing axum app
    /// (`app.merge(McpHttp::router(session))`). Configure it with
    /// `McpHttp::options()….into_router(session)`.
    pub fn router<N>(session: Session<N>) -> Router {
        McpHttp::options().into_router(session)
    }

    /// Requires `Authorization: Bearer <token>` on every request (`401 Unauthorized`
    /// otherwise, with `WWW-Authenticate: Bearer`). Whoever holds the token may call
    /// every tool: the calls' caller is `Caller::new("bearer").with_every_scope()`.
    #[must_use]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.options.bearer_token = Some(Arc::from(token.into().into_bytes()));
        self
    }

    /// Serves as an OAuth 2.1 resource server (the MCP authorization specification):
    /// the RFC 9728 metadata at `/.well-known/oauth-protected-resource` (and its path
    /// form), an access token checked on every request (`401` with a challenge
    /// otherwise), `tools/list` filtered by the token's scopes, a call of a tool whose
    /// scopes it lacks answered `403 insufficient_scope`, and the token's caller in every
    /// call (`ctx.caller()`). When `auth` lists no `scopes_supported`, the metadata lists
    /// the tools' scopes. The configuration is checked when serving starts
    /// ([`Session::serve`] fails with the reason).
    #[cfg(feature = "oauth")]
    #[cfg_attr(docsrs, doc(cfg(feature = "oauth")))]
    #[must_use]
    pub fn oauth(mut self, auth: OAuth) -> Self {
        self.options.oauth = Some(auth);
        self
    }

    /// The hosts a request's `Host` header may name (`"example.com"`, or
    /// `"example.com:8080"` for one port); others get `403 Forbidden`. Needed when bound to
    /// an unspecified address (`0.0.0.0`, `::`); an empty list allows any host (behind a
    /// proxy that checks it).
    #[must_use]
    pub fn allowed_hosts(mut self, hosts: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options.allowed_hosts = Some(hosts.into_iter().map(Into::into).collect());
        self
    }

    /// The browser origins a request's `Origin` header may name (`"https://app.example.com"`
    /// with its port, or `"http://localhost:*"` for any port); a request with another
    /// `Origin` gets `403 Forbidden`, one without `Origin` (not from a browser) passes.
    #[must_use]
    pub fn allowed_origins(mut self, origins: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.options.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// The largest request body accepted, in bytes (`413 Payload Too Large` beyond); 4 MiB
    /// by default.
    #[must_use]
    pub fn max_body_bytes(mut self, bytes: usize) -> Self {
        self.options.max_body_bytes = bytes;
        self
    }

    /// Keeps a session per client that starts with `initialize` (`Mcp-Session-Id`), for
    /// clients of protocol versions before 2026-07-28 that cancel calls with
    /// `notifications/cancelled` on a separate request. Stateless (`false`) by default: a
    /// stateless client cancels a call by closing its request.
    #[must_use]
    pub fn stateful(mut self, stateful: bool) -> Self {
        self.options.stateful = stateful;
        self
    }

    /// Stops serving when `signal` completes (instead of on Ctrl-C): no new connection is
    /// accepted, and every call in flight is answered before [`Session::serve`] returns.
    #[must_use]
    pub fn shutdown_on(mut self, signal: impl Future<Output = ()> + Send + 'static) -> Self {
        self.shutdown = Some(Box::pin(signal));
        self
    }

    /// The MCP endpoint of `session` at `/mcp` with these options, to mount into an existing
    /// axum app. The allowed hosts and origins default to the loopback names.
    ///
    /// # Panics
    /// When the options cannot be served (an `oauth` configuration that
    /// [`Session::serve`] would refuse, or both `oauth` and `bearer_token`), with the
    /// reason.
    pub fn into_router<N>(self, session: Session<N>) -> Router {
        let bound = match &self.listen {
            Listen::Listener(l) => l.local_addr().ok(),
            Listen::Address(a) => a.parse::<SocketAddr>().ok(),
            Listen::Nowhere => None,
        };
        let (hosts, origins) = defaults_for(bound.map(|a| a.ip()));
        build_router(
            &session.untyped(),
            &self.options,
            hosts,
            origins,
            CancellationToken::new(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    }
}

/// The allowed hosts and origins when none are configured: the loopback names on a
/// loopback address (or for a router), the address itself on a specific one, none on an
/// unspecified one (serving then requires `allowed_hosts`).
fn defaults_for(ip: Option<IpAddr>) -> (Option<Vec<String>>, Vec<String>) {
    let loopback = || {
        (
            Some(LOOPBACK_HOSTS.iter().map(|&h| h.to_owned()).collect()),
            LOOPBACK_ORIGINS.iter().map(|&o| o.to_owned()).collect(),
        )
    };
    match ip {
        None => loopback(),
        Some(ip) if ip.is_loopback() => loopback(),
        Some(ip) if ip.is_unspecified() => (None, Vec::new()),
        Some(ip) => (Some(vec![ip.to_string()]), Vec::new()),
    }
}

fn build_router(
    session: &Session,
    options: &Options,
    default_hosts: Option<Vec<String>>,
    default_origins: Vec<String>,
    shutdown: CancellationToken,
) -> Result<Router, Error> {
    let hosts = options
        .allowed_hosts
        .clone()
        .or(default_hosts)
        .unwrap_or_default();
    let origins = options.allowed_origins.clone().unwrap_or(default_origins);
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(origins)
        // An `Origin` not in the list is refused even when the list is empty.
        .enforce_origin_validation()
        .with_max_request_body_bytes(options.max_body_bytes)
        .with_legacy_session_mode(options.stateful)
        // Plain JSON answers for calls that send nothing before their result; an SSE
        // stream only when they do (progress).
        .with_json_response(true)
        .with_cancellation_token(shutdown);
    let handler = Handler::new(session);
    let auth = Access::of(options, &handler)?;
    Ok(if options.stateful {
        mount(
            handler,
            LocalSessionManager::default(),
            config,
            auth,
            options.max_body_bytes,
        )
    } else {
        mount(
            handler,
            NeverSessionManager::default(),
            config,
            auth,
            options.max_body_bytes,
        )
    })
}

/// How the requests are authenticated.
#[derive(Clone)]
enum Access {
    /// Anonymous calls.
    Anonymous,
    /// `bearer_token`: its holder may call anything.
    Static(Arc<[u8]>, Arc<Caller>),
    /// `oauth`: access tokens (checked by the layer) and their scopes.
    #[cfg(feature = "oauth")]
    OAuth(OAuthLayer),
}

impl Access {
    #[cfg_attr(
        not(feature = "oauth"),
        allow(
            clippy::unnecessary_wraps,
            unused_variables,
            reason = "OAuth's setup can fail"
        )
    )]
    fn of(options: &Options, handler: &Handler) -> Result<Self, Error> {
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &options.oauth {
            if options.bearer_token.is_some() {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    "`McpHttp` has both a `bearer_token` and `oauth`: choose one (a static \
                     token would bypass the access tokens' scopes)",
                ));
            }
            return Ok(Access::OAuth(
                oauth.clone().default_scopes(handler.all_scopes()).layer()?,
            ));
        }
        Ok(match &options.bearer_token {
            Some(token) => Access::Static(
                token.clone(),
                Arc::new(Caller::new("bearer").with_every_scope()),
            ),
            None => Access::Anonymous,
        })
    }
}

#[cfg_attr(
    not(feature = "oauth"),
    allow(unused_variables, reason = "the body is read for OAuth's step-up only")
)]
fn mount<M: SessionManager>(
    handler: Handler,
    sessions: M,
    config: StreamableHttpServerConfig,
    auth: Access,
    max_body_bytes: usize,
) -> Router {
    // The tools' scopes, for the step-up answer (`oauth`).
    #[cfg(feature = "oauth")]
    let tools = handler.clone();
    let service = StreamableHttpService::new(move || Ok(handler.clone()), sessions.into(), config);
    let router = Router::new().route(MCP_PATH, {
        let auth = auth.clone();
        axum::routing::any(move |mut request: Request| {
            let service = service.clone();
            let auth = auth.clone();
            #[cfg(feature = "oauth")]
            let tools = tools.clone();
            async move {
                match &auth {
                    Access::Anonymous => {}
                    Access::Static(token, caller) => {
                        if !authorized(&request, token) {
                            return unauthorized();
                        }
                        request.extensions_mut().insert(caller.clone());
                    }
                    // The layer below authenticated the request; a call of a tool whose
                    // scopes the caller lacks is answered 403 (step-up).
                    #[cfg(feature = "oauth")]
                    Access::OAuth(auth) => {
                        request = match step_up(auth, &tools, request, max_body_bytes).await {
                            Ok(request) => request,
                            Err(answer) => return answer,
                        };
                    }
                }
                service.handle(request).await.map(Body::new)
            }
        })
    });
    match auth {
        #[cfg(feature = "oauth")]
        Access::OAuth(auth) => router.layer(auth),
        _ => router,
    }
}

/// `403 insufficient_scope` for a `tools/call` of a tool whose scopes the request's caller
/// lacks; otherwise the request, its body read (it is small: `max_body_bytes`).
#[cfg(feature = "oauth")]
async fn step_up(
    auth: &OAuthLayer,
    tools: &Handler,
    request: Request,
    max_body_bytes: usize,
) -> Result<Request, Response> {
    if request.method() != axum::http::Method::POST {
        return Ok(request);
    }
    let (parts, body) = request.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, max_body_bytes).await else {
        return Err((
            StatusCode::PAYLOAD_TOO_LARGE,
            "Payload Too Large: the request body is over the server's limit, or broken",
        )
            .into_response());
    };
    if let Some(name) = called_tool(&bytes)
        && let Some(required) = tools.scopes_of(&name)
    {
        let caller = parts.extensions.get::<Arc<Caller>>().map(AsRef::as_ref);
        if let Some(answer) = auth.insufficient_scope(caller, required) {
            return Err(answer);
        }
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// The tool a JSON-RPC `tools/call` request calls.
#[cfg(feature = "oauth")]
fn called_tool(body: &[u8]) -> Option<String> {
    use std::borrow::Cow;

    #[derive(serde::Deserialize)]
    struct Message<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        params: Option<Params<'a>>,
    }
    #[derive(serde::Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        name: Option<Cow<'a, str>>,
    }
    let message: Message = serde_json::from_slice(body).ok()?;
    if message.method.as_deref() != Some("tools/call") {
        return None;
    }
    Some(message.params?.name?.into_owned())
}

/// Whether the request carries `Authorization: Bearer <token>`. The comparison takes the
/// same time whatever the bytes, so response timing cannot reveal a correct prefix of a
/// guessed token (`subtle`'s `ConstantTimeEq`; only the length is not hidden, which tells
/// nothing useful about a random token).
fn authorized(request: &Request, token: &[u8]) -> bool {
    let Some(value) = request.headers().get(header::AUTHORIZATION) else {
        return false;
    };
    let value = value.as_bytes();
    let Some(scheme) = value.get(..7) else {
        return false;
    };
    // The scheme is case-insensitive (RFC 9110 §11.1).
    scheme.eq_ignore_ascii_case(b"bearer ") && bool::from(value[7..].ct_eq(token))
}

fn unauthorized() -> Response {
    let mut response = (
        StatusCode::UNAUTHORIZED,
        "Unauthorized: this MCP server requires `Authorization: Bearer <token>`",
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

impl Bridge for McpHttp {
    #[allow(
        clippy::manual_async_fn,
        reason = "the trait's signature promises a `Send + 'static` future"
    )]
    fn serve<N: 'static>(
        self,
        session: Session<N>,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        let session = session.untyped();
        async move {
            let McpHttp {
                listen,
                options,
                shutdown,
            } = self;
            let listener = match listen {
                Listen::Listener(listener) => listener,
                Listen::Address(addr) => TcpListener::bind(&addr).await.map_err(|e| {
                    Error::new(
                        ErrorCode::SubmitToolResultFailed,
                        format!("cannot listen on `{addr}`: {e}"),
                    )
                })?,
                Listen::Nowhere => {
                    return Err(Error::new(
                        ErrorCode::InvalidInput,
                        "`McpHttp::options()` has no address to serve on: use \
                         `McpHttp::bind(\"127.0.0.1:8080\")`, or mount \
                         `.into_router(session)` into an axum app",
                    ));
                }
            };
            let addr = listener.local_addr().map_err(|e| {
                Error::new(
                    ErrorCode::SubmitToolResultFailed,
                    format!("the listener has no address: {e}"),
                )
            })?;
            let (hosts, origins) = defaults_for(Some(addr.ip()));
            if hosts.is_none() && options.allowed_hosts.is_none() {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    format!(
                        "`McpHttp` bound to {addr} (every interface) needs the host names \
                         clients use: add `.allowed_hosts([\"example.com\"])` (an empty list \
                         allows any host, for a server behind a proxy that checks them)"
                    ),
                ));
            }
            // Cancelled once every connection has drained: it ends what rmcp still runs.
            let stop = CancellationToken::new();
            let router = build_router(&session, &options, hosts, origins, stop.child_token())?;
            let signal = shutdown.unwrap_or_else(|| {
                Box::pin(async {
                    // Without a signal handler, serve until the process ends.
                    if tokio::signal::ctrl_c().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                })
            });
            let served = axum::serve(listener, router)
                .with_graceful_shutdown(signal)
                .await;
            stop.cancel();
            served.map_err(|e: std::io::Error| {
                Error::new(
                    ErrorCode::SubmitToolResultFailed,
                    format!("the MCP HTTP server failed: {e}"),
                )
            })
        }
    }
}
