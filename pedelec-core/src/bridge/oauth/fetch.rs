//! GETs of small JSON documents (the issuer's metadata, its JWKS) with hyper's client over
//! rustls: `https://` with the platform's roots (or `http://` on loopback, checked before),
//! no redirects followed, a timeout and a size limit.

use std::time::Duration;

use axum::body::Bytes;
use axum::http::{Request, StatusCode, header};
use http_body_util::{BodyExt, Empty, Limited};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;

/// The largest document accepted: a JWKS of a few dozen keys is a few kB.
const MAX_BYTES: usize = 512 * 1024;
/// How long one GET may take, connection included.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The client the keys and metadata are fetched with (cheap to clone).
#[derive(Clone)]
pub(super) struct Fetcher {
    client: Client<HttpsConnector<HttpConnector>, Empty<Bytes>>,
}

impl Fetcher {
    /// A client trusting the platform's root certificates.
    pub(super) fn new() -> Result<Self, String> {
        let connector = HttpsConnectorBuilder::new()
            .with_provider_and_platform_verifier(rustls::crypto::ring::default_provider())
            .map_err(|e| format!("cannot set up TLS with the platform's roots: {e}"))?
            // `http://` is reached only on loopback: the URLs are checked before.
            .https_or_http()
            .enable_http1()
            .build();
        let client = Client::builder(TokioExecutor::new()).build(connector);
        Ok(Fetcher { client })
    }

    /// The JSON document at `url` (a `200` answer with a JSON body), or why not.
    pub(super) async fn json(&self, url: &str) -> Result<Value, String> {
        let request = Request::get(url)
            .header(header::ACCEPT, "application/json")
            .header(
                header::USER_AGENT,
                concat!("pedelec/", env!("CARGO_PKG_VERSION")),
            )
            .body(Empty::new())
            .map_err(|e| format!("`{url}` is not a URL to GET: {e}"))?;
        let fetched = async {
            let response = self
                .client
                .request(request)
                .await
                .map_err(|e| format!("GET `{url}` failed: {}", chain(&e)))?;
            let status = response.status();
            if status != StatusCode::OK {
                return Err(format!("GET `{url}` answered {status}"));
            }
            let body = Limited::new(response.into_body(), MAX_BYTES)
                .collect()
                .await
                .map_err(|e| format!("GET `{url}`: reading the body failed: {e}"))?
                .to_bytes();
            serde_json::from_slice(&body)
                .map_err(|e| format!("GET `{url}` did not answer JSON: {e}"))
        };
        tokio::time::timeout(TIMEOUT, fetched)
            .await
            .map_err(|_| format!("GET `{url}` took longer than {}s", TIMEOUT.as_secs()))?
    }
}

/// An error with its sources (hyper's top-level message is only "client error").
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(e) = source {
        text.push_str(": ");
        text.push_str(&e.to_string());
        source = e.source();
    }
    text
}
