//! One connection's bookkeeping: the calls in flight (to cancel them), and the output
//! queue the reader and the calls append to and the writer drains.

use std::collections::HashMap;
use std::future::{Future, poll_fn};
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Poll;

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

use crate::context::Cancellation;
use crate::session::Session;

/// Runs a call that answers itself (it pushes its reply to the queue) where the reader is,
/// for one poll: most calls finish there and are answered at once; only one that waits (on
/// I/O, a timer, the blocking pool) gets a task of its own. The first poll runs on the
/// reader, which is why handlers must not block (sync tools run on the blocking pool).
pub(in crate::bridge) async fn answer_here_or_spawn<F>(mut call: Pin<Box<F>>)
where
    F: Future<Output = ()> + Send + 'static,
{
    let finished = poll_fn(|cx| Poll::Ready(call.as_mut().poll(cx).is_ready())).await;
    if !finished {
        tokio::spawn(call);
    }
}

/// The calls in flight on one connection, by id.
#[derive(Default)]
pub(in crate::bridge) struct Inflight {
    pub(in crate::bridge) calls: Mutex<HashMap<Arc<str>, Cancellation>>,
}

impl Inflight {
    pub(in crate::bridge) fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<Arc<str>, Cancellation>> {
        self.calls.lock().unwrap_or_else(PoisonError::into_inner)
    }

    pub(in crate::bridge) fn cancel_all(&self) {
        for cancel in self.lock().values() {
            cancel.cancel();
        }
    }
}

/// Cancels every call still in flight when serving stops (or its future is dropped).
pub(in crate::bridge) struct CancelAll(pub(in crate::bridge) Arc<Inflight>);

impl Drop for CancelAll {
    fn drop(&mut self) {
        self.0.cancel_all();
    }
}

/// What waits to be written to Core: lines appended by the reader and by call tasks,
/// taken in one piece by the writer (one write and one flush per batch, no allocation per
/// message).
pub(in crate::bridge) struct OutQueue {
    pub(in crate::bridge) state: Mutex<OutState>,
    /// More than this many bytes waiting makes the reader wait (`max_queued_bytes`).
    pub(in crate::bridge) limit: usize,
    /// Wakes the writer: something to write, or the end.
    pub(in crate::bridge) ready: Notify,
    /// Wakes producers waiting for room.
    pub(in crate::bridge) room: Notify,
}

#[derive(Default)]
pub(in crate::bridge) struct OutState {
    pub(in crate::bridge) bytes: Vec<u8>,
    /// The calls whose results are in `bytes` (to report them if they cannot be written).
    pub(in crate::bridge) calls: Vec<(Arc<str>, Box<str>)>,
    /// Calls started whose result is not in the queue yet.
    pub(in crate::bridge) pending: usize,
    pub(in crate::bridge) reader_done: bool,
    /// Why writing failed; from then on every result is undeliverable.
    pub(in crate::bridge) failed: Option<String>,
}

/// A call named in the queue: its id and tool.
pub(in crate::bridge) type CallName = (Arc<str>, Box<str>);

/// Why a line could not be queued, and the call it carried.
pub(in crate::bridge) type Undelivered = (String, Option<CallName>);

impl OutQueue {
    pub(in crate::bridge) fn new(limit: usize) -> Self {
        OutQueue {
            state: Mutex::new(OutState::default()),
            limit,
            ready: Notify::new(),
            room: Notify::new(),
        }
    }

    pub(in crate::bridge) fn lock(&self) -> std::sync::MutexGuard<'_, OutState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits until the queue has room (or writing failed).
    pub(in crate::bridge) async fn room(&self) {
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
    pub(in crate::bridge) fn push(
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
    pub(in crate::bridge) fn push_progress(
        &self,
        answered: &AtomicBool,
        write: impl FnOnce(&mut Vec<u8>),
    ) {
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

    pub(in crate::bridge) fn start_call(&self) {
        self.lock().pending += 1;
    }

    /// A started call that will never push its result (its future was dropped).
    pub(in crate::bridge) fn abandon_call(&self) {
        let mut state = self.lock();
        state.pending -= 1;
        let last = state.pending == 0 && state.reader_done;
        drop(state);
        if last {
            self.ready.notify_one();
        }
    }

    pub(in crate::bridge) fn reader_done(&self) {
        self.lock().reader_done = true;
        self.ready.notify_one();
    }
}

/// Tells the queue a started call is gone if its future is dropped before its result was
/// queued (the serve future was dropped, or the runtime shut down).
pub(in crate::bridge) struct PendingGuard {
    pub(in crate::bridge) queue: Option<Arc<OutQueue>>,
}

impl PendingGuard {
    /// The result is about to be queued: nothing to undo.
    pub(in crate::bridge) fn disarm(&mut self) {
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
pub(in crate::bridge) struct ReaderDone(pub(in crate::bridge) Arc<OutQueue>);

impl Drop for ReaderDone {
    fn drop(&mut self) {
        self.0.reader_done();
    }
}

/// The writer's failure, seen by the reader.
#[derive(Default)]
pub(in crate::bridge) struct Stop {
    pub(in crate::bridge) stopped: AtomicBool,
    pub(in crate::bridge) notify: Notify,
}

/// Writes what is queued, a batch at a time, until the reader is done and every call it
/// started is answered. On a failure, reports the results of the batch as undeliverable
/// and stops the reader.
pub(in crate::bridge) async fn write_loop<W: AsyncWrite + Unpin>(
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

/// Ends a connection whose reader has returned `read`: tells the writer to finish, waits
/// for it, and reports the first failure as talking to `peer` (the writer's first: a peer
/// that stopped reading usually breaks the reader too).
pub(in crate::bridge) async fn finish(
    queue: &OutQueue,
    read: io::Result<()>,
    writer: tokio::task::JoinHandle<io::Result<()>>,
    peer: &str,
) -> Result<(), crate::error::Error> {
    use crate::error::Error;
    queue.reader_done();
    let write = match writer.await {
        Ok(result) => result,
        Err(e) => Err(io::Error::other(format!("the writer task failed: {e}"))),
    };
    if let Err(e) = write {
        return Err(Error::io(format!("cannot write to {peer}"), e));
    }
    read.map_err(|e| Error::io(format!("cannot read from {peer}"), e))
}
