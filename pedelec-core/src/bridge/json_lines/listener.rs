//! [`JsonLinesListener`]: a TCP listener whose connections are each served as
//! [`JsonLines::tcp`](super::JsonLines::tcp) would, up to a number at once.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use super::connection::serve;
use super::messages::ProtocolError;
use super::{JsonLines, Limits};
use crate::bridge::accept::Accept;
use crate::context::Caller;
use crate::error::Error;
use crate::session::{Bridge, Session};

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
    pub(super) listener: TcpListener,
    pub(super) limits: Limits,
    pub(super) max_connections: usize,
    pub(super) caller: Option<Arc<Caller>>,
}

impl JsonLinesListener {
    /// The most connections served at once (default 256, at least 1).
    #[must_use]
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// The caller of every call on every connection (see [`JsonLines::caller`]).
    #[must_use]
    pub fn caller(mut self, caller: impl Into<Arc<Caller>>) -> Self {
        self.caller = Some(caller.into());
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
    fn serve<N: 'static>(
        self,
        session: Session<N>,
    ) -> impl Future<Output = Result<(), Error>> + Send + 'static {
        serve_listener(self, session.untyped())
    }
}

async fn serve_listener(bridge: JsonLinesListener, session: Session) -> Result<(), Error> {
    let JsonLinesListener {
        listener,
        limits,
        max_connections,
        caller,
    } = bridge;
    let accept = Accept {
        bridge: "JSON Lines bridge",
        max_connections,
        serve: |stream: TcpStream| {
            let (reader, writer) = stream.into_split();
            let connection = JsonLines {
                reader,
                writer,
                limits,
                caller: caller.clone(),
            };
            let session = session.clone();
            async move {
                if let Err(e) = serve(connection, session).await {
                    tracing::debug!(error = %e, "JSON Lines bridge: a connection ended");
                }
            }
        },
        refuse,
    };
    accept.run(listener, session.closed(), || {}).await;
    Ok(())
}

/// Tells a connection over the limit why it is closed (within a second), and closes it.
async fn refuse(mut stream: TcpStream, max: usize) {
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
