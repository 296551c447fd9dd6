//! The JSON Lines bridge: one JSON message per line, both ways (`docs/protocol.md`).
//!
//! The session writes the manifest first, then reads `tool_call` and `cancel` messages and
//! writes a `tool_result` for every call, many in flight at once. Every line it cannot use
//! (not JSON, not a message, too long, nested too deep, an unknown message type, a cancel
//! of an unknown call) is answered with a `protocol_error` line; the session keeps serving.

use std::borrow::Cow;
use std::collections::HashMap;
use std::io;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, BufWriter};
use tokio::net::TcpStream;
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::sync::{Notify, mpsc};

use super::Bridge;
use crate::context::Cancellation;
use crate::error::{Error, ErrorCode};
use crate::handler::Encoding;
use crate::session::args::ArgsIn;
use crate::session::{Session, SessionEvent, Shared, write_result};

/// The version of the protocol, sent in the manifest message.
pub const PROTOCOL_VERSION: u32 = 1;

const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;
const DEFAULT_MAX_DEPTH: usize = 64;
/// Outgoing messages waiting for the writer before senders wait.
const CHANNEL_CAPACITY: usize = 4096;
/// Bytes written before a flush, when many results are waiting.
const BATCH_BYTES: usize = 64 * 1024;

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
    max_line_bytes: usize,
    max_depth: usize,
}

impl JsonLines<tokio::io::Stdin, tokio::io::Stdout> {
    /// Over the process's standard input and output (Core started this process).
    #[must_use]
    pub fn stdio() -> Self {
        JsonLines::from_parts(tokio::io::stdin(), tokio::io::stdout())
    }
}

impl JsonLines<OwnedReadHalf, OwnedWriteHalf> {
    /// Over a TCP connection.
    #[must_use]
    pub fn tcp(stream: TcpStream) -> Self {
        let (reader, writer) = stream.into_split();
        JsonLines::from_parts(reader, writer)
    }

    /// Connects to Core listening at `addr`.
    ///
    /// # Errors
    /// When the connection cannot be made.
    pub async fn connect(addr: impl tokio::net::ToSocketAddrs) -> io::Result<Self> {
        Ok(JsonLines::tcp(TcpStream::connect(addr).await?))
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
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }

    /// The longest line accepted, in bytes (default 1 MiB); a longer one is answered with
    /// `LINE_TOO_LONG` without being buffered.
    #[must_use]
    pub fn max_line_bytes(mut self, bytes: usize) -> Self {
        self.max_line_bytes = bytes;
        self
    }

    /// The deepest nesting of arrays and objects accepted in a message, counting the
    /// message object itself (default 64); a deeper one is answered with
    /// `NESTING_TOO_DEEP`. Args nested deeper than 127 levels are never accepted (they are
    /// `TOOL_ARGS_INVALID`).
    #[must_use]
    pub fn max_depth(mut self, depth: usize) -> Self {
        self.max_depth = depth;
        self
    }
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

use std::future::Future;

/// A line for the writer; `call` names the call whose result it carries.
struct Outgoing {
    bytes: Vec<u8>,
    call: Option<(Arc<str>, Box<str>)>,
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
    let shared = session.shared().clone();
    let inflight = Arc::new(Inflight::default());
    let _cancel_all = CancelAll(inflight.clone());
    let stop = Stop::default();
    let (tx, rx) = mpsc::channel(CHANNEL_CAPACITY);

    let mut manifest = Vec::new();
    serde_json::to_writer(
        &mut manifest,
        &serde_json::json!({
            "type": "manifest",
            "protocol": PROTOCOL_VERSION,
            "manifest": shared.manifest(),
        }),
    )
    .map_err(|e| {
        Error::new(
            ErrorCode::SubmitToolResultFailed,
            format!("cannot serialize the manifest: {e}"),
        )
    })?;
    manifest.push(b'\n');

    let reader = Reader {
        lines: LineReader {
            inner: BufReader::with_capacity(64 * 1024, bridge.reader),
            max: bridge.max_line_bytes,
        },
        max_depth: bridge.max_depth,
        shared: shared.clone(),
        inflight: inflight.clone(),
        tx,
        line_no: 0,
    };
    let (read, write) = tokio::join!(
        reader.run(&stop),
        write_loop(bridge.writer, manifest, rx, &shared, &stop)
    );
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

/// Writes the manifest, then every outgoing line, flushing when nothing more is waiting.
/// After a failure it keeps draining, reporting each undeliverable result as an event.
async fn write_loop<W: AsyncWrite + Unpin>(
    writer: W,
    manifest: Vec<u8>,
    mut rx: mpsc::Receiver<Outgoing>,
    shared: &Shared,
    stop: &Stop,
) -> io::Result<()> {
    let mut out = BufWriter::with_capacity(BATCH_BYTES, writer);
    let mut failure: Option<io::Error> = None;
    if let Err(e) = write_flush(&mut out, &manifest).await {
        fail(stop, &mut failure, e);
    }
    let mut batch: Vec<(Arc<str>, Box<str>)> = Vec::new();
    while let Some(first) = rx.recv().await {
        let mut next = Some(first);
        let mut bytes = 0;
        while let Some(msg) = next.take() {
            if failure.is_none() {
                bytes += msg.bytes.len();
                if let Err(e) = out.write_all(&msg.bytes).await {
                    fail(stop, &mut failure, e);
                }
            }
            if let Some(call) = msg.call {
                batch.push(call);
            }
            if bytes < BATCH_BYTES {
                next = rx.try_recv().ok();
            }
        }
        if failure.is_none()
            && let Err(e) = out.flush().await
        {
            fail(stop, &mut failure, e);
        }
        if let Some(e) = &failure {
            for (call_id, tool) in batch.drain(..) {
                undeliverable(shared, call_id, &tool, format!("cannot write to Core: {e}"));
            }
        }
        batch.clear();
    }
    match failure {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

async fn write_flush<W: AsyncWrite + Unpin>(
    out: &mut BufWriter<W>,
    bytes: &[u8],
) -> io::Result<()> {
    out.write_all(bytes).await?;
    out.flush().await
}

fn fail(stop: &Stop, failure: &mut Option<io::Error>, e: io::Error) {
    tracing::error!(error = %e, "JSON Lines bridge: cannot write to Core");
    *failure = Some(e);
    stop.stopped.store(true, Ordering::Release);
    stop.notify.notify_one();
}

fn undeliverable(shared: &Shared, call_id: Arc<str>, tool: &str, why: String) {
    tracing::error!(call_id = %call_id, tool, "{why}");
    shared.events.emit(|| SessionEvent::SubmitToolResultFailed {
        call_id: call_id.to_string(),
        tool: tool.to_owned(),
        error: Error::new(ErrorCode::SubmitToolResultFailed, why),
    });
}

/// Reads lines up to a limit without buffering longer ones.
struct LineReader<R> {
    inner: BufReader<R>,
    max: usize,
}

enum Line {
    Text(Vec<u8>),
    TooLong(usize),
    Eof,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    async fn next(&mut self) -> io::Result<Line> {
        let mut line = Vec::new();
        let mut len = 0usize;
        let mut too_long = false;
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                if len == 0 {
                    return Ok(Line::Eof);
                }
                break; // a last line without a newline
            }
            let (take, found) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            if !too_long {
                if len + take > self.max {
                    too_long = true;
                    line = Vec::new();
                } else {
                    line.extend_from_slice(&buf[..take]);
                }
            }
            len += take;
            self.inner.consume(take + usize::from(found));
            if found {
                break;
            }
        }
        if too_long {
            return Ok(Line::TooLong(len));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        Ok(Line::Text(line))
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
        }
    }
}

struct Reader<R> {
    lines: LineReader<R>,
    max_depth: usize,
    shared: Arc<Shared>,
    inflight: Arc<Inflight>,
    tx: mpsc::Sender<Outgoing>,
    line_no: u64,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    /// Reads until end of input, a read error, or the writer's failure. Returning drops
    /// the reader's sender, so the writer finishes once the calls in flight are answered.
    async fn run(mut self, stop: &Stop) -> io::Result<()> {
        // One waiter for the whole loop: `notify_one` leaves a permit if it comes first.
        let mut stopped = std::pin::pin!(stop.notify.notified());
        loop {
            let line = tokio::select! {
                biased;
                () = &mut stopped, if !stop.stopped.load(Ordering::Acquire) => None,
                line = self.lines.next() => Some(line),
            };
            if stop.stopped.load(Ordering::Acquire) {
                // Core is unreachable: nothing in flight can be delivered.
                self.inflight.cancel_all();
                return Ok(());
            }
            let Some(line) = line else { continue };
            match line {
                Ok(Line::Eof) => return Ok(()),
                Ok(Line::TooLong(len)) => {
                    self.line_no += 1;
                    let max = self.lines.max;
                    self.protocol_error(
                        ProtocolError::LineTooLong,
                        &format!("the line is {len} bytes long, over the limit of {max} bytes"),
                        None,
                    )
                    .await;
                }
                Ok(Line::Text(bytes)) => {
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
                return self
                    .protocol_error(
                        ProtocolError::MalformedJson,
                        &format!("the line is not valid UTF-8 (at byte {at})"),
                        None,
                    )
                    .await;
            }
        };
        if too_deep(line.as_bytes(), self.max_depth) {
            let max = self.max_depth;
            return self
                .protocol_error(
                    ProtocolError::NestingTooDeep,
                    &format!("the message nests arrays and objects deeper than {max} levels"),
                    None,
                )
                .await;
        }
        let parsed: Result<Envelope<'_>, _> = serde_json::from_str(&line);
        let envelope = match parsed {
            Ok(envelope) => envelope,
            Err(e) if e.is_data() => {
                let (message, call_id) = explain_invalid(&line, &e);
                return self
                    .protocol_error(ProtocolError::InvalidMessage, &message, call_id.as_deref())
                    .await;
            }
            Err(e) => {
                return self
                    .protocol_error(
                        ProtocolError::MalformedJson,
                        &format!("the line is not valid JSON: {e}"),
                        None,
                    )
                    .await;
            }
        };
        match &*envelope.kind {
            "tool_call" => {
                let Some(call_id) = envelope.call_id.as_deref() else {
                    return self
                        .protocol_error(
                            ProtocolError::InvalidMessage,
                            "a `tool_call` needs a `callId` (a string)",
                            None,
                        )
                        .await;
                };
                let Some(name) = envelope.name.as_deref() else {
                    return self
                        .protocol_error(
                            ProtocolError::InvalidMessage,
                            "a `tool_call` needs a `name` (a string: the tool to call)",
                            Some(call_id),
                        )
                        .await;
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
                    return self
                        .protocol_error(
                            ProtocolError::InvalidMessage,
                            "a `cancel` needs a `callId` (a string: the call to cancel)",
                            None,
                        )
                        .await;
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
                        )
                        .await;
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
                )
                .await;
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
        let duplicate = {
            let mut calls = self.inflight.lock();
            if calls.contains_key(&call_id) {
                true
            } else {
                calls.insert(call_id.clone(), cancel.clone());
                false
            }
        };
        if duplicate {
            let message = format!(
                "a call with id {call_id:?} is already in flight; call ids must be unique among calls in flight"
            );
            return self
                .protocol_error(ProtocolError::DuplicateCallId, &message, Some(&call_id))
                .await;
        }
        let shared = self.shared.clone();
        let inflight = self.inflight.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let args = match &args {
                Some(range) => ArgsIn::Text(&line[range.clone()]),
                None => ArgsIn::Value(Value::Null),
            };
            let result = shared
                .run(call_id.clone(), &name, args, cancel, Encoding::Text)
                .await;
            // Out of the table before the result leaves, so Core may reuse the id at once.
            inflight.lock().remove(&call_id);
            let mut bytes = Vec::with_capacity(128);
            bytes.extend_from_slice(b"{\"type\":\"tool_result\",\"callId\":");
            let _ = serde_json::to_writer(&mut bytes, &*call_id);
            bytes.extend_from_slice(b",\"result\":");
            write_result(&mut bytes, result);
            bytes.extend_from_slice(b"}\n");
            let outgoing = Outgoing {
                bytes,
                call: Some((call_id, name)),
            };
            if let Err(mpsc::error::SendError(outgoing)) = tx.send(outgoing).await
                && let Some((call_id, name)) = outgoing.call
            {
                undeliverable(
                    &shared,
                    call_id,
                    &name,
                    "the bridge stopped before the result could be sent".to_owned(),
                );
            }
        });
    }

    async fn protocol_error(&mut self, code: ProtocolError, message: &str, call_id: Option<&str>) {
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
        let mut bytes = body.to_string().into_bytes();
        bytes.push(b'\n');
        // Fails only when the writer is gone, and then nothing can be said anyway.
        let _ = self.tx.send(Outgoing { bytes, call: None }).await;
    }
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
                crate::session::describe_value(&value)
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
                    format!(
                        "`{field}` must be {what}, not {}",
                        crate::session::describe_value(v)
                    ),
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
