//! Accepting connections and serving them over HTTP/1.1 (hyper), with the limits a server
//! facing slow or hostile clients needs:
//!
//! - a connection cap: past `max_connections`, a connection is answered `503 Service
//!   Unavailable` (`Retry-After: 1`, a JSON-RPC error saying why) and closed;
//! - a header-read timeout: a request's headers must arrive within `header_timeout` of
//!   the connection becoming ready for it (also what closes a kept-alive connection left
//!   idle that long);
//! - a write-stall timeout: a connection whose peer reads nothing for `write_timeout`
//!   while an answer waits to be written is closed (its call cancelled);
//! - the body timeout is the endpoint's (`body_timeout`);
//! - graceful shutdown: on the signal (or once the session's shutdown is over) nothing
//!   more is accepted, idle connections close, requests in flight are answered.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

use crate::bridge::accept::Accept;

/// What each connection serves: a request in, its response out (the endpoint, behind
/// OAuth's layer when there is one).
pub(super) type HttpService = tower::util::BoxCloneSyncService<
    hyper::Request<hyper::body::Incoming>,
    axum::response::Response,
    std::convert::Infallible,
>;

/// The connection-level limits.
#[derive(Clone, Copy, Debug)]
pub(super) struct Limits {
    pub(super) max_connections: usize,
    pub(super) header_timeout: Duration,
    pub(super) write_timeout: Duration,
}

/// Serves `service` on every connection `listener` accepts until `stop` completes, then
/// shuts down gracefully.
pub(super) async fn serve(
    listener: TcpListener,
    service: HttpService,
    limits: Limits,
    stop: impl Future<Output = ()>,
) {
    let (shutdown, shutting_down) = watch::channel(false);
    let accept = Accept {
        bridge: "MCP over HTTP",
        max_connections: limits.max_connections,
        serve: |stream: TcpStream| {
            let service = TowerToHyperService::new(service.clone());
            let mut shutting_down = shutting_down.clone();
            async move {
                let io = TokioIo::new(Stall::new(stream, limits.write_timeout));
                let connection = http1::Builder::new()
                    .timer(TokioTimer::new())
                    .header_read_timeout(limits.header_timeout)
                    .keep_alive(true)
                    .serve_connection(io, service);
                let mut connection = std::pin::pin!(connection);
                let served = tokio::select! {
                    served = connection.as_mut() => served,
                    () = async { let _ = shutting_down.wait_for(|down| *down).await; } => {
                        connection.as_mut().graceful_shutdown();
                        connection.await
                    }
                };
                if let Err(e) = served {
                    tracing::debug!(error = %e, "MCP over HTTP: a connection ended");
                }
            }
        },
        refuse,
    };
    accept
        .run(listener, stop, || {
            let _ = shutdown.send(true);
        })
        .await;
}

/// Tells a connection over the cap why it is closed (within a second), and closes it:
/// its request's head is read first (up to 16 KiB), so that the client reads the `503` as
/// the answer to its request.
async fn refuse(mut stream: TcpStream, max: usize) {
    use tokio::io::AsyncReadExt;
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        let mut head = Vec::with_capacity(1024);
        let mut buf = [0; 4096];
        while head.len() < 16 * 1024 && !head.windows(4).any(|w| w == b"\r\n\r\n") {
            match stream.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => head.extend_from_slice(&buf[..n]),
            }
        }
    })
    .await;
    let body = super::responder::overloaded(&format!(
        "the server serves at most {max} connections at once; try again shortly"
    ));
    let mut response = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    response.extend_from_slice(&body);
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(&response).await?;
        stream.shutdown().await
    })
    .await;
}

/// A stream whose writes fail once they have made no progress for `timeout`: a peer that
/// stops reading cannot hold a connection (and the call behind it) forever.
pub(super) struct Stall<S> {
    inner: S,
    timeout: Duration,
    /// Armed while a write waits; reset whenever one makes progress.
    deadline: Option<Pin<Box<Sleep>>>,
}

impl<S> Stall<S> {
    pub(super) fn new(inner: S, timeout: Duration) -> Self {
        Stall {
            inner,
            timeout,
            deadline: None,
        }
    }

    /// A write that could not proceed: armed (or still running) deadline; `Err` once past.
    fn stalled(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let timeout = self.timeout;
        let deadline = self
            .deadline
            .get_or_insert_with(|| Box::pin(tokio::time::sleep_until(Instant::now() + timeout)));
        match deadline.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("the peer read nothing for {} ms", timeout.as_millis()),
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for Stall<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Stall<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write(cx, buf) {
            Poll::Ready(result) => {
                self.deadline = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.stalled(cx),
        }
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match Pin::new(&mut self.inner).poll_write_vectored(cx, bufs) {
            Poll::Ready(result) => {
                self.deadline = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.stalled(cx),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match Pin::new(&mut self.inner).poll_flush(cx) {
            Poll::Ready(result) => {
                self.deadline = None;
                Poll::Ready(result)
            }
            Poll::Pending => self.stalled(cx).map(|r| r.map(|_| ())),
        }
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// The request body as the endpoint reads it: when dropped before its end (the request
/// was answered without it: refused, or the body over its limit), the rest is handed
/// back through `left`, for [`answered_after_body`] to read before the answer goes out.
struct Tracked {
    body: Option<hyper::body::Incoming>,
    left: Arc<Mutex<Option<hyper::body::Incoming>>>,
}

impl http_body::Body for Tracked {
    type Data = bytes::Bytes;
    type Error = hyper::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        match self.body.as_mut() {
            Some(body) => Pin::new(body).poll_frame(cx),
            None => Poll::Ready(None),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body
            .as_ref()
            .is_none_or(http_body::Body::is_end_stream)
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.as_ref().map_or_else(
            || http_body::SizeHint::with_exact(0),
            http_body::Body::size_hint,
        )
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        if let Some(body) = self.body.take()
            && !http_body::Body::is_end_stream(&body)
        {
            *self.left.lock().unwrap_or_else(PoisonError::into_inner) = Some(body);
        }
    }
}

/// The axum-level service [`answered_after_body`] wraps.
pub(super) type AxumService = tower::util::BoxCloneSyncService<
    axum::extract::Request,
    axum::response::Response,
    std::convert::Infallible,
>;

/// Answers each request only once its body has been read to the end, so that the
/// connection stays usable: a request refused before its body was read (a refused token,
/// a foreign origin, a wrong method) would otherwise leave the body's bytes unread, and
/// hyper, finding them not yet arrived, closes the connection after a response that said
/// nothing of it — a kept-alive client sending its next request there gets no answer at
/// all. The rest of such a body is read (at most `max_body_bytes` more, within
/// `body_timeout`); when it cannot be, the response says `Connection: close` before the
/// connection closes. A request whose body was read costs one check of an `Option`.
pub(super) fn answered_after_body(
    inner: AxumService,
    max_body_bytes: usize,
    body_timeout: Duration,
) -> HttpService {
    HttpService::new(tower::service_fn(
        move |request: hyper::Request<hyper::body::Incoming>| {
            let inner = inner.clone();
            async move {
                use tower::ServiceExt as _;
                let left = Arc::new(Mutex::new(None));
                let request = request.map(|body| {
                    axum::body::Body::new(Tracked {
                        body: Some(body),
                        left: left.clone(),
                    })
                });
                let Ok(mut response) = inner.oneshot(request).await;
                let rest = left.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some(rest) = rest
                    && !drain(rest, max_body_bytes, body_timeout).await
                {
                    response.headers_mut().insert(
                        axum::http::header::CONNECTION,
                        axum::http::HeaderValue::from_static("close"),
                    );
                }
                Ok(response)
            }
        },
    ))
}

/// Reads the rest of a body and lets it go: `true` once it ended within `max` bytes and
/// `timeout`.
async fn drain(body: hyper::body::Incoming, max: usize, timeout: Duration) -> bool {
    use http_body_util::BodyExt as _;
    let read =
        tokio::time::timeout(timeout, http_body_util::Limited::new(body, max).collect()).await;
    matches!(read, Ok(Ok(_)))
}
