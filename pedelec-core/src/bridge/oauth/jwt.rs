//! JWT access tokens (RFC 9068) checked against the issuer's keys: the signature, with an
//! asymmetric algorithm the key allows; `typ`; `iss` exactly; `aud` naming this resource;
//! `exp` (required) and `nbf` with the leeway. The caller comes from `sub`, the `scope`
//! claim (space-separated) or the `scp` array, and `client_id`.
//!
//! A token that passed is remembered (keyed by its SHA-256, never by the token itself) until
//! its `exp` plus the leeway, the moment the full check would start refusing it, or until
//! the issuer's keys are fetched again (its key may be gone): a client sends the same token
//! with every call, and the signature check (RSA ~250 µs, ECDSA ~150 µs) would otherwise
//! be most of a call's cost.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use super::Rejection;
use super::jwks::Keys;
use crate::context::Caller;

/// The algorithms a token may be signed with: asymmetric only (never `none`, which does
/// not even parse, nor HMAC, whose "secret" would be a public key).
const ASYMMETRIC: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The built-in check of JWT access tokens.
pub(super) struct JwtCheck {
    pub(super) keys: Keys,
    pub(super) issuer: String,
    pub(super) audience: String,
    pub(super) leeway: Duration,
    pub(super) verified: Verified,
}

impl JwtCheck {
    pub(super) async fn verify(&self, token: &str) -> Result<Caller, Rejection> {
        let digest = self.verified.digest(token);
        let keys = self.keys.generation();
        if let Some(caller) = digest.and_then(|d| self.verified.get(&d, keys, SystemTime::now())) {
            return Ok(caller);
        }
        let caller = self.check(token).await?;
        // An `exp` past what the clock can hold is checked in full every time.
        let until = caller
            .claims()
            .get("exp")
            .and_then(Value::as_f64)
            .and_then(|exp| Duration::try_from_secs_f64(exp).ok())
            .and_then(|exp| UNIX_EPOCH.checked_add(exp)?.checked_add(self.leeway));
        if let (Some(digest), Some(until)) = (digest, until) {
            let entry = Entry {
                caller: caller.clone(),
                until,
                keys,
            };
            self.verified.insert(digest, entry, SystemTime::now());
        }
        Ok(caller)
    }

    /// The full check: header, key, signature, claims.
    async fn check(&self, token: &str) -> Result<Caller, Rejection> {
        let header = jsonwebtoken::decode_header(token).map_err(|e| match e.kind() {
            ErrorKind::Json(_) => Rejection::invalid_token(
                "the token's header is malformed or names an algorithm that is not accepted",
            ),
            _ => Rejection::invalid_token("the token is not a JWT"),
        })?;
        if !ASYMMETRIC.contains(&header.alg) {
            return Err(Rejection::invalid_token(format!(
                "the token is signed with `{:?}`: only asymmetric algorithms (RS*, PS*, ES*, \
                 EdDSA) are accepted",
                header.alg
            )));
        }
        if let Some(typ) = &header.typ {
            let typ = typ.strip_prefix("application/").unwrap_or(typ);
            if !typ.eq_ignore_ascii_case("at+jwt") && !typ.eq_ignore_ascii_case("jwt") {
                return Err(Rejection::invalid_token(format!(
                    "the token's type (`typ`) is {typ:?}, not an access token (`at+jwt`)"
                )));
            }
        }
        let key = self.keys.key_for(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.leeway = self.leeway.as_secs();
        validation.validate_nbf = true;
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.set_issuer(&[&self.issuer]);
        validation.set_audience(&[&self.audience]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation)
            .map_err(|e| rejection(e.kind()))?;
        caller_of(data.claims)
    }
}

/// The tokens that passed, by SHA-256; at most `capacity` of them (none when it is zero).
pub(super) struct Verified {
    capacity: usize,
    entries: Mutex<HashMap<[u8; 32], Entry>>,
}

/// A token that passed: who it speaks for, when it stops being accepted, and the
/// generation of the issuer's keys it was verified under.
struct Entry {
    caller: Caller,
    until: SystemTime,
    keys: u64,
}

impl Entry {
    fn live(&self, keys: u64, now: SystemTime) -> bool {
        self.keys == keys && now < self.until
    }
}

impl Verified {
    pub(super) fn new(capacity: usize) -> Self {
        Verified {
            capacity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn digest(&self, token: &str) -> Option<[u8; 32]> {
        use sha2::Digest as _;
        (self.capacity > 0).then(|| sha2::Sha256::digest(token.as_bytes()).into())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Entry>> {
        // Entries are inserted whole: one left by a panicking thread is still sound.
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The caller of a token verified before, under these keys, and still within its `exp`.
    fn get(&self, digest: &[u8; 32], keys: u64, now: SystemTime) -> Option<Caller> {
        let mut entries = self.lock();
        match entries.get(digest) {
            Some(entry) if entry.live(keys, now) => Some(entry.caller.clone()),
            Some(_) => {
                entries.remove(digest);
                None
            }
            None => None,
        }
    }

    /// Remembers a verified token; when full, expired entries (or ones of older keys) go
    /// first, then an arbitrary one (a client holding many live tokens costs a check now
    /// and then, never memory).
    fn insert(&self, digest: [u8; 32], entry: Entry, now: SystemTime) {
        if !entry.live(entry.keys, now) {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.capacity && !entries.contains_key(&digest) {
            let keys = entry.keys;
            entries.retain(|_, e| e.live(keys, now));
            if entries.len() >= self.capacity
                && let Some(victim) = entries.keys().next().copied()
            {
                entries.remove(&victim);
            }
        }
        entries.insert(digest, entry);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Why a token was refused, in words a client developer can act on (RFC 6750
/// `error_description`; it reveals nothing the token's holder cannot read in it).
fn rejection(kind: &ErrorKind) -> Rejection {
    Rejection::invalid_token(match kind {
        ErrorKind::ExpiredSignature => "the token has expired (`exp`)".to_owned(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (`nbf`)".to_owned(),
        ErrorKind::InvalidAudience => {
            "the token is not for this resource (its `aud` does not name it)".to_owned()
        }
        ErrorKind::InvalidIssuer => {
            "the token's issuer (`iss`) is not the one trusted here".to_owned()
        }
        ErrorKind::MissingRequiredClaim(claim) => format!("the token has no `{claim}` claim"),
        ErrorKind::InvalidClaimFormat(claim) => format!("the token's `{claim}` claim is malformed"),
        ErrorKind::InvalidSignature => "the token's signature does not verify".to_owned(),
        ErrorKind::InvalidAlgorithm => "the token's algorithm does not fit the key".to_owned(),
        _ => "the token is malformed".to_owned(),
    })
}

/// The caller a token's claims describe: `sub` (or, without one, the client), the scopes
/// of `scope` (space-separated) or `scp` (an array, or a space-separated string), the
/// `client_id` (or `azp`), and every claim.
pub(super) fn caller_of(claims: Map<String, Value>) -> Result<Caller, Rejection> {
    let text = |name: &str| claims.get(name).and_then(Value::as_str).map(str::to_owned);
    let client_id = text("client_id").or_else(|| text("azp"));
    let Some(subject) = text("sub").or_else(|| client_id.clone()) else {
        return Err(Rejection::invalid_token(
            "the token names no subject (`sub`) nor client (`client_id`)",
        ));
    };
    let scopes: Vec<String> = match (claims.get("scope"), claims.get("scp")) {
        (Some(Value::String(scope)), _) | (None, Some(Value::String(scope))) => scope
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect(),
        (None, Some(Value::Array(scp))) => scp
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        (None, None) => Vec::new(),
        _ => {
            return Err(Rejection::invalid_token(
                "the token's `scope` (a string) or `scp` (an array) claim is malformed",
            ));
        }
    };
    let mut caller = Caller::new(subject).with_scopes(scopes);
    if let Some(client_id) = client_id {
        caller = caller.with_client_id(client_id);
    }
    Ok(caller.with_claims(claims))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn verified_tokens_are_remembered_until_they_expire_or_the_keys_change() {
        let verified = Verified::new(2);
        let now = UNIX_EPOCH + Duration::from_secs(1_000);
        let later = now + Duration::from_mins(1);
        let entry = |name: &str, until: SystemTime, keys: u64| Entry {
            caller: Caller::new(name),
            until,
            keys,
        };
        let [a, b, c] = ["a", "b", "c"].map(|t| verified.digest(t).unwrap());
        assert_ne!(a, b);
        verified.insert(a, entry("alice", later, 1), now);
        assert_eq!(verified.get(&a, 1, now).unwrap().subject(), "alice");
        // Keys fetched again: checked in full (and forgotten).
        assert!(verified.get(&a, 2, now).is_none());
        assert_eq!(verified.len(), 0);
        // At its expiry it is forgotten, and the full check runs again.
        verified.insert(a, entry("alice", later, 1), now);
        assert!(verified.get(&a, 1, later).is_none());
        assert_eq!(verified.len(), 0);
        // Never remembered past its expiry, nor past the capacity.
        verified.insert(a, entry("alice", now, 1), now);
        assert_eq!(verified.len(), 0);
        verified.insert(a, entry("alice", now + Duration::from_secs(1), 1), now);
        verified.insert(b, entry("bob", later, 1), now);
        verified.insert(c, entry("carol", later, 1), now + Duration::from_secs(2));
        assert_eq!(verified.len(), 2);
        let then = now + Duration::from_secs(2);
        assert!(verified.get(&a, 1, then).is_none(), "the expired one went");
        verified.insert(a, entry("alice", later, 1), now);
        assert_eq!(verified.len(), 2);
        // Zero capacity: nothing is digested, so nothing is kept.
        assert!(Verified::new(0).digest("a").is_none());
    }

    fn claims(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn scopes_from_scope_or_scp() {
        let c = caller_of(claims(
            json!({"sub": "a", "scope": "x  y", "client_id": "app"}),
        ))
        .unwrap();
        assert_eq!(
            (c.subject(), c.scopes(), c.client_id()),
            ("a", &["x".to_owned(), "y".to_owned()][..], Some("app"))
        );
        let c = caller_of(claims(json!({"sub": "a", "scp": ["x", "y"]}))).unwrap();
        assert_eq!(c.scopes(), ["x", "y"]);
        let c = caller_of(claims(json!({"client_id": "svc", "scp": "x"}))).unwrap();
        assert_eq!((c.subject(), c.scopes()), ("svc", &["x".to_owned()][..]));
        assert!(caller_of(claims(json!({"sub": "a", "scope": ["x"]}))).is_err());
        assert!(caller_of(claims(json!({"scope": "x"}))).is_err());
    }
}
