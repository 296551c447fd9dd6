//! [`Mcp`]: the MCP stdio transport (one JSON-RPC message per line, both ways), served by
//! the protocol core with the JSON Lines bridge's reader and output queue.
//!
//! Requests are read and answered as they come, many in flight: a call that finishes in
//! its first poll is answered from the reader, one that waits gets a task of its own.
//! `notifications/cancelled` cancels a call in flight. A handler's requests to the client
//! (elicitation, sampling, roots over 2025-11-25) go out as requests with ids of the form
//! `"pedelec-N"`; the client's responses are routed back to them.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use bytes::Bytes;
use rmcp::model::ErrorData;
use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::oneshot;

use super::meta::TraceParent;
use super::shared::{Connection, Exchange, Link, Reply, Server, Settings, TraceSpanFn};
use super::wire::{self, Kind, Message, Method};
use crate::bridge::json_lines::framing::{Line, LineReader, too_deep};
use crate::bridge::json_lines::queue::{
    CancelAll, Inflight, OutQueue, PendingGuard, ReaderDone, Stop, answer_here_or_spawn, finish,
    write_loop,
};
use crate::context::{Caller, Cancellation, InputError, InputFuture};
use crate::error::Error;
use crate::session::{Bridge, Session};

const DEFAULT_MAX_LINE_BYTES: usize = 4 << 20;
const DEFAULT_MAX_DEPTH: usize = 128;
const DEFAULT_MAX_IN_FLIGHT: usize = 1024;
/// The most bytes of requests in flight at once on one connection: what a connection
/// holds while its calls run is bounded by this, not by 1,024 × the longest line.
const DEFAULT_MAX_IN_FLIGHT_BYTES: usize = 16 << 20;
const DEFAULT_MAX_QUEUED_BYTES: usize = 4 << 20;

/// The MCP bridge over a reader and a writer: `Mcp::stdio()` for a server started by an MCP
/// client, `Mcp::from_parts(reader, writer)` for anything else.
///
/// ```no_run
/// # async fn run(session: pedelec_core::Session) -> Result<(), pedelec_core::Error> {
/// session.serve(pedelec_core::bridge::Mcp::stdio()).await
/// # }
/// ```
///
/// Limits: a line is at most 4 MiB ([`max_line_bytes`](Self::max_line_bytes)); at most
/// 1,024 requests, and 16 MiB of them, are in flight (more are answered with an error at
/// once); the answers waiting for the client to read them are at most 4 MiB before the
/// bridge stops reading. A connection thus holds about 20 MiB at most, whatever its
/// client sends.
pub struct Mcp<R, W> {
    reader: R,
    writer: W,
    settings: Settings,
    max_line_bytes: usize,
    caller: Option<Arc<Caller>>,
}

impl<R, W> std::fmt::Debug for Mcp<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mcp")
            .field("settings", &self.settings)
            .field("max_line_bytes", &self.max_line_bytes)
            .field("caller", &self.caller)
            .finish_non_exhaustive()
    }
}

impl Mcp<tokio::io::Stdin, tokio::io::Stdout> {
    /// Over the process's standard input and output (the MCP stdio transport).
    #[must_use]
    pub fn stdio() -> Self {
        Mcp::from_parts(tokio::io::stdin(), tokio::io::stdout())
    }
}

impl<R, W> Mcp<R, W> {
    /// Over a separate reader (messages from the client) and writer.
    pub fn from_parts(reader: R, writer: W) -> Self {
        Mcp {
            reader,
            writer,
            settings: Settings::default(),
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            caller: None,
        }
    }

    /// The caller of every call on this connection (`ctx.caller()`; scopes and per-caller
    /// rate limits apply to it). The stdio transport has no tokens: the client that
    /// started this process is trusted to be who you say. Without one, calls are
    /// anonymous: `tools/list` shows only the tools without scopes, and a call of a tool
    /// with scopes answers `TOOL_FORBIDDEN`. A local server started by the user's own
    /// MCP host usually trusts it with everything:
    /// `Mcp::stdio().caller(Caller::new("local").with_every_scope())`.
    #[must_use]
    pub fn caller(mut self, caller: impl Into<Arc<Caller>>) -> Self {
        self.caller = Some(caller.into());
        self
    }

    /// The longest message accepted, in bytes (4 MiB by default); a longer line is
    /// answered with a `-32600` error without being buffered.
    #[must_use]
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes.max(1);
        self
    }

    /// The key that signs the `requestState` of input-required results (2026-07-28):
    /// the same on every process that may receive a client's retry. By default a random
    /// key per process.
    #[must_use]
    pub fn request_state_key(mut self, key: impl Into<Vec<u8>>) -> Self {
        self.settings.request_state_key = Some(Arc::from(key.into()));
        self
    }

    /// How long a `requestState` stays valid (10 minutes by default): a client's retry
    /// after that is refused, and an approval given in it (`#[tool(approval)]`) with it.
    #[must_use]
    pub fn request_state_ttl(mut self, ttl: std::time::Duration) -> Self {
        self.settings.request_state_ttl = ttl;
        self
    }

    /// Whether deferred tools (`#[tool(defer)]`) leave `tools/list` for `search_tools` (the
    /// full definitions of the tools that match a query) and `call_tool` (a call of one by
    /// name, under the same policy as any call): yes by default; `false` lists every tool.
    #[must_use]
    pub fn search(mut self, search: bool) -> Self {
        self.settings.search = search;
        self
    }

    /// The name and version the server gives in `initialize` (`serverInfo`). By default,
    /// the name and version of the crate whose `skills![]` declared the skill set (Cargo's
    /// `CARGO_PKG_NAME` and `CARGO_PKG_VERSION`), else `pedelec`'s.
    #[must_use]
    pub fn server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.settings.identity.name = Some(name.into());
        self.settings.identity.version = Some(version.into());
        self
    }

    /// A human-readable title for the server (`serverInfo.title`, shown by hosts); none by
    /// default.
    #[must_use]
    pub fn server_title(mut self, title: impl Into<String>) -> Self {
        self.settings.identity.title = Some(title.into());
        self
    }

    /// The `instructions` of `initialize`: how to use the server, which hosts may add to the
    /// model's context. By default, the skill set's guidance.
    #[must_use]
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.settings.identity.instructions = Some(instructions.into());
        self
    }

    /// Makes a span around a call from the W3C `traceparent` its request carried in
    /// `_meta` (the call's `tools/call` span is its child). Without it, the `tools/call`
    /// span keeps the parent as `trace_id`, `parent_span_id` and `traceparent` fields, and
    /// with the feature `otel` it is the span's OpenTelemetry parent (see the README).
    #[must_use]
    pub fn trace_span(
        mut self,
        make: impl Fn(&TraceParent) -> tracing::Span + Send + Sync + 'static,
    ) -> Self {
        self.settings.trace_span = Some(Arc::new(make) as TraceSpanFn);
        self
    }
}

impl<R, W> Bridge for Mcp<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    fn serve<N: 'static>(
        self,
        session: Session<N>,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        serve(self, session.untyped())
    }
}

/// The requests this bridge sent to the client, waiting for its answers.
#[derive(Default)]
struct Requests {
    next: AtomicU64,
    waiting: Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>,
}

struct StdioLink {
    queue: Arc<OutQueue>,
    requests: Arc<Requests>,
}

impl Link for StdioLink {
    fn notify(&self, message: Vec<u8>) {
        // Dropped when the client reads too slowly or is gone, as JSON Lines progress is.
        let queue = &self.queue;
        let dropped = std::sync::atomic::AtomicBool::new(false);
        queue.push_progress(&dropped, |out| {
            out.extend_from_slice(&message);
            out.push(b'\n');
        });
    }

    fn request(&self, method: &'static str, params: Value) -> Option<InputFuture> {
        let n = self.requests.next.fetch_add(1, Ordering::Relaxed);
        let (answer, answered) = oneshot::channel();
        self.requests
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(n, answer);
        let id = format!("\"pedelec-{n}\"");
        let sent = self.queue.push(None, false, |out| {
            out.extend_from_slice(&wire::request(&id, method, &params));
            out.push(b'\n');
        });
        if let Err((why, _)) = sent {
            return Some(Box::pin(std::future::ready(Err(InputError::Failed(why)))));
        }
        Some(Box::pin(async move {
            match answered.await {
                Ok(Ok(result)) => Ok(result),
                Ok(Err(error)) => Err(InputError::Failed(format!(
                    "the client answered with an error: {error}"
                ))),
                Err(_) => Err(InputError::Failed(
                    "the client went away before answering".into(),
                )),
            }
        }))
    }
}

impl Requests {
    /// Routes the client's response to the request it answers.
    fn answer(&self, message: &Message) {
        let Some(n) = message.id().and_then(wire::json_str).and_then(|id| {
            id.strip_prefix("pedelec-")
                .and_then(|n| n.parse::<u64>().ok())
        }) else {
            return;
        };
        let waiting = self
            .waiting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&n);
        if let Some(waiting) = waiting {
            let answer = match message.response() {
                Ok(result) => serde_json::from_str(result).map_err(|e| e.to_string()),
                Err(error) => Err(error.to_owned()),
            };
            let _ = waiting.send(answer);
        }
    }
}

async fn serve<R, W>(bridge: Mcp<R, W>, session: Session) -> Result<(), Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let server = Server::new(&session, bridge.settings);
    let inflight = Arc::new(Inflight::default());
    let stop = Arc::new(Stop::default());
    let queue = Arc::new(OutQueue::new(DEFAULT_MAX_QUEUED_BYTES));
    let _reader_done = ReaderDone(queue.clone());
    let _cancel_all = CancelAll(inflight.clone());
    let requests = Arc::new(Requests::default());
    let link: Arc<dyn Link> = Arc::new(StdioLink {
        queue: queue.clone(),
        requests: requests.clone(),
    });
    // A mounted remote re-listed its tools: the client is told (it declared nothing to
    // receive it, and needs nothing: a notification it may ignore).
    let list_changed = session.has_mounts().then(|| {
        let queue = queue.clone();
        let mut events = session.events();
        tokio::spawn(async move {
            while let Some(event) = futures_core_next(&mut events).await {
                if matches!(event, crate::session::SessionEvent::ToolsChanged { .. })
                    && queue
                        .push(None, false, |out| {
                            out.extend_from_slice(
                                b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n",
                            );
                        })
                        .is_err()
                {
                    return;
                }
            }
        })
    });
    let _stop_list_changed = list_changed.map(AbortOnDrop);
    let writer = tokio::spawn(write_loop(
        bridge.writer,
        queue.clone(),
        session.clone(),
        stop.clone(),
    ));
    let mut reader = Reader {
        lines: LineReader {
            inner: BufReader::with_capacity(64 * 1024, bridge.reader),
            max: bridge.max_line_bytes,
            line: Vec::new(),
            len: 0,
            too_long: false,
        },
        server,
        connection: Arc::new(Connection::default()),
        link,
        requests,
        inflight,
        inflight_bytes: Arc::default(),
        queue: queue.clone(),
        session: session.clone(),
        caller: bridge.caller,
    };
    let read = reader.run(&stop).await;
    finish(&queue, read, writer, "the MCP client").await
}

struct Reader<R> {
    lines: LineReader<R>,
    server: Server,
    connection: Arc<Connection>,
    link: Arc<dyn Link>,
    requests: Arc<Requests>,
    inflight: Arc<Inflight>,
    /// Bytes of the requests in flight.
    inflight_bytes: Arc<std::sync::atomic::AtomicUsize>,
    queue: Arc<OutQueue>,
    session: Session,
    /// The caller of every call (`Mcp::caller`).
    caller: Option<Arc<Caller>>,
}

enum Wake {
    Stop,
    Closed,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    async fn run(&mut self, stop: &Stop) -> io::Result<()> {
        let mut stopped = std::pin::pin!(stop.notify.notified());
        let mut closed = std::pin::pin!(self.session.closed());
        loop {
            self.queue.room().await;
            let line = self
                .lines
                .next(|cx| {
                    if stopped.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(Wake::Stop);
                    }
                    if closed.as_mut().poll(cx).is_ready() {
                        return Poll::Ready(Wake::Closed);
                    }
                    Poll::Pending
                })
                .await;
            if stop.stopped.load(Ordering::Acquire) {
                self.inflight.cancel_all();
                return Ok(());
            }
            match line {
                Ok(Err(Wake::Stop)) => {}
                Ok(Ok(Line::Eof) | Err(Wake::Closed)) => return Ok(()),
                Ok(Ok(Line::TooLong(len))) => {
                    let max = self.lines.max;
                    self.error(
                        None,
                        &ErrorData::invalid_request(
                            format!("Invalid Request: the message is {len} bytes long, over the limit of {max} bytes"),
                            None,
                        ),
                    );
                }
                Ok(Ok(Line::Text(bytes))) => self.handle(bytes).await,
                Err(e) => return Err(e),
            }
        }
    }

    fn error(&self, id: Option<&str>, error: &ErrorData) {
        let _ = self.queue.push(None, false, |out| {
            out.extend_from_slice(&wire::error(id, error));
            out.push(b'\n');
        });
    }

    async fn handle(&mut self, bytes: Vec<u8>) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        if too_deep(&bytes, DEFAULT_MAX_DEPTH) {
            return self.error(
                None,
                &ErrorData::invalid_request(
                    format!(
                        "Invalid Request: the message nests deeper than {DEFAULT_MAX_DEPTH} levels"
                    ),
                    None,
                ),
            );
        }
        let size = bytes.len();
        let message = match Message::parse(Bytes::from(bytes)) {
            Ok(message) => message,
            Err(unreadable) => {
                return self.error(
                    unreadable
                        .id
                        .as_deref()
                        .map(serde_json::value::RawValue::get),
                    &unreadable.error,
                );
            }
        };
        match message.kind {
            Kind::Response => return self.requests.answer(&message),
            Kind::Notification => {
                if message.method == Method::Cancelled
                    && let Some(request) = message.raw(&message.params.request_id)
                {
                    let found = self.inflight.lock().get(request).cloned();
                    if let Some(cancel) = found {
                        cancel.cancel();
                    }
                }
                return;
            }
            Kind::Request => {}
        }
        let Some(id) = message.id().map(Arc::<str>::from) else {
            return;
        };
        let cancel = Cancellation::new();
        let refused = {
            let mut calls = self.inflight.lock();
            if calls.contains_key(&id) {
                Some("Invalid Request: a request with this id is already in flight")
            } else if calls.len() >= DEFAULT_MAX_IN_FLIGHT {
                Some(
                    "Invalid Request: too many requests in flight (at most 1024); send it again once an answer arrives",
                )
            } else if self.inflight_bytes.load(Ordering::Relaxed) + size
                > DEFAULT_MAX_IN_FLIGHT_BYTES
            {
                Some(
                    "Invalid Request: too many bytes of requests in flight (at most 16 MiB); send it again once an answer arrives",
                )
            } else {
                calls.insert(id.clone(), cancel.clone());
                self.inflight_bytes.fetch_add(size, Ordering::Relaxed);
                None
            }
        };
        if let Some(why) = refused {
            return self.error(Some(&id), &ErrorData::invalid_request(why, None));
        }
        let exchange = Exchange {
            connection: Some(self.connection.clone()),
            header_version: None,
            link: self.link.clone(),
            cancellation: Some(cancel),
            caller: self.caller.clone(),
            idempotency_key: None,
        };
        let server = self.server.clone();
        let inflight = self.inflight.clone();
        let inflight_bytes = self.inflight_bytes.clone();
        let queue = self.queue.clone();
        let session = self.session.clone();
        queue.start_call();
        let mut guard = PendingGuard {
            queue: Some(queue.clone()),
        };
        let call = Box::pin(async move {
            let reply: Option<Reply> = server.handle(&message, &exchange).await;
            inflight.lock().remove(&id);
            inflight_bytes.fetch_sub(size, Ordering::Relaxed);
            guard.disarm();
            let tool = (message.method == Method::ToolsCall)
                .then(|| {
                    message
                        .string(&message.params.name)
                        .ok()
                        .flatten()
                        .map(|n| Box::<str>::from(&*n))
                })
                .flatten();
            let pushed = queue.push(tool.map(|t| (id.clone(), t)), true, |out| {
                if let Some(reply) = &reply {
                    out.extend_from_slice(&reply.body);
                    out.push(b'\n');
                }
            });
            if let Err((why, Some((call_id, tool)))) = pushed {
                session.report_undelivered(&call_id, &tool, why);
            }
        });
        answer_here_or_spawn(call).await;
    }
}

/// The next item of a stream, without a combinator crate.
async fn futures_core_next<S: futures_core::Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
    std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
}

/// Ends a spawned task when dropped.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
