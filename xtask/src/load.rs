//! `cargo xtask load`: MCP over streamable HTTP under load, servers side by side.
//!
//! Builds `xtask/load` (`pedelec-load`) in release mode: `load-server` (one server per
//! process: `pedelec`'s `McpHttp`, `rmcp`'s own stateless `StreamableHttpService` with the
//! same tools, the `floor` — a bare axum handler answering the same JSON-RPC with
//! `serde_json` — and the TM Dev Lab catalog `api`) and `load-gen` (the generator: hyper,
//! one kept-alive HTTP/1.1 connection per client, one request in flight each, pre-encoded
//! bodies, every answer checked). Then, for each round, each concurrency and each server
//! (the servers' order turning from round to round), it starts the server, drives it for a
//! warm-up and the measured window, and stops it. It prints each run, the medians, and
//! pedelec's ratios to the others: the median of the per-round ratios (the servers of a
//! round ran seconds apart, so a machine busy with other work moves them together).
//!
//! - `--workload counter` (default): `update_counter(delta)` at 1, 16 and 64 clients,
//!   5 rounds of pedelec, rmcp and floor;
//! - `--workload tmdevlab`: the TM Dev Lab v2 benchmark's three tools against a real Redis
//!   (Debian's, installed under `target/debs/` and started here) and the catalog on
//!   loopback, 50 clients replaying the benchmark's k6 script, 3 rounds of pedelec and
//!   rmcp (Redis re-seeded before each run);
//! - `--profile`: each run under `perf record` (Debian's `linux-perf`), the server's top
//!   symbols printed, the data kept under `target/load/`.
//!
//! Server CPU time per call (from `/proc/PID/stat` over the window) is printed beside the
//! throughput: it holds better than wall-clock numbers on a machine shared with other work.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::debs;
use super::services::{Service, start_redis};

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `counter` or `tmdevlab`.
    pub workload: Workload,
    /// Rounds (each server once per concurrency per round).
    pub rounds: usize,
    /// Concurrent clients.
    pub clients: Vec<usize>,
    /// The servers.
    pub kinds: Vec<String>,
    /// Warm-up seconds.
    pub warmup: f64,
    /// Measured seconds.
    pub secs: f64,
    /// The MCP revision of the counter workload's requests.
    pub protocol: String,
    /// The generator's runtime threads (its default: one per core).
    pub threads: Option<usize>,
    /// Run under `perf record`.
    pub profile: bool,
    /// Another build's `load-server`, run as the server `before` (`--kind pedelec`): the
    /// same workload against pedelec as it was, in the same run.
    pub baseline: Option<PathBuf>,
}

/// The workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// `update_counter` back to back.
    Counter,
    /// The TM Dev Lab v2 benchmark.
    TmDevLab,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Counter => "counter",
            Workload::TmDevLab => "tmdevlab",
        }
    }
}

/// The flags' help.
pub const USAGE: &str = "[--workload counter|tmdevlab] [--rounds N] [--clients 1,16,64]
                   [--kinds pedelec,rmcp,floor] [--warmup SECS] [--secs SECS]
                   [--protocol 2025-11-25|2026-07-28] [--threads N] [--profile]
                   [--baseline PATH/TO/load-server]";

fn list<T: std::str::FromStr>(flag: &str, value: &str) -> Result<Vec<T>, String> {
    value
        .split(',')
        .map(|v| {
            v.trim()
                .parse()
                .map_err(|_| format!("`{flag}` takes a comma-separated list, not `{value}`"))
        })
        .collect()
}

/// Parses the flags of `cargo xtask load`.
pub fn parse(args: &[String]) -> Result<Options, String> {
    let workload = match args.iter().position(|a| a == "--workload") {
        Some(i) => match args.get(i + 1).map(String::as_str) {
            Some("counter") => Workload::Counter,
            Some("tmdevlab") => Workload::TmDevLab,
            other => {
                return Err(format!(
                    "`--workload` takes counter or tmdevlab, not {}",
                    other.unwrap_or("nothing")
                ));
            }
        },
        None => Workload::Counter,
    };
    let mut options = match workload {
        Workload::Counter => Options {
            workload,
            rounds: 5,
            clients: vec![1, 16, 64],
            kinds: vec!["pedelec".into(), "rmcp".into(), "floor".into()],
            warmup: 1.0,
            secs: 3.0,
            protocol: "2025-11-25".into(),
            threads: None,
            profile: false,
            baseline: None,
        },
        Workload::TmDevLab => Options {
            workload,
            rounds: 3,
            clients: vec![50],
            kinds: vec!["pedelec".into(), "rmcp".into()],
            warmup: 5.0,
            secs: 20.0,
            protocol: "2025-11-25".into(),
            threads: None,
            profile: false,
            baseline: None,
        },
    };
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        if flag == "--profile" {
            options.profile = true;
            continue;
        }
        let value = it.next().ok_or_else(|| format!("`{flag}` takes a value"))?;
        let number = |v: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|n| n.is_finite() && *n >= 0.0)
                .ok_or_else(|| format!("`{flag}` takes a number of seconds, not `{v}`"))
        };
        match flag.as_str() {
            "--workload" => {}
            "--rounds" => {
                options.rounds =
                    value.parse().ok().filter(|&n| n > 0).ok_or_else(|| {
                        format!("`--rounds` takes a count above 0, not `{value}`")
                    })?;
            }
            "--clients" => options.clients = list(flag, value)?,
            "--kinds" => options.kinds = list(flag, value)?,
            "--baseline" => options.baseline = Some(PathBuf::from(value)),
            "--warmup" => options.warmup = number(value)?,
            "--secs" => options.secs = number(value)?,
            "--protocol" => options.protocol.clone_from(value),
            "--threads" => options.threads = Some(list(flag, value)?[0]),
            _ => return Err(format!("unknown flag `{flag}` for load\n  load {USAGE}")),
        }
    }
    if options.clients.is_empty() || options.clients.contains(&0) {
        return Err("`--clients` must list counts above 0".into());
    }
    if options.secs <= 0.0 {
        return Err("`--secs` must be above 0".into());
    }
    if options.baseline.is_some() && !options.kinds.iter().any(|k| k == "before") {
        options.kinds.push("before".into());
    }
    for kind in &options.kinds {
        let known: &[&str] = match workload {
            Workload::Counter => &["pedelec", "rmcp", "floor", "before"],
            Workload::TmDevLab => &["pedelec", "rmcp", "before"],
        };
        if !known.contains(&kind.as_str()) || (kind == "before" && options.baseline.is_none()) {
            return Err(format!(
                "no `{kind}` server for the {} workload (servers: {})",
                workload.name(),
                known.join(", ")
            ));
        }
    }
    Ok(options)
}

/// One run's result, as `load-gen` prints it (`result key=value …`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Measure {
    fields: BTreeMap<String, String>,
}

impl Measure {
    /// Parses the `result …` line.
    pub fn parse(line: &str) -> Option<Self> {
        let rest = line.strip_prefix("result ")?;
        let fields = rest
            .split_whitespace()
            .filter_map(|kv| kv.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        Some(Measure { fields })
    }

    /// A numeric field (`None` when absent or `-`).
    pub fn get(&self, key: &str) -> Option<f64> {
        self.fields.get(key)?.parse().ok()
    }

    /// CPU microseconds per call of the server (`who = "server"`) or the generator.
    pub fn cpu_us_per_call(&self, who: &str) -> Option<f64> {
        let calls = self.get("calls")?;
        let cpu = self.get(&format!("{who}_cpu_s"))?;
        (calls > 0.0).then(|| cpu * 1e6 / calls)
    }
}

/// The median (the mean of the two middle values for an even count); `None` when empty.
pub fn median(values: &[f64]) -> Option<f64> {
    let mut sorted: Vec<f64> = values.iter().copied().filter(|v| v.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    Some(if n % 2 == 1 {
        sorted[n / 2]
    } else {
        f64::midpoint(sorted[n / 2 - 1], sorted[n / 2])
    })
}

/// The servers' order in round `round`: turned by one each round, so that no server always
/// runs first (or right after another).
pub fn order(kinds: &[String], round: usize) -> Vec<String> {
    let mut kinds = kinds.to_vec();
    if !kinds.is_empty() {
        let n = kinds.len();
        kinds.rotate_left(round % n);
    }
    kinds
}

fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// Runs `cargo xtask load`.
pub fn run(root: &Path, args: &[OsString]) -> Result<(), String> {
    let args: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let options = parse(&args)?;
    println!("load: building the servers and the generator (release)");
    super::run(super::cargo(root).args([
        "build",
        "--release",
        "--quiet",
        "-p",
        "pedelec-load",
        "--bins",
    ]))?;
    let bins = target_dir(root).join("release");
    let work = target_dir(root).join("load");
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    if options.profile {
        check_perf()?;
        println!("load: --profile: each server's measured window is recorded as\n{PROFILE_HINT}");
    }
    println!("load: machine: {}", uptime());
    let mut env = Environment {
        bins,
        work,
        redis: None,
        api: None,
    };
    if options.workload == Workload::TmDevLab {
        env.start_tmdevlab(root)?;
    }
    let mut results: BTreeMap<(usize, String), Vec<Measure>> = BTreeMap::new();
    for round in 0..options.rounds {
        for &clients in &options.clients {
            for kind in order(&options.kinds, round) {
                let measure = env.run_one(&options, &kind, clients, round)?;
                println!(
                    "round {} clients {clients:>3} {kind:<8} {}",
                    round + 1,
                    brief(&measure, options.workload)
                );
                results.entry((clients, kind)).or_default().push(measure);
            }
        }
    }
    println!("load: machine: {}", uptime());
    report(&options, &results);
    Ok(())
}

/// Redis, the catalog and where the binaries are.
struct Environment {
    bins: PathBuf,
    work: PathBuf,
    redis: Option<(Service, u16)>,
    api: Option<(Service, String)>,
}

impl Environment {
    fn start_tmdevlab(&mut self, root: &Path) -> Result<(), String> {
        let tree = debs::install(root, debs::REDIS)?;
        let (redis, port) = start_redis(&tree, &self.work.join("redis"))?;
        println!("load: redis-server {} on 127.0.0.1:{port}", debs::REDIS.0);
        self.redis = Some((redis, port));
        let mut api = Service::spawn(
            "the catalog (load-server --kind api)",
            Command::new(self.bins.join("load-server"))
                .args(["--kind", "api"])
                .stdout(Stdio::piped()),
        )?;
        let line = api.first_line()?;
        let addr = listening(&line)?;
        println!("load: catalog on {addr}");
        self.api = Some((api, format!("http://{addr}")));
        Ok(())
    }

    fn run_one(
        &self,
        options: &Options,
        kind: &str,
        clients: usize,
        round: usize,
    ) -> Result<Measure, String> {
        let (program, server_kind) = match (&options.baseline, kind) {
            (Some(baseline), "before") => (baseline.clone(), "pedelec"),
            _ => (self.bins.join("load-server"), kind),
        };
        let mut server = Command::new(program);
        server
            .args(["--kind", server_kind, "--workload", options.workload.name()])
            .stdout(Stdio::piped());
        if let (Some((_, port)), Some((_, api))) = (&self.redis, &self.api) {
            let redis = format!("redis://127.0.0.1:{port}");
            super::run(
                Command::new(self.bins.join("load-gen"))
                    .args(["seed", "--redis", &redis])
                    .stdout(Stdio::null()),
            )?;
            server.args(["--redis", &redis, "--api", api]);
        }
        let mut server = Service::spawn(&format!("load-server --kind {kind}"), &mut server)?;
        let addr = listening(&server.first_line()?)?;
        let pid = server.pid();
        let mut generator = Command::new(self.bins.join("load-gen"));
        generator
            .arg("run")
            .args(["--url", &format!("http://{addr}/mcp")])
            .args(["--clients", &clients.to_string()])
            .args(["--warmup", &options.warmup.to_string()])
            .args(["--secs", &options.secs.to_string()])
            .args(["--workload", options.workload.name()])
            .args(["--protocol", &options.protocol])
            .args(["--server-pid", &pid.to_string()]);
        if let Some(threads) = options.threads {
            generator.args(["--threads", &threads.to_string()]);
        }
        let perf = options
            .profile
            .then(|| {
                let data = self
                    .work
                    .join(format!("perf-{kind}-{clients}-r{}.data", round + 1));
                perf_record(pid, options.warmup, options.secs, &data).map(|p| (p, data))
            })
            .transpose()?;
        let out = generator
            .output()
            .map_err(|e| format!("cannot run load-gen: {e}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            return Err(format!(
                "load-gen failed against {kind}: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        if let Some(error) = stdout.lines().find_map(|l| l.strip_prefix("first_error ")) {
            println!("  {kind}: first error: {error}");
        }
        let measure = stdout
            .lines()
            .find_map(Measure::parse)
            .ok_or_else(|| format!("load-gen printed no result: {stdout}"))?;
        if let Some((perf, data)) = perf {
            let status = perf.wait_with_output().map_err(|e| e.to_string())?;
            if !status.status.success() {
                return Err(format!(
                    "perf record failed: {}",
                    String::from_utf8_lossy(&status.stderr).trim()
                ));
            }
            print_profile(&data)?;
        }
        drop(server);
        Ok(measure)
    }
}

fn listening(line: &str) -> Result<String, String> {
    line.strip_prefix("listening ")
        .map(str::to_owned)
        .ok_or_else(|| format!("the server printed `{line}`, not `listening ADDR`"))
}

fn brief(m: &Measure, workload: Workload) -> String {
    let f = |k: &str| m.get(k).map_or_else(|| "-".into(), |v| format!("{v:.0}"));
    let cpu = |who: &str| {
        m.cpu_us_per_call(who)
            .map_or_else(|| "-".into(), |v| format!("{v:.1}"))
    };
    match workload {
        Workload::Counter => format!(
            "{:>8} calls/s  p50 {:>6} µs  p99 {:>6} µs  server {:>6} µs CPU/call  gen {:>5} µs CPU/call  errors {}",
            f("calls_per_s"),
            f("p50_us"),
            f("p99_us"),
            cpu("server"),
            cpu("gen"),
            f("errors"),
        ),
        Workload::TmDevLab => format!(
            "{:>7} req/s ({} tool calls/s)  mean {:>7} µs  p95 {:>7} µs  server {} µs CPU/call  RSS {} KiB  errors {}",
            f("mcp_per_s"),
            f("calls_per_s"),
            m.get("mean_us")
                .map_or_else(|| "-".into(), |v| format!("{v:.0}")),
            f("p95_us"),
            cpu("server"),
            f("rss_kib"),
            f("errors"),
        ),
    }
}

fn report(options: &Options, results: &BTreeMap<(usize, String), Vec<Measure>>) {
    let med = |clients: usize, kind: &str, f: &dyn Fn(&Measure) -> Option<f64>| {
        results
            .get(&(clients, kind.to_owned()))
            .and_then(|ms| median(&ms.iter().filter_map(f).collect::<Vec<_>>()))
    };
    let show =
        |v: Option<f64>, digits: usize| v.map_or_else(|| "-".into(), |v| format!("{v:.digits$}"));
    println!(
        "\nmedians of {} rounds ({} s measured after {} s of warm-up each):",
        options.rounds, options.secs, options.warmup
    );
    let throughput = match options.workload {
        Workload::Counter => "calls/s",
        Workload::TmDevLab => "req/s",
    };
    if options.workload == Workload::TmDevLab {
        println!(
            "(req/s counts what the k6 script counts: initialize, tools/call, tools/list; \
             latency and CPU are per tool call, CPU including the requests around it)"
        );
    }
    println!(
        "clients  server   {throughput:>9}  mean µs  p50 µs  p90 µs  p95 µs  p99 µs  server CPU µs/call  gen CPU µs/call  RSS KiB (peak)  errors"
    );
    let rate_key = match options.workload {
        Workload::Counter => "calls_per_s",
        Workload::TmDevLab => "mcp_per_s",
    };
    for &clients in &options.clients {
        for kind in &options.kinds {
            let g = |k: &'static str| move |m: &Measure| m.get(k);
            println!(
                "{clients:>7}  {kind:<8} {:>9}  {:>7}  {:>6}  {:>6}  {:>6}  {:>6}  {:>18}  {:>15}  {:>7} ({:>6})  {:>6}",
                show(med(clients, kind, &g(rate_key)), 0),
                show(med(clients, kind, &g("mean_us")), 0),
                show(med(clients, kind, &g("p50_us")), 0),
                show(med(clients, kind, &g("p90_us")), 0),
                show(med(clients, kind, &g("p95_us")), 0),
                show(med(clients, kind, &g("p99_us")), 0),
                show(med(clients, kind, &|m| m.cpu_us_per_call("server")), 1),
                show(med(clients, kind, &|m| m.cpu_us_per_call("gen")), 1),
                show(med(clients, kind, &g("rss_kib")), 0),
                show(med(clients, kind, &g("hwm_kib")), 0),
                show(
                    results.get(&(clients, kind.clone())).map(|ms| {
                        ms.iter()
                            .map(|m| {
                                m.get("errors").unwrap_or(0.0)
                                    + m.get("warmup_errors").unwrap_or(0.0)
                            })
                            .sum()
                    }),
                    0
                ),
            );
        }
    }
    if !options.kinds.iter().any(|k| k == "pedelec") || options.kinds.len() < 2 {
        return;
    }
    println!(
        "\npedelec's ratios (median of the per-round ratios; throughput: higher is better, CPU per call: lower is better):"
    );
    for other in options.kinds.iter().filter(|k| *k != "pedelec") {
        for &clients in &options.clients {
            let per_round = |f: &dyn Fn(&Measure) -> Option<f64>| {
                let (Some(ours), Some(theirs)) = (
                    results.get(&(clients, "pedelec".to_owned())),
                    results.get(&(clients, other.clone())),
                ) else {
                    return None;
                };
                let ratios: Vec<f64> = ours
                    .iter()
                    .zip(theirs)
                    .filter_map(|(a, b)| Some(f(a)? / f(b)?))
                    .collect();
                median(&ratios)
            };
            println!(
                "  pedelec/{other:<5} at {clients:>3} clients: throughput {}×, server CPU per call {}×",
                show(per_round(&|m| m.get(rate_key)), 2),
                show(per_round(&|m| m.cpu_us_per_call("server")), 2),
            );
        }
    }
}

fn uptime() -> String {
    std::fs::read_to_string("/proc/loadavg").map_or_else(
        |_| "load average unknown".into(),
        |l| {
            let parts: Vec<&str> = l.split_whitespace().take(3).collect();
            format!(
                "load average {} (1, 5, 15 min) on {} cores",
                parts.join(", "),
                std::thread::available_parallelism().map_or(0, usize::from)
            )
        },
    )
}

/// The perf commands `--profile` runs (and a person can run by hand).
pub const PROFILE_HINT: &str = "perf record -e cpu-clock -F 499 --call-graph dwarf,16384 -p SERVER_PID -o perf.data -- sleep SECS
perf report -i perf.data --stdio --children --sort symbol -g none --percent-limit 0.7
(Debian's linux-perf: `apt-get install linux-perf`. Hardware counters may be missing in a
virtual machine, as here: `perf stat -e instructions true` tells; cpu-clock sampling works.)";

fn check_perf() -> Result<(), String> {
    match Command::new("perf").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err(format!(
            "--profile needs perf (Debian: `apt-get install linux-perf`); then:\n{PROFILE_HINT}"
        )),
    }
}

fn perf_record(
    pid: u32,
    warmup: f64,
    secs: f64,
    data: &Path,
) -> Result<std::process::Child, String> {
    // Sampled over the measured window only: perf waits out the warm-up first.
    Command::new("bash")
        .arg("-c")
        .arg(format!(
            "sleep {warmup} && exec perf record -q -e cpu-clock -F 499 --call-graph dwarf,16384 -p {pid} -o {} -- sleep {secs}",
            data.display()
        ))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run perf: {e}"))
}

/// Frames every async Rust server has on its stack (the runtime, thread start): left out
/// of the inclusive listing, which is about where a call's time goes.
const GENERIC_FRAMES: [&str; 12] = [
    "tokio::runtime::",
    "std::sys::",
    "start_thread",
    "clone3",
    "0xffffffffffffffff",
    "core::ops::function::",
    "core::future::poll_fn",
    "entry_SYSCALL",
    "do_syscall_64",
    "FnOnce::call_once",
    "std::panicking",
    "std::panic::",
];

fn print_profile(data: &Path) -> Result<(), String> {
    let report = |children: bool| -> Result<String, String> {
        let out = Command::new("perf")
            .args(["report", "--stdio", "-q", "--sort", "symbol", "-g", "none"])
            .arg(if children {
                "--children"
            } else {
                "--no-children"
            })
            .args(["--percent-limit", "0.7", "-i"])
            .arg(data)
            .output()
            .map_err(|e| format!("cannot run perf report: {e}"))?;
        let text: Vec<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(tidy_perf_line)
            .filter(|l| !l.is_empty())
            .collect();
        Ok(text.join("\n"))
    };
    let flat = report(false)?;
    let inclusive = report(true)?;
    let text = data.with_extension("txt");
    std::fs::write(
        &text,
        format!("# self time\n{flat}\n\n# inclusive time (callers included)\n{inclusive}\n"),
    )
    .map_err(|e| format!("cannot write {}: {e}", text.display()))?;
    println!("  perf: self time, top symbols ({}):", text.display());
    for line in flat.lines().take(15) {
        println!("    {line}");
    }
    println!(
        "  perf: inclusive time (callers included), user space, runtime frames left out \
         (on loopback a send's time includes the peer's receive, in the kernel):"
    );
    for line in inclusive
        .lines()
        .filter(|l| !l.contains("[k]") && !GENERIC_FRAMES.iter().any(|g| l.contains(g)))
        .take(40)
    {
        println!("    {line}");
    }
    Ok(())
}

/// A line of `perf report --stdio` without its padding and empty trailing columns.
fn tidy_perf_line(line: &str) -> String {
    let mut line = line.trim_end();
    while let Some(rest) = line.strip_suffix('-') {
        line = rest.trim_end();
    }
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn defaults_per_workload() {
        let counter = parse(&[]).unwrap();
        assert_eq!(counter.workload, Workload::Counter);
        assert_eq!(
            (counter.rounds, counter.clients.as_slice()),
            (5, &[1, 16, 64][..])
        );
        assert_eq!(counter.kinds, ["pedelec", "rmcp", "floor"]);
        let tm = parse(&args("--workload tmdevlab")).unwrap();
        assert_eq!((tm.clients.as_slice(), tm.kinds.len()), (&[50][..], 2));
    }

    #[test]
    fn flags() {
        let o = parse(&args(
            "--rounds 2 --clients 4,8 --kinds pedelec,floor --warmup 0.5 --secs 2 --protocol 2026-07-28 --threads 1 --profile",
        ))
        .unwrap();
        assert_eq!((o.rounds, o.clients.as_slice()), (2, &[4, 8][..]));
        assert_eq!(o.kinds, ["pedelec", "floor"]);
        assert_eq!(
            (o.warmup, o.secs, o.threads, o.profile),
            (0.5, 2.0, Some(1), true)
        );
        assert_eq!(o.protocol, "2026-07-28");
        assert!(parse(&args("--rounds 0")).is_err());
        assert!(
            parse(&args("--clients 1,x"))
                .unwrap_err()
                .contains("comma-separated")
        );
        assert!(parse(&args("--clients 0")).is_err());
        assert!(
            parse(&args("--secs"))
                .unwrap_err()
                .contains("takes a value")
        );
        assert!(
            parse(&args("--workload tmdevlab --kinds floor"))
                .unwrap_err()
                .contains("floor")
        );
        assert!(parse(&args("--workload other")).is_err());
        assert!(
            parse(&args("--bogus 1"))
                .unwrap_err()
                .contains("unknown flag")
        );
    }

    #[test]
    fn medians_and_order() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
        assert_eq!(median(&[]), None);
        let kinds: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        assert_eq!(order(&kinds, 0), ["a", "b", "c"]);
        assert_eq!(order(&kinds, 1), ["b", "c", "a"]);
        assert_eq!(order(&kinds, 5), ["c", "a", "b"]);
    }

    #[test]
    fn result_lines() {
        let m = Measure::parse(
            "result calls=2000 secs=2.00 calls_per_s=1000.0 gen_cpu_s=0.10 server_cpu_s=0.50 rss_kib=- hwm_kib=9",
        )
        .unwrap();
        assert_eq!(m.get("calls_per_s"), Some(1000.0));
        assert_eq!(m.get("rss_kib"), None);
        assert_eq!(m.cpu_us_per_call("server"), Some(250.0));
        assert_eq!(m.cpu_us_per_call("gen"), Some(50.0));
        assert_eq!(Measure::parse("first_error x"), None);
    }

    #[test]
    fn perf_lines() {
        assert_eq!(
            tidy_perf_line(
                "    12.09%     0.04%  [.] rmcp::expect_json::{{closure}}          -      -   "
            ),
            "12.09% 0.04% [.] rmcp::expect_json::{{closure}}"
        );
        assert_eq!(tidy_perf_line("   "), "");
    }
}
