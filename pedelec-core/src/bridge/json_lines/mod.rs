//! The JSON Lines bridge: one JSON message per line, both ways (`docs/protocol.md`).
//!
//! The session writes the manifest first, then reads `tool_call` and `cancel` messages and
//! writes a `tool_result` for every call (after its `tool_progress` messages, if the handler
//! reports progress), many in flight at once. Every line it cannot use
//! (not JSON, not a message, too long, nested too deep, an unknown message type, a cancel
//! of an unknown call) is answered with a `protocol_error` line; the session keeps serving.
//!
//! Built on the public API alone (`Session::call_raw_with`, `CallOptions::progress_sink`,
//! `Session::report_undelivered`, `error::describe_value`): a bridge of your own can do
//! all of this, as fast.
//!
//! - `framing`: lines, up to a length and a nesting depth;
//! - `messages`: the wire messages and protocol errors;
//! - `queue`: the calls in flight and the output queue;
//! - `connection`: one connection, read and dispatched;
//! - `listener`: a TCP listener's connections.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{TcpListener, TcpStream};

// Public API only: a bridge of a user's own can do all this.
use crate::context::Caller;
use crate::error::Error;
use crate::session::{Bridge, Session};

pub use listener::JsonLinesListener;

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

mod connection;
pub(super) mod framing;
mod listener;
mod messages;
pub(super) mod queue;

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
    caller: Option<Arc<Caller>>,
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
            caller: None,
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
            caller: None,
        }
    }

    /// The caller of every call on this connection (`ctx.caller()`; scopes and per-caller
    /// rate limits apply to it). Core is local and trusted: no token is read from the
    /// stream. Without one, calls are anonymous.
    #[must_use]
    pub fn caller(mut self, caller: impl Into<Arc<Caller>>) -> Self {
        self.caller = Some(caller.into());
        self
    }

    limit_setters!();
}

impl<R, W> Bridge for JsonLines<R, W>
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    fn serve<N: 'static>(
        self,
        session: Session<N>,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        connection::serve(self, session.untyped())
    }
}

#[cfg(test)]
mod tests {
    use super::framing::too_deep;
    use super::messages::{Envelope, explain_invalid};

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
