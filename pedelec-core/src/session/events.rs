//! Session events: what happened to each call, and results that could not be delivered.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use futures_core::Stream;
use tokio::sync::broadcast;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::wrappers::errors::BroadcastStreamRecvError;

use crate::error::{Error, ErrorCode};

/// Something that happened in a session. Subscribe with `Session::events()`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SessionEvent {
    /// A call arrived and its handler is being resolved.
    CallStarted {
        /// The call's id.
        call_id: String,
        /// The tool's name, as Core sent it.
        tool: String,
    },
    /// A call finished (its result is about to be delivered).
    CallFinished {
        /// The call's id.
        call_id: String,
        /// The tool's name, as Core sent it.
        tool: String,
        /// `None` for a successful call, the error code otherwise.
        error: Option<ErrorCode>,
        /// How long the call took, from its arrival to its result.
        elapsed: Duration,
    },
    /// A call's result could not be delivered to Core (the bridge failed to write it, or
    /// Core went away): `SUBMIT_TOOL_RESULT_FAILED`.
    SubmitToolResultFailed {
        /// The call's id.
        call_id: String,
        /// The tool's name, as Core sent it.
        tool: String,
        /// Why (code `SUBMIT_TOOL_RESULT_FAILED`).
        error: Error,
    },
    /// A call of a tool that needs approval (`#[tool(approval)]`) waits for it: its args
    /// are valid, its handler has not run.
    ApprovalRequested {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
    },
    /// The approval of a call was decided (the handler runs only when `approved`).
    ApprovalDecided {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// Whether the call may run.
        approved: bool,
        /// Why not, when it may not (the denial's reason, or why nobody could approve).
        reason: Option<String>,
    },
    /// An exactly-once call ran, and the store could not keep its answer: the caller got
    /// the answer, and a retry with the same key is answered `TOOL_OUTCOME_UNKNOWN` (never
    /// run again) once the call's claim lapses.
    AnswerNotKept {
        /// The call's id.
        call_id: String,
        /// The tool's name.
        tool: String,
        /// What the store said.
        reason: String,
    },
    /// The tools of a mounted namespace changed (a remote server re-listed its tools):
    /// [`Session::definitions`](crate::Session::definitions) and the manifest now show the
    /// new list. Bridges that list tools tell their clients (MCP `listChanged`).
    ToolsChanged {
        /// The mount's namespace.
        namespace: String,
    },
    /// This subscriber fell behind and missed `missed` events (the session does not wait
    /// for slow subscribers; raise the capacity with `SessionBuilder::event_capacity`).
    Lagged {
        /// How many events were dropped for this subscriber.
        missed: u64,
    },
}

/// Where events go. Building an event costs allocations, so nothing is built while nobody
/// listens.
pub(crate) struct EventHub {
    tx: broadcast::Sender<SessionEvent>,
    subscribers: Arc<AtomicUsize>,
}

impl EventHub {
    pub(crate) fn new(capacity: usize) -> Self {
        EventHub {
            tx: broadcast::Sender::new(capacity.max(1)),
            subscribers: Arc::new(AtomicUsize::new(0)),
        }
    }

    /// Whether anyone listens (then build the event and [`send`](Self::send) it).
    #[inline]
    pub(crate) fn enabled(&self) -> bool {
        self.subscribers.load(Ordering::Relaxed) > 0
    }

    pub(crate) fn send(&self, event: SessionEvent) {
        let _ = self.tx.send(event);
    }

    pub(crate) fn emit(&self, event: impl FnOnce() -> SessionEvent) {
        if self.enabled() {
            self.send(event());
        }
    }

    pub(crate) fn subscribe(&self) -> EventStream {
        self.subscribers.fetch_add(1, Ordering::Relaxed);
        EventStream {
            rx: BroadcastStream::new(self.tx.subscribe()),
            subscribers: self.subscribers.clone(),
        }
    }
}

/// A subscription to a session's events (`Session::events()`). Each subscriber sees every
/// event emitted after it subscribed.
///
/// It is a [`Stream`] of [`SessionEvent`]s (use `tokio_stream::StreamExt` or
/// `futures::StreamExt` combinators on it), ending once the session and every bridge
/// serving it are gone; [`recv`](Self::recv) and [`try_recv`](Self::try_recv) need no
/// extension trait.
#[derive(Debug)]
pub struct EventStream {
    rx: BroadcastStream<SessionEvent>,
    subscribers: Arc<AtomicUsize>,
}

impl EventStream {
    /// The next event; `None` once the session and every bridge serving it are gone.
    pub async fn recv(&mut self) -> Option<SessionEvent> {
        std::future::poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// The next event if one is waiting.
    pub fn try_recv(&mut self) -> Option<SessionEvent> {
        // Polled once without a waker to notify: `Pending` means nothing is waiting. The
        // next `recv` or `poll_next` registers its own waker again.
        match Pin::new(self).poll_next(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(event) => event,
            Poll::Pending => None,
        }
    }
}

impl Stream for EventStream {
    type Item = SessionEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<SessionEvent>> {
        Pin::new(&mut self.rx).poll_next(cx).map(|event| {
            event.map(|event| match event {
                Ok(event) => event,
                Err(BroadcastStreamRecvError::Lagged(missed)) => SessionEvent::Lagged { missed },
            })
        })
    }
}

impl Drop for EventStream {
    fn drop(&mut self) {
        self.subscribers.fetch_sub(1, Ordering::Relaxed);
    }
}
