//! Framing: lines read up to a limit without buffering longer ones, and the nesting
//! depth of a line checked before it is parsed.

use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, BufReader};

/// Reads lines up to a limit without buffering longer ones. A line read in part is kept
/// across calls of [`next`](Self::next), so an interrupted read loses nothing.
pub(in crate::bridge) struct LineReader<R> {
    pub(in crate::bridge) inner: BufReader<R>,
    pub(in crate::bridge) max: usize,
    pub(in crate::bridge) line: Vec<u8>,
    pub(in crate::bridge) len: usize,
    pub(in crate::bridge) too_long: bool,
}

pub(in crate::bridge) enum Line {
    Text(Vec<u8>),
    TooLong(usize),
    Eof,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// The next line, or what `interrupt` returned when it became ready while waiting for
    /// input (the line read so far is kept for the next call).
    pub(in crate::bridge) async fn next<T>(
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

/// Whether arrays and objects nest deeper than `max` (strings skipped). Cheap for the usual
/// line: the exact scan runs only when the line has more than `max` openers at all.
pub(in crate::bridge) fn too_deep(bytes: &[u8], max: usize) -> bool {
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
