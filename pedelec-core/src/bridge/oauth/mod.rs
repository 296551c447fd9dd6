//! MCP over HTTP as an OAuth 2.1 resource server (cargo feature `oauth`): [`OAuth`].
//!
//! The MCP authorization specification makes an HTTP MCP server that requires
//! authorization an OAuth resource server: it publishes RFC 9728 metadata naming its
//! authorization server, accepts only access tokens issued for it (RFC 8707 audience),
//! answers `401` with a `WWW-Authenticate: Bearer resource_metadata="…"` challenge when
//! the token is missing or refused, and `403 insufficient_scope` naming the scopes a call
//! needs, so the client can ask for them (step-up).
//!
//! ```no_run
//! use pedelec_core::bridge::{McpHttp, OAuth};
//! # async fn run(session: pedelec_core::Session) -> Result<(), pedelec_core::Error> {
//! let auth = OAuth::new("https://tools.example.com/mcp") // this server: the tokens' audience
//!     .issuer("https://auth.example.com");                // trusted; its keys via RFC 8414
//! session.serve(McpHttp::bind("127.0.0.1:8080").oauth(auth)).await
//! # }
//! ```
//!
//! Each request is checked in this order (`docs/securing-mcp.md` says what each answer
//! means):
//!
//! 1. `GET /.well-known/oauth-protected-resource` (and the path form for the resource,
//!    `/.well-known/oauth-protected-resource/mcp`) answers the metadata, without a token;
//! 2. the token is read from `Authorization: Bearer …` only: none (a `Basic` header and a
//!    token in the query string count as none) answers `401` with the challenge;
//! 3. the token is checked: by default as a JWT (RFC 9068) signed by the issuer with an
//!    asymmetric algorithm (RS*, PS*, ES*, `EdDSA`; never `none` or HMAC) under a key of its
//!    JWKS, with `typ` `at+jwt` or `JWT`, `iss` the issuer exactly, `aud` naming the
//!    resource, `exp` (required) and `nbf` within the leeway; or by your
//!    [`TokenVerifier`]. Refused: `401` with `error="invalid_token"`; keys unavailable:
//!    `503` with `Retry-After`;
//! 4. the request goes on with the [`Caller`] in its extensions (`Arc<Caller>`): the
//!    token's `sub`, scopes (`scope`, or `scp`), `client_id` and claims. `McpHttp` lists
//!    the tools whose scopes the caller holds, answers a call of another one `403` with
//!    `error="insufficient_scope"` and the tool's scopes, and gives the caller to every
//!    call (`ctx.caller()`).
//!
//! The issuer's keys are fetched when first needed (RFC 8414 discovery, then OIDC
//! discovery, unless [`jwks_uri`](OAuth::jwks_uri) is given), cached, and fetched
//! again only for a key (`kid`) not seen yet, at most once per
//! [`refetch_floor`](OAuth::refetch_floor) (30 s by default): a flood of tokens naming
//! unknown keys cannot make this server hammer the issuer, and a key the issuer publishes
//! later is accepted after the next fetch. A token that passed is remembered until its
//! `exp` ([`verified_tokens`](OAuth::verified_tokens)), so each is checked in full once.
//!
//! [`OAuth::layer`] gives the same checks as a tower layer for an axum app of your own.

mod challenge;
mod fetch;
mod jwks;
mod jwt;
mod layer;
mod url;

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::response::Response;
use serde_json::Value;

pub use layer::OAuthService;

use crate::context::Caller;
use crate::error::Error;

/// The default floor between two fetches of the issuer's keys.
pub const DEFAULT_REFETCH_FLOOR: Duration = Duration::from_secs(30);
/// The default clock leeway for `exp` and `nbf`.
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);
/// How many verified tokens are remembered by default ([`OAuth::verified_tokens`]).
pub const DEFAULT_VERIFIED_TOKENS: usize = 1024;
/// The largest clock leeway accepted.
pub const MAX_LEEWAY: Duration = Duration::from_mins(1);

/// How an MCP HTTP server checks access tokens: the OAuth 2.1 resource server of the MCP
/// authorization specification. Give it to [`McpHttp::oauth`](super::McpHttp::oauth), or
/// turn it into a tower layer with [`layer`](Self::layer).
///
/// Fail closed: without a resource (the audience every token must name), or without a way
/// to check tokens (an [`issuer`](Self::issuer) or a [`verifier`](Self::verifier)), the
/// server does not start.
#[derive(Clone)]
pub struct OAuth {
    resource: String,
    issuer: Option<String>,
    jwks_uri: Option<String>,
    scopes_supported: Option<Vec<String>>,
    verifier: Option<Arc<dyn ErasedVerifier>>,
    refetch_floor: Duration,
    leeway: Duration,
    verified_tokens: usize,
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuth")
            .field("resource", &self.resource)
            .field("issuer", &self.issuer)
            .field("jwks_uri", &self.jwks_uri)
            .field("scopes_supported", &self.scopes_supported)
            .field("verifier", &self.verifier.as_ref().map(|_| "…"))
            .field("refetch_floor", &self.refetch_floor)
            .field("leeway", &self.leeway)
            .field("verified_tokens", &self.verified_tokens)
            .finish()
    }
}

impl OAuth {
    /// This server's resource identifier (RFC 8707), the URL clients reach the MCP
    /// endpoint at (`https://tools.example.com/mcp`): every token's `aud` must name it.
    /// `https://`, or `http://` on a loopback host.
    #[must_use]
    pub fn new(resource: impl Into<String>) -> Self {
        OAuth {
            resource: resource.into(),
            issuer: None,
            jwks_uri: None,
            scopes_supported: None,
            verifier: None,
            refetch_floor: DEFAULT_REFETCH_FLOOR,
            leeway: DEFAULT_LEEWAY,
            verified_tokens: DEFAULT_VERIFIED_TOKENS,
        }
    }

    /// The authorization server trusted to issue tokens (its issuer identifier, compared
    /// exactly with each token's `iss`), listed in the resource metadata. Its keys are
    /// found through its RFC 8414 metadata (or OIDC discovery) unless
    /// [`jwks_uri`](Self::jwks_uri) is given. `https://`, or `http://` on loopback.
    #[must_use]
    pub fn issuer(mut self, url: impl Into<String>) -> Self {
        self.issuer = Some(url.into());
        self
    }

    /// Where the issuer's keys are (its JWKS), when its metadata should not be read.
    #[must_use]
    pub fn jwks_uri(mut self, url: impl Into<String>) -> Self {
        self.jwks_uri = Some(url.into());
        self
    }

    /// The scopes listed in the resource metadata (`scopes_supported`), which clients
    /// ask for. `McpHttp` lists its tools' scopes when this is not given.
    #[must_use]
    pub fn scopes_supported(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.scopes_supported = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Checks tokens with `verifier` instead of as JWTs: opaque tokens through RFC 7662
    /// introspection, a database, anything. The issuer, when given, is still listed in
    /// the metadata.
    #[must_use]
    pub fn verifier(mut self, verifier: impl TokenVerifier) -> Self {
        self.verifier = Some(Arc::new(verifier));
        self
    }

    /// The least time between two fetches of the issuer's keys for a key not seen yet
    /// (30 s by default; not zero).
    #[must_use]
    pub fn refetch_floor(mut self, floor: Duration) -> Self {
        self.refetch_floor = floor;
        self
    }

    /// How far `exp` and `nbf` may be off, for clocks that differ (30 s by default, 60 s
    /// at most).
    #[must_use]
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How many verified JWTs to remember (1,024 by default; `0` checks every token in
    /// full). A client sends the same token with every call; one that passed is taken
    /// from memory (keyed by its SHA-256) until its `exp` plus the leeway, when the full
    /// check would refuse it, or until the issuer's keys are fetched again (its key may be
    /// gone), so the answer is the same and the signature check (about a third of a call's
    /// cost with RS256) runs once per token. Past the number, expired tokens are forgotten
    /// first, then any.
    #[must_use]
    pub fn verified_tokens(mut self, count: usize) -> Self {
        self.verified_tokens = count;
        self
    }

    /// The scopes listed when none were given (`McpHttp` gives its tools').
    pub(crate) fn default_scopes(mut self, scopes: Vec<String>) -> Self {
        if self.scopes_supported.is_none() {
            self.scopes_supported = Some(scopes);
        }
        self
    }

    /// The checks as a tower layer, to wrap an axum app's routes
    /// (`router.layer(auth.layer()?)`): the metadata is answered at its well-known paths,
    /// a request without an accepted token is answered with the challenge, and every
    /// other request goes on with an `Arc<Caller>` in its extensions.
    ///
    /// # Errors
    /// When the configuration cannot be served: no resource, a URL that is not
    /// `https://` (or `http://` on loopback), neither an issuer nor a verifier, a zero
    /// refetch floor, a leeway over 60 s, a scope that is not an RFC 6749 scope token.
    pub fn layer(self) -> Result<OAuthLayer, Error> {
        self.build()
            .map_err(|message| Error::config(format!("`OAuth`: {message}")))
    }

    fn build(self) -> Result<OAuthLayer, String> {
        if self.resource.is_empty() {
            return Err(
                "no resource: give this server's URL (`OAuth::new(\"https://host/mcp\")`), \
                 the audience every token must name; tokens are never accepted without one"
                    .to_owned(),
            );
        }
        let resource = url::checked("the resource", &self.resource, false)?;
        let issuer = match &self.issuer {
            Some(issuer) => Some(url::checked("the issuer", issuer, true)?),
            None => None,
        };
        if let Some(jwks_uri) = &self.jwks_uri {
            url::checked("the JWKS URL", jwks_uri, false)?;
        }
        let scopes = self.scopes_supported.unwrap_or_default();
        if let Some(bad) = scopes.iter().find(|s| !is_scope_token(s)) {
            return Err(format!(
                "`scopes_supported` lists {bad:?}, not an RFC 6749 scope token (printable \
                 ASCII, no space, `\"` or `\\`)"
            ));
        }
        let metadata =
            challenge::metadata_document(&self.resource, self.issuer.as_deref(), &scopes);
        let check = match (self.verifier, issuer) {
            (Some(verifier), _) => {
                if self.jwks_uri.is_some() {
                    return Err(
                        "both a `verifier` and a `jwks_uri`: the verifier checks every token, \
                         so the JWKS would never be read"
                            .to_owned(),
                    );
                }
                Check::Custom(verifier)
            }
            (None, Some(issuer_uri)) => {
                if self.refetch_floor.is_zero() {
                    return Err(
                        "a zero `refetch_floor` would let tokens naming unknown keys make \
                         this server fetch the issuer's keys without end"
                            .to_owned(),
                    );
                }
                if self.leeway > MAX_LEEWAY {
                    return Err(format!(
                        "a leeway of {:?} is more than {}s",
                        self.leeway,
                        MAX_LEEWAY.as_secs()
                    ));
                }
                use_rust_crypto();
                let issuer = self.issuer.unwrap_or_default();
                Check::Jwt(Box::new(jwt::JwtCheck {
                    keys: jwks::Keys::new(
                        issuer_uri,
                        issuer.clone(),
                        self.jwks_uri,
                        self.refetch_floor,
                        fetch::Fetcher::new()?,
                    ),
                    issuer,
                    audience: self.resource.clone(),
                    leeway: self.leeway,
                    verified: jwt::Verified::new(self.verified_tokens),
                }))
            }
            (None, None) => {
                return Err(
                    "no way to check tokens: give the `issuer` (JWTs checked against its \
                     keys) or a `verifier`"
                        .to_owned(),
                );
            }
        };
        Ok(OAuthLayer {
            inner: Arc::new(Inner {
                metadata_url: url::resource_metadata_url(&resource),
                metadata_paths: url::resource_metadata_paths(&resource),
                metadata,
                check,
            }),
        })
    }
}

/// jsonwebtoken's pure-Rust crypto, unless the process chose a provider already (with
/// both of its backends in a build, it would not pick one by itself).
fn use_rust_crypto() {
    if jsonwebtoken::crypto::CryptoProvider::try_get_default().is_none() {
        // Another thread may have installed one meanwhile: either way, one is there.
        let _ = jsonwebtoken::crypto::rust_crypto::DEFAULT_PROVIDER.install_default();
    }
}

/// An RFC 6749 scope token: printable ASCII, no space, `"` or `\`, not empty.
fn is_scope_token(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| matches!(b, 0x21 | 0x23..=0x5B | 0x5D..=0x7E))
}

/// Checks an access token and says who holds it: for opaque tokens (RFC 7662
/// introspection, a lookup) or any scheme of your own, given to
/// [`OAuth::verifier`].
///
/// ```
/// use pedelec_core::bridge::oauth::{Rejection, TokenVerifier};
/// use pedelec_core::context::Caller;
///
/// struct Keys;
///
/// impl TokenVerifier for Keys {
///     async fn verify(&self, token: &str) -> Result<Caller, Rejection> {
///         match token {
///             "k-alice" => Ok(Caller::new("alice").with_scopes(["counter:read"])),
///             _ => Err(Rejection::invalid_token("unknown key")),
///         }
///     }
/// }
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The caller `token` speaks for, or why it is refused.
    fn verify(&self, token: &str) -> impl Future<Output = Result<Caller, Rejection>> + Send;
}

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

trait ErasedVerifier: Send + Sync + 'static {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, Rejection>>;
}

impl<V: TokenVerifier> ErasedVerifier for V {
    fn verify<'a>(&'a self, token: &'a str) -> BoxFuture<'a, Result<Caller, Rejection>> {
        Box::pin(TokenVerifier::verify(self, token))
    }
}

/// Why a token was not accepted: refused (`401` with `error="invalid_token"`), or not
/// checkable now (`503`, for instance when the issuer cannot be reached).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rejection {
    unavailable: bool,
    description: String,
    retry_after: Option<Duration>,
}

impl Rejection {
    /// The token is refused: `401` with `error="invalid_token"` and `description` as the
    /// `error_description` (printable ASCII; `"` and `\` are dropped).
    #[must_use]
    pub fn invalid_token(description: impl Into<String>) -> Self {
        Rejection {
            unavailable: false,
            description: description.into(),
            retry_after: None,
        }
    }

    /// The token cannot be checked now: `503 Service Unavailable`.
    #[must_use]
    pub fn unavailable(description: impl Into<String>) -> Self {
        Rejection {
            unavailable: true,
            description: description.into(),
            retry_after: None,
        }
    }

    /// When to try again (`Retry-After`, on a `503`).
    #[must_use]
    pub fn retry_after(mut self, after: Duration) -> Self {
        self.retry_after = Some(after);
        self
    }

    /// What went wrong.
    #[must_use]
    pub fn description(&self) -> &str {
        &self.description
    }

    /// Whether the token could not be checked (rather than being refused).
    #[must_use]
    pub fn is_unavailable(&self) -> bool {
        self.unavailable
    }
}

impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.description)
    }
}

impl std::error::Error for Rejection {}

/// [`OAuth`] ready to serve: a tower layer (`router.layer(layer)`), cheap to clone.
#[derive(Clone)]
pub struct OAuthLayer {
    inner: Arc<Inner>,
}

struct Inner {
    metadata_url: String,
    metadata_paths: Vec<String>,
    metadata: Value,
    check: Check,
}

enum Check {
    Jwt(Box<jwt::JwtCheck>),
    Custom(Arc<dyn ErasedVerifier>),
}

impl fmt::Debug for OAuthLayer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OAuthLayer")
            .field("metadata", &self.inner.metadata)
            .finish_non_exhaustive()
    }
}

impl OAuthLayer {
    /// Where the resource metadata is (`resource_metadata` in every challenge).
    #[must_use]
    pub fn resource_metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    /// The RFC 9728 metadata document served.
    #[must_use]
    pub fn metadata(&self) -> &Value {
        &self.inner.metadata
    }

    /// The `403 insufficient_scope` answer for a request that needs `required` when the
    /// caller lacks some of them: `WWW-Authenticate: Bearer error="insufficient_scope",
    /// scope="<every required scope>", resource_metadata="…"`. `None` when `caller`
    /// holds them all.
    #[must_use]
    pub fn insufficient_scope<S: AsRef<str>>(
        &self,
        caller: Option<&Caller>,
        required: &[S],
    ) -> Option<Response> {
        let missing: Vec<&str> = match caller {
            Some(caller) => caller.missing(required),
            None => required.iter().map(AsRef::as_ref).collect(),
        };
        if missing.is_empty() {
            return None;
        }
        let required: Vec<&str> = required.iter().map(AsRef::as_ref).collect();
        Some(challenge::insufficient_scope(
            &required,
            &missing,
            &self.inner.metadata_url,
        ))
    }

    /// Checks a token: the caller it speaks for, or why not.
    ///
    /// # Errors
    /// The token's [`Rejection`].
    pub async fn verify(&self, token: &str) -> Result<Caller, Rejection> {
        match &self.inner.check {
            Check::Jwt(jwt) => jwt.verify(token).await,
            Check::Custom(verifier) => verifier.verify(token).await,
        }
    }
}
