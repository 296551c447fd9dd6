//! The JSON Lines bridge: one JSON message per line, both ways (`docs/protocol.md`).
//!
//! The session writes the manifest first, then reads `tool_call` and `cancel` messages and
//! writes a `tool_result` for every call (after its `tool_progress` messages, if the handler
//! reports progress), many in flight at once. Every line it cannot use
//! (not JSON, not a message, too long, nested too deep, an unknown message type, a cancel
//! of an unknown call) is answered with a `protocol_error` line; the session keeps serving.

use std::borrow::Cow;
use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::io;
use std::ops::Range;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::task::JoinSet;

// Public API only: a bridge of a user's own can do all this.
use crate::context::{Cancellation, ProgressSink, ProgressUpdate};
use crate::error::{Error, ErrorCode, describe_value};
use crate::session::{Bridge, CallOptions, Session};

/// The version of the protocol, sent in the manifest message.
pub const PROTOCOL_VERSION: u32 = 1;

const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;
const DEFAULT_MAX_DEPTH: usize = 64;
const DEFAULT_MAX_CALLS_IN_FLIGHT: usize = 1024;
const DEFAULT_MAX_QUEUED_BYTES: usize = 4 << 20;
const DEFAULT_MAX_CONNECTIONS: usize = 256;
const DEFAULT_TCP_IDLE_TIMEOUT: Duration = Duration::from_mins(5);

/// The limits of one connection (`docs/protocol.md`, "Limits").
#[derive(Clone, Copy, Debug)]
struct Limits {
    max_line_bytes: usize,
    max_depth: usize,
    max_calls_in_flight: usize,
    max_queued_bytes: usize,
    idle_timeout: Option<Duration>,
}

impl Limits {
    const DEFAULT: Limits = Limits {
        max_line_bytes: DEFAULT_MAX_LINE_BYTES,
        max_depth: DEFAULT_MAX_DEPTH,
        max_calls_in_flight: DEFAULT_MAX_CALLS_IN_FLIGHT,
        max_queued_bytes: DEFAULT_MAX_QUEUED_BYTES,
        idle_timeout: None,
    };
}

/// The setters of [`Limits`], on [`JsonLines`] and [`JsonLinesListener`].
macro_rules! limit_setters {
    () => {
        /// The longest line accepted, in bytes (default 1 MiB); a longer one is answered
        /// with `LINE_TOO_LONG` without being buffered.
        #[must_use]
        pub fn max_line_bytes(mut self, bytes: usize) -> Self {
            self.limits.max_line_bytes = bytes;
            self
        }

        /// The deepest nesting of arrays and objects accepted in a message, counting the
        /// message object itself (default 64); a deeper one is answered with
        /// `NESTING_TOO_DEEP`. Args nested deeper than 127 levels are never accepted (they
        /// are `TOOL_ARGS_INVALID`).
        #[must_use]
        pub fn max_depth(mut self, depth: usize) -> Self {
            self.limits.max_depth = depth;
            self
        }

        /// The most calls in flight at once on one connection (default 1024, at least 1):
        /// a `tool_call` beyond it is not run but answered at once with a `protocol_error`
        /// `TOO_MANY_CALLS` naming the limit (and no `tool_result`). Reading goes on, so
        /// `cancel`s still arrive.
        #[must_use]
        pub fn max_calls_in_flight(mut self, calls: usize) -> Self {
            self.limits.max_calls_in_flight = calls.max(1);
            self
        }

        /// How many bytes of results and messages may wait for Core to read them (default
        /// 4 MiB): past it, the connection stops reading (so it takes no new call) until
        /// Core has read enough, and `tool_progress` reports are dropped (results never
        /// are). With [`max_calls_in_flight`](Self::max_calls_in_flight), this bounds
        /// what a connection whose Core stops reading can hold.
        #[must_use]
        pub fn max_queued_bytes(mut self, bytes: usize) -> Self {
            self.limits.max_queued_bytes = bytes;
            self
        }

        /// Closes a connection that received no message for `timeout` while no call was
        /// in flight (`None`: never). Checked every `timeout`, so an idle connection is
        /// closed between one and two `timeout`s after its last message or result; it is
        /// told with a `protocol_error` `IDLE_TIMEOUT` first. Default: 300 s for TCP
        /// connections accepted by a server ([`JsonLines::tcp`],
        /// [`JsonLines::listen`]), none for standard input/output, other streams and
        /// [`JsonLines::connect`].
        #[must_use]
        pub fn idle_timeout(mut self, timeout: Option<Duration>) -> Self {
            self.limits.idle_timeout = timeout.filter(|t| !t.is_zero());
            self
        }
    };
}

/// The JSON Lines bridge over a reader and a writer: `JsonLines::stdio()`,
/// `JsonLines::tcp(stream)`, `JsonLines::new(any_stream)` or
/// `JsonLines::from_parts(reader, writer)`.
///
/// ```no_run
/// # async fn demo(session: pedelec_core::Session) -> Result<(), Box<dyn std::error::Error>> {
/// use pedelec_core::bridge::JsonLines;
///
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:7777").await?;
/// loop {
///     let (stream, _) = listener.accept().await?;
///     tokio::spawn(session.serve(JsonLines::tcp(stream)));
/// }
/// # }
/// ```
#[derive(Debug)]
pub struct JsonLines<R, W> {
    reader: R,
    writer: W,
    limits: Limits,
}

impl JsonLines<tokio::io::Stdin, tokio::io::Stdout> {
    /// Over the process's standard input and output (Core started this process).
    #[must_use]
    pub fn stdio() -> Self {
        JsonLines::from_parts(tokio::io::stdin(), tokio::io::stdout())
    }
}

impl JsonLines<OwnedReadHalf, OwnedWriteHalf> {
    /// Over a TCP connection Core made (an idle timeout of 300 s by default).
    #[must_use]
    pub fn tcp(stream: TcpStream) -> Self {
        let (reader, writer) = stream.into_split();
        JsonLines::from_parts(reader, writer).idle_timeout(Some(DEFAULT_TCP_IDLE_TIMEOUT))
    }

    /// Connects to Core listening at `addr` (no idle timeout by default).
    ///
    /// # Errors
    /// When the connection cannot be made.
    pub async fn connect(addr: impl tokio::net::ToSocketAddrs) -> io::Result<Self> {
        Ok(JsonLines::tcp(TcpStream::connect(addr).await?).idle_timeout(None))
    }

    /// Serves every connection Core makes to `listener`, each as [`JsonLines::tcp`] would,
    /// at most 256 at once by default ([`JsonLinesListener::max_connections`]).
    ///
    /// ```no_run
    /// # async fn demo(session: pedelec_core::Session) -> Result<(), Box<dyn std::error::Error>> {
    /// use pedelec_core::bridge::JsonLines;
    ///
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:7777").await?;
    /// session.serve(JsonLines::listen(listener).max_connections(64)).await?;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn listen(listener: TcpListener) -> JsonLinesListener {
        JsonLinesListener {
            listener,
            limits: Limits {
                idle_timeout: Some(DEFAULT_TCP_IDLE_TIMEOUT),
                ..Limits::DEFAULT
            },
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }
}

impl<S: AsyncRead + AsyncWrite> JsonLines<tokio::io::ReadHalf<S>, tokio::io::WriteHalf<S>> {
    /// Over any bidirectional stream (a Unix socket, `tokio::io::duplex`, …).
    #[must_use]
    pub fn new(stream: S) -> Self {
        let (reader, writer) = tokio::io::split(stream);
        JsonLines::from_parts(reader, writer)
    }
}

impl<R, W> JsonLines<R, W> {
    /// Over a separate reader (messages from Core) and writer (messages to Core).
    pub fn from_parts(reader: R, writer: W) -> Self {
        JsonLines {
            reader,
            writer,
            limits: Limits::DEFAULT,
        }
    }

    limit_setters!();
}

/// The JSON Lines bridge over a TCP listener ([`JsonLines::listen`]): serves every
/// connection Core makes, each with the limits set here, at most
/// [`max_connections`](Self::max_connections) at once.
///
/// A connection beyond the limit gets one line, a `protocol_error` `TOO_MANY_CONNECTIONS`,
/// and is closed. Serving ends when the session's [`shutdown`](Session::shutdown) is over
/// (after every connection finished its calls), with `Ok(())`; dropping the future drops
/// every connection's, which cancels their calls in flight (their `TOOL_CANCELLED` results
/// are still written).
#[derive(Debug)]
pub struct JsonLinesListener {
    listener: TcpListener,
    limits: Limits,
    max_connections: usize,
}

impl JsonLinesListener {
    /// The most connections served at once (default 256, at least 1).
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// The address it listens on.
    ///
    /// # Errors
    /// As [`TcpListener::local_addr`].
    pub fn local_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.listener.local_addr()
    }

    limit_setters!();
}

impl Bridge for JsonLinesListener {
    fn serve(self, session: Session) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        serve_listener(self, session)
    }
}

async fn serve_listener(bridge: JsonLinesListener, session: Session) -> Result<(), Error> {
    let JsonLinesListener {
        listener,
        limits,
        max_connections,
    } = bridge;
    let permits = Arc::new(Semaphore::new(max_connections));
    // Dropping the set (this future) drops every connection's future.
    let mut connections = JoinSet::new();
    let mut closed = std::pin::pin!(session.closed());
    loop {
        while connections.try_join_next().is_some() {}
        let accepted = tokio::select! {
            () = &mut closed => break,
            accepted = listener.accept() => accepted,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(e) => {
                // Out of file descriptors, or a connection reset before it was accepted:
                // keep serving the others.
                tracing::warn!(error = %e, "JSON Lines bridge: cannot accept a connection");
                tokio::time::sleep(Duration::from_millis(10)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            connections.spawn(refuse(stream, max_connections));
            continue;
        };
        let (reader, writer) = stream.into_split();
        let connection = JsonLines {
            reader,
            writer,
            limits,
        };
        let session = session.clone();
        connections.spawn(async move {
            if let Err(e) = serve(connection, session).await {
                tracing::debug!(error = %e, "JSON Lines bridge: a connection ended");
            }
            drop(permit);
        });
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// Tells a connection over the limit why it is closed (within a second), and closes it.
async fn refuse(mut stream: TcpStream, max: usize) {
    tracing::warn!(max, "JSON Lines bridge: too many connections, one refused");
    let line = serde_json::json!({
        "type": "protocol_error",
        "code": ProtocolError::TooManyConnections.as_str(),
        "message": format!("the server serves at most {max} connections at once; try again later"),
        "line": 0,
    });
    let mut bytes = line.to_string().into_bytes();
    bytes.push(b'\n');
    let _ = tokio::time::timeout(Duration::from_secs(1), async {
        stream.write_all(&bytes).await?;
        stream.shutdown().await
    })
    .await;
}

impl<R, W> Bridge for JsonLines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    fn serve(self, session: Session) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        serve(self, session)
    }
}

/// The calls in flight on one connection, by id.
#[derive(Default)]
struct Inflight {
    calls: Mutex<HashMap<Arc<str>, Cancellation>>,
}

impl Inflight {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Cancellation>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn cancel_all(&self) {
        for cancel in self.lock().values() {
            cancel.cancel();
        }
    }
}

/// Cancels every call still in flight when serving stops (or its future is dropped).
struct CancelAll(Arc<Inflight>);

impl Drop for CancelAll {
    fn drop(&mut self) {
        self.0.cancel_all();
    }
}

/// What waits to be written to Core: lines appended by the reader and by call tasks,
/// taken in one piece by the writer (one write and one flush per batch, no allocation per
/// message).
struct OutQueue {
    state: Mutex<OutState>,
    /// More than this many bytes waiting makes the reader wait (`max_queued_bytes`).
    limit: usize,
    /// Wakes the writer: something to write, or the end.
    ready: Notify,
    /// Wakes producers waiting for room.
    room: Notify,
}

#[derive(Default)]
struct OutState {
    bytes: Vec<u8>,
    /// The calls whose results are in `bytes` (to report them if they cannot be written).
    calls: Vec<(Arc<str>, Box<str>)>,
    /// Calls started whose result is not in the queue yet.
    pending: usize,
    reader_done: bool,
    /// Why writing failed; from then on every result is undeliverable.
    failed: Option<String>,
}

/// A call named in the queue: its id and tool.
type CallName = (Arc<str>, Box<str>);

/// Why a line could not be queued, and the call it carried.
type Undelivered = (String, Option<CallName>);

impl OutQueue {
    fn new(limit: usize) -> Self {
        OutQueue {
            state: Mutex::new(OutState::default()),
            limit,
            ready: Notify::new(),
            room: Notify::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, OutState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until the queue has room (or writing failed).
    async fn room(&self) {
        loop {
            let notified = self.room.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let state = self.lock();
                if state.bytes.len() < self.limit || state.failed.is_some() {
                    return;
                }
            }
            notified.await;
        }
    }

    /// Appends a line written by `write`; `call` (and `finishes`, for a call counted in
    /// `pending`) when it is a call's result. Returns why it cannot be delivered, if so.
    fn push(
        &self,
        call: Option<(Arc<str>, Box<str>)>,
        finishes: bool,
        write: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), Undelivered> {
        let mut state = self.lock();
        if finishes {
            state.pending -= 1;
        }
        if let Some(why) = &state.failed {
            let why = why.clone();
            let last = state.pending == 0 && state.reader_done;
            drop(state);
            if last {
                self.ready.notify_one();
            }
            return Err((why, call));
        }
        let was_empty = state.bytes.is_empty();
        write(&mut state.bytes);
        if let Some(call) = call {
            state.calls.push(call);
        }
        drop(state);
        if was_empty {
            self.ready.notify_one();
        }
        Ok(())
    }

    /// Appends a call's progress line unless its result was already queued (`answered`,
    /// set under the same lock as the result is appended), writing failed, or the queue is
    /// full (Core reads too slowly: progress is dropped rather than let grow without bound).
    fn push_progress(&self, answered: &AtomicBool, write: impl FnOnce(&mut Vec<u8>)) {
        let mut state = self.lock();
        if answered.load(Ordering::Relaxed)
            || state.failed.is_some()
            || state.bytes.len() >= self.limit
        {
            return;
        }
        let was_empty = state.bytes.is_empty();
        write(&mut state.bytes);
        drop(state);
        if was_empty {
            self.ready.notify_one();
        }
    }

    fn start_call(&self) {
        self.lock().pending += 1;
    }

    /// A started call that will never push its result (its future was dropped).
    fn abandon_call(&self) {
        let mut state = self.lock();
        state.pending -= 1;
        let last = state.pending == 0 && state.reader_done;
        drop(state);
        if last {
            self.ready.notify_one();
        }
    }

    fn reader_done(&self) {
        self.lock().reader_done = true;
        self.ready.notify_one();
    }
}

/// Tells the queue a started call is gone if its future is dropped before its result was
/// queued (the serve future was dropped, or the runtime shut down).
struct PendingGuard {
    queue: Option<Arc<OutQueue>>,
}

impl PendingGuard {
    /// The result is about to be queued: nothing to undo.
    fn disarm(&mut self) {
        self.queue = None;
    }
}

impl Drop for PendingGuard {
    fn drop(&mut self) {
        if let Some(queue) = self.queue.take() {
            queue.abandon_call();
        }
    }
}

/// Tells the writer no more calls will start when serving stops, however it stops: when
/// the serve future is dropped, the writer still writes the results of the calls it
/// cancelled (`TOOL_CANCELLED`), then ends instead of waiting forever.
struct ReaderDone(Arc<OutQueue>);

impl Drop for ReaderDone {
    fn drop(&mut self) {
        self.0.reader_done();
    }
}

/// The writer's failure, seen by the reader.
#[derive(Default)]
struct Stop {
    stopped: AtomicBool,
    notify: Notify,
}

async fn serve<R, W>(bridge: JsonLines<R, W>, session: Session) -> Result<(), Error>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let inflight = Arc::new(Inflight::default());
    let stop = Arc::new(Stop::default());
    let queue = Arc::new(OutQueue::new(bridge.limits.max_queued_bytes));
    // Dropped in reverse order: the calls are cancelled, then the writer told to finish.
    let _reader_done = ReaderDone(queue.clone());
    let _cancel_all = CancelAll(inflight.clone());

    queue
        .push(None, false, |out| {
            // The manifest holds only JSON values: this cannot fail.
            let _ = serde_json::to_writer(
                &mut *out,
                &serde_json::json!({
                    "type": "manifest",
                    "protocol": PROTOCOL_VERSION,
                    "manifest": session.manifest(),
                }),
            );
            out.push(b'\n');
        })
        .map_err(|(why, _)| Error::new(ErrorCode::SubmitToolResultFailed, why))?;

    let writer = tokio::spawn(write_loop(
        bridge.writer,
        queue.clone(),
        session.clone(),
        stop.clone(),
    ));
    let reader = Reader {
        lines: LineReader {
            inner: BufReader::with_capacity(64 * 1024, bridge.reader),
            max: bridge.limits.max_line_bytes,
            line: Vec::new(),
            len: 0,
            too_long: false,
        },
        limits: bridge.limits,
        session,
        inflight,
        queue: queue.clone(),
        line_no: 0,
    };
    let read = reader.run(&stop).await;
    queue.reader_done();
    let write = match writer.await {
        Ok(result) => result,
        Err(e) => Err(io::Error::other(format!("the writer task failed: {e}"))),
    };
    if let Err(e) = write {
        return Err(Error::new(
            ErrorCode::SubmitToolResultFailed,
            format!("cannot write to Core: {e}"),
        ));
    }
    if let Err(e) = read {
        return Err(Error::new(
            ErrorCode::SubmitToolResultFailed,
            format!("cannot read from Core: {e}"),
        ));
    }
    Ok(())
}

/// Writes what is queued, a batch at a time, until the reader is done and every call it
/// started is answered. On a failure, reports the results of the batch as undeliverable
/// and stops the reader.
async fn write_loop<W: AsyncWrite + Unpin>(
    mut writer: W,
    queue: Arc<OutQueue>,
    session: Session,
    stop: Arc<Stop>,
) -> io::Result<()> {
    let mut batch: Vec<u8> = Vec::new();
    let mut calls: Vec<(Arc<str>, Box<str>)> = Vec::new();
    loop {
        let ready = queue.ready.notified();
        tokio::pin!(ready);
        ready.as_mut().enable();
        let finished = {
            let mut state = queue.lock();
            if state.bytes.is_empty() {
                state.reader_done && state.pending == 0
            } else {
                std::mem::swap(&mut batch, &mut state.bytes);
                calls.clear();
                std::mem::swap(&mut calls, &mut state.calls);
                false
            }
        };
        if finished {
            return Ok(());
        }
        if batch.is_empty() {
            ready.await;
            continue;
        }
        queue.room.notify_waiters();
        let written = async {
            writer.write_all(&batch).await?;
            writer.flush().await
        }
        .await;
        if let Err(e) = written {
            tracing::error!(error = %e, "JSON Lines bridge: cannot write to Core");
            let why = format!("cannot write to Core: {e}");
            queue.lock().failed = Some(why.clone());
            queue.room.notify_waiters();
            for (call_id, tool) in calls.drain(..) {
                session.report_undelivered(&call_id, &tool, why.clone());
            }
            stop.stopped.store(true, Ordering::Release);
            stop.notify.notify_one();
            return Err(e);
        }
        batch.clear();
    }
}

/// Reads lines up to a limit without buffering longer ones. A line read in part is kept
/// across calls of [`next`](Self::next), so an interrupted read loses nothing.
struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
    line: Vec<u8>,
    len: usize,
    too_long: bool,
}

enum Line {
    Text(Vec<u8>),
    TooLong(usize),
    Eof,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// The next line, or what `interrupt` returned when it became ready while waiting for
    /// input (the line read so far is kept for the next call).
    async fn next<T>(
        &mut self,
        mut interrupt: impl FnMut(&mut Context<'_>) -> Poll<T>,
    ) -> io::Result<Result<Line, T>> {
        loop {
            // Watch for interruptions only while waiting for input.
            let filled = poll_fn(|cx| match Pin::new(&mut self.inner).poll_fill_buf(cx) {
                Poll::Ready(result) => Poll::Ready(Ok(result.map(|_| ()))),
                Poll::Pending => interrupt(cx).map(Err),
            })
            .await;
            match filled {
                Err(interrupted) => return Ok(Err(interrupted)),
                Ok(result) => result?,
            }
            let buf = self.inner.buffer();
            if buf.is_empty() {
                if self.len == 0 {
                    return Ok(Ok(Line::Eof));
                }
                break; // a last line without a newline
            }
            let (take, found) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            if !self.too_long {
                if self.len + take > self.max {
                    self.too_long = true;
                    self.line = Vec::new();
                } else {
                    self.line.extend_from_slice(&buf[..take]);
                }
            }
            self.len += take;
            self.inner.consume(take + usize::from(found));
            if found {
                break;
            }
        }
        let len = std::mem::take(&mut self.len);
        if std::mem::take(&mut self.too_long) {
            return Ok(Ok(Line::TooLong(len)));
        }
        let mut line = std::mem::take(&mut self.line);
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Ok(Line::Text(line)))
    }
}

/// A message from Core; unknown fields are ignored.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(rename = "callId", default, borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    args: Option<&'a RawValue>,
}

/// Protocol error codes (`docs/protocol.md`).
#[derive(Clone, Copy, Debug)]
enum ProtocolError {
    MalformedJson,
    InvalidMessage,
    UnknownMessageType,
    LineTooLong,
    NestingTooDeep,
    UnknownCallId,
    DuplicateCallId,
    TooManyCalls,
    TooManyConnections,
    IdleTimeout,
}

impl ProtocolError {
    fn as_str(self) -> &'static str {
        match self {
            ProtocolError::MalformedJson => "MALFORMED_JSON",
            ProtocolError::InvalidMessage => "INVALID_MESSAGE",
            ProtocolError::UnknownMessageType => "UNKNOWN_MESSAGE_TYPE",
            ProtocolError::LineTooLong => "LINE_TOO_LONG",
            ProtocolError::NestingTooDeep => "NESTING_TOO_DEEP",
            ProtocolError::UnknownCallId => "UNKNOWN_CALL_ID",
            ProtocolError::DuplicateCallId => "DUPLICATE_CALL_ID",
            ProtocolError::TooManyCalls => "TOO_MANY_CALLS",
            ProtocolError::TooManyConnections => "TOO_MANY_CONNECTIONS",
            ProtocolError::IdleTimeout => "IDLE_TIMEOUT",
        }
    }
}

/// Why the reader stopped waiting for input.
enum Wake {
    /// The writer failed.
    Stop,
    /// The session's shutdown is over.
    Closed,
    /// An idle-timeout period passed.
    Idle,
}

struct Reader<R> {
    lines: LineReader<R>,
    limits: Limits,
    session: Session,
    inflight: Arc<Inflight>,
    queue: Arc<OutQueue>,
    line_no: u64,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    /// Reads until end of input, a read error, the writer's failure, the end of the
    /// session's shutdown, or the idle timeout.
    async fn run(mut self, stop: &Stop) -> io::Result<()> {
        // One waiter for the whole loop: `notify_one` leaves a permit if it comes first.
        let mut stopped = std::pin::pin!(stop.notify.notified());
        let mut closed = std::pin::pin!(self.session.closed());
        let idle_period = self.limits.idle_timeout;
        let mut idle = std::pin::pin!(idle_period.map(tokio::time::sleep));
        let mut lines_at_tick = self.line_no;
        loop {
            // Stop reading while the queue is full: Core reads too slowly.
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
                    match idle.as_mut().as_pin_mut().map(|sleep| sleep.poll(cx)) {
                        Some(Poll::Ready(())) => Poll::Ready(Wake::Idle),
                        _ => Poll::Pending,
                    }
                })
                .await;
            if stop.stopped.load(Ordering::Acquire) {
                // Core is unreachable: nothing in flight can be delivered.
                self.inflight.cancel_all();
                return Ok(());
            }
            match line {
                Ok(Err(Wake::Stop)) => {}

                Ok(Err(Wake::Idle)) => {
                    let period = idle_period.unwrap_or_default();
                    if self.line_no == lines_at_tick && self.inflight.lock().is_empty() {
                        let secs = period.as_secs_f64();
                        self.protocol_error(
                            ProtocolError::IdleTimeout,
                            &format!(
                                "closing the connection: no message for {secs} s and no call in flight"
                            ),
                            None,
                        );
                        return Ok(());
                    }
                    lines_at_tick = self.line_no;
                    if let Some(sleep) = idle.as_mut().as_pin_mut() {
                        sleep.reset(tokio::time::Instant::now() + period);
                    }
                }
                // End of input, or the session shut down: no more calls; those in flight
                // are answered.
                Ok(Ok(Line::Eof) | Err(Wake::Closed)) => return Ok(()),
                Ok(Ok(Line::TooLong(len))) => {
                    self.line_no += 1;
                    let max = self.lines.max;
                    self.protocol_error(
                        ProtocolError::LineTooLong,
                        &format!("the line is {len} bytes long, over the limit of {max} bytes"),
                        None,
                    );
                }
                Ok(Ok(Line::Text(bytes))) => {
                    self.line_no += 1;
                    self.handle(bytes).await;
                }
                Err(e) => {
                    tracing::error!(error = %e, "JSON Lines bridge: cannot read from Core");
                    return Err(e);
                }
            }
        }
    }

    async fn handle(&mut self, bytes: Vec<u8>) {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        let line = match String::from_utf8(bytes) {
            Ok(line) => line,
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                return self.protocol_error(
                    ProtocolError::MalformedJson,
                    &format!("the line is not valid UTF-8 (at byte {at})"),
                    None,
                );
            }
        };
        if too_deep(line.as_bytes(), self.limits.max_depth) {
            let max = self.limits.max_depth;
            return self.protocol_error(
                ProtocolError::NestingTooDeep,
                &format!("the message nests arrays and objects deeper than {max} levels"),
                None,
            );
        }
        let parsed: Result<Envelope<'_>, _> = serde_json::from_str(&line);
        let envelope = match parsed {
            Ok(envelope) => envelope,
            Err(e) if e.is_data() => {
                let (message, call_id) = explain_invalid(&line, &e);
                return self.protocol_error(
                    ProtocolError::InvalidMessage,
                    &message,
                    call_id.as_deref(),
                );
            }
            Err(e) => {
                return self.protocol_error(
                    ProtocolError::MalformedJson,
                    &format!("the line is not valid JSON: {e}"),
                    None,
                );
            }
        };
        match &*envelope.kind {
            "tool_call" => {
                let Some(call_id) = envelope.call_id.as_deref() else {
                    return self.protocol_error(
                        ProtocolError::InvalidMessage,
                        "a `tool_call` needs a `callId` (a string)",
                        None,
                    );
                };
                let Some(name) = envelope.name.as_deref() else {
                    return self.protocol_error(
                        ProtocolError::InvalidMessage,
                        "a `tool_call` needs a `name` (a string: the tool to call)",
                        Some(call_id),
                    );
                };
                let call_id: Arc<str> = Arc::from(call_id);
                let name: Box<str> = Box::from(name);
                let args = envelope.args.map(|raw| {
                    let start = raw.get().as_ptr().addr() - line.as_ptr().addr();
                    start..start + raw.get().len()
                });
                self.start_call(line, call_id, name, args).await;
            }
            "cancel" => {
                let Some(call_id) = envelope.call_id.as_deref() else {
                    return self.protocol_error(
                        ProtocolError::InvalidMessage,
                        "a `cancel` needs a `callId` (a string: the call to cancel)",
                        None,
                    );
                };
                let found = self.inflight.lock().get(call_id).cloned();
                match found {
                    Some(cancel) => cancel.cancel(),
                    None => {
                        let call_id = call_id.to_owned();
                        self.protocol_error(
                            ProtocolError::UnknownCallId,
                            &format!(
                                "no call with id {call_id:?} is in flight (it may have finished already)"
                            ),
                            Some(&call_id),
                        );
                    }
                }
            }
            other => {
                let other = other.to_owned();
                self.protocol_error(
                    ProtocolError::UnknownMessageType,
                    &format!(
                        "unknown message type {other:?}; expected \"tool_call\" or \"cancel\""
                    ),
                    envelope.call_id.as_deref().map(str::to_owned).as_deref(),
                );
            }
        }
    }

    async fn start_call(
        &mut self,
        line: String,
        call_id: Arc<str>,
        name: Box<str>,
        args: Option<Range<usize>>,
    ) {
        let cancel = Cancellation::new();
        let max = self.limits.max_calls_in_flight;
        let refused = {
            let mut calls = self.inflight.lock();
            if calls.contains_key(&call_id) {
                Some(ProtocolError::DuplicateCallId)
            } else if calls.len() >= max {
                Some(ProtocolError::TooManyCalls)
            } else {
                calls.insert(call_id.clone(), cancel.clone());
                None
            }
        };
        match refused {
            None => {}
            Some(ProtocolError::DuplicateCallId) => {
                let message = format!(
                    "a call with id {call_id:?} is already in flight; call ids must be unique among calls in flight"
                );
                return self.protocol_error(
                    ProtocolError::DuplicateCallId,
                    &message,
                    Some(&call_id),
                );
            }
            Some(code) => {
                let message = format!(
                    "too many calls in flight: this connection runs at most {max} at once; the call was not run (send it again once a result arrives)"
                );
                return self.protocol_error(code, &message, Some(&call_id));
            }
        }
        let session = self.session.clone();
        let inflight = self.inflight.clone();
        let queue = self.queue.clone();
        queue.start_call();
        let mut guard = PendingGuard {
            queue: Some(queue.clone()),
        };
        let progress = Arc::new(CallProgress {
            queue: queue.clone(),
            call_id: call_id.clone(),
            answered: AtomicBool::new(false),
        });
        let options = CallOptions::new()
            .call_id(call_id.clone())
            .cancellation(cancel)
            .progress_sink(progress.clone());
        let mut call = Box::pin(async move {
            // No args is `null`, which the session reads as `{}`.
            let args = args.map_or("null", |range| &line[range]);
            let result = session.call_raw_with(&name, args, options).await;
            // Out of the table before the result leaves, so Core may reuse the id at once.
            inflight.lock().remove(&call_id);
            guard.disarm();
            let pushed = queue.push(Some((call_id.clone(), name)), true, |out| {
                progress.answered.store(true, Ordering::Relaxed);
                out.extend_from_slice(b"{\"type\":\"tool_result\",\"callId\":");
                let _ = serde_json::to_writer(&mut *out, &*call_id);
                out.extend_from_slice(b",\"result\":");
                out.extend_from_slice(result.as_bytes());
                out.extend_from_slice(b"}\n");
            });
            if let Err((why, Some((call_id, name)))) = pushed {
                session.report_undelivered(&call_id, &name, why);
            }
        });
        // Most calls finish at once: answer those here, and give only the ones that wait
        // (on I/O, a timer, the blocking pool) a task of their own. The handler's first poll
        // runs on the reader, which is why handlers must not block (sync tools run on the
        // blocking pool).
        let finished = poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx).is_ready())).await;
        if !finished {
            tokio::spawn(call);
        }
    }

    fn protocol_error(&mut self, code: ProtocolError, message: &str, call_id: Option<&str>) {
        tracing::warn!(
            code = code.as_str(),
            line = self.line_no,
            "JSON Lines protocol error: {message}"
        );
        let mut body = serde_json::json!({
            "type": "protocol_error",
            "code": code.as_str(),
            "message": message,
            "line": self.line_no,
        });
        if let Some(call_id) = call_id {
            body["callId"] = Value::from(call_id);
        }
        // Fails only when Core is unreachable, and then nothing can be said anyway.
        let _ = self.queue.push(None, false, |out| {
            let _ = serde_json::to_writer(&mut *out, &body);
            out.push(b'\n');
        });
    }
}

/// Where a call's progress goes: its `tool_progress` lines, until its result is queued. The
/// flag lives in the sink's own allocation (one per call, not two).
struct CallProgress {
    queue: Arc<OutQueue>,
    call_id: Arc<str>,
    /// Set (under the queue's lock) when the result is queued: later progress is dropped.
    answered: AtomicBool,
}

impl ProgressSink for CallProgress {
    fn report(&self, update: ProgressUpdate) {
        self.queue.push_progress(&self.answered, |out| {
            write_progress(out, &self.call_id, &update);
        });
    }
}

/// Appends `{"type":"tool_progress","callId":…,"done":…,"total":…,"message":…}` (`total`
/// omitted when unknown).
fn write_progress(out: &mut Vec<u8>, call_id: &str, update: &ProgressUpdate) {
    out.extend_from_slice(b"{\"type\":\"tool_progress\",\"callId\":");
    // Strings and integers: these cannot fail.
    let _ = serde_json::to_writer(&mut *out, call_id);
    out.extend_from_slice(b",\"done\":");
    let _ = serde_json::to_writer(&mut *out, &update.done);
    if let Some(total) = update.total {
        out.extend_from_slice(b",\"total\":");
        let _ = serde_json::to_writer(&mut *out, &total);
    }
    out.extend_from_slice(b",\"message\":");
    let _ = serde_json::to_writer(&mut *out, &update.message);
    out.extend_from_slice(b"}\n");
}

/// Whether arrays and objects nest deeper than `max` (strings skipped). Cheap for the usual
/// line: the exact scan runs only when the line has more than `max` openers at all.
fn too_deep(bytes: &[u8], max: usize) -> bool {
    if memchr::memchr2_iter(b'[', b'{', bytes).count() <= max {
        return false;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// A precise message for a line that is JSON but not a message, and its `callId` when it
/// has one (so Core knows which call failed).
fn explain_invalid(line: &str, error: &serde_json::Error) -> (String, Option<String>) {
    let Ok(value) = serde_json::from_str::<Value>(line) else {
        return (format!("invalid message: {error}"), None);
    };
    let Some(obj) = value.as_object() else {
        return (
            format!(
                "a message is a JSON object with a `type`, not {}",
                describe_value(&value)
            ),
            None,
        );
    };
    let call_id = obj.get("callId").and_then(Value::as_str).map(str::to_owned);
    for (field, what) in [
        ("type", "a string"),
        ("callId", "a string"),
        ("name", "a string"),
    ] {
        // `null` stands for an absent optional field; `type` is required.
        let fine = |v: &Value| v.is_string() || (field != "type" && v.is_null());
        match obj.get(field) {
            None if field == "type" => {
                return (
                    "a message needs a `type` (\"tool_call\" or \"cancel\")".into(),
                    call_id,
                );
            }
            Some(v) if !fine(v) => {
                return (
                    format!("`{field}` must be {what}, not {}", describe_value(v)),
                    call_id,
                );
            }
            _ => {}
        }
    }
    (format!("invalid message: {error}"), call_id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn depth_scan_skips_strings_and_counts_levels() {
        assert!(!too_deep(br#"{"a":[[1]]}"#, 3));
        assert!(too_deep(br#"{"a":[[1]]}"#, 2));
        assert!(!too_deep(br#"{"a":"[[[[[[[[\"[[[["}"#, 2));
        assert!(!too_deep(b"[][][][][][]", 1));
        let deep = "[".repeat(100) + &"]".repeat(100);
        assert!(too_deep(deep.as_bytes(), 64));
        assert!(!too_deep(deep.as_bytes(), 100));
    }

    #[test]
    fn invalid_messages_are_explained_with_their_field() {
        let e =
            serde_json::from_str::<Envelope<'_>>(r#"{"type":"tool_call","callId":"c1","name":5}"#)
                .err()
                .unwrap();
        let (message, call_id) =
            explain_invalid(r#"{"type":"tool_call","callId":"c1","name":5}"#, &e);
        assert_eq!(message, "`name` must be a string, not a number (`5`)");
        assert_eq!(call_id.as_deref(), Some("c1"));
        let e = serde_json::from_str::<Envelope<'_>>("[1]").err().unwrap();
        assert_eq!(
            explain_invalid("[1]", &e).0,
            "a message is a JSON object with a `type`, not an array"
        );
        let e = serde_json::from_str::<Envelope<'_>>(r#"{"callId":7}"#)
            .err()
            .unwrap();
        assert_eq!(
            explain_invalid(r#"{"callId":7}"#, &e).0,
            "a message needs a `type` (\"tool_call\" or \"cancel\")"
        );
    }
}
