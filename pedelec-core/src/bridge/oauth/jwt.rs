//! JWT access tokens (RFC 9068) checked against the issuer's keys: the signature, with an
//! asymmetric algorithm the key allows; `typ`; `iss` exactly; `aud` naming this resource;
//! `exp` (required) and `nbf` with the leeway. The caller comes from `sub`, the `scope`
//! claim (space-separated) or the `scp` array, and `client_id`.

use std::time::Duration;

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
}

impl JwtCheck {
    pub(super) async fn verify(&self, token: &str) -> Result<Caller, Rejection> {
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
