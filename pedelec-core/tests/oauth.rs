//! `McpHttp::oauth`: MCP over HTTP as an OAuth 2.1 resource server, against an issuer
//! served by the test on loopback (RFC 8414 metadata and a JWKS) with RSA and EC keys made
//! here. Every refusal has its own test; then what an accepted token gives: the caller in
//! the tool, the tools listed by scopes, 403 `insufficient_scope` for the others, and 1,000
//! concurrent calls from 10 callers that never see each other's identity.

#[path = "support/issuer.rs"]
mod issuer;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use issuer::{Issuer, SigningKey, now};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use pedelec_core::bridge::McpHttp;
use pedelec_core::bridge::oauth::{OAuth, Rejection, TokenVerifier};
use pedelec_core::context::Caller;
use pedelec_core::schema::{Property, SchemaNode};
use pedelec_core::{
    ErrorCode, Session, SkillsInput, ToolArgsSchema, ToolCallContext, ToolDefinition,
};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

const ARGS: SchemaNode =
    SchemaNode::object(const { &[Property::new("tag", SchemaNode::string(), false)] }).closed();

/// `whoami` (no scopes), `read_counter` (`counter:read`), `write_counter`
/// (`counter:read counter:write`): each answers who called it, with which scopes, and
/// the `tag` it was given. `calls` counts the handlers' runs by subject.
fn session(calls: Arc<Calls>) -> Session {
    let tool = |name: &str, scopes: &[&str]| {
        ToolDefinition::new(
            name.to_owned(),
            "Say who is calling.",
            ToolArgsSchema::from_node(ARGS),
        )
        .with_scopes(scopes.iter().map(|s| (*s).to_owned()))
    };
    let skills = SkillsInput::new(
        "",
        vec![
            tool("whoami", &[]),
            tool("read_counter", &["counter:read"]),
            tool("write_counter", &["counter:read", "counter:write"]),
        ],
    );
    let session = Session::builder(skills).create().unwrap();
    for name in ["whoami", "read_counter", "write_counter"] {
        let calls = calls.clone();
        session.on_tool_name(name, move |args: Value, ctx: ToolCallContext| {
            let calls = calls.clone();
            async move {
                // A moment's pause, so that concurrent calls interleave.
                tokio::task::yield_now().await;
                let caller = ctx.caller().expect("an authenticated call has a caller");
                calls.count(caller.subject());
                Ok::<_, pedelec_core::ToolError>(json!({
                    "subject": caller.subject(),
                    "scopes": caller.scopes(),
                    "clientId": caller.client_id(),
                    "email": caller.claims().get("email"),
                    "tag": args.get("tag"),
                }))
            }
        });
    }
    session
}

#[derive(Default)]
struct Calls(std::sync::Mutex<HashMap<String, usize>>);

impl Calls {
    fn count(&self, subject: &str) {
        *self
            .0
            .lock()
            .unwrap()
            .entry(subject.to_owned())
            .or_default() += 1;
    }
    fn of(&self, subject: &str) -> usize {
        self.0.lock().unwrap().get(subject).copied().unwrap_or(0)
    }
}

struct Server {
    addr: SocketAddr,
    resource: String,
    calls: Arc<Calls>,
    _stop: oneshot::Sender<()>,
    serving: tokio::task::JoinHandle<Result<(), pedelec_core::Error>>,
}

/// The session served with `OAuth::new(<its URL>/mcp).issuer(issuer)`, configured further
/// by `configure`.
async fn serve(issuer: &Issuer, configure: impl FnOnce(OAuth) -> OAuth) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let auth = configure(OAuth::new(&resource).issuer(&issuer.url));
    serve_with(listener, resource, |b| b.oauth(auth))
}

fn serve_with(
    listener: TcpListener,
    resource: String,
    configure: impl FnOnce(McpHttp) -> McpHttp,
) -> Server {
    let addr = listener.local_addr().unwrap();
    let calls = Arc::new(Calls::default());
    let (stop, stopped) = oneshot::channel::<()>();
    let bridge = configure(McpHttp::from_listener(listener)).shutdown_on(async move {
        let _ = stopped.await;
    });
    let serving = tokio::spawn(session(calls.clone()).serve(bridge));
    Server {
        addr,
        resource,
        calls,
        _stop: stop,
        serving,
    }
}

/// A JSON-RPC POST to `/mcp`, with `Authorization: <authorization>` when given.
async fn post(addr: SocketAddr, authorization: Option<&str>, body: &Value) -> reqwest::Response {
    post_to(&format!("http://{addr}/mcp"), authorization, body).await
}

async fn post_to(url: &str, authorization: Option<&str>, body: &Value) -> reqwest::Response {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2025-11-25")
        .body(body.to_string());
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    request.send().await.unwrap()
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

fn list() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}})
}

fn call(name: &str, tag: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
           "params": {"name": name, "arguments": {"tag": tag}}})
}

fn challenge(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("www-authenticate")
        .unwrap_or_else(|| panic!("no challenge: {response:?}"))
        .to_str()
        .unwrap()
        .to_owned()
}

fn metadata_url(server: &Server) -> String {
    format!(
        "http://{}/.well-known/oauth-protected-resource/mcp",
        server.addr
    )
}

/// Asserts a 401 with `error="invalid_token"` (a token was sent and refused), whose
/// description contains `why`; the tool never ran.
async fn assert_refused(server: &Server, token: &str, why: &str) {
    let r = post(server.addr, Some(&bearer(token)), &call("whoami", "x")).await;
    assert_eq!(r.status(), 401, "{why}");
    let c = challenge(&r);
    assert!(c.starts_with("Bearer error=\"invalid_token\""), "{c}");
    assert!(c.contains(why), "expected {why:?} in {c}");
    assert!(
        c.contains(&format!("resource_metadata=\"{}\"", metadata_url(server))),
        "{c}"
    );
    assert_eq!(
        server.calls.of("alice"),
        0,
        "no handler runs for a refused token"
    );
}

/// Asserts a 401 without `error=` (no token was seen).
fn assert_no_token(server: &Server, response: reqwest::Response) {
    assert_eq!(response.status(), 401);
    assert_eq!(
        challenge(&response),
        format!("Bearer resource_metadata=\"{}\"", metadata_url(server))
    );
}

/// The structured result of a `tools/call` answered 200.
async fn result_of(response: reqwest::Response) -> Value {
    assert_eq!(response.status(), 200, "{response:?}");
    let body: Value = response.json().await.unwrap();
    body["result"].clone()
}

struct Fixture {
    issuer: Issuer,
    rsa: SigningKey,
    ec: SigningKey,
    server: Server,
}

async fn fixture() -> Fixture {
    fixture_with(|o| o).await
}

async fn fixture_with(configure: impl FnOnce(OAuth) -> OAuth) -> Fixture {
    let issuer = Issuer::start().await;
    let rsa = SigningKey::rsa("rsa-1");
    let ec = SigningKey::ec("ec-1");
    issuer.publish(&rsa);
    issuer.publish(&ec);
    let server = serve(&issuer, configure).await;
    Fixture {
        issuer,
        rsa,
        ec,
        server,
    }
}

impl Fixture {
    /// The claims of a good token for this server.
    fn claims(&self, subject: &str, scope: &str, extra: Value) -> Value {
        self.issuer
            .claims(&self.server.resource, subject, scope, extra)
    }
}

// ---- What is served without a token ------------------------------------------------

#[tokio::test]
async fn the_resource_metadata_is_served_at_both_well_known_paths() {
    let f = fixture_with(|o| o.scopes_supported(["counter:read", "counter:write"])).await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let r = reqwest::get(format!("http://{}{path}", f.server.addr))
            .await
            .unwrap();
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(r.headers()["content-type"], "application/json");
        let metadata: Value = r.json().await.unwrap();
        assert_eq!(
            metadata,
            json!({
                "resource": f.server.resource,
                "authorization_servers": [f.issuer.url],
                "scopes_supported": ["counter:read", "counter:write"],
                "bearer_methods_supported": ["header"],
            }),
            "{path}"
        );
    }
}

#[tokio::test]
async fn the_metadata_lists_the_tools_scopes_when_none_are_given() {
    let f = fixture().await;
    let r = reqwest::get(metadata_url(&f.server)).await.unwrap();
    let metadata: Value = r.json().await.unwrap();
    assert_eq!(
        metadata["scopes_supported"],
        json!(["counter:read", "counter:write"])
    );
}

// ---- Refusals: one test each ---------------------------------------------------------

#[tokio::test]
async fn no_token_is_answered_401_with_the_resource_metadata() {
    let f = fixture().await;
    let r = post(f.server.addr, None, &list()).await;
    assert_no_token(&f.server, r);
}

#[tokio::test]
async fn a_garbage_token_is_refused() {
    let f = fixture().await;
    assert_refused(&f.server, "not-a-jwt", "not a JWT").await;
    assert_refused(&f.server, "a.b.c", "not a JWT").await;
}

#[tokio::test]
async fn an_expired_token_is_refused() {
    let f = fixture().await;
    // Past the leeway (30 s by default).
    let token = f
        .rsa
        .sign(&f.claims("alice", "", json!({"exp": now() - 120})));
    assert_refused(&f.server, &token, "expired").await;
}

#[tokio::test]
async fn a_token_not_yet_valid_is_refused() {
    let f = fixture().await;
    let token = f
        .rsa
        .sign(&f.claims("alice", "", json!({"nbf": now() + 120})));
    assert_refused(&f.server, &token, "not valid yet").await;
}

#[tokio::test]
async fn a_token_from_another_issuer_is_refused() {
    let f = fixture().await;
    let token = f
        .rsa
        .sign(&f.claims("alice", "", json!({"iss": "https://evil.example.com"})));
    assert_refused(&f.server, &token, "issuer").await;
    // Compared exactly: a trailing slash is another issuer.
    let token = f
        .rsa
        .sign(&f.claims("alice", "", json!({"iss": format!("{}/", f.issuer.url)})));
    assert_refused(&f.server, &token, "issuer").await;
}

#[tokio::test]
async fn a_token_for_another_resource_is_refused() {
    let f = fixture().await;
    let token = f
        .rsa
        .sign(&f.claims("alice", "", json!({"aud": "https://other.example.com/mcp"})));
    assert_refused(&f.server, &token, "not for this resource").await;
    let token = f.rsa.sign(&f.claims(
        "alice",
        "",
        json!({"aud": ["https://other.example.com/mcp", "https://third.example.com"]}),
    ));
    assert_refused(&f.server, &token, "not for this resource").await;
}

#[tokio::test]
async fn a_token_without_audience_is_refused() {
    let f = fixture().await;
    let token = f.rsa.sign(&f.claims("alice", "", json!({"aud": null})));
    assert_refused(&f.server, &token, "no `aud` claim").await;
}

#[tokio::test]
async fn a_token_without_expiry_is_refused() {
    let f = fixture().await;
    let token = f.rsa.sign(&f.claims("alice", "", json!({"exp": null})));
    assert_refused(&f.server, &token, "no `exp` claim").await;
}

#[tokio::test]
async fn an_unsigned_alg_none_token_is_refused() {
    let f = fixture().await;
    let part = |v: Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let claims = f.claims("alice", "counter:read counter:write", json!({}));
    for header in [
        json!({"alg": "none", "typ": "at+jwt"}),
        json!({"alg": "none", "typ": "at+jwt", "kid": "rsa-1"}),
        json!({"alg": "None"}),
    ] {
        let token = format!("{}.{}.", part(header), part(claims.clone()));
        assert_refused(&f.server, &token, "algorithm").await;
    }
}

#[tokio::test]
async fn an_hmac_token_signed_with_the_public_key_is_refused() {
    let f = fixture().await;
    let claims = f.claims("alice", "counter:read counter:write", json!({}));
    // The classic confusion: HS256 "signed" with the issuer's public key as the secret.
    for (secret, kid) in [
        (f.rsa.public_pem.as_bytes().to_vec(), "rsa-1"),
        (f.rsa.jwk.to_string().into_bytes(), "rsa-1"),
        (f.ec.public_pem.as_bytes().to_vec(), "ec-1"),
    ] {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some(kid.to_owned());
        let token = jsonwebtoken::encode(
            &header,
            &claims,
            &EncodingKey::from_secret(&secret).unwrap(),
        )
        .unwrap();
        assert_refused(&f.server, &token, "only asymmetric algorithms").await;
    }
}

#[tokio::test]
async fn a_token_signed_with_an_unknown_kid_is_refused() {
    let f = fixture().await;
    let stranger = SigningKey::ec("not-published");
    let token = stranger.sign(&f.claims("alice", "", json!({})));
    assert_refused(&f.server, &token, "does not publish").await;
    // A known `kid` with a signature by another key.
    let mut header = Header::new(Algorithm::ES256);
    header.typ = Some("at+jwt".to_owned());
    let forged = SigningKey::ec("ec-1").sign_with(header, &f.claims("alice", "", json!({})));
    assert_refused(&f.server, &forged, "signature does not verify").await;
}

#[tokio::test]
async fn a_token_of_another_type_is_refused() {
    let f = fixture().await;
    let mut header = Header::new(Algorithm::RS256);
    header.typ = Some("dpop+jwt".to_owned());
    let token = f.rsa.sign_with(header, &f.claims("alice", "", json!({})));
    assert_refused(&f.server, &token, "not an access token").await;
}

#[tokio::test]
async fn a_rotated_key_is_accepted_after_one_refetch() {
    let f = fixture_with(|o| o.refetch_floor(Duration::from_millis(300))).await;
    let token = f.ec.sign(&f.claims("alice", "", json!({})));
    result_of(post(f.server.addr, Some(&bearer(&token)), &call("whoami", "1")).await).await;
    assert_eq!(f.issuer.jwks_fetches(), 1);
    assert_eq!(f.issuer.metadata_fetches(), 1, "discovered once (RFC 8414)");

    // The issuer rotates to a new key; once the floor has passed, the first token signed
    // with it makes the server fetch the keys once more, and is accepted.
    let next = SigningKey::ec("ec-2");
    f.issuer.publish(&next);
    tokio::time::sleep(Duration::from_millis(350)).await;
    let token = next.sign(&f.claims("alice", "", json!({})));
    let result =
        result_of(post(f.server.addr, Some(&bearer(&token)), &call("whoami", "2")).await).await;
    assert_eq!(result["structuredContent"]["subject"], "alice");
    assert_eq!(f.issuer.jwks_fetches(), 2);
    // From the cache now.
    for i in 0..5 {
        let r = post(
            f.server.addr,
            Some(&bearer(&token)),
            &call("whoami", &i.to_string()),
        )
        .await;
        assert_eq!(r.status(), 200);
    }
    assert_eq!(f.issuer.jwks_fetches(), 2);
    assert_eq!(f.issuer.metadata_fetches(), 1);
}

#[tokio::test]
async fn a_remembered_token_whose_key_is_withdrawn_is_refused_after_the_next_fetch() {
    let f = fixture_with(|o| o.refetch_floor(Duration::from_millis(300))).await;
    let old = f.ec.sign(&f.claims("dora", "", json!({})));
    for i in 0..3 {
        let r = post(
            f.server.addr,
            Some(&bearer(&old)),
            &call("whoami", &i.to_string()),
        )
        .await;
        assert_eq!(result_of(r).await["structuredContent"]["subject"], "dora");
    }
    assert_eq!(f.issuer.jwks_fetches(), 1);

    // The issuer withdraws the key and rotates to another; a token signed with the new
    // one makes the server fetch the keys again, and the remembered token goes with it.
    f.issuer.withdraw(&f.ec);
    let next = SigningKey::ec("ec-2");
    f.issuer.publish(&next);
    tokio::time::sleep(Duration::from_millis(350)).await;
    let token = next.sign(&f.claims("erin", "", json!({})));
    result_of(post(f.server.addr, Some(&bearer(&token)), &call("whoami", "new")).await).await;
    assert_eq!(f.issuer.jwks_fetches(), 2);
    assert_refused(&f.server, &old, "the issuer does not publish").await;
}

#[tokio::test]
async fn a_flood_of_unknown_kids_causes_a_bounded_number_of_fetches() {
    let f = fixture_with(|o| o.refetch_floor(Duration::from_secs(30))).await;
    // The keys are fetched for the first token.
    let token = f.rsa.sign(&f.claims("alice", "", json!({})));
    assert_eq!(
        post(f.server.addr, Some(&bearer(&token)), &list())
            .await
            .status(),
        200
    );
    assert_eq!(f.issuer.jwks_fetches(), 1);
    // 200 tokens naming 200 unknown keys, concurrently: within the floor, none fetches.
    let claims = f.claims("mallory", "", json!({}));
    let stranger = SigningKey::ec("x");
    let requests = (0..200).map(|i| {
        let mut header = Header::new(Algorithm::ES256);
        header.typ = Some("at+jwt".to_owned());
        let mut key = stranger.clone();
        key.kid = format!("unknown-{i}");
        let token = key.sign_with(header, &claims);
        let addr = f.server.addr;
        async move { post(addr, Some(&bearer(&token)), &list()).await.status() }
    });
    let statuses = futures::future::join_all(requests).await;
    assert!(statuses.iter().all(|s| *s == 401), "{statuses:?}");
    assert_eq!(f.issuer.jwks_fetches(), 1, "no fetch within the floor");
    // Good tokens are still served from the cache meanwhile.
    assert_eq!(
        post(f.server.addr, Some(&bearer(&token)), &list())
            .await
            .status(),
        200
    );
}

#[tokio::test]
async fn a_flood_past_the_floor_fetches_once_per_floor() {
    let f = fixture_with(|o| o.refetch_floor(Duration::from_millis(250))).await;
    let stranger = SigningKey::ec("x");
    let claims = f.claims("mallory", "", json!({}));
    // Unknown keys for ~1.3 s, 20 tokens at a time: at most one fetch per 250 ms.
    let started = std::time::Instant::now();
    let mut sent = 0;
    while started.elapsed() < Duration::from_millis(1300) {
        let batch = (0..20).map(|i| {
            let mut key = stranger.clone();
            key.kid = format!("unknown-{sent}-{i}");
            let token = key.sign(&claims);
            let addr = f.server.addr;
            async move { post(addr, Some(&bearer(&token)), &list()).await.status() }
        });
        let statuses = futures::future::join_all(batch).await;
        assert!(statuses.iter().all(|s| *s == 401));
        sent += 20;
    }
    let elapsed = started.elapsed();
    let bound = usize::try_from(elapsed.as_millis() / 250).unwrap() + 1;
    let fetches = f.issuer.jwks_fetches();
    assert!(
        (1..=bound).contains(&fetches),
        "{fetches} fetches for {sent} tokens in {elapsed:?} (at most {bound})"
    );
}

#[tokio::test]
async fn a_token_in_the_query_string_counts_as_no_token() {
    let f = fixture().await;
    let token = f.rsa.sign(&f.claims("alice", "counter:read", json!({})));
    let url = format!("http://{}/mcp?access_token={token}", f.server.addr);
    let r = post_to(&url, None, &list()).await;
    assert_no_token(&f.server, r);
}

#[tokio::test]
async fn the_basic_scheme_counts_as_no_token() {
    let f = fixture().await;
    let token = f.rsa.sign(&f.claims("alice", "counter:read", json!({})));
    let basic = format!("Basic {}", URL_SAFE_NO_PAD.encode(format!("alice:{token}")));
    let r = post(f.server.addr, Some(&basic), &list()).await;
    assert_no_token(&f.server, r);
    // Nor is a token without its scheme.
    let r = post(f.server.addr, Some(&token), &list()).await;
    assert_no_token(&f.server, r);
}

#[tokio::test]
async fn an_unreachable_issuer_is_answered_503() {
    let f = fixture().await;
    // An issuer nobody serves: its keys cannot be fetched, so no token can be checked.
    let dead = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead_url = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let auth = OAuth::new(&resource).issuer(&dead_url);
    let server = serve_with(listener, resource.clone(), |b| b.oauth(auth));
    let token = f.rsa.sign(
        &f.issuer
            .claims(&resource, "alice", "", json!({"iss": dead_url})),
    );
    let r = post(server.addr, Some(&bearer(&token)), &list()).await;
    assert_eq!(r.status(), 503);
    assert!(r.headers().contains_key("retry-after"), "{r:?}");
}

// ---- Accepted tokens -------------------------------------------------------------------

#[tokio::test]
async fn an_rsa_signed_token_is_accepted() {
    let f = fixture().await;
    let token = f.rsa.sign(&f.claims("alice", "counter:read", json!({})));
    let result = result_of(
        post(
            f.server.addr,
            Some(&bearer(&token)),
            &call("read_counter", "r"),
        )
        .await,
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(result["structuredContent"]["subject"], "alice");
}

#[tokio::test]
async fn an_ec_signed_token_is_accepted() {
    let f = fixture().await;
    let mut header = Header::new(Algorithm::ES256);
    // `typ: JWT` is accepted as well as `at+jwt`.
    header.typ = Some("JWT".to_owned());
    let token =
        f.ec.sign_with(header, &f.claims("bob", "counter:read", json!({})));
    let result = result_of(
        post(
            f.server.addr,
            Some(&bearer(&token)),
            &call("read_counter", "r"),
        )
        .await,
    )
    .await;
    assert_eq!(result["structuredContent"]["subject"], "bob");
}

#[tokio::test]
async fn an_audience_array_naming_this_resource_is_accepted() {
    let f = fixture().await;
    let aud = json!(["https://other.example.com", f.server.resource]);
    let token = f.rsa.sign(&f.claims("alice", "", json!({"aud": aud})));
    let r = post(f.server.addr, Some(&bearer(&token)), &call("whoami", "a")).await;
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn the_scp_array_grants_scopes() {
    let f = fixture().await;
    let claims = f.claims(
        "carol",
        "",
        json!({"scope": null, "scp": ["counter:read", "counter:write"]}),
    );
    let token = f.ec.sign(&claims);
    let result = result_of(
        post(
            f.server.addr,
            Some(&bearer(&token)),
            &call("write_counter", "w"),
        )
        .await,
    )
    .await;
    assert_eq!(result["isError"], false, "{result}");
    assert_eq!(
        result["structuredContent"]["scopes"],
        json!(["counter:read", "counter:write"])
    );
}

#[tokio::test]
async fn the_tool_sees_its_caller() {
    let f = fixture().await;
    let claims = f.claims(
        "alice",
        "counter:read openid",
        json!({"client_id": "claude-desktop", "email": "alice@example.com"}),
    );
    let token = f.rsa.sign(&claims);
    let result =
        result_of(post(f.server.addr, Some(&bearer(&token)), &call("whoami", "me")).await).await;
    assert_eq!(
        result["structuredContent"],
        json!({
            "subject": "alice",
            "scopes": ["counter:read", "openid"],
            "clientId": "claude-desktop",
            "email": "alice@example.com",
            "tag": "me",
        })
    );
}

#[tokio::test]
async fn tools_list_shows_only_the_tools_the_caller_may_call() {
    let f = fixture().await;
    for (scope, expected) in [
        ("", vec!["whoami"]),
        ("counter:read", vec!["whoami", "read_counter"]),
        ("counter:write", vec!["whoami"]),
        (
            "counter:read counter:write",
            vec!["whoami", "read_counter", "write_counter"],
        ),
    ] {
        let token = f.rsa.sign(&f.claims("alice", scope, json!({})));
        let r = post(f.server.addr, Some(&bearer(&token)), &list()).await;
        assert_eq!(r.status(), 200);
        let body: Value = r.json().await.unwrap();
        let names: Vec<&str> = body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, expected, "scope {scope:?}");
    }
}

#[tokio::test]
async fn a_call_without_the_tools_scopes_is_answered_403_insufficient_scope() {
    let f = fixture().await;
    let token = f.rsa.sign(&f.claims("alice", "counter:read", json!({})));
    let r = post(
        f.server.addr,
        Some(&bearer(&token)),
        &call("write_counter", "w"),
    )
    .await;
    assert_eq!(r.status(), 403);
    assert_eq!(
        challenge(&r),
        format!(
            "Bearer error=\"insufficient_scope\", error_description=\"this call requires \
             the scopes: counter:write\", scope=\"counter:read counter:write\", \
             resource_metadata=\"{}\"",
            metadata_url(&f.server)
        )
    );
    assert_eq!(f.server.calls.of("alice"), 0, "the handler never ran");
    // With the scopes, the same call runs.
    let token = f
        .rsa
        .sign(&f.claims("alice", "counter:read counter:write", json!({})));
    let r = post(
        f.server.addr,
        Some(&bearer(&token)),
        &call("write_counter", "w"),
    )
    .await;
    assert_eq!(r.status(), 200);
    assert_eq!(f.server.calls.of("alice"), 1);
}

#[tokio::test]
async fn a_thousand_concurrent_calls_from_ten_callers_never_cross() {
    let f = fixture().await;
    // Caller i holds: nothing (i % 3 == 0), `counter:read` (1), both scopes (2).
    let scopes = |i: usize| match i % 3 {
        0 => "",
        1 => "counter:read",
        _ => "counter:read counter:write",
    };
    let tokens: Vec<String> = (0..10)
        .map(|i| {
            let key = if i % 2 == 0 { &f.rsa } else { &f.ec };
            key.sign(&f.claims(&format!("caller-{i}"), scopes(i), json!({})))
        })
        .collect();
    let tools = ["whoami", "read_counter", "write_counter"];
    let allowed = |i: usize, tool: &str| match tool {
        "whoami" => true,
        "read_counter" => !i.is_multiple_of(3),
        _ => i % 3 == 2,
    };
    let forbidden = Arc::new(AtomicUsize::new(0));
    let client = reqwest::Client::new();
    let url = format!("http://{}/mcp", f.server.addr);
    let calls = (0..1000).map(|n| {
        let i = n % 10;
        let tool = tools[(n / 10) % 3];
        let token = tokens[i].clone();
        let client = client.clone();
        let url = url.clone();
        let forbidden = forbidden.clone();
        async move {
            let tag = format!("{i}-{n}");
            let r = client
                .post(&url)
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .header("authorization", bearer(&token))
                .body(call(tool, &tag).to_string())
                .send()
                .await
                .unwrap();
            if allowed(i, tool) {
                assert_eq!(r.status(), 200, "caller-{i} {tool}");
                let body: Value = r.json().await.unwrap();
                let seen = &body["result"]["structuredContent"];
                assert_eq!(seen["subject"], format!("caller-{i}"), "{body}");
                assert_eq!(seen["tag"], tag, "{body}");
                let held: Vec<&str> = scopes(i).split(' ').filter(|s| !s.is_empty()).collect();
                assert_eq!(seen["scopes"], json!(held), "{body}");
            } else {
                assert_eq!(r.status(), 403, "caller-{i} {tool}");
                forbidden.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    futures::future::join_all(calls).await;
    // Each permitted call ran its handler exactly once, as its own caller.
    let mut expected_forbidden = 0;
    for i in 0..10 {
        let permitted = (0..1000)
            .filter(|n| n % 10 == i && allowed(i, tools[(n / 10) % 3]))
            .count();
        expected_forbidden += 100 - permitted;
        assert_eq!(
            f.server.calls.of(&format!("caller-{i}")),
            permitted,
            "caller-{i}"
        );
    }
    assert_eq!(forbidden.load(Ordering::SeqCst), expected_forbidden);
    // And each caller's list matches its scopes.
    for (i, token) in tokens.iter().enumerate() {
        let r = post(f.server.addr, Some(&bearer(token)), &list()).await;
        let body: Value = r.json().await.unwrap();
        let names: Vec<&str> = body["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        let expected: Vec<&str> = tools.iter().copied().filter(|t| allowed(i, t)).collect();
        assert_eq!(names, expected, "caller-{i}");
    }
}

// ---- Opaque tokens, static tokens, misconfiguration -------------------------------------

struct Opaque;

impl TokenVerifier for Opaque {
    async fn verify(&self, token: &str) -> Result<Caller, Rejection> {
        match token {
            "opaque-alice" => Ok(Caller::new("alice").with_scopes(["counter:read"])),
            "down" => Err(Rejection::unavailable("introspection is down")),
            _ => Err(Rejection::invalid_token("unknown \"token\"")),
        }
    }
}

#[tokio::test]
async fn a_token_verifier_checks_opaque_tokens() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let resource = format!("http://{}/mcp", listener.local_addr().unwrap());
    let auth = OAuth::new(&resource)
        .issuer("https://auth.example.com")
        .verifier(Opaque);
    let server = serve_with(listener, resource, |b| b.oauth(auth));
    let result = result_of(
        post(
            server.addr,
            Some("Bearer opaque-alice"),
            &call("read_counter", "o"),
        )
        .await,
    )
    .await;
    assert_eq!(result["structuredContent"]["subject"], "alice");
    let r = post(
        server.addr,
        Some("Bearer opaque-alice"),
        &call("write_counter", "o"),
    )
    .await;
    assert_eq!(r.status(), 403);
    let r = post(server.addr, Some("Bearer nope"), &list()).await;
    assert_eq!(r.status(), 401);
    // The description is quoted safely.
    assert!(
        challenge(&r).contains("error_description=\"unknown token\""),
        "{}",
        challenge(&r)
    );
    let r = post(server.addr, Some("Bearer down"), &list()).await;
    assert_eq!(r.status(), 503);
}

#[tokio::test]
async fn a_static_bearer_tokens_caller_holds_every_scope() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve_with(listener, String::new(), |b| b.bearer_token("s3cret"));
    let r = post(server.addr, Some("Bearer s3cret"), &list()).await;
    let body: Value = r.json().await.unwrap();
    assert_eq!(body["result"]["tools"].as_array().unwrap().len(), 3);
    let result = result_of(
        post(
            server.addr,
            Some("Bearer s3cret"),
            &call("write_counter", "s"),
        )
        .await,
    )
    .await;
    assert_eq!(result["structuredContent"]["subject"], "bearer");
    assert_eq!(server.calls.of("bearer"), 1);
}

#[tokio::test]
async fn without_authentication_calls_are_anonymous() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve_with(listener, String::new(), |b| b);
    let r = post(server.addr, None, &list()).await;
    let body: Value = r.json().await.unwrap();
    let names: Vec<&str> = body["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["whoami"]);
    let result = result_of(post(server.addr, None, &call("read_counter", "a")).await).await;
    assert_eq!(result["isError"], true);
    let error: Value =
        serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(error["code"], ErrorCode::ToolForbidden.as_str());
    assert_eq!(error["details"]["missingScopes"], json!(["counter:read"]));
}

/// What `serve` answers for `auth`, expected to fail.
async fn refused_config(auth: OAuth) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = serve_with(listener, String::new(), |b| b.oauth(auth));
    let error = server.serving.await.unwrap().unwrap_err();
    assert_eq!(error.code(), ErrorCode::InvalidInput, "{error}");
    error.to_string()
}

#[tokio::test]
async fn a_misconfigured_oauth_does_not_start() {
    let issuer = "https://auth.example.com";
    for (auth, why) in [
        (OAuth::new("").issuer(issuer), "no resource"),
        (
            OAuth::new("tools.example.com/mcp").issuer(issuer),
            "not an absolute URL",
        ),
        (
            OAuth::new("https://tools.example.com/mcp"),
            "no way to check tokens",
        ),
        (
            OAuth::new("https://tools.example.com/mcp").issuer("http://auth.example.com"),
            "only `https://`",
        ),
        (
            OAuth::new("https://tools.example.com/mcp")
                .issuer(issuer)
                .jwks_uri("http://keys.example.com/jwks"),
            "only `https://`",
        ),
        (
            OAuth::new("https://tools.example.com/mcp")
                .issuer(issuer)
                .leeway(Duration::from_mins(5)),
            "more than 60s",
        ),
        (
            OAuth::new("https://tools.example.com/mcp")
                .issuer(issuer)
                .refetch_floor(Duration::ZERO),
            "zero `refetch_floor`",
        ),
        (
            OAuth::new("https://tools.example.com/mcp")
                .issuer(issuer)
                .scopes_supported(["counter read"]),
            "not an RFC 6749 scope token",
        ),
    ] {
        let message = refused_config(auth).await;
        assert!(message.contains(why), "expected {why:?} in {message}");
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let both = serve_with(listener, String::new(), |b| {
        b.bearer_token("t")
            .oauth(OAuth::new("https://tools.example.com/mcp").issuer(issuer))
    });
    let error = both.serving.await.unwrap().unwrap_err();
    assert!(error.to_string().contains("choose one"), "{error}");
}

#[tokio::test]
async fn the_layer_protects_an_axum_app_of_your_own() {
    use axum::Extension;
    let issuer = Issuer::start().await;
    let key = SigningKey::ec("app");
    issuer.publish(&key);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/api");
    let layer = OAuth::new(&resource)
        .issuer(&issuer.url)
        .scopes_supported(["notes:read"])
        .layer()
        .unwrap();
    assert_eq!(
        layer.resource_metadata_url(),
        format!("http://{addr}/.well-known/oauth-protected-resource/api")
    );
    let step_up = layer.clone();
    let app = axum::Router::new()
        .route(
            "/api",
            axum::routing::get(move |Extension(caller): Extension<Arc<Caller>>| {
                let step_up = step_up.clone();
                async move {
                    use axum::response::IntoResponse;
                    match step_up.insufficient_scope(Some(&caller), &["notes:read"]) {
                        Some(forbidden) => forbidden,
                        None => caller.subject().to_owned().into_response(),
                    }
                }
            }),
        )
        .layer(layer);
    tokio::spawn(async move { axum::serve(listener, app).await });

    let get = |token: Option<String>, path: &str| {
        let mut request = reqwest::Client::new().get(format!("http://{addr}{path}"));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    let metadata: Value = get(None, "/.well-known/oauth-protected-resource/api")
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(metadata["resource"], resource);
    assert_eq!(get(None, "/api").await.unwrap().status(), 401);
    let reader = key.sign(&issuer.claims(&resource, "dana", "notes:read", json!({})));
    let r = get(Some(reader), "/api").await.unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.text().await.unwrap(), "dana");
    let nobody = key.sign(&issuer.claims(&resource, "erin", "", json!({})));
    let r = get(Some(nobody), "/api").await.unwrap();
    assert_eq!(r.status(), 403);
    assert!(challenge(&r).contains("scope=\"notes:read\""));
}

#[tokio::test]
async fn a_session_call_without_the_tools_scopes_is_answered_403_too() {
    // `McpHttp::stateful(true)`: 2025-11-25 clients keep a session (rmcp's transport);
    // a call in that session is checked for scopes before it reaches the session.
    let issuer = Issuer::start().await;
    let rsa = SigningKey::rsa("rsa-1");
    issuer.publish(&rsa);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let auth = OAuth::new(&resource).issuer(&issuer.url);
    let server = serve_with(listener, resource.clone(), |b| b.oauth(auth).stateful(true));
    let reader = rsa.sign(&issuer.claims(&resource, "alice", "counter:read", json!({})));
    let writer =
        rsa.sign(&issuer.claims(&resource, "alice", "counter:read counter:write", json!({})));
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}});
    let r = post(addr, Some(&bearer(&reader)), &initialize).await;
    assert_eq!(r.status(), 200, "{r:?}");
    let session = r
        .headers()
        .get("mcp-session-id")
        .expect("a session")
        .to_str()
        .unwrap()
        .to_owned();
    let in_session = |token: String, body: Value| {
        let session = session.clone();
        async move {
            reqwest::Client::new()
                .post(format!("http://{addr}/mcp"))
                .header("content-type", "application/json")
                .header("accept", "application/json, text/event-stream")
                .header("mcp-protocol-version", "2025-11-25")
                .header("mcp-session-id", session)
                .header("authorization", bearer(&token))
                .body(body.to_string())
                .send()
                .await
                .unwrap()
        }
    };
    let r = in_session(
        reader.clone(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )
    .await;
    assert!(r.status().is_success(), "{r:?}");
    let r = in_session(reader, call("write_counter", "w")).await;
    assert_eq!(r.status(), 403);
    assert!(
        challenge(&r).starts_with("Bearer error=\"insufficient_scope\""),
        "{}",
        challenge(&r)
    );
    assert_eq!(server.calls.of("alice"), 0, "the handler never ran");
    // With the scopes, the same call runs in the session (answered as JSON or as an
    // event stream, as rmcp's session transport chooses).
    let r = in_session(writer, call("write_counter", "w")).await;
    assert_eq!(r.status(), 200, "{r:?}");
    let text = r.text().await.unwrap();
    let answer: Value = text
        .lines()
        .map(|l| l.strip_prefix("data:").unwrap_or(l).trim())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|m| m.get("id").is_some())
        .unwrap_or_else(|| panic!("no answer in {text}"));
    assert_eq!(answer["result"]["isError"], false, "{answer}");
    assert_eq!(server.calls.of("alice"), 1);
}

// ---- Refusals over kept-alive connections ---------------------------------------------

/// One HTTP/1.1 connection, as a pooling client keeps it: requests one after another, a
/// new connection only once the server said `Connection: close`.
struct KeptAlive {
    addr: SocketAddr,
    sender: Option<hyper::client::conn::http1::SendRequest<RequestBody>>,
    /// Whether the server announced that it closes the current connection.
    announced_close: bool,
}

type RequestBody = http_body_util::StreamBody<
    futures::stream::BoxStream<'static, Result<hyper::body::Frame<bytes::Bytes>, std::io::Error>>,
>;

impl KeptAlive {
    fn new(addr: SocketAddr) -> Self {
        KeptAlive {
            addr,
            sender: None,
            announced_close: false,
        }
    }

    /// Sends one POST to `path` (the body sent apart from the head, after a pause, when
    /// `late_body`), and gives the status and the `WWW-Authenticate` challenge. Panics when
    /// the connection closes without an answer, or closes unannounced.
    async fn post(
        &mut self,
        path: &str,
        authorization: Option<&str>,
        body: &Value,
        late_body: bool,
    ) -> (u16, Option<String>) {
        use http_body_util::BodyExt as _;
        let reusable = match &mut self.sender {
            Some(sender) => sender.ready().await.is_ok(),
            None => false,
        };
        if !reusable {
            assert!(
                self.sender.is_none() || self.announced_close,
                "the server closed a kept-alive connection without `Connection: close`"
            );
            let stream = tokio::net::TcpStream::connect(self.addr).await.unwrap();
            // As HTTP clients do: a body written apart from its head goes out at once.
            stream.set_nodelay(true).unwrap();
            let (sender, connection) =
                hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                    .await
                    .unwrap();
            tokio::spawn(connection);
            self.sender = Some(sender);
            self.announced_close = false;
        }
        let bytes = bytes::Bytes::from(body.to_string());
        let length = bytes.len();
        let frames: futures::stream::BoxStream<'static, _> =
            Box::pin(futures::stream::once(async move {
                if late_body {
                    tokio::time::sleep(Duration::from_millis(2)).await;
                }
                Ok(hyper::body::Frame::data(bytes))
            }));
        let mut request = hyper::Request::post(path)
            .header("host", self.addr.to_string())
            .header("content-type", "application/json")
            .header("content-length", length)
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2025-11-25");
        if let Some(authorization) = authorization {
            request = request.header("authorization", authorization);
        }
        let request = request
            .body(http_body_util::StreamBody::new(frames))
            .unwrap();
        let response = self
            .sender
            .as_mut()
            .unwrap()
            .send_request(request)
            .await
            .unwrap_or_else(|e| panic!("no response to {path}: {e}"));
        self.announced_close = response
            .headers()
            .get("connection")
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"close"));
        let status = response.status().as_u16();
        let challenge = response
            .headers()
            .get("www-authenticate")
            .map(|v| v.to_str().unwrap().to_owned());
        response.into_body().collect().await.unwrap();
        (status, challenge)
    }
}

/// 2,000 refused tokens of mixed kinds (`alg: none`, a payload changed after signing, a
/// wrong `iss`, no `aud`, a token in the query string) interleaved with valid calls, over
/// four kept-alive connections, half of the bodies arriving after the head: every request
/// is answered (a refusal with its `401` and challenge), and a connection is closed only
/// after a response that says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_refusal_over_kept_alive_connections_gets_its_401() {
    let f = fixture().await;
    let part = |v: Value| URL_SAFE_NO_PAD.encode(v.to_string());
    let good = f.ec.sign(&f.claims("alice", "counter:read", json!({})));
    let unsigned = format!(
        "{}.{}.",
        part(json!({"alg": "none", "typ": "at+jwt"})),
        part(f.claims("alice", "counter:read", json!({})))
    );
    let mut pieces = good.split('.');
    let (head, _, signature) = (
        pieces.next().unwrap(),
        pieces.next().unwrap(),
        pieces.next().unwrap(),
    );
    let tampered = format!(
        "{head}.{}.{signature}",
        part(f.claims("mallory", "counter:read counter:write", json!({})))
    );
    let foreign = f
        .rsa
        .sign(&f.claims("alice", "", json!({"iss": "https://evil.example.com"})));
    let no_audience = f.ec.sign(&f.claims("alice", "", json!({"aud": null})));
    let refused = [unsigned, tampered, foreign, no_audience];
    let query = format!("/mcp?access_token={good}");
    let answered = Arc::new(AtomicUsize::new(0));
    let mut clients = Vec::new();
    for c in 0..4 {
        let (addr, refused, good, query, answered) = (
            f.server.addr,
            refused.clone(),
            good.clone(),
            query.clone(),
            answered.clone(),
        );
        clients.push(tokio::spawn(async move {
            let mut connection = KeptAlive::new(addr);
            for i in 0..625 {
                let late = (i + c) % 2 == 0;
                // Every fifth request is a valid call.
                if i % 5 == 4 {
                    let (status, _) = connection
                        .post("/mcp", Some(&bearer(&good)), &call("whoami", "ok"), late)
                        .await;
                    assert_eq!(status, 200, "a valid call, #{i} on connection {c}");
                    continue;
                }
                let kind = i % 5;
                let (path, authorization) = if kind == 3 && i % 2 == 1 {
                    (query.as_str(), None)
                } else {
                    ("/mcp", Some(bearer(&refused[kind])))
                };
                let (status, challenge) = connection
                    .post(path, authorization.as_deref(), &call("whoami", "x"), late)
                    .await;
                assert_eq!(status, 401, "refusal #{i} (kind {kind}) on connection {c}");
                let challenge = challenge.expect("a refusal carries its challenge");
                assert!(challenge.contains("resource_metadata="), "{challenge}");
                answered.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    for client in clients {
        client.await.unwrap();
    }
    assert_eq!(answered.load(Ordering::Relaxed), 2_000);
    assert_eq!(f.server.calls.of("mallory"), 0);
}
