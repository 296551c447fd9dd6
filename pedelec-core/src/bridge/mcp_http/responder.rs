//! The responder: how an answer to `/mcp` is framed. Plain text and JSON-RPC error
//! responses for refused requests, and the answer to an admitted one, run on the
//! connection's own task: plain JSON when the answer is all there is, server-sent events
//! when the call sends notifications first (progress, logs), the call then driven by the
//! response body itself.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Waker};

use axum::body::Body;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;
use http_body::Frame;
use rmcp::model::{ErrorCode, ErrorData};

use crate::bridge::mcp::shared::{Exchange, Link, Reply, Server};
use crate::bridge::mcp::wire::{self, Message};

pub(super) const JSON: &str = "application/json";
pub(super) const EVENT_STREAM: &str = "text/event-stream";

pub(super) fn plain(status: StatusCode, text: &'static str) -> Response {
    let mut response = Response::new(Body::from(text));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

pub(super) fn json(status: u16, body: Vec<u8>) -> Response {
    let mut response = Response::new(Body::from(body));
    *response.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(JSON));
    response
}

pub(super) fn rpc_error(id: Option<&str>, error: &ErrorData, status: u16) -> Response {
    json(status, wire::error(id, error))
}

pub(super) fn unauthorized() -> Response {
    let mut response = plain(
        StatusCode::UNAUTHORIZED,
        "Unauthorized: this MCP server requires `Authorization: Bearer <token>`",
    );
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// Runs the request on this task: a JSON answer when nothing comes before it, an event
/// stream (driving the rest of the call from the response body) when something does.
pub(super) async fn answer(
    server: Server,
    message: Message,
    link: Arc<HttpLink>,
    exchange: Exchange,
) -> Response {
    let http_link: &HttpLink = &link;
    let handled: Pin<Box<dyn Future<Output = Option<Reply>> + Send>> =
        Box::pin(async move { server.handle(&message, &exchange).await });
    let mut handled = Some(handled);
    let first = std::future::poll_fn(|cx| {
        let Some(future) = handled.as_mut() else {
            return Poll::Ready(None);
        };
        match future.as_mut().poll(cx) {
            Poll::Ready(reply) => Poll::Ready(Some(reply)),
            Poll::Pending if http_link.has_messages(cx.waker()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    })
    .await;
    match first {
        Some(Some(reply)) if !http_link.any_sent() => json(reply.status, reply.body),
        Some(None) if !http_link.any_sent() => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = StatusCode::ACCEPTED;
            response
        }
        Some(reply) => events(link.clone(), None, reply),
        None => events(link.clone(), handled.take(), None),
    }
}

/// An event-stream answer: the notifications so far, then the rest as the call goes.
fn events(
    link: Arc<HttpLink>,
    call: Option<Pin<Box<dyn Future<Output = Option<Reply>> + Send>>>,
    reply: Option<Reply>,
) -> Response {
    let body = Events {
        link,
        call,
        reply: reply.map(|r| r.body),
    };
    let mut response = Response::new(Body::new(body));
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(EVENT_STREAM));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The notifications of a request, until its answer.
#[derive(Default)]
pub(super) struct HttpLink {
    state: Mutex<LinkState>,
}

#[derive(Default)]
struct LinkState {
    queue: VecDeque<Vec<u8>>,
    waker: Option<Waker>,
    sent: bool,
}

impl HttpLink {
    fn lock(&self) -> std::sync::MutexGuard<'_, LinkState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether a notification waits; otherwise `waker` is woken when one comes.
    fn has_messages(&self, waker: &Waker) -> bool {
        let mut state = self.lock();
        if state.queue.is_empty() {
            if !state.waker.as_ref().is_some_and(|w| w.will_wake(waker)) {
                state.waker = Some(waker.clone());
            }
            false
        } else {
            true
        }
    }

    fn any_sent(&self) -> bool {
        let state = self.lock();
        state.sent || !state.queue.is_empty()
    }

    fn pop(&self) -> Option<Vec<u8>> {
        self.lock().queue.pop_front()
    }
}

impl Link for HttpLink {
    fn notify(&self, message: Vec<u8>) {
        let waker = {
            let mut state = self.lock();
            state.queue.push_back(message);
            state.sent = true;
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }

    fn why_no_requests(&self) -> &'static str {
        "a stateless HTTP request cannot carry a request to the client"
    }
}

/// The body of an event-stream answer: drives the call and sends what it sends.
struct Events {
    link: Arc<HttpLink>,
    call: Option<Pin<Box<dyn Future<Output = Option<Reply>> + Send>>>,
    reply: Option<Vec<u8>>,
}

fn event(message: &[u8]) -> Frame<Bytes> {
    let mut out = Vec::with_capacity(message.len() + 24);
    out.extend_from_slice(b"event: message\ndata: ");
    out.extend_from_slice(message);
    out.extend_from_slice(b"\n\n");
    Frame::data(Bytes::from(out))
}

impl http_body::Body for Events {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let link = self.link.clone();
        if let Some(message) = link.pop() {
            return Poll::Ready(Some(Ok(event(&message))));
        }
        if let Some(call) = self.call.as_mut() {
            match call.as_mut().poll(cx) {
                Poll::Ready(reply) => {
                    self.call = None;
                    self.reply = reply.map(|r| r.body);
                }
                Poll::Pending => {
                    if link.has_messages(cx.waker()) {
                        cx.waker().wake_by_ref();
                    }
                    return Poll::Pending;
                }
            }
            if let Some(message) = link.pop() {
                return Poll::Ready(Some(Ok(event(&message))));
            }
        }
        match self.reply.take() {
            Some(reply) => Poll::Ready(Some(Ok(event(&reply)))),
            None => Poll::Ready(None),
        }
    }
}

/// The JSON-RPC error of a request the server could not serve at all.
#[allow(dead_code, reason = "used by the listener's refusals")]
pub(super) fn overloaded(why: &str) -> Vec<u8> {
    wire::error(
        None,
        &ErrorData::new(ErrorCode(-32000), why.to_owned(), None),
    )
}
