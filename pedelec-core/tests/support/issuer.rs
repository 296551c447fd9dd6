//! An OAuth authorization server's public face, for the OAuth tests: RFC 8414 metadata and
//! a JWKS served on loopback (each fetch counted), and access tokens signed with RSA and EC
//! keys made here. Keys published or withdrawn at any time (rotation).

#![allow(dead_code)]

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::extract::State;
use axum::routing::get;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// A signing key and its public JWK.
#[derive(Clone)]
pub struct SigningKey {
    pub kid: String,
    pub alg: Algorithm,
    encoding: EncodingKey,
    pub jwk: Value,
    /// The public key as PEM (SPKI): what an attacker would use as an HMAC secret.
    pub public_pem: String,
}

impl SigningKey {
    /// A 2048-bit RSA key (RS256). Made once per process (prime search takes a moment);
    /// each call gives it another `kid`.
    pub fn rsa(kid: &str) -> SigningKey {
        use rsa::pkcs1::EncodeRsaPrivateKey;
        use rsa::pkcs8::EncodePublicKey;
        static KEY: OnceLock<(Vec<u8>, String)> = OnceLock::new();
        let (der, pem) = KEY.get_or_init(|| {
            let key = <rsa::PrivateKey as rsa::Generate>::generate();
            let der = key.to_pkcs1_der().unwrap().as_bytes().to_vec();
            let pem = key
                .to_public_key()
                .to_public_key_pem(rsa::pkcs8::LineEnding::LF)
                .unwrap();
            (der, pem)
        });
        SigningKey::new(
            kid,
            Algorithm::RS256,
            EncodingKey::from_rsa_der(der),
            pem.clone(),
        )
    }

    /// A fresh P-256 key (ES256).
    pub fn ec(kid: &str) -> SigningKey {
        use p256::pkcs8::{EncodePrivateKey, EncodePublicKey};
        let key = <p256::SecretKey as p256::elliptic_curve::Generate>::generate();
        let der = key.to_pkcs8_der().unwrap();
        let pem = key
            .public_key()
            .to_public_key_pem(p256::pkcs8::LineEnding::LF)
            .unwrap();
        SigningKey::new(
            kid,
            Algorithm::ES256,
            EncodingKey::from_ec_der(der.as_bytes()),
            pem,
        )
    }

    fn new(kid: &str, alg: Algorithm, encoding: EncodingKey, public_pem: String) -> SigningKey {
        let mut jwk = Jwk::from_encoding_key(&encoding, alg).unwrap();
        jwk.common.key_id = Some(kid.to_owned());
        SigningKey {
            kid: kid.to_owned(),
            alg,
            encoding,
            jwk: serde_json::to_value(jwk).unwrap(),
            public_pem,
        }
    }

    /// `claims` signed with this key, under `header` (its `alg` and `kid` set here).
    pub fn sign_with(&self, mut header: Header, claims: &Value) -> String {
        header.alg = self.alg;
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, claims, &self.encoding).unwrap()
    }

    /// `claims` signed with this key, `typ: at+jwt`.
    pub fn sign(&self, claims: &Value) -> String {
        let mut header = Header::new(self.alg);
        header.typ = Some("at+jwt".to_owned());
        self.sign_with(header, claims)
    }
}

/// Seconds since the epoch.
pub fn now() -> i64 {
    i64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs(),
    )
    .unwrap()
}

#[derive(Default)]
struct Published {
    keys: Mutex<Vec<Value>>,
    issuer: Mutex<String>,
    jwks_fetches: AtomicUsize,
    metadata_fetches: AtomicUsize,
}

/// The issuer: `GET /.well-known/oauth-authorization-server` and `GET /jwks`.
pub struct Issuer {
    pub url: String,
    pub addr: SocketAddr,
    published: Arc<Published>,
}

impl Issuer {
    /// Serves on a free loopback port (on the current tokio runtime).
    pub async fn start() -> Issuer {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let url = format!("http://{addr}");
        let published = Arc::new(Published::default());
        published.issuer.lock().unwrap().clone_from(&url);
        let app = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(|State(p): State<Arc<Published>>| async move {
                    p.metadata_fetches.fetch_add(1, Ordering::SeqCst);
                    let issuer = p.issuer.lock().unwrap().clone();
                    Json(json!({
                        "issuer": issuer,
                        "jwks_uri": format!("{issuer}/jwks"),
                        "token_endpoint": format!("{issuer}/token"),
                        "grant_types_supported": ["client_credentials"],
                    }))
                }),
            )
            .route(
                "/jwks",
                get(|State(p): State<Arc<Published>>| async move {
                    p.jwks_fetches.fetch_add(1, Ordering::SeqCst);
                    Json(json!({"keys": *p.keys.lock().unwrap()}))
                }),
            )
            .with_state(published.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Issuer {
            url,
            addr,
            published,
        }
    }

    /// Publishes `key` in the JWKS (from the next fetch on).
    pub fn publish(&self, key: &SigningKey) {
        self.published.keys.lock().unwrap().push(key.jwk.clone());
    }

    /// Takes `key` out of the JWKS (from the next fetch on).
    #[allow(dead_code, reason = "not every test binary withdraws a key")]
    pub fn withdraw(&self, key: &SigningKey) {
        self.published
            .keys
            .lock()
            .unwrap()
            .retain(|jwk| jwk["kid"] != key.kid.as_str());
    }

    /// How many times the JWKS was fetched.
    pub fn jwks_fetches(&self) -> usize {
        self.published.jwks_fetches.load(Ordering::SeqCst)
    }

    /// How many times the metadata was fetched.
    pub fn metadata_fetches(&self) -> usize {
        self.published.metadata_fetches.load(Ordering::SeqCst)
    }

    /// The claims of a good token for `audience`: this issuer, `sub`, `scope`, valid for
    /// five minutes; `extra` added or replacing (a `null` removes the claim).
    pub fn claims(&self, audience: &str, subject: &str, scope: &str, extra: Value) -> Value {
        let mut claims = json!({
            "iss": self.url,
            "sub": subject,
            "aud": audience,
            "scope": scope,
            "client_id": "test-client",
            "iat": now(),
            "exp": now() + 300,
            "jti": format!("{subject}-{}", now()),
        });
        let map = claims.as_object_mut().unwrap();
        for (name, value) in extra.as_object().cloned().unwrap_or_default() {
            if value.is_null() {
                map.remove(&name);
            } else {
                map.insert(name, value);
            }
        }
        claims
    }
}
