//! The Model Context Protocol over streamable HTTP (cargo feature `mcp`): [`McpHttp`].
//!
//! The session is served at `/mcp` by the same protocol core as the stdio bridge
//! ([`Mcp`](super::Mcp)), on pedelec's own stateless transport (axum and hyper; the call
//! runs on the connection's task, its answer is plain JSON unless it sends notifications
//! first). Stateless by default: every request stands alone, so replicas behind any HTTP
//! load balancer serve one skill set. Both revisions are served, chosen per request:
//! 2026-07-28 (`_meta` in every request, `server/discover`, input-required results, the
//! tasks extension) and 2025-11-25 and before (`initialize`, answered statelessly, or with
//! sessions: [`stateful`](McpHttp::stateful)).
//!
//! Security and limits, as the MCP specification asks of HTTP servers:
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
//! - a body that is not JSON is answered `400` with the JSON-RPC error `-32700`, one that
//!   is not a JSON-RPC message `400` with `-32600` (both `id: null`); 2026-07-28's header
//!   rules (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`) are checked against the body
//!   (`400`, `-32020`);
//! - request bodies are limited ([`max_body_bytes`](McpHttp::max_body_bytes), 4 MiB by
//!   default, `413` beyond) and must arrive within [`body_timeout`](McpHttp::body_timeout)
//!   (30 s, `408`); headers within [`header_timeout`](McpHttp::header_timeout) (30 s, the
//!   connection is closed); a peer that reads nothing of an answer for
//!   [`write_timeout`](McpHttp::write_timeout) (30 s) is disconnected;
//! - at most [`max_connections`](McpHttp::max_connections) (1,024) connections are served
//!   at once; one more is answered `503` with `Retry-After` and closed. The memory a
//!   connection holds is one request body at most (HTTP/1.1 serves one request at a time
//!   per connection; its body is read as it arrives, never past the limit), so the bound is
//!   `max_connections × max_body_bytes` (4 GiB with the defaults, reached only by clients
//!   that send that much at once: lower either for a small machine);
//! - shutdown is graceful: once the shutdown signal fires, or the session's
//!   [`shutdown`](Session::shutdown) is over, no connection is accepted, and every call in
//!   flight is answered before [`Session::serve`] returns.

mod endpoint;
mod gate;
mod guard;
mod legacy;
mod listen;
mod responder;

use std::fmt;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::Request;
use rmcp::transport::StreamableHttpServerConfig;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::Bridge;
use super::mcp::TraceParent;
use super::mcp::shared::{Server, Settings, TraceSpanFn};
#[cfg(feature = "oauth")]
use super::oauth::{OAuth, OAuthLayer};
use crate::context::Caller;
use crate::error::Error;
use crate::session::Session;
use endpoint::Endpoint;
use gate::Gate;
use guard::Guard;

/// The path the MCP endpoint is served at.
pub const MCP_PATH: &str = "/mcp";

/// The default request body limit: 4 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// The default connection cap.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// The default time a request's headers, its body, or a write to a stalled peer may take.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

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
/// [`shutdown_on`](Self::shutdown_on), or the session's shutdown); [`McpHttp::router`]
/// gives an `axum::Router` to mount into an existing app instead.
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

#[derive(Clone)]
struct Options {
    bearer_token: Option<Arc<[u8]>>,
    allowed_hosts: Option<Vec<String>>,
    allowed_origins: Option<Vec<String>>,
    max_body_bytes: usize,
    stateful: bool,
    max_connections: usize,
    header_timeout: Duration,
    body_timeout: Duration,
    write_timeout: Duration,
    settings: Settings,
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
        let o = &self.options;
        f.debug_struct("McpHttp")
            .field("listen", &listen)
            .field("bearer_token", &o.bearer_token.as_ref().map(|_| "…"))
            .field("allowed_hosts", &o.allowed_hosts)
            .field("allowed_origins", &o.allowed_origins)
            .field("max_body_bytes", &o.max_body_bytes)
            .field("stateful", &o.stateful)
            .field("max_connections", &o.max_connections)
            .field("header_timeout", &o.header_timeout)
            .field("body_timeout", &o.body_timeout)
            .field("write_timeout", &o.write_timeout)
            .field("settings", &o.settings)
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
                max_connections: DEFAULT_MAX_CONNECTIONS,
                header_timeout: DEFAULT_TIMEOUT,
                body_timeout: DEFAULT_TIMEOUT,
                write_timeout: DEFAULT_TIMEOUT,
                settings: Settings::default(),
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
    /// `McpHttp::options()….into_router(session)`. Served by the app's server, it has the
    /// app's connection limits; [`Session::serve`] with `McpHttp` adds its own.
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

    /// Keeps a session per client of a revision before 2026-07-28 that starts with
    /// `initialize` (`Mcp-Session-Id`): such clients can then be sent requests while a call
    /// runs (`ctx.elicit`, `ctx.sample`, `ctx.roots`) and cancel calls with
    /// `notifications/cancelled`. Sessions live in this process (route a client back to
    /// the replica that gave it its session). Requests of 2026-07-28 are stateless either
    /// way. Stateless (`false`) by default: a stateless client cancels a call by closing
    /// its request.
    #[must_use]
    pub fn stateful(mut self, stateful: bool) -> Self {
        self.options.stateful = stateful;
        self
    }

    /// The most connections served at once (1,024 by default, at least 1). One more is
    /// answered `503 Service Unavailable` with `Retry-After: 1` and closed.
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.options.max_connections = connections.max(1);
        self
    }

    /// How long a request's headers may take to arrive once the connection is ready for
    /// them (30 s by default): slower (or idle kept-alive) connections are closed.
    #[must_use]
    pub fn header_timeout(mut self, timeout: Duration) -> Self {
        self.options.header_timeout = timeout;
        self
    }

    /// How long a request's body may take to arrive (30 s by default; `408` beyond).
    #[must_use]
    pub fn body_timeout(mut self, timeout: Duration) -> Self {
        self.options.body_timeout = timeout;
        self
    }

    /// How long an answer may wait for a peer that reads nothing of it (30 s by default):
    /// past it the connection is closed and its call cancelled.
    #[must_use]
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.options.write_timeout = timeout;
        self
    }

    /// The key that signs the `requestState` of input-required results (2026-07-28). Give
    /// every replica the same key (at least 32 random bytes) when a client's retry may
    /// reach another replica; by default a random key per process.
    #[must_use]
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.options.settings.request_state_key = Some(Arc::from(key.into()));
        self
    }

    /// How long a `requestState` stays valid (10 minutes by default): a client's retry
    /// after that is refused, and an approval given in it (`#[tool(approval)]`) with it.
    #[must_use]
    pub fn request_state_ttl(mut self, ttl: Duration) -> Self {
        self.options.settings.request_state_ttl = ttl;
        self
    }

    /// Whether deferred tools (`#[tool(defer)]`) leave `tools/list` for `search_tools` (the
    /// full definitions of the tools that match a query) and `call_tool` (a call of one by
    /// name, under the same policy as any call): yes by default; `false` lists every tool.
    #[must_use]
    pub fn search(mut self, search: bool) -> Self {
        self.options.settings.search = search;
        self
    }

    /// The name and version the server gives in `initialize` (`serverInfo`). By default,
    /// the name and version of the crate whose `skills![]` declared the skill set (Cargo's
    /// `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`), else `pedelec`'s.
    #[must_use]
    pub fn server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.options.settings.identity.name = Some(name.into());
        self.options.settings.identity.version = Some(version.into());
        self
    }

    /// A human-readable title for the server (`serverInfo.title`, shown by hosts); none by
    /// default.
    #[must_use]
    pub fn server_title(mut self, title: impl Into<String>) -> Self {
        self.options.settings.identity.title = Some(title.into());
        self
    }

    /// The `instructions` of `initialize`: how to use the server, which hosts may add to the
    /// model's context. By default, the skill set's guidance.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.options.settings.identity.instructions = Some(instructions.into());
        self
    }

    /// Makes a span around a call from the W3C `traceparent` its request carried in
    /// `_meta` (the call's `tools/call` span is its child). Without it, the `tools/call`
    /// span keeps the parent as `trace_id`, `parent_span_id` and `traceparent` fields, and
    /// with the feature `otel` it is the span's OpenTelemetry parent (see the README).
    #[must_use]
    pub fn trace_span(
        mut self,
        make: impl Fn(&TraceParent) -> tracing::Span + Send + Sync + 'static,
    ) -> Self {
        self.options.settings.trace_span = Some(Arc::new(make) as TraceSpanFn);
        self
    }

    /// Stops serving when `signal` completes (instead of on Ctrl-C): no new connection is
    /// accepted, and every call in flight is answered before [`Session::serve`] returns.
    /// Serving also stops once the session's [`shutdown`](Session::shutdown) is over.
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
        let (endpoint, access) = build_endpoint(
            &session.untyped(),
            &self.options,
            hosts,
            origins,
            CancellationToken::new(),
        )
        .unwrap_or_else(|e| panic!("{e}"));
        build_router(endpoint, access)
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

/// The endpoint of `session` with `options`, and how its requests are authenticated.
fn build_endpoint(
    session: &Session,
    options: &Options,
    default_hosts: Option<Vec<String>>,
    default_origins: Vec<String>,
    shutdown: CancellationToken,
) -> Result<(Arc<Endpoint>, Access), Error> {
    let hosts = options
        .allowed_hosts
        .clone()
        .or(default_hosts)
        .unwrap_or_default();
    let origins = options.allowed_origins.clone().unwrap_or(default_origins);
    let server = Server::new(session, options.settings.clone());
    let access = Access::of(options, &server)?;
    let legacy = options.stateful.then(|| {
        // Hosts and origins are checked once, by the gate, before a request reaches rmcp.
        let config = StreamableHttpServerConfig::default()
            .disable_allowed_hosts()
            .disable_allowed_origins()
            .with_max_request_body_bytes(options.max_body_bytes)
            .with_legacy_session_mode(true)
            .with_json_response(true)
            .with_cancellation_token(shutdown);
        legacy::Legacy::new(server.clone(), config)
    });
    let endpoint = Arc::new(Endpoint {
        gate: Gate {
            server,
            guard: Guard::new(&hosts, &origins),
            access: access.clone(),
            max_body_bytes: options.max_body_bytes,
            body_timeout: options.body_timeout,
        },
        legacy,
    });
    Ok((endpoint, access))
}

/// The endpoint as an axum [`Router`] (for [`McpHttp::into_router`]).
fn build_router(endpoint: Arc<Endpoint>, access: Access) -> Router {
    let router = Router::new().route(
        MCP_PATH,
        axum::routing::any(move |request: Request| endpoint.clone().handle(request)),
    );
    // With OAuth, the layer answers the metadata and the challenges, and gives every
    // request it lets through its caller.
    match access {
        #[cfg(feature = "oauth")]
        Access::OAuth(auth) => router.layer(auth),
        _ => router,
    }
}

/// The endpoint as what [`Session::serve`] runs on each connection: hyper's request
/// straight to it (no router: `/mcp` to the endpoint, `404 Not Found` for any other path),
/// behind OAuth's layer when there is one.
fn build_service(endpoint: Arc<Endpoint>, access: Access) -> listen::HttpService {
    let (max_body_bytes, body_timeout) = (endpoint.gate.max_body_bytes, endpoint.gate.body_timeout);
    let direct = tower::service_fn(move |request: Request| {
        let endpoint = endpoint.clone();
        async move {
            Ok::<_, std::convert::Infallible>(if request.uri().path() == MCP_PATH {
                endpoint.handle(request).await
            } else {
                let mut response = axum::response::Response::default();
                *response.status_mut() = axum::http::StatusCode::NOT_FOUND;
                response
            })
        }
    });
    let service = match access {
        #[cfg(feature = "oauth")]
        Access::OAuth(auth) => listen::AxumService::new(tower_layer::Layer::layer(&auth, direct)),
        _ => listen::AxumService::new(direct),
    };
    // Every request is answered after its body was read (or with `Connection: close`).
    listen::answered_after_body(service, max_body_bytes, body_timeout)
}

/// How the requests are authenticated.
#[derive(Clone)]
pub(super) enum Access {
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
    fn of(options: &Options, server: &Server) -> Result<Self, Error> {
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &options.oauth {
            if options.bearer_token.is_some() {
                return Err(Error::config(
                    "`McpHttp` has both a `bearer_token` and `oauth`: choose one (a static \
                     token would bypass the access tokens' scopes)",
                ));
            }
            return Ok(Access::OAuth(
                oauth.clone().default_scopes(server.all_scopes()).layer()?,
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
                Listen::Address(addr) => TcpListener::bind(&addr)
                    .await
                    .map_err(|e| Error::io(format!("cannot listen on `{addr}`"), e))?,
                Listen::Nowhere => {
                    return Err(Error::config(
                        "`McpHttp::options()` has no address to serve on: use \
                         `McpHttp::bind(\"127.0.0.1:8080\")`, or mount \
                         `.into_router(session)` into an axum app",
                    ));
                }
            };
            let addr = listener
                .local_addr()
                .map_err(|e| Error::io("the listener has no address", e))?;
            let (hosts, origins) = defaults_for(Some(addr.ip()));
            if hosts.is_none() && options.allowed_hosts.is_none() {
                return Err(Error::config(format!(
                    "`McpHttp` bound to {addr} (every interface) needs the host names \
                         clients use: add `.allowed_hosts([\"example.com\"])` (an empty list \
                         allows any host, for a server behind a proxy that checks them)"
                )));
            }
            // Cancelled once every connection has drained: it ends what rmcp still runs.
            let stop_sessions = CancellationToken::new();
            let (endpoint, access) = build_endpoint(
                &session,
                &options,
                hosts,
                origins,
                stop_sessions.child_token(),
            )?;
            let service = build_service(endpoint, access);
            let signal = shutdown.unwrap_or_else(|| {
                Box::pin(async {
                    // Without a signal handler, serve until the process ends.
                    if tokio::signal::ctrl_c().await.is_err() {
                        std::future::pending::<()>().await;
                    }
                })
            });
            let closed = session.closed();
            let stop = async move {
                tokio::select! {
                    () = signal => {}
                    () = closed => {}
                }
            };
            tracing::info!(
                target: "pedelec::mcp",
                %addr,
                "serving MCP (streamable HTTP) on http://{addr}{MCP_PATH}"
            );
            let limits = listen::Limits {
                max_connections: options.max_connections,
                header_timeout: options.header_timeout,
                write_timeout: options.write_timeout,
            };
            listen::serve(listener, service, limits, stop).await;
            stop_sessions.cancel();
            Ok(())
        }
    }
}
