//! What an OAuth resource server answers instead of serving a request: the RFC 9728
//! metadata, and the RFC 6750 challenges (401 `invalid_token` or no token, 403
//! `insufficient_scope`), each pointing at the metadata (`resource_metadata`).

use std::time::Duration;

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};

/// The RFC 9728 metadata document.
pub(super) fn metadata_document(resource: &str, issuer: Option<&str>, scopes: &[String]) -> Value {
    let mut document = json!({
        "resource": resource,
        "bearer_methods_supported": ["header"],
    });
    if let Some(issuer) = issuer {
        document["authorization_servers"] = json!([issuer]);
    }
    if !scopes.is_empty() {
        document["scopes_supported"] = json!(scopes);
    }
    document
}

/// `200` with the metadata, readable from any origin (it is public, and browser-based MCP
/// clients read it).
pub(super) fn metadata_response(document: &Value) -> Response {
    let mut response = Response::new(Body::from(document.to_string()));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    headers.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("max-age=3600"),
    );
    response
}

/// An RFC 6750 §3 quoted value: printable ASCII without `"` or `\` (anything else is
/// dropped).
fn quoted(text: &str) -> String {
    text.chars()
        .filter(|&c| matches!(c, ' '..='~') && c != '"' && c != '\\')
        .collect()
}

/// `Bearer error="…", error_description="…", scope="…", resource_metadata="…"`, with the
/// parts given.
fn challenge(
    error: Option<(&str, &str)>,
    scope: Option<&str>,
    resource_metadata: &str,
) -> HeaderValue {
    let mut parts = Vec::new();
    if let Some((error, description)) = error {
        parts.push(format!("error=\"{error}\""));
        parts.push(format!("error_description=\"{}\"", quoted(description)));
    }
    if let Some(scope) = scope {
        parts.push(format!("scope=\"{}\"", quoted(scope)));
    }
    parts.push(format!(
        "resource_metadata=\"{}\"",
        quoted(resource_metadata)
    ));
    HeaderValue::try_from(format!("Bearer {}", parts.join(", ")))
        .unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
}

fn answer(status: StatusCode, challenge: HeaderValue, text: String) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::WWW_AUTHENTICATE, challenge);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// `401`: no token (a `Basic` header or a token in the query string count as none).
pub(super) fn no_token(resource_metadata: &str) -> Response {
    answer(
        StatusCode::UNAUTHORIZED,
        challenge(None, None, resource_metadata),
        format!(
            "Unauthorized: this MCP server requires an OAuth access token in \
             `Authorization: Bearer <token>`; how to get one: {resource_metadata}"
        ),
    )
}

/// `401 invalid_token`: a token was sent and refused.
pub(super) fn invalid_token(description: &str, resource_metadata: &str) -> Response {
    answer(
        StatusCode::UNAUTHORIZED,
        challenge(
            Some(("invalid_token", description)),
            None,
            resource_metadata,
        ),
        format!("Unauthorized: {description}"),
    )
}

/// `403 insufficient_scope`, naming every scope the request needs (MCP step-up).
pub(super) fn insufficient_scope(
    required: &[&str],
    missing: &[&str],
    resource_metadata: &str,
) -> Response {
    let description = format!("this call requires the scopes: {}", missing.join(" "));
    answer(
        StatusCode::FORBIDDEN,
        challenge(
            Some(("insufficient_scope", &description)),
            Some(&required.join(" ")),
            resource_metadata,
        ),
        format!("Forbidden: {description}"),
    )
}

/// `503`: tokens cannot be checked now (the issuer's keys could not be fetched).
pub(super) fn unavailable(description: &str, retry_after: Option<Duration>) -> Response {
    let mut response = Response::new(Body::from(format!("Service Unavailable: {description}")));
    *response.status_mut() = StatusCode::SERVICE_UNAVAILABLE;
    if let Some(after) = retry_after {
        let seconds = after.as_secs() + u64::from(after.subsec_nanos() > 0);
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(seconds.max(1)));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges() {
        let c = challenge(
            None,
            None,
            "https://r.example/.well-known/oauth-protected-resource/mcp",
        );
        assert_eq!(
            c,
            "Bearer resource_metadata=\"https://r.example/.well-known/oauth-protected-resource/mcp\""
        );
        let c = challenge(
            Some(("insufficient_scope", "needs \"a\"\n")),
            Some("a b"),
            "m",
        );
        assert_eq!(
            c,
            "Bearer error=\"insufficient_scope\", error_description=\"needs a\", scope=\"a b\", resource_metadata=\"m\""
        );
    }
}
