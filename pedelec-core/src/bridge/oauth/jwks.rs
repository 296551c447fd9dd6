//! The issuer's signing keys: its JWKS, found through its metadata (RFC 8414, or OIDC
//! discovery) unless given, cached, and fetched again only for a key it does not
//! hold yet, at most once per refetch floor, so that a flood of tokens naming unknown keys
//! cannot make this server hammer the issuer, while a key the issuer publishes later (a
//! rotation) is accepted after the next fetch.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use axum::http::Uri;
use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::Rejection;
use super::fetch::Fetcher;
use super::url;

/// One signing key of the issuer and the algorithms it may verify (asymmetric only).
pub(super) struct Key {
    pub(super) kid: Option<String>,
    pub(super) algorithms: Vec<Algorithm>,
    pub(super) decoding: DecodingKey,
}

/// The keys, fetched as needed.
pub(super) struct Keys {
    issuer: Uri,
    issuer_text: String,
    /// Given (`OAuth::jwks_uri`) or discovered once.
    jwks_uri: Mutex<Option<String>>,
    current: RwLock<Arc<Vec<Arc<Key>>>>,
    /// How many times `current` was replaced: what a token was verified under.
    generation: AtomicU64,
    /// When the last fetch was tried, and whether it worked; one fetch at a time.
    last_fetch: tokio::sync::Mutex<Option<(Instant, bool)>>,
    floor: Duration,
    fetcher: Fetcher,
}

impl Keys {
    pub(super) fn new(
        issuer: Uri,
        issuer_text: String,
        jwks_uri: Option<String>,
        floor: Duration,
        fetcher: Fetcher,
    ) -> Self {
        Keys {
            issuer,
            issuer_text,
            jwks_uri: Mutex::new(jwks_uri),
            current: RwLock::new(Arc::new(Vec::new())),
            generation: AtomicU64::new(0),
            last_fetch: tokio::sync::Mutex::new(None),
            floor,
            fetcher,
        }
    }

    /// Changes whenever the keys are fetched again: a token verified under an older
    /// generation is checked again in full (its key may have been withdrawn).
    pub(super) fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    fn snapshot(&self) -> Arc<Vec<Arc<Key>>> {
        self.current
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The key that verifies a token signed with `alg` under `kid`: from the cache, or
    /// after one fetch when the floor since the last one has passed.
    pub(super) async fn key_for(
        &self,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Result<Arc<Key>, Rejection> {
        if let Some(key) = pick(&self.snapshot(), kid, alg)? {
            return Ok(key);
        }
        let mut last = self.last_fetch.lock().await;
        // Another request may have fetched while this one waited.
        if let Some(key) = pick(&self.snapshot(), kid, alg)? {
            return Ok(key);
        }
        if let Some((at, worked)) = *last {
            let since = at.elapsed();
            if since < self.floor {
                let wait = self.floor.saturating_sub(since);
                if !worked && self.snapshot().is_empty() {
                    return Err(Rejection::unavailable(
                        "the issuer's signing keys could not be fetched; trying again shortly",
                    )
                    .retry_after(wait));
                }
                return Err(unknown_key(kid));
            }
        }
        let fetched = self.fetch().await;
        *last = Some((Instant::now(), fetched.is_ok()));
        drop(last);
        match fetched {
            Ok(keys) => {
                let keys = Arc::new(keys);
                *self.current.write().unwrap_or_else(PoisonError::into_inner) = keys.clone();
                self.generation.fetch_add(1, Ordering::AcqRel);
                pick(&keys, kid, alg)?.ok_or_else(|| unknown_key(kid))
            }
            Err(e) => {
                tracing::warn!(issuer = %self.issuer_text, "cannot fetch the signing keys: {e}");
                if self.snapshot().is_empty() {
                    Err(Rejection::unavailable(
                        "the issuer's signing keys could not be fetched; trying again shortly",
                    )
                    .retry_after(self.floor))
                } else {
                    Err(unknown_key(kid))
                }
            }
        }
    }

    /// Fetches the JWKS (discovering where it is first, when needed).
    async fn fetch(&self) -> Result<Vec<Arc<Key>>, String> {
        let known = self
            .jwks_uri
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone();
        let jwks_uri = match known {
            Some(uri) => uri,
            None => {
                let uri = self.discover().await?;
                *self.jwks_uri.lock().unwrap_or_else(PoisonError::into_inner) = Some(uri.clone());
                uri
            }
        };
        let document = self.fetcher.json(&jwks_uri).await?;
        let keys = parse_jwks(&document).map_err(|e| format!("the JWKS at `{jwks_uri}` {e}"))?;
        tracing::debug!(issuer = %self.issuer_text, keys = keys.len(), "fetched the signing keys");
        Ok(keys)
    }

    /// The `jwks_uri` of the issuer's metadata: RFC 8414, then OIDC discovery.
    /// The metadata must name this issuer exactly (RFC 8414 §3.3).
    async fn discover(&self) -> Result<String, String> {
        let mut failures = Vec::new();
        for candidate in url::discovery_urls(&self.issuer) {
            let metadata = match self.fetcher.json(&candidate).await {
                Ok(metadata) => metadata,
                Err(e) => {
                    failures.push(e);
                    continue;
                }
            };
            let issuer = metadata.get("issuer").and_then(Value::as_str);
            if issuer != Some(self.issuer_text.as_str()) {
                return Err(format!(
                    "the metadata at `{candidate}` names the issuer {issuer:?}, not `{}`",
                    self.issuer_text
                ));
            }
            let Some(jwks_uri) = metadata.get("jwks_uri").and_then(Value::as_str) else {
                return Err(format!("the metadata at `{candidate}` has no `jwks_uri`"));
            };
            url::checked("the issuer's `jwks_uri`", jwks_uri, false)?;
            return Ok(jwks_uri.to_owned());
        }
        Err(format!(
            "no authorization server metadata found for `{}`: {}",
            self.issuer_text,
            failures.join("; ")
        ))
    }
}

fn unknown_key(kid: Option<&str>) -> Rejection {
    match kid {
        Some(kid) => Rejection::invalid_token(format!(
            "the token is signed with a key (`kid` {kid:?}) the issuer does not publish"
        )),
        None => Rejection::invalid_token("no key of the issuer verifies the token's algorithm"),
    }
}

/// The key for `kid` and `alg` among `keys`: `Ok(None)` when there is none (worth a
/// fetch); an error when the key is there but may not verify `alg` (no fetch helps).
/// Without a `kid`, the one key that may verify `alg`.
fn pick(
    keys: &[Arc<Key>],
    kid: Option<&str>,
    alg: Algorithm,
) -> Result<Option<Arc<Key>>, Rejection> {
    match kid {
        Some(kid) => match keys.iter().find(|k| k.kid.as_deref() == Some(kid)) {
            Some(key) if key.algorithms.contains(&alg) => Ok(Some(key.clone())),
            Some(_) => Err(Rejection::invalid_token(format!(
                "the key {kid:?} may not verify `{alg:?}` signatures"
            ))),
            None => Ok(None),
        },
        None => {
            let mut fitting = keys.iter().filter(|k| k.algorithms.contains(&alg));
            match (fitting.next(), fitting.next()) {
                (Some(key), None) => Ok(Some(key.clone())),
                (Some(_), Some(_)) => Err(Rejection::invalid_token(
                    "the token names no key (`kid`) and the issuer publishes several",
                )),
                (None, _) => Ok(None),
            }
        }
    }
}

/// The signing keys of a JWKS document. A key that is not for signatures, symmetric
/// (`oct`: never accepted), of an unsupported type or curve, or malformed is left out;
/// a document without a `keys` array is an error.
pub(super) fn parse_jwks(document: &Value) -> Result<Vec<Arc<Key>>, String> {
    let Some(entries) = document.get("keys").and_then(Value::as_array) else {
        return Err("has no `keys` array".to_owned());
    };
    let mut keys = Vec::new();
    for entry in entries {
        let Ok(jwk) = serde_json::from_value::<Jwk>(entry.clone()) else {
            tracing::debug!("skipping a JWK that does not parse");
            continue;
        };
        if let Some(key) = signing_key(&jwk) {
            keys.push(Arc::new(key));
        }
    }
    Ok(keys)
}

fn signing_key(jwk: &Jwk) -> Option<Key> {
    if matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    ) {
        return None;
    }
    let by_type: &[Algorithm] = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => &[
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(p) => match p.curve {
            EllipticCurve::P256 => &[Algorithm::ES256],
            EllipticCurve::P384 => &[Algorithm::ES384],
            _ => return None,
        },
        AlgorithmParameters::OctetKeyPair(p) => match p.curve {
            EllipticCurve::Ed25519 => &[Algorithm::EdDSA],
            _ => return None,
        },
        // Symmetric keys (`oct`) are never accepted: a JWKS is public.
        _ => return None,
    };
    // A key that names its algorithm verifies that one only.
    let algorithms = match &jwk.common.key_algorithm {
        None => by_type.to_vec(),
        Some(named) => {
            let alg = asymmetric(*named)?;
            if !by_type.contains(&alg) {
                return None;
            }
            vec![alg]
        }
    };
    let decoding = DecodingKey::from_jwk(jwk).ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        algorithms,
        decoding,
    })
}

/// The signature algorithm a JWK's `alg` names, when it is asymmetric.
fn asymmetric(alg: KeyAlgorithm) -> Option<Algorithm> {
    Some(match alg {
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn symmetric_and_encryption_keys_are_left_out() {
        let document = json!({"keys": [
            {"kty": "oct", "kid": "h", "k": "c2VjcmV0"},
            {"kty": "EC", "kid": "e", "use": "enc", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "kid": "s", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "kid": "named-hs", "alg": "HS256", "crv": "P-256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "weird"}
        ]});
        let keys = parse_jwks(&document).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].kid.as_deref(), Some("s"));
        assert_eq!(keys[0].algorithms, [Algorithm::ES256]);
        assert!(parse_jwks(&json!({})).is_err());
        // The key is there but may not verify RS256: no fetch would help.
        assert!(pick(&keys, Some("s"), Algorithm::RS256).is_err());
        assert!(
            pick(&keys, Some("other"), Algorithm::ES256)
                .unwrap()
                .is_none()
        );
        assert!(pick(&keys, None, Algorithm::ES256).unwrap().is_some());
    }
}
