//! Worker processes: each program runs in a process of its own, which the host can always
//! stop (SIGKILL) and whose crash is only its own.
//!
//! A worker is the current binary run again (`/proc/self/exe`) with [`MARKER`] set and
//! nothing else in its environment: an entry this module puts in the binary's ELF
//! `.init_array` runs before `main` in every binary that links `pedelec-core` with
//! `code-mode` (the user's server, test binaries, examples), returns at once unless the
//! marker is set, and otherwise prepares an interpreter (runtime, limits, context, prelude),
//! serves one program over stdin/stdout and exits: `main` (and libtest) never start in a
//! worker. See `docs/code-mode.md` for the alternatives and why this one.
//!
//! The host keeps a [`Pool`] of idle workers per session, each with its interpreter ready
//! (one program per worker; the pool refills in the background, after the program that
//! took a worker when others are left, and reaps workers idle too long); a program takes
//! the oldest.

use std::io::BufReader;
#[cfg(target_os = "linux")]
use std::os::fd::AsFd;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, Weak, mpsc};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::frame::{self, Limits, Start, ToHost, ToWorker, VERSION};
use super::interp::{self, Link, Received, Stop};
use crate::error::{ErrorCode, ToolError};

/// The environment variable that makes a process a worker (its value: the protocol's
/// version).
pub(crate) const MARKER: &str = "PEDELEC_CODE_WORKER";

/// The largest program (its `Start` frame) a worker reads.
const MAX_START: usize = 64 << 20;

/// What the operating system allows a worker beyond the interpreter's memory limit: its
/// threads' stacks, the binary's data, the allocator's slack.
const DATA_MARGIN: usize = 48 << 20;

/// The descriptors a worker may open (it needs its three standard ones only).
const MAX_FILES: u64 = 16;

// The worker's entry, before `main`. Linux only: elsewhere code mode runs programs in
// process (`Isolation::InProcess`), see `docs/code-mode.md`.
#[cfg(target_os = "linux")]
#[used]
// Placing a function pointer in `.init_array` is an unsafe attribute (the linker calls it
// before `main`); `entry` is an ordinary `extern "C" fn()` with no arguments, which is what
// glibc and musl call there, and it returns at once unless the marker is set.
#[allow(unsafe_code)]
#[unsafe(link_section = ".init_array")]
static WORKER_ENTRY: extern "C" fn() = entry;

#[cfg(target_os = "linux")]
extern "C" fn entry() {
    let Some(version) = std::env::var_os(MARKER) else {
        return;
    };
    let code = if version == VERSION { serve() } else { 3 };
    std::process::exit(code);
}

/// The worker: hygiene first, then its interpreter prepared (`ToWorker::Prepare`: the
/// runtime, its limits, the context, the prelude, before any program arrives), then one
/// program, then exit (its status: 0 when it answered).
#[cfg(target_os = "linux")]
fn serve() -> i32 {
    use nix::sys::resource::{Resource, setrlimit};
    close_inherited();
    // A small descriptor table, no core dumps.
    if setrlimit(Resource::RLIMIT_NOFILE, MAX_FILES, MAX_FILES).is_err()
        || setrlimit(Resource::RLIMIT_CORE, 0, 0).is_err()
    {
        return 4;
    }
    let mut input = BufReader::new(std::io::stdin());
    let mut line = Vec::new();
    // None: the pool let it go before it said anything.
    let Ok(Some(ToWorker::Prepare { memory, stack })) =
        frame::read::<ToWorker>(&mut input, &mut line, 256)
    else {
        return 0;
    };
    // Memory bounded by the system too: the interpreter's limit, its stack, a margin.
    let data = memory.saturating_add(stack).saturating_add(DATA_MARGIN);
    if setrlimit(Resource::RLIMIT_DATA, data as u64, data as u64).is_err() {
        return 4;
    }
    let stop = Arc::new(AtomicU8::new(Stop::Running as u8));
    {
        // The host gone (its end of the pipe closed): the program stops. This thread only
        // waits for that; the program's thread reads the frames itself.
        let stop = stop.clone();
        let watcher = std::thread::Builder::new()
            .name("pedelec-worker-hup".into())
            .spawn(move || {
                use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
                let stdin = std::io::stdin();
                let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::empty())];
                // Only POLLHUP or POLLERR end the wait (no event is asked for).
                while let Err(nix::errno::Errno::EINTR) = poll(&mut fds, PollTimeout::NONE) {}
                Stop::set(&stop, Stop::Cancelled);
            });
        if watcher.is_err() {
            return 5;
        }
    }
    // The program first, then the answers to its calls.
    let mut max = MAX_START;
    let receive = move |wait: Option<Duration>| {
        use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
        if let Some(wait) = wait
            && input.buffer().is_empty()
        {
            let stdin = std::io::stdin();
            let mut fds = [PollFd::new(stdin.as_fd(), PollFlags::POLLIN)];
            let timeout = PollTimeout::try_from(wait).unwrap_or(PollTimeout::MAX);
            match poll(&mut fds, timeout) {
                Ok(0) | Err(nix::errno::Errno::EINTR) => return Received::Nothing,
                _ => {}
            }
        }
        match frame::read::<ToWorker>(&mut input, &mut line, max) {
            Ok(Some(frame)) => {
                max = memory.saturating_add(1 << 20);
                Received::Frame(frame)
            }
            Ok(None) | Err(_) => Received::Closed,
        }
    };
    let link = Link {
        send: Box::new(|frame: ToHost| frame::write(&mut std::io::stdout().lock(), &frame).is_ok()),
        receive: Box::new(receive),
    };
    // The peak its program's memory is measured from: the worker's start (the
    // interpreter's own accounting counts its runtime and prelude too).
    interp::note_worker_start();
    // With its program: CPU time as the last backstop (the host kills the worker well
    // before).
    let begin = |limits: &Limits| {
        let cpu = limits.time_ms.div_ceil(1000).saturating_add(2);
        setrlimit(Resource::RLIMIT_CPU, cpu, cpu.saturating_add(1))
            .map_err(|e| interp::internal(&format!("could not limit the worker's CPU time: {e}")))
    };
    let program = std::thread::Builder::new()
        .name("pedelec-run-code".into())
        .stack_size(stack + interp::THREAD_STACK_MARGIN)
        .spawn(move || interp::serve_prepared(memory, stack, link, &stop, begin));
    match program.map(std::thread::JoinHandle::join) {
        Ok(Ok(())) => 0,
        _ => 6,
    }
}

/// Closes every descriptor above the standard three that the worker inherited (the host's
/// libraries may leave some without close-on-exec).
#[cfg(target_os = "linux")]
fn close_inherited() {
    let Ok(entries) = std::fs::read_dir("/proc/self/fd") else {
        return;
    };
    let fds: Vec<i32> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
        .filter(|fd| *fd > 2)
        .collect();
    for fd in fds {
        // Before `main`, nothing in this process owns an inherited descriptor (the one the
        // listing used is closed already: `close` then fails with EBADF, which is ignored),
        // so closing one cannot pull it from under an owner.
        #[allow(unsafe_code)]
        // SAFETY: see above; `close` takes any integer.
        let _ = unsafe { nix::libc::close(fd) };
    }
}

/// What the host hears from a worker (or from a program's thread, in process).
pub(crate) enum FromWorker {
    Frame(ToHost),
    /// It ended: how (its exit status or signal).
    Ended(String),
}

/// A worker process, as the host holds it: killed (SIGKILL) when dropped.
pub(crate) struct Worker {
    stdin: ChildStdin,
    pub(crate) frames: UnboundedReceiver<FromWorker>,
    child: Arc<Mutex<Child>>,
    born: Instant,
    /// The pool to refill when this worker's program ends (`Pool::take`).
    refill: Option<Weak<PoolInner>>,
}

impl Worker {
    /// Starts a worker whose working directory is `dir` and tells it the limits to prepare
    /// its interpreter with (`ToWorker::Prepare`), which it does at once, before it gets a
    /// program.
    fn spawn(dir: &std::path::Path, prepare: &ToWorker) -> Result<Worker, ToolError> {
        let failed = |e: &dyn std::fmt::Display| {
            ToolError::with_code(
                ErrorCode::IoFailed,
                format!("could not start a worker process for the program: {e}"),
            )
        };
        let exe = std::env::current_exe().map_err(|e| failed(&e))?;
        let mut child = Command::new(exe)
            .env_clear()
            .env(MARKER, VERSION)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| failed(&e))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(failed(&"its pipes are missing"));
        };
        let child = Arc::new(Mutex::new(child));
        let (sender, frames) = unbounded_channel();
        let reaper = child.clone();
        std::thread::Builder::new()
            .name("pedelec-worker-out".into())
            .spawn(move || listen(stdout, &sender, &reaper))
            .map_err(|e| failed(&e))?;
        let mut worker = Worker {
            stdin,
            frames,
            child,
            born: Instant::now(),
            refill: None,
        };
        worker.send(prepare);
        Ok(worker)
    }

    /// Sends a frame; a worker that is gone says so with `FromWorker::Ended`.
    pub(crate) fn send(&mut self, frame: &ToWorker) {
        if frame::write(&mut self.stdin, frame).is_err() {
            self.kill();
        }
    }

    /// Kills the worker (SIGKILL); its listener reaps it.
    pub(crate) fn kill(&self) {
        if let Ok(mut child) = self.child.lock() {
            let _ = child.kill();
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.kill();
        if let Some(pool) = self.refill.take().and_then(|pool| pool.upgrade()) {
            pool.lent.fetch_sub(1, Ordering::AcqRel);
            // Under the lock, so that the pool's thread is waiting or has not checked yet.
            let _idle = pool.idle.lock();
            pool.wanted.notify_one();
        }
    }
}

/// The worker's frames, until it closes its output; then it is reaped and its end told.
fn listen(
    stdout: std::process::ChildStdout,
    sender: &UnboundedSender<FromWorker>,
    child: &Mutex<Child>,
) {
    let mut input = BufReader::new(stdout);
    let mut line = Vec::new();
    let mut garbled = None;
    loop {
        match frame::read::<ToHost>(&mut input, &mut line, MAX_FRAME.load(Ordering::Relaxed)) {
            Ok(Some(frame)) => {
                let _ = sender.send(FromWorker::Frame(frame));
            }
            Ok(None) => break,
            Err(e) => {
                garbled = Some(e.to_string());
                break;
            }
        }
    }
    let status = child.lock().map(|mut c| {
        if garbled.is_some() {
            let _ = c.kill();
        }
        c.wait()
    });
    let how = match (garbled, status) {
        (Some(e), _) => format!("it sent a frame the host could not read ({e})"),
        (None, Ok(Ok(status))) => describe(status),
        (None, _) => "it could not be waited for".to_owned(),
    };
    let _ = sender.send(FromWorker::Ended(how));
}

/// The largest frame the host reads from a worker (the largest memory limit of any code
/// mode, plus a margin: a worker cannot send more than its program holds).
pub(crate) static MAX_FRAME: AtomicUsize = AtomicUsize::new(64 << 20);

/// How a worker ended, in words: its exit status or the signal that ended it.
fn describe(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    if let Some(signal) = status.signal() {
        let name = nix::sys::signal::Signal::try_from(signal)
            .map_or_else(|_| "unknown".to_owned(), |s| s.as_str().to_owned());
        format!("killed by signal {signal} ({name})")
    } else {
        format!("exited with {status} before it answered")
    }
}

/// Idle workers, ready for a program each.
pub(crate) struct Pool {
    inner: Arc<PoolInner>,
}

struct PoolInner {
    idle: Mutex<Vec<Worker>>,
    wanted: Condvar,
    size: usize,
    idle_timeout: Duration,
    closed: AtomicBool,
    /// The workers' working directory: empty, read-only, removed with the pool.
    dir: PathBuf,
    /// The limits the workers prepare their interpreters with.
    memory: usize,
    stack: usize,
    /// Workers taken while others were left idle: their programs run, and the pool
    /// refills when they end (`Worker::refill`), not while they run.
    lent: AtomicUsize,
}

impl Pool {
    /// A pool of `size` idle workers (none: each program starts its own), each let go
    /// after `idle_timeout` unused. The first workers start in the background.
    /// Its workers prepare their interpreters with `memory` and `stack`.
    pub(crate) fn new(size: usize, idle_timeout: Duration, memory: usize, stack: usize) -> Pool {
        static POOLS: AtomicU64 = AtomicU64::new(0);
        MAX_FRAME.fetch_max(memory.saturating_add(1 << 20), Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "pedelec-code-{}-{}",
            std::process::id(),
            POOLS.fetch_add(1, Ordering::Relaxed)
        ));
        let inner = Arc::new(PoolInner {
            idle: Mutex::new(Vec::new()),
            wanted: Condvar::new(),
            size,
            idle_timeout,
            closed: AtomicBool::new(false),
            dir,
            memory,
            stack,
            lent: AtomicUsize::new(0),
        });
        let weak = Arc::downgrade(&inner);
        if size > 0 {
            let _ = std::thread::Builder::new()
                .name("pedelec-worker-pool".into())
                .spawn(move || refill(&weak));
        }
        Pool { inner }
    }

    /// A worker for one program: an idle one, or a new one.
    pub(crate) fn take(&self) -> Result<Worker, ToolError> {
        let inner = &self.inner;
        let fresh = {
            let mut idle = inner.idle.lock().map_err(|_| poisoned())?;
            let mut found = None;
            // The oldest first: the one most likely done preparing its interpreter.
            while !idle.is_empty() {
                let worker = idle.remove(0);
                // A worker that said anything before it got a program has ended.
                if worker.frames.is_empty() && worker.born.elapsed() < inner.idle_timeout {
                    found = Some(worker);
                    break;
                }
            }
            // With workers still idle, the pool refills when this program ends: starting a
            // process (and preparing its interpreter) takes the cores the program runs on.
            if let Some(worker) = &mut found
                && !idle.is_empty()
            {
                inner.lent.fetch_add(1, Ordering::AcqRel);
                worker.refill = Some(Arc::downgrade(inner));
            } else {
                inner.wanted.notify_one();
            }
            found
        };
        match fresh {
            Some(worker) => Ok(worker),
            None => {
                inner.ensure_dir()?;
                Worker::spawn(&inner.dir, &inner.prepare())
            }
        }
    }
}

fn poisoned() -> ToolError {
    ToolError::new("code mode's worker pool is unusable (a thread panicked)")
}

impl PoolInner {
    fn prepare(&self) -> ToWorker {
        ToWorker::Prepare {
            memory: self.memory,
            stack: self.stack,
        }
    }

    fn ensure_dir(&self) -> Result<(), ToolError> {
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        if self.dir.is_dir() {
            return Ok(());
        }
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
            .and_then(|()| {
                std::fs::set_permissions(&self.dir, std::fs::Permissions::from_mode(0o500))
            })
            .map_err(|e| {
                ToolError::with_code(
                    ErrorCode::IoFailed,
                    format!(
                        "could not create the workers' directory {}: {e}",
                        self.dir.display()
                    ),
                )
            })
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.inner.closed.store(true, Ordering::Release);
        let idle = self
            .inner
            .idle
            .lock()
            .map(|mut idle| std::mem::take(&mut *idle))
            .unwrap_or_default();
        drop(idle);
        self.inner.wanted.notify_all();
    }
}

impl Drop for PoolInner {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.dir);
    }
}

/// The pool's thread: keeps `size` idle workers, lets go of those idle too long, and ends
/// with the pool.
fn refill(pool: &Weak<PoolInner>) {
    loop {
        let Some(inner) = pool.upgrade() else { return };
        if inner.closed.load(Ordering::Acquire) {
            return;
        }
        let Ok(mut idle) = inner.idle.lock() else {
            return;
        };
        idle.retain(|w| w.born.elapsed() < inner.idle_timeout && w.frames.is_empty());
        // Below its size, the pool refills, but not while a program it lent runs and
        // another worker is still idle (that program's end calls for the refill).
        if idle.len() < inner.size && (idle.is_empty() || inner.lent.load(Ordering::Acquire) == 0) {
            drop(idle);
            if inner.ensure_dir().is_err() {
                std::thread::sleep(Duration::from_secs(1));
                continue;
            }
            match Worker::spawn(&inner.dir, &inner.prepare()) {
                Ok(worker) => {
                    if let Ok(mut idle) = inner.idle.lock() {
                        if inner.closed.load(Ordering::Acquire) {
                            return;
                        }
                        idle.push(worker);
                    }
                }
                Err(_) => std::thread::sleep(Duration::from_secs(1)),
            }
            continue;
        }
        let wait = inner.idle_timeout.min(Duration::from_millis(500));
        let _ = inner.wanted.wait_timeout(idle, wait);
    }
}

/// A program's thread in the host: the in-process sandbox (`Isolation::InProcess`), which
/// the host cannot kill, only interrupt.
pub(crate) struct InProcess {
    to_program: mpsc::Sender<ToWorker>,
    pub(crate) frames: UnboundedReceiver<FromWorker>,
    pub(crate) stop: Arc<AtomicU8>,
}

impl InProcess {
    pub(crate) fn spawn(start: Start) -> Result<InProcess, ToolError> {
        let stop = Arc::new(AtomicU8::new(Stop::Running as u8));
        let (to_program, inbox) = mpsc::channel();
        let (sender, frames) = unbounded_channel();
        let link = Link::channels(
            Box::new(move |frame| sender.send(FromWorker::Frame(frame)).is_ok()),
            inbox,
        );
        let flag = stop.clone();
        std::thread::Builder::new()
            .name("pedelec-run-code".into())
            .stack_size(start.limits.stack + interp::THREAD_STACK_MARGIN)
            .spawn(move || interp::serve(&start, link, &flag))
            .map_err(|e| {
                ToolError::with_code(
                    ErrorCode::IoFailed,
                    format!("could not start the program's thread: {e}"),
                )
            })?;
        Ok(InProcess {
            to_program,
            frames,
            stop,
        })
    }

    pub(crate) fn send(&self, frame: ToWorker) {
        let _ = self.to_program.send(frame);
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        Stop::set(&self.stop, Stop::Cancelled);
    }
}
