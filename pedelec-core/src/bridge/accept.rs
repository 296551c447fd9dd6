//! The one accept loop of the TCP bridges (JSON Lines' listener and MCP over HTTP): each
//! connection served on a task of its own, at most a number at once (one past the cap is
//! handed to `refuse`, which tells it why and closes it), until `stop`; then nothing more
//! is accepted and every connection is awaited. A leaf.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio::task::JoinSet;

/// What the loop does with each connection, and what it says in its logs.
pub(crate) struct Accept<S, R> {
    /// The bridge's name in log lines ("MCP over HTTP").
    pub(crate) bridge: &'static str,
    /// The most connections served at once.
    pub(crate) max_connections: usize,
    /// Serves one accepted connection (within the cap).
    pub(crate) serve: S,
    /// Answers one connection past the cap, then closes it.
    pub(crate) refuse: R,
}

impl<S, SF, R, RF> Accept<S, R>
where
    S: FnMut(TcpStream) -> SF,
    SF: Future<Output = ()> + Send + 'static,
    R: Fn(TcpStream, usize) -> RF,
    RF: Future<Output = ()> + Send + 'static,
{
    /// Accepts until `stop` completes; then `stopped` runs (a graceful-shutdown signal to
    /// the connections) and every connection is awaited. Dropping the future drops every
    /// connection's.
    pub(crate) async fn run(
        mut self,
        listener: TcpListener,
        stop: impl Future<Output = ()>,
        stopped: impl FnOnce(),
    ) {
        let permits = Arc::new(Semaphore::new(self.max_connections));
        let mut connections = JoinSet::new();
        let mut stop = std::pin::pin!(stop);
        loop {
            while connections.try_join_next().is_some() {}
            let accepted = tokio::select! {
                biased;
                () = &mut stop => break,
                accepted = listener.accept() => accepted,
            };
            let stream = match accepted {
                Ok((stream, _)) => stream,
                Err(e) => {
                    // Out of file descriptors, or a connection reset before it was
                    // accepted: keep serving the others.
                    tracing::warn!(error = %e, "{}: cannot accept a connection", self.bridge);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            };
            let _ = stream.set_nodelay(true);
            let Ok(permit) = permits.clone().try_acquire_owned() else {
                let max = self.max_connections;
                tracing::warn!(max, "{}: too many connections, one refused", self.bridge);
                connections.spawn((self.refuse)(stream, max));
                continue;
            };
            let served = (self.serve)(stream);
            connections.spawn(async move {
                served.await;
                drop(permit);
            });
        }
        drop(listener);
        stopped();
        while connections.join_next().await.is_some() {}
    }
}
