//! One connection served: the manifest sent, then lines read and dispatched (calls
//! started, cancels delivered, protocol errors answered) until Core goes away or the
//! session shuts down.

use std::future::Future;
use std::io;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::Poll;

use serde_json::Value;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};

use super::framing::{Line, LineReader, too_deep};
use super::messages::{Envelope, ProtocolError, explain_invalid, write_progress};
use super::queue::{
    CancelAll, Inflight, OutQueue, PendingGuard, ReaderDone, Stop, answer_here_or_spawn, finish,
    write_loop,
};
use super::{JsonLines, Limits, PROTOCOL_VERSION};
use crate::context::{Caller, Cancellation, ProgressSink, ProgressUpdate};
use crate::error::Error;
use crate::session::{CallOptions, Session};

pub(super) async fn serve<R, W>(bridge: JsonLines<R, W>, session: Session) -> Result<(), Error>
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
        .map_err(|(why, _)| Error::undelivered(why))?;

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
        caller: bridge.caller,
    };
    let read = reader.run(&stop).await;
    finish(&queue, read, writer, "Core").await
}

/// Why the reader stopped waiting for input.
pub(super) enum Wake {
    /// The writer failed.
    Stop,
    /// The session's shutdown is over.
    Closed,
    /// An idle-timeout period passed.
    Idle,
}

pub(super) struct Reader<R> {
    pub(super) lines: LineReader<R>,
    pub(super) limits: Limits,
    pub(super) session: Session,
    pub(super) inflight: Arc<Inflight>,
    pub(super) queue: Arc<OutQueue>,
    pub(super) line_no: u64,
    pub(super) caller: Option<Arc<Caller>>,
}

impl<R: AsyncRead + Unpin> Reader<R> {
    /// Reads until end of input, a read error, the writer's failure, the end of the
    /// session's shutdown, or the idle timeout.
    pub(super) async fn run(mut self, stop: &Stop) -> io::Result<()> {
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

    pub(super) async fn handle(&mut self, bytes: Vec<u8>) {
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

    pub(super) async fn start_call(
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
        let mut options = CallOptions::new()
            .call_id(call_id.clone())
            .cancellation(cancel)
            .progress_sink(progress.clone());
        if let Some(caller) = &self.caller {
            options = options.caller(caller.clone());
        }
        let call = Box::pin(async move {
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
        answer_here_or_spawn(call).await;
    }

    pub(super) fn protocol_error(
        &mut self,
        code: ProtocolError,
        message: &str,
        call_id: Option<&str>,
    ) {
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
pub(super) struct CallProgress {
    pub(super) queue: Arc<OutQueue>,
    pub(super) call_id: Arc<str>,
    /// Set (under the queue's lock) when the result is queued: later progress is dropped.
    pub(super) answered: AtomicBool,
}

impl ProgressSink for CallProgress {
    fn report(&self, update: ProgressUpdate) {
        self.queue.push_progress(&self.answered, |out| {
            write_progress(out, &self.call_id, &update);
        });
    }
}
