//! Debian's Redis, as `cargo xtask redis` installs it under `target/debs/`, started on a
//! port of the caller's: shared by `tests/exactly_once.rs`, `benches/store.rs` and
//! pedelec-core's store tests.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The script `cargo xtask redis` writes, in the workspace's target directory (the one
/// beside `Cargo.lock`: this file serves the root crate's tests and pedelec-core's).
fn script() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            manifest
                .ancestors()
                .find(|dir| dir.join("Cargo.lock").exists())
                .unwrap_or(manifest)
                .join("target")
        },
        PathBuf::from,
    );
    target.join("debs/redis-server")
}

/// A port nobody listens on now.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// A Redis without persistence on `port`, answering once this returns; `None` (with a
/// notice) when Redis is not installed, which fails instead when `CI` is set.
pub fn spawn(port: u16) -> Option<Child> {
    let script = script();
    if !script.exists() {
        let notice = format!(
            "Redis is not installed ({} is missing): run `cargo xtask redis`",
            script.display()
        );
        assert!(std::env::var_os("CI").is_none(), "{notice}");
        eprintln!("note: {notice}; what needs Redis is skipped");
        return None;
    }
    // Nothing inherited: a Redis that outlived its test binary while holding the binary's
    // standard error kept whoever reads that pipe (CI's log) waiting for its end.
    let child = Command::new(&script)
        .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
        .args(["--save", "", "--appendonly", "no"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("redis-server starts");
    watch(child.id());
    for _ in 0..200 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    Some(child)
}

/// Stops Redis `pid` when this process ends, however it ends (a server kept in a `static`
/// is never dropped): a shell waits on a pipe only this process writes to, and the kernel
/// closes it at exit. Its handle is leaked on purpose, to keep the pipe open until then.
fn watch(pid: u32) {
    let watchdog = Command::new("sh")
        .args(["-c", &format!("read _; kill {pid} 2>/dev/null")])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn();
    if let Ok(watchdog) = watchdog {
        std::mem::forget(watchdog);
    }
}
