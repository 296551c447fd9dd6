//! The URLs of an OAuth deployment, checked before anything is served: the resource (the
//! audience), the issuer, the JWKS; and the RFC 9728 / RFC 8414 well-known URLs built from
//! them.

use std::net::IpAddr;

use axum::http::Uri;

/// An absolute `https://` URL (or `http://` on a loopback host), without a fragment; `what`
/// names it in the error (`"the resource"`). Its query must be empty when `no_query`.
pub(super) fn checked(what: &str, url: &str, no_query: bool) -> Result<Uri, String> {
    if url.is_empty() {
        return Err(format!("{what} is empty"));
    }
    if url.contains('#') {
        return Err(format!(
            "{what} `{url}` has a fragment (`#…`), which it may not"
        ));
    }
    let uri: Uri = url
        .parse()
        .map_err(|e| format!("{what} `{url}` is not an absolute URL (`https://host/…`): {e}"))?;
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return Err(format!(
            "{what} `{url}` is not an absolute URL (`https://host/…`)"
        ));
    };
    match scheme {
        "https" => {}
        "http" if is_loopback(authority.host()) => {}
        "http" => {
            return Err(format!(
                "{what} `{url}` is `http://` on a host that is not loopback: only `https://` \
                 is accepted there (tokens and keys would travel in the clear)"
            ));
        }
        other => {
            return Err(format!(
                "{what} `{url}` has the scheme `{other}`, not `https`"
            ));
        }
    }
    if no_query && uri.query().is_some() {
        return Err(format!(
            "{what} `{url}` has a query (`?…`), which it may not"
        ));
    }
    Ok(uri)
}

/// `localhost`, `127.0.0.0/8`, `::1` (a host as `Uri` gives it: IPv6 in brackets).
pub(super) fn is_loopback(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The path of `uri` without its trailing `/` (`""` for the root).
fn path_of(uri: &Uri) -> &str {
    uri.path().trim_end_matches('/')
}

/// `scheme://authority`.
fn origin_of(uri: &Uri) -> String {
    format!(
        "{}://{}",
        uri.scheme_str().unwrap_or("https"),
        uri.authority().map_or("", |a| a.as_str())
    )
}

/// The well-known path of RFC 9728 protected resource metadata.
pub(super) const RESOURCE_METADATA: &str = "/.well-known/oauth-protected-resource";

/// Where the resource's metadata is (RFC 9728 §3.1: the well-known path inserted between
/// the host and the resource's path): `https://host/.well-known/oauth-protected-resource/mcp`
/// for `https://host/mcp`.
pub(super) fn resource_metadata_url(resource: &Uri) -> String {
    format!(
        "{}{RESOURCE_METADATA}{}",
        origin_of(resource),
        path_of(resource)
    )
}

/// The paths this server answers with the resource's metadata: the root form and, when the
/// resource has a path, the path form (`/.well-known/oauth-protected-resource/mcp`).
pub(super) fn resource_metadata_paths(resource: &Uri) -> Vec<String> {
    let mut paths = vec![RESOURCE_METADATA.to_owned()];
    let path = path_of(resource);
    if !path.is_empty() {
        paths.push(format!("{RESOURCE_METADATA}{path}"));
    }
    paths
}

/// Where the issuer's metadata may be, in the order MCP clients try them: RFC 8414 (the
/// well-known path inserted before the issuer's path), then OIDC discovery
/// (inserted, then appended).
pub(super) fn discovery_urls(issuer: &Uri) -> Vec<String> {
    let origin = origin_of(issuer);
    let path = path_of(issuer);
    let mut urls = vec![
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{origin}/.well-known/openid-configuration{path}"),
    ];
    if !path.is_empty() {
        urls.push(format!("{origin}{path}/.well-known/openid-configuration"));
    }
    urls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_https_or_loopback_http() {
        assert!(checked("the issuer", "https://auth.example.com", true).is_ok());
        assert!(checked("the issuer", "http://127.0.0.1:9000/realm", true).is_ok());
        assert!(checked("the issuer", "http://localhost:9000", true).is_ok());
        assert!(checked("the issuer", "http://[::1]:9000", true).is_ok());
        let e = checked("the issuer", "http://auth.example.com", true).unwrap_err();
        assert!(e.contains("only `https://`"), "{e}");
        assert!(checked("the issuer", "https://a.example/?x=1", true).is_err());
        assert!(checked("the resource", "https://a.example/mcp#x", false).is_err());
        assert!(checked("the resource", "/mcp", false).is_err());
        assert!(checked("the resource", "", false).is_err());
        assert!(checked("the resource", "ftp://a.example", false).is_err());
    }

    #[test]
    fn well_known_urls() {
        let resource: Uri = "https://tools.example.com/mcp".parse().unwrap();
        assert_eq!(
            resource_metadata_url(&resource),
            "https://tools.example.com/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            resource_metadata_paths(&resource),
            [
                "/.well-known/oauth-protected-resource",
                "/.well-known/oauth-protected-resource/mcp"
            ]
        );
        let root: Uri = "https://tools.example.com/".parse().unwrap();
        assert_eq!(resource_metadata_paths(&root).len(), 1);
        let issuer: Uri = "https://auth.example.com/tenant".parse().unwrap();
        assert_eq!(
            discovery_urls(&issuer),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant",
                "https://auth.example.com/.well-known/openid-configuration/tenant",
                "https://auth.example.com/tenant/.well-known/openid-configuration",
            ]
        );
        let issuer: Uri = "https://auth.example.com".parse().unwrap();
        assert_eq!(discovery_urls(&issuer).len(), 2);
    }
}
