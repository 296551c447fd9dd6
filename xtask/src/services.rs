//! Processes the benchmarks start and stop on loopback (servers, Redis, nginx), and a
//! minimal HTTP/1.1 client over `std` to check them.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A child process that is stopped (and reaped) when dropped.
pub struct Service {
    name: String,
    child: Child,
    /// How to stop it: `None` kills it (SIGKILL); `Some(signal)` sends that signal with
    /// `kill` first and waits up to 5 s (nginx's master stops its workers on `TERM`).
    signal: Option<&'static str>,
}

impl Service {
    /// Starts `command` as `name`.
    pub fn spawn(name: &str, command: &mut Command) -> Result<Self, String> {
        let child = command.spawn().map_err(|e| {
            format!(
                "cannot start {name} ({}): {e}",
                command.get_program().display()
            )
        })?;
        Ok(Service {
            name: name.to_owned(),
            child,
            signal: None,
        })
    }

    /// Stops it with `kill -SIGNAL` (then SIGKILL after 5 s) instead of SIGKILL.
    #[must_use]
    pub fn stop_with(mut self, signal: &'static str) -> Self {
        self.signal = Some(signal);
        self
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its standard output's first line (the servers print `listening ADDR`); the rest is
    /// drained by a thread so that the child never blocks on a full pipe.
    pub fn first_line(&mut self) -> Result<String, String> {
        let stdout = self
            .child
            .stdout
            .take()
            .ok_or_else(|| format!("{}: stdout is not piped", self.name))?;
        let mut reader = BufReader::new(stdout);
        let mut line = String::new();
        reader
            .read_line(&mut line)
            .map_err(|e| format!("{}: {e}", self.name))?;
        std::thread::spawn(move || std::io::copy(&mut reader, &mut std::io::sink()));
        if line.is_empty() {
            let status = self.child.wait().map_err(|e| e.to_string())?;
            return Err(format!(
                "{} exited before it was ready ({status})",
                self.name
            ));
        }
        Ok(line.trim_end().to_owned())
    }

    /// Whether it is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Some(signal) = self.signal
            && Command::new("kill")
                .arg(format!("-{signal}"))
                .arg(self.child.id().to_string())
                .status()
                .is_ok_and(|s| s.success())
        {
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if !matches!(self.child.try_wait(), Ok(None)) {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A loopback port free now (bound, read, released: another process could take it in
/// between, which on this machine's loopback does not happen in practice).
pub fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free loopback port: {e}"))
}

/// Waits until `addr` accepts connections (or `service` exits, or 10 s pass).
pub fn wait_for_port(addr: SocketAddr, service: &mut Service) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if !service.running() {
            return Err(format!(
                "{} exited before listening on {addr}",
                service.name
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Err(format!(
        "{} is not listening on {addr} after 10 s",
        service.name
    ))
}

/// Starts Redis (from the extracted tree) on a free loopback port, without persistence,
/// its files in `dir`; returns it and its port once it answers `PING`.
pub fn start_redis(tree: &super::debs::Tree, dir: &Path) -> Result<(Service, u16), String> {
    let port = free_port()?;
    Ok((start_redis_on(tree, dir, port)?, port))
}

/// Sends one inline command to the Redis at `port` and returns its one-line answer
/// (`+PONG`, `+OK`).
pub fn redis_command(port: u16, command: &str) -> Result<String, String> {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("connect to Redis at {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    stream
        .write_all(format!("{command}\r\n").as_bytes())
        .map_err(|e| e.to_string())?;
    let mut line = String::new();
    BufReader::new(stream)
        .read_line(&mut line)
        .map_err(|e| format!("Redis at {addr} did not answer {command}: {e}"))?;
    Ok(line.trim_end().to_owned())
}

/// [`start_redis`] on `port` (to restart one where its clients expect it).
pub fn start_redis_on(tree: &super::debs::Tree, dir: &Path, port: u16) -> Result<Service, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut redis = Service::spawn(
        "redis-server",
        Command::new(tree.bin("usr/bin/redis-server"))
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no", "--logfile", ""])
            .arg("--dir")
            .arg(dir)
            .env("LD_LIBRARY_PATH", tree.library_path())
            .stdout(Stdio::null()),
    )?;
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    wait_for_port(addr, &mut redis)?;
    let pong = redis_command(port, "PING")?;
    if pong != "+PONG" {
        return Err(format!("redis-server answered PING with {pong:?}"));
    }
    Ok(redis)
}

/// An HTTP answer.
#[derive(Debug, PartialEq, Eq)]
pub struct HttpAnswer {
    /// The status code.
    pub status: u16,
    /// The body (de-chunked).
    pub body: String,
}

/// `POST` of a JSON body to `http://addr{path}` with the MCP headers, on a new connection
/// closed afterwards.
pub fn post_json(
    addr: SocketAddr,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Result<HttpAnswer, String> {
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5))
        .map_err(|e| format!("connect {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .map_err(|e| e.to_string())?;
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        let _ = write!(request, "{name}: {value}\r\n");
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream
        .write_all(request.as_bytes())
        .map_err(|e| format!("write to {addr}: {e}"))?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .map_err(|e| format!("read from {addr}: {e}"))?;
    parse_http_answer(&raw)
}

/// Parses a whole HTTP/1.1 answer (status line, headers, a body with `Content-Length`,
/// chunked, or up to the end).
pub fn parse_http_answer(raw: &[u8]) -> Result<HttpAnswer, String> {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| format!("not an HTTP answer: {text:?}"))?;
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("no status line in {head:?}"))?;
    let chunked = lines.any(|l| {
        let l = l.to_ascii_lowercase();
        l.starts_with("transfer-encoding:") && l.contains("chunked")
    });
    let body = if chunked {
        dechunk(body)?
    } else {
        body.to_owned()
    };
    Ok(HttpAnswer { status, body })
}

fn dechunk(mut rest: &str) -> Result<String, String> {
    let mut out = String::new();
    loop {
        let (size, after) = rest
            .split_once("\r\n")
            .ok_or_else(|| "a chunk without its size line".to_owned())?;
        let size = usize::from_str_radix(size.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| format!("a bad chunk size {size:?}"))?;
        if size == 0 {
            return Ok(out);
        }
        let chunk = after
            .get(..size)
            .ok_or_else(|| "a chunk shorter than its size".to_owned())?;
        out.push_str(chunk);
        rest = after[size..].strip_prefix("\r\n").unwrap_or(&after[size..]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn http_answers() {
        let plain = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}";
        assert_eq!(
            parse_http_answer(plain).unwrap(),
            HttpAnswer {
                status: 200,
                body: "{}".into()
            }
        );
        let chunked = b"HTTP/1.1 403 Forbidden\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n";
        assert_eq!(
            parse_http_answer(chunked).unwrap(),
            HttpAnswer {
                status: 403,
                body: "abcde".into()
            }
        );
        assert!(parse_http_answer(b"garbage").is_err());
    }
}
