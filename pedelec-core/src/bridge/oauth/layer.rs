//! [`OAuthLayer`] as a tower layer: every request is answered (metadata, challenge) or
//! passed on with its caller.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::{HeaderMap, Method, header};
use axum::response::{IntoResponse, Response};
use tower_layer::Layer;
use tower_service::Service;

use super::{OAuthLayer, challenge};
use crate::context::Caller;

impl<S> Layer<S> for OAuthLayer {
    type Service = OAuthService<S>;

    fn layer(&self, inner: S) -> OAuthService<S> {
        OAuthService {
            auth: self.clone(),
            inner,
        }
    }
}

/// The service of an [`OAuthLayer`] around `S`.
#[derive(Clone, Debug)]
pub struct OAuthService<S> {
    auth: OAuthLayer,
    inner: S,
}

impl<S> Service<Request> for OAuthService<S>
where
    S: Service<Request, Error = Infallible> + Clone + Send + 'static,
    S::Response: IntoResponse,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        // The clone that was made ready is the one called (tower's usual swap).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let auth = self.auth.clone();
        Box::pin(async move {
            let admitted = auth
                .admit(request.method(), request.uri().path(), request.headers())
                .await;
            match admitted {
                Ok(caller) => {
                    request.extensions_mut().insert(caller);
                    Ok(inner.call(request).await?.into_response())
                }
                Err(answer) => Ok(answer),
            }
        })
    }
}

impl OAuthLayer {
    /// The caller of `request`, or the answer it gets instead.
    pub(crate) async fn admit(
        &self,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
    ) -> Result<Arc<Caller>, Response> {
        let inner = &self.inner;
        if matches!(*method, Method::GET | Method::HEAD)
            && inner.metadata_paths.iter().any(|p| p == path)
        {
            return Err(challenge::metadata_response(&inner.metadata));
        }
        let Some(token) = bearer_token(headers) else {
            return Err(challenge::no_token(&inner.metadata_url));
        };
        match self.verify(token).await {
            Ok(caller) => Ok(Arc::new(caller)),
            Err(rejection) if rejection.is_unavailable() => Err(challenge::unavailable(
                rejection.description(),
                rejection.retry_after,
            )),
            Err(rejection) => Err(challenge::invalid_token(
                rejection.description(),
                &inner.metadata_url,
            )),
        }
    }
}

/// The token of `Authorization: Bearer <token>` (the scheme in any case). Another scheme
/// (`Basic`), no header, or a token in the query string (never read: RFC 9700 forbids it
/// for access tokens) give none; an empty or malformed one is still a token (refused).
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.as_bytes();
    let scheme = value.get(..7)?;
    if !scheme.eq_ignore_ascii_case(b"bearer ") {
        return None;
    }
    // Not visible ASCII: the token is refused by the checks, as any malformed one.
    Some(
        std::str::from_utf8(&value[7..])
            .unwrap_or("")
            .trim_matches(' '),
    )
}
