//! What every request must pass before its body is read: the `Host` and `Origin` headers
//! against their allow-lists (DNS rebinding), and the bearer token.

use axum::http::{HeaderMap, Uri, header};
use subtle::ConstantTimeEq;

/// A host (lower case, without IPv6 brackets) and its port.
#[derive(Debug, PartialEq, Eq)]
struct Authority {
    host: String,
    port: Option<u16>,
}

fn authority(text: &str) -> Option<Authority> {
    let text = text.trim();
    // An allow-list entry may name a bare IPv6 address (`::1`), which an authority writes
    // in brackets.
    let bracketed;
    let text = if text.parse::<std::net::Ipv6Addr>().is_ok() {
        bracketed = format!("[{text}]");
        bracketed.as_str()
    } else {
        text
    };
    let authority = axum::http::uri::Authority::try_from(text).ok()?;
    Some(Authority {
        host: authority
            .host()
            .trim_matches(|c| c == '[' || c == ']')
            .to_ascii_lowercase(),
        port: authority.port_u16(),
    })
}

/// The allow-lists, parsed once.
#[derive(Clone, Debug)]
pub(super) struct Guard {
    /// Empty: any host.
    hosts: Vec<Authority>,
    origins: Vec<AllowedOrigin>,
}

impl Clone for Authority {
    fn clone(&self) -> Self {
        Authority {
            host: self.host.clone(),
            port: self.port,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum AllowedOrigin {
    Null,
    /// `port: None` for an entry ending in `:*` or without a port (any port).
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

#[derive(Debug, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

fn origin(text: &str) -> Option<Origin> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("null") {
        return Some(Origin::Null);
    }
    let uri = Uri::try_from(text).ok()?;
    let scheme = uri.scheme_str()?.to_ascii_lowercase();
    let authority = uri.authority()?;
    Some(Origin::Tuple {
        scheme,
        host: authority
            .host()
            .trim_matches(|c| c == '[' || c == ']')
            .to_ascii_lowercase(),
        port: authority.port_u16(),
    })
}

fn default_port(scheme: &str) -> Option<u16> {
    match scheme {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// Why a request is refused before its body is read.
pub(super) enum Refusal {
    /// 400: a `Host` header that is not one.
    BadHost,
    /// 403, with what was wrong.
    Forbidden(&'static str),
}

impl Guard {
    pub(super) fn new(hosts: &[String], origins: &[String]) -> Self {
        Guard {
            hosts: hosts.iter().filter_map(|h| authority(h)).collect(),
            origins: origins
                .iter()
                .filter_map(|o| {
                    if let Some(base) = o.trim().strip_suffix(":*") {
                        match origin(base)? {
                            Origin::Tuple {
                                scheme,
                                host,
                                port: None,
                            } => Some(AllowedOrigin::Tuple {
                                scheme,
                                host,
                                port: None,
                            }),
                            _ => None,
                        }
                    } else {
                        Some(match origin(o)? {
                            Origin::Null => AllowedOrigin::Null,
                            Origin::Tuple { scheme, host, port } => AllowedOrigin::Tuple {
                                port: port.or_else(|| default_port(&scheme)),
                                scheme,
                                host,
                            },
                        })
                    }
                })
                .collect(),
        }
    }

    /// `Host` must name an allowed host (any, when the list is empty), and a present
    /// `Origin` an allowed origin (none, when the list is empty).
    pub(super) fn check(&self, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
        let host = match headers.get(header::HOST) {
            Some(value) => value
                .to_str()
                .ok()
                .and_then(authority)
                .ok_or(Refusal::BadHost)?,
            None => match uri.authority() {
                Some(a) => Authority {
                    host: a
                        .host()
                        .trim_matches(|c| c == '[' || c == ']')
                        .to_ascii_lowercase(),
                    port: a.port_u16(),
                },
                None => return Err(Refusal::BadHost),
            },
        };
        let host_ok = self.hosts.is_empty()
            || self
                .hosts
                .iter()
                .any(|a| a.host == host.host && a.port.is_none_or(|p| host.port == Some(p)));
        if !host_ok {
            tracing::warn!(host = %host.host, "MCP over HTTP: a request with a Host not allowed (DNS rebinding?) was refused");
            return Err(Refusal::Forbidden("Forbidden: Host header is not allowed"));
        }
        let Some(value) = headers.get(header::ORIGIN) else {
            return Ok(());
        };
        let Some(origin) = value.to_str().ok().and_then(origin) else {
            return Err(Refusal::Forbidden("Forbidden: Invalid Origin header"));
        };
        let allowed = self.origins.iter().any(|allowed| match (allowed, &origin) {
            (AllowedOrigin::Null, Origin::Null) => true,
            (
                AllowedOrigin::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: s,
                    host: h,
                    port: p,
                },
            ) => {
                scheme == s
                    && host == h
                    && port.is_none_or(|port| p.or_else(|| default_port(s)) == Some(port))
            }
            _ => false,
        });
        if allowed {
            Ok(())
        } else {
            tracing::warn!(origin = ?origin, "MCP over HTTP: a request from an Origin not allowed was refused");
            Err(Refusal::Forbidden(
                "Forbidden: Origin header is not allowed",
            ))
        }
    }
}

/// Whether the request carries `Authorization: Bearer <token>`. The comparison takes the
/// same time whatever the bytes, so response timing cannot reveal a correct prefix of a
/// guessed token (`subtle`'s `ConstantTimeEq`; only the length is not hidden, which tells
/// nothing useful about a random token).
pub(super) fn bearer_matches(headers: &HeaderMap, token: &[u8]) -> bool {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return false;
    };
    let value = value.as_bytes();
    let Some(scheme) = value.get(..7) else {
        return false;
    };
    // The scheme is case-insensitive (RFC 9110 §11.1).
    scheme.eq_ignore_ascii_case(b"bearer ") && bool::from(value[7..].ct_eq(token))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, host.parse().unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, o.parse().unwrap());
        }
        h
    }

    #[test]
    fn hosts_and_origins_are_matched_as_browsers_send_them() {
        let guard = Guard::new(
            &[
                "localhost".into(),
                "127.0.0.1".into(),
                "::1".into(),
                "example.com:8080".into(),
            ],
            &[
                "http://localhost:*".into(),
                "https://app.example.com".into(),
            ],
        );
        let uri = Uri::from_static("/mcp");
        assert!(guard.check(&uri, &headers("localhost:1234", None)).is_ok());
        assert!(guard.check(&uri, &headers("[::1]:80", None)).is_ok());
        assert!(
            guard
                .check(&uri, &headers("example.com:8080", None))
                .is_ok()
        );
        assert!(
            guard
                .check(&uri, &headers("example.com:8081", None))
                .is_err()
        );
        assert!(guard.check(&uri, &headers("evil.com", None)).is_err());
        assert!(
            guard
                .check(&uri, &headers("localhost", Some("http://localhost:3000")))
                .is_ok()
        );
        assert!(
            guard
                .check(
                    &uri,
                    &headers("localhost", Some("https://app.example.com:443"))
                )
                .is_ok()
        );
        assert!(
            guard
                .check(
                    &uri,
                    &headers("localhost", Some("https://app.example.com:444"))
                )
                .is_err()
        );
        assert!(
            guard
                .check(&uri, &headers("localhost", Some("http://evil.com")))
                .is_err()
        );
        assert!(
            guard
                .check(&uri, &headers("localhost", Some("null")))
                .is_err()
        );
        let open = Guard::new(&[], &[]);
        assert!(open.check(&uri, &headers("anything", None)).is_ok());
        assert!(
            open.check(&uri, &headers("anything", Some("http://x")))
                .is_err()
        );
    }
}
