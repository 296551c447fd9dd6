//! What the host and a program's interpreter say to each other: one JSON frame a line, over
//! the worker's pipe (or the same values over channels, in process).

use std::io::{BufRead, Write};

use serde::{Deserialize, Serialize};

use crate::error::ToolError;

/// The protocol's version: the worker's marker variable carries it, and a worker of
/// another version refuses to serve.
pub(crate) const VERSION: &str = "2";

/// The limits a program runs under, as its interpreter applies them.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct Limits {
    /// How long the program may run from its start, in milliseconds.
    pub(crate) time_ms: u64,
    pub(crate) max_calls: u32,
    pub(crate) memory: usize,
    pub(crate) stack: usize,
    pub(crate) max_output: usize,
}

/// The program and what it may call.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Start {
    pub(crate) code: String,
    /// The tools the caller may call from a program, by name.
    pub(crate) names: Vec<String>,
    /// Each name's dotted path (`billing.refund_invoice` as `["billing", "refund_invoice"]`),
    /// or none when only `tools["…"]` reaches it.
    pub(crate) paths: Vec<Option<Vec<String>>>,
    pub(crate) limits: Limits,
}

/// Host to interpreter.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ToWorker {
    /// The worker's first frame, as it starts: the limits its interpreter is prepared with
    /// before any program arrives (a worker runs only programs with these).
    Prepare {
        memory: usize,
        stack: usize,
    },
    Start(Box<Start>),
    /// The call the program just made started, with this id.
    Started(i32),
    /// The call the program just made started, with this id, and finished at once: its
    /// answer comes with it (one frame instead of `Started` then `Answer`).
    Answered {
        id: i32,
        ok: bool,
        json: String,
    },
    /// The call the program just made was refused (thrown at the call); `stop`: the
    /// program reached its call limit and stops.
    Refused {
        error: ToolError,
        stop: bool,
    },
    /// A call's answer: its value's or its error's JSON.
    Answer {
        id: i32,
        ok: bool,
        json: String,
    },
}

/// Interpreter to host.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum ToHost {
    /// The program calls `name` with `args` (JSON text): the host answers `Started` or
    /// `Refused` before anything else.
    Call { name: String, args: String },
    /// A line the program printed.
    Print(String),
    /// How the program ended.
    Done(Outcome),
}

/// What a program ended with.
#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// The value it returned, as JSON text (`None`: `undefined`).
    Returned(Option<String>),
    /// The exception it did not catch.
    Threw(Thrown),
    /// It was stopped (a limit), or the interpreter failed.
    Failed(ToolError),
}

/// An uncaught exception, as the program's error reports it.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Thrown {
    /// `ToolError`'s code, for a refused call the program did not catch.
    pub(crate) code: Option<String>,
    pub(crate) name: String,
    pub(crate) message: String,
    pub(crate) line: Option<u32>,
    /// The error's `details`, as JSON text.
    pub(crate) details: Option<String>,
}

/// Writes `frame` as one line and flushes.
pub(crate) fn write<T: Serialize>(out: &mut impl Write, frame: &T) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(frame)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// Reads one frame: `Ok(None)` at the end of the stream; an error for a line longer than
/// `max` bytes or one that is not a frame.
pub(crate) fn read<T: for<'de> Deserialize<'de>>(
    input: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<Option<T>> {
    line.clear();
    let read = std::io::Read::take(
        &mut *input,
        u64::try_from(max).unwrap_or(u64::MAX).saturating_add(1),
    )
    .read_until(b'\n', line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a frame longer than {max} bytes, or cut short"),
        ));
    }
    serde_json::from_slice(line).map(Some).map_err(Into::into)
}
