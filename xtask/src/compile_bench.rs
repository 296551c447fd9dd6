//! `cargo xtask compile-bench [N]`: what N tools cost to compile with pedelec, against the
//! same tools written with plain serde, measured side by side in one run.
//!
//! It generates, under `target/compile-bench/`, a small workspace of two binary crates that
//! depend on this workspace by path:
//!
//! - `pedelec_tools`: N tools, each an argument struct with 3–4 fields
//!   (`#[derive(Deserialize, ToolArgs)]`) and an `async fn` under `#[tool]`, one `skills![]`
//!   listing them all, and a `main` that builds a session and calls a few tools;
//! - `serde_tools`, its plain-serde twin: the same structs with `#[derive(Deserialize)]`, the
//!   same `async fn`s, a hand-written `match` dispatcher, and the same `main`.
//!
//! Then, in the dev profile, after a warm-up that builds every dependency:
//!
//! 1. crate-only rebuild with `CARGO_INCREMENTAL=0`: touch the crate's `main.rs`, then time
//!    `cargo check` and `cargo build` (median of 3, the two crates interleaved so that load
//!    from elsewhere on the machine hits both alike);
//! 2. incremental touch-rebuild: the same with `CARGO_INCREMENTAL=1` and `cargo build`, after
//!    one build that fills the incremental cache;
//! 3. `-Ztime-passes` on the pedelec crate (`cargo rustc -- -Ztime-passes`, with
//!    `RUSTC_BOOTSTRAP=1` on a stable toolchain), summarised: the total and the top passes.
//!
//! It prints a table of both crates' times and their ratio: wall time, and the CPU time cargo
//! and rustc spent (user + system, from `/proc/self/stat`'s children's times; on a busy
//! machine it moves far less than wall time, so its ratio is the steadier one). Then
//! `-Ztime-passes` for both crates side by side: where the difference goes.
//!
//! `cargo xtask compile-bench [N] [--runs R]`: R timed rebuilds per measurement (3 by
//! default; the median is reported).
//!
//! `cargo xtask compile-bench [N] --profile [--runs R]`: instead of the timings, `cargo
//! check` of each crate under rustc's self-profiler (once, or R times for medians), compared
//! query by query (`compile_profile.rs`).
//!
//! `cargo xtask compile-bench --guard`: CI's guard on the compile bill. `cargo check` of the
//! 100-tool crate alone, its rustc run under callgrind (`RUSTC_WRAPPER`), counted in
//! instructions: a count that does not move with the machine's load. It fails when the count
//! is over [`GUARD_BUDGET`], and then prints the self-profile comparison (where the time
//! goes). The plain-serde twin is counted the same way, for the ratio.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime};

use crate::compile_profile;

/// Tools generated when `N` is not given.
const DEFAULT_TOOLS: usize = 100;
/// Timed rebuilds per measurement (the median is reported), unless `--runs` says otherwise.
const DEFAULT_RUNS: usize = 3;
/// Passes listed from `-Ztime-passes`.
const TOP_PASSES: usize = 12;
/// The budget of `--guard`: instructions rustc may spend on `cargo check` of the 100-tool
/// crate alone (rustc 1.95, the toolchain `rust-version` names). Measured at 6.27e9 when set
/// (plain serde's twin: 5.07e9, 1.24×), with 10 % of headroom. Raise it only for a reason a
/// commit names (CONTRIBUTING: "The compile bill").
const GUARD_BUDGET: u64 = 6_900_000_000;
/// How many tools `--guard` compiles (its budget is for this many).
const GUARD_TOOLS: usize = 100;

const PEDELEC: &str = "pedelec_tools";
const SERDE: &str = "serde_tools";

/// Runs the task: `args` are what follows `compile-bench` on the command line.
pub fn run(root: &Path, args: &[OsString]) -> Result<(), String> {
    const USAGE: &str = "usage: cargo xtask compile-bench [N] [--runs R] [--profile | --guard]";
    let mut tools = DEFAULT_TOOLS;
    let mut runs_each = DEFAULT_RUNS;
    let mut profile = false;
    let mut guard = false;
    let mut runs_given = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        if arg == "--profile" {
            profile = true;
            continue;
        }
        if arg == "--guard" {
            guard = true;
            continue;
        }
        let (target, what, text) = if arg == "--runs" {
            runs_given = true;
            let value = args.next().ok_or_else(|| USAGE.to_owned())?;
            (&mut runs_each, "runs", value)
        } else {
            (&mut tools, "tools", arg)
        };
        match text.to_str().and_then(|n| n.parse::<usize>().ok()) {
            Some(n) if n > 0 => *target = n,
            _ => {
                return Err(format!(
                    "`{}` is not a positive number of {what}\n{USAGE}",
                    text.to_string_lossy()
                ));
            }
        }
    }
    if guard {
        tools = GUARD_TOOLS;
    }
    let dir = root.join("target").join("compile-bench");
    generate(root, &dir, tools)?;
    let bench = Bench {
        dir: dir.clone(),
        cargo: std::env::var_os("CARGO").map_or_else(|| "cargo".into(), PathBuf::from),
    };

    eprintln!("compile-bench: {tools} tools in {}", dir.display());
    if guard {
        return bench.guard(tools);
    }
    if profile {
        return bench.profile(tools, if runs_given { runs_each } else { 1 });
    }
    let mut rows = Vec::new();
    for (label, command, incremental) in [
        ("cargo check (CARGO_INCREMENTAL=0)", "check", "0"),
        ("cargo build (CARGO_INCREMENTAL=0)", "build", "0"),
        ("cargo build, incremental touch", "build", "1"),
    ] {
        // Untimed first: `-p` selects the crate's own dependency features, and
        // `CARGO_INCREMENTAL` is part of the path dependencies' fingerprints, so the first
        // build of each crate in each mode may rebuild dependencies.
        eprintln!("compile-bench: {label}: warming up…");
        for package in [PEDELEC, SERDE] {
            bench.cargo(command, package, incremental)?;
        }
        eprintln!("compile-bench: {label}, median of {runs_each}…");
        let mut pedelec = Vec::new();
        let mut serde = Vec::new();
        for _ in 0..runs_each {
            pedelec.push(bench.touch_and_time(PEDELEC, command, incremental)?);
            serde.push(bench.touch_and_time(SERDE, command, incremental)?);
        }
        rows.push(Row {
            label,
            serde,
            pedelec,
        });
    }

    println!("\n{tools} tools, dev profile, crate-only rebuild after touching main.rs");
    println!(
        "(median of {runs_each}; all runs in brackets; plain serde = serde structs + async fns + a match dispatcher)"
    );
    for (title, pick) in [
        (
            "wall time",
            (|t: &Timing| t.wall) as fn(&Timing) -> Duration,
        ),
        ("CPU time (user + system, cargo and rustc)", |t: &Timing| {
            t.cpu
        }),
    ] {
        println!(
            "\n{:<36} {:>24} {:>24} {:>8}",
            title, "plain serde", "pedelec", "ratio"
        );
        for row in &rows {
            let serde: Vec<Duration> = row.serde.iter().map(pick).collect();
            let pedelec: Vec<Duration> = row.pedelec.iter().map(pick).collect();
            let (s, p) = (median(&serde), median(&pedelec));
            println!(
                "{:<36} {:>24} {:>24} {:>7.2}×",
                row.label,
                format!("{} {}", secs(s), runs(&serde)),
                format!("{} {}", secs(p), runs(&pedelec)),
                p.as_secs_f64() / s.as_secs_f64()
            );
        }
    }

    eprintln!("compile-bench: -Ztime-passes on both crates…");
    let serde = bench.time_passes(SERDE)?;
    let pedelec = bench.time_passes(PEDELEC)?;
    println!("\n-Ztime-passes (`cargo rustc`, CARGO_INCREMENTAL=0), the crate alone:");
    print!("{}", compare_passes(&serde, &pedelec));
    Ok(())
}

impl Bench {
    /// `--guard`: both crates' `cargo check` counted in instructions; fails (with the
    /// self-profile comparison) when pedelec's count is over [`GUARD_BUDGET`].
    fn guard(&self, tools: usize) -> Result<(), String> {
        eprintln!("compile-bench: warming up…");
        for package in [PEDELEC, SERDE] {
            self.cargo("check", package, "0")?;
        }
        eprintln!("compile-bench: `cargo check` of each crate under callgrind (a minute or two)…");
        let serde = self.instructions(SERDE)?;
        let pedelec = self.instructions(PEDELEC)?;
        #[allow(clippy::cast_precision_loss, reason = "a ratio of counts")]
        let ratio = pedelec as f64 / serde as f64;
        println!(
            "\n{tools} tools, `cargo check` of the crate alone, rustc's instructions:\n  plain serde \
             {serde}\n  pedelec     {pedelec}  ({ratio:.2}× plain serde)\n  budget      {GUARD_BUDGET}"
        );
        if pedelec <= GUARD_BUDGET {
            println!("compile-bench: within the budget");
            return Ok(());
        }
        eprintln!("compile-bench: over the budget; where the time goes:");
        self.profile(tools, 1)?;
        Err(format!(
            "`cargo check` of {tools} tools costs {pedelec} instructions, over the budget of \
             {GUARD_BUDGET} (xtask/src/compile_bench.rs, GUARD_BUDGET; see CONTRIBUTING, \
             \"The compile bill\")"
        ))
    }

    /// The instructions rustc spends on `cargo check` of `package` alone (touched first), by
    /// callgrind: a `RUSTC_WRAPPER` runs that one rustc under valgrind.
    fn instructions(&self, package: &str) -> Result<u64, String> {
        let out = self
            .dir
            .join("target")
            .join(format!("callgrind.{package}.out"));
        let wrapper = self.dir.join("callgrind-rustc.sh");
        std::fs::write(
            &wrapper,
            format!(
                "#!/bin/sh\n# compile-bench --guard: the crate under test's rustc under callgrind.\n\
                 case \" $* \" in\n  *\" --crate-name {package} \"*) exec valgrind --tool=callgrind \
                 --callgrind-out-file={} \"$@\" ;;\n  *) exec \"$@\" ;;\nesac\n",
                out.display()
            ),
        )
        .map_err(|e| format!("cannot write {}: {e}", wrapper.display()))?;
        let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
        std::fs::set_permissions(&wrapper, mode)
            .map_err(|e| format!("cannot make {} executable: {e}", wrapper.display()))?;
        let _ = std::fs::remove_file(&out);
        self.touch(package)?;
        let mut command = self.command("0");
        command
            .args(["check", "--quiet", "--bin", package, "-p", package])
            .env("RUSTC_WRAPPER", &wrapper);
        run_cargo(
            &mut command,
            "`cargo check` under callgrind (is valgrind installed?)",
        )?;
        let text = std::fs::read_to_string(&out).map_err(|e| {
            format!(
                "callgrind wrote no {} (is valgrind installed?): {e}",
                out.display()
            )
        })?;
        text.lines()
            .find_map(|line| {
                line.strip_prefix("summary: ")
                    .or_else(|| line.strip_prefix("totals: "))
            })
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| format!("no instruction total in {}", out.display()))
    }

    /// `--profile`: both crates' `cargo check` under the self-profiler, `runs` times each
    /// (interleaved), compared row by row (medians).
    fn profile(&self, tools: usize, runs: usize) -> Result<(), String> {
        eprintln!("compile-bench: warming up…");
        for package in [PEDELEC, SERDE] {
            self.cargo("check", package, "0")?;
        }
        eprintln!("compile-bench: -Zself-profile on both crates, {runs} time(s) each…");
        let (mut serde, mut pedelec) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            serde.push(self.self_profile(SERDE)?);
            pedelec.push(self.self_profile(PEDELEC)?);
        }
        let (serde, pedelec) = (
            compile_profile::Profile::median(&serde),
            compile_profile::Profile::median(&pedelec),
        );
        println!(
            "\n{tools} tools, `cargo check` (CARGO_INCREMENTAL=0) of the crate alone, under \
             -Zself-profile (self times, median of {runs}; the profiler's overhead included):"
        );
        print!("{}", compile_profile::compare(&serde, &pedelec));
        Ok(())
    }

    /// One `cargo check` of `package` (touched first) under `-Zself-profile`.
    fn self_profile(&self, package: &str) -> Result<compile_profile::Profile, String> {
        let dir = self.dir.join("target").join("self-profile").join(package);
        if dir.exists() {
            std::fs::remove_dir_all(&dir)
                .map_err(|e| format!("cannot empty {}: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        self.touch(package)?;
        let mut command = self.command("0");
        command
            .args(["rustc", "--quiet", "--profile", "check", "-p", package])
            .args(["--bin", package, "--"])
            .arg(format!("-Zself-profile={}", dir.display()))
            .arg("-Zself-profile-events=default,args")
            .env("RUSTC_BOOTSTRAP", "1");
        run_cargo(&mut command, "`cargo rustc -- -Zself-profile`")?;
        compile_profile::Profile::read(&dir, package)
    }
}

/// One timed rebuild.
#[derive(Clone, Copy)]
struct Timing {
    wall: Duration,
    cpu: Duration,
}

struct Row {
    label: &'static str,
    serde: Vec<Timing>,
    pedelec: Vec<Timing>,
}

struct Bench {
    dir: PathBuf,
    cargo: PathBuf,
}

impl Bench {
    fn command(&self, incremental: &str) -> Command {
        let mut command = Command::new(&self.cargo);
        command
            .current_dir(&self.dir)
            .env("CARGO_INCREMENTAL", incremental)
            .env("CARGO_TARGET_DIR", self.dir.join("target"))
            // What a user's shell would have: no flags inherited from the task's own build.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS")
            .env_remove("RUSTC_WRAPPER")
            .env_remove("RUSTC_WORKSPACE_WRAPPER");
        command
    }

    /// `cargo <subcommand> -p <package> --quiet`, failing with cargo's output.
    fn cargo(&self, subcommand: &str, package: &str, incremental: &str) -> Result<(), String> {
        let mut command = self.command(incremental);
        command.args([subcommand, "--quiet", "--bin", package, "-p", package]);
        run_cargo(
            &mut command,
            &format!("`cargo {subcommand}` in {}", self.dir.display()),
        )?;
        Ok(())
    }

    fn touch(&self, package: &str) -> Result<(), String> {
        let main = self.dir.join(package).join("src").join("main.rs");
        std::fs::File::options()
            .append(true)
            .open(&main)
            .and_then(|file| file.set_modified(SystemTime::now()))
            .map_err(|e| format!("cannot touch {}: {e}", main.display()))
    }

    fn touch_and_time(
        &self,
        package: &str,
        subcommand: &str,
        incremental: &str,
    ) -> Result<Timing, String> {
        self.touch(package)?;
        let cpu = children_cpu()?;
        let start = Instant::now();
        self.cargo(subcommand, package, incremental)?;
        let wall = start.elapsed();
        Ok(Timing {
            wall,
            cpu: children_cpu()?.saturating_sub(cpu),
        })
    }

    /// rustc's `-Ztime-passes` report for one crate (its stderr).
    fn time_passes(&self, package: &str) -> Result<String, String> {
        self.cargo("build", package, "0")?;
        self.touch(package)?;
        let mut command = self.command("0");
        command
            .args(["rustc", "--quiet", "-p", package, "--bin", package, "--"])
            .arg("-Ztime-passes")
            .env("RUSTC_BOOTSTRAP", "1");
        run_cargo(&mut command, "`cargo rustc -- -Ztime-passes`")
    }
}

/// Runs `command` (a cargo command, its output discarded): its stderr, or an error naming
/// `what` with cargo's stderr.
fn run_cargo(command: &mut Command, what: &str) -> Result<String, String> {
    let output = command
        .stdout(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    if output.status.success() {
        Ok(stderr)
    } else {
        Err(format!("{what} failed:\n{stderr}"))
    }
}

/// The CPU time (user + system) of this process's children that have been waited for, from
/// `/proc/self/stat` (fields 16 and 17, in clock ticks: 100 per second on Linux).
fn children_cpu() -> Result<Duration, String> {
    const TICKS_PER_SECOND: u64 = 100;
    let stat = std::fs::read_to_string("/proc/self/stat")
        .map_err(|e| format!("cannot read /proc/self/stat for CPU times: {e}"))?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    // `rest` starts at field 3 (the state): cutime and cstime are fields 16 and 17.
    let ticks = |field: usize| fields.get(field - 3).and_then(|f| f.parse::<u64>().ok());
    match (ticks(16), ticks(17)) {
        (Some(user), Some(system)) => Ok(Duration::from_millis(
            (user + system) * 1000 / TICKS_PER_SECOND,
        )),
        _ => Err(format!("cannot read children's CPU times from {stat:?}")),
    }
}

fn median(runs: &[Duration]) -> Duration {
    let mut sorted = runs.to_vec();
    sorted.sort();
    sorted[sorted.len() / 2]
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

fn runs(runs: &[Duration]) -> String {
    let list: Vec<String> = runs
        .iter()
        .map(|d| format!("{:.2}", d.as_secs_f64()))
        .collect();
    format!("[{}]", list.join(" "))
}

/// One line of `-Ztime-passes`: `time:   0.123; rss:   40MB ->   45MB (   +5MB) name`.
fn parse_pass(line: &str) -> Option<(f64, &str)> {
    let rest = line.trim_start().strip_prefix("time:")?;
    let (seconds, rest) = rest.split_once(';')?;
    let name = rest.split_whitespace().last()?;
    Some((seconds.trim().parse().ok()?, name))
}

/// The passes of one report, a pass that appears several times (such as `LLVM_passes`)
/// summed.
fn passes(report: &str) -> Vec<(String, f64)> {
    let mut passes: Vec<(String, f64)> = Vec::new();
    for (seconds, name) in report.lines().filter_map(parse_pass) {
        match passes.iter_mut().find(|(n, _)| n == name) {
            Some((_, total)) => *total += seconds,
            None => passes.push((name.to_owned(), seconds)),
        }
    }
    passes
}

/// Both crates' totals and their slowest passes (the slowest of pedelec's, by the
/// difference), with each one's share of pedelec's total.
fn compare_passes(serde: &str, pedelec: &str) -> String {
    let (serde, mut pedelec) = (passes(serde), passes(pedelec));
    let seconds = |passes: &[(String, f64)], name: &str| {
        passes
            .iter()
            .find(|(n, _)| n == name)
            .map_or(0.0, |(_, s)| *s)
    };
    let mut out = String::new();
    let total = seconds(&pedelec, "total");
    if total <= 0.0 {
        out.push_str("  (no `total` line in rustc's report; is -Ztime-passes supported?)\n");
        return out;
    }
    let _ = writeln!(
        out,
        "  {:<40} {:>11} {:>11} {:>11}",
        "pass", "plain serde", "pedelec", "difference"
    );
    pedelec.sort_by(|a, b| {
        let gap = |(name, s): &(String, f64)| s - seconds(&serde, name);
        gap(b).total_cmp(&gap(a))
    });
    let rows = std::iter::once("total").chain(
        pedelec
            .iter()
            .map(|(name, _)| name.as_str())
            .filter(|name| *name != "total")
            .take(TOP_PASSES),
    );
    for name in rows {
        let (s, p) = (seconds(&serde, name), seconds(&pedelec, name));
        let _ = writeln!(
            out,
            "  {name:<40} {s:>9.2} s {p:>9.2} s {:>+9.2} s  ({:.1}% of pedelec's total)",
            p - s,
            100.0 * p / total
        );
    }
    out.push_str("  (passes nest: a parent's time includes its children's)\n");
    out
}

// ----- the generated crates -----

/// One field of a generated argument struct.
struct Field {
    name: &'static str,
    ty: &'static str,
    /// A valid JSON value for the field, for the calls in `main`.
    sample: &'static str,
}

const FIELDS: &[Field] = &[
    Field {
        name: "query",
        ty: "String",
        sample: "\"bikes\"",
    },
    Field {
        name: "limit",
        ty: "u32",
        sample: "10",
    },
    Field {
        name: "verbose",
        ty: "bool",
        sample: "true",
    },
    Field {
        name: "tags",
        ty: "Vec<String>",
        sample: "[\"a\", \"b\"]",
    },
    Field {
        name: "offset",
        ty: "i64",
        sample: "-3",
    },
    Field {
        name: "ratio",
        ty: "f64",
        sample: "0.5",
    },
    Field {
        name: "page",
        ty: "Option<u16>",
        sample: "2",
    },
];

/// The fields of tool `i`: 3 or 4 of them, varying with `i`.
fn fields_of(i: usize) -> Vec<&'static Field> {
    let count = 3 + i % 2;
    (0..count)
        .map(|k| &FIELDS[(i + 2 * k) % FIELDS.len()])
        .collect()
}

/// Tools called from `main`.
fn called(tools: usize) -> Vec<usize> {
    let mut list: Vec<usize> = [0, 1, tools / 2, tools - 1]
        .into_iter()
        .filter(|&i| i < tools)
        .collect();
    list.sort_unstable();
    list.dedup();
    list
}

fn args_json(i: usize) -> String {
    let fields: Vec<String> = fields_of(i)
        .iter()
        .map(|f| format!("{:?}: {}", f.name, f.sample))
        .collect();
    format!("{{{}}}", fields.join(", "))
}

fn struct_fields(i: usize) -> String {
    let mut out = String::new();
    for f in fields_of(i) {
        let _ = writeln!(out, "    /// The `{}` of tool {i}.", f.name);
        let _ = writeln!(out, "    pub {}: {},", f.name, f.ty);
    }
    out
}

/// What a tool does: a string made from its first field (identical in both crates).
fn body(i: usize) -> String {
    let first = fields_of(i)[0].name;
    format!("Ok(format!(\"tool_{i}: {{:?}}\", args.{first}))")
}

fn pedelec_main_rs(tools: usize) -> String {
    let mut out = String::from(
        "//! Generated by `cargo xtask compile-bench`: tools declared with pedelec.\n\n\
         use pedelec::{ToolArgs, ToolError, skills, tool};\n\
         use serde::Deserialize;\n\n",
    );
    for i in 0..tools {
        let _ = write!(
            out,
            "/// The arguments of tool {i}.\n\
             #[derive(Debug, Deserialize, ToolArgs)]\n\
             pub struct Tool{i}Args {{\n{fields}}}\n\n\
             /// Tool {i}: answers with its first argument.\n\
             #[tool]\n\
             pub async fn tool_{i}(args: Tool{i}Args) -> Result<String, ToolError> {{\n    {body}\n}}\n\n",
            fields = struct_fields(i),
            body = body(i),
        );
    }
    out.push_str(
        "skills![\n    pub enum ToolName,\n    guidance = \"Generated tools.\",\n    tools = [\n",
    );
    for i in 0..tools {
        let _ = writeln!(out, "        tool_{i},");
    }
    out.push_str("    ],\n];\n\n");
    out.push_str(
        "#[tokio::main(flavor = \"current_thread\")]\n\
         async fn main() {\n\
         \x20   let session = pedelec::Session::builder(ToolName::skills())\n\
         \x20       .create()\n\
         \x20       .expect(\"the generated skill set is valid\");\n",
    );
    for i in called(tools) {
        let _ = writeln!(
            out,
            "    let result = session.call(\"tool_{i}\", serde_json::json!({})).await;\n    \
             println!(\"{{}}\", serde_json::to_string(&result).expect(\"results serialize\"));",
            args_json(i)
        );
    }
    out.push_str("}\n");
    out
}

fn serde_main_rs(tools: usize) -> String {
    let mut out = String::from(
        "//! Generated by `cargo xtask compile-bench`: the plain-serde twin of `pedelec_tools`.\n\n\
         use serde::Deserialize;\n\
         use serde_json::Value;\n\n",
    );
    for i in 0..tools {
        let _ = write!(
            out,
            "/// The arguments of tool {i}.\n\
             #[derive(Debug, Deserialize)]\n\
             #[serde(deny_unknown_fields)]\n\
             pub struct Tool{i}Args {{\n{fields}}}\n\n\
             /// Tool {i}: answers with its first argument.\n\
             pub async fn tool_{i}(args: Tool{i}Args) -> Result<String, String> {{\n    {body}\n}}\n\n",
            fields = struct_fields(i),
            body = body(i),
        );
    }
    out.push_str(
        "/// Deserializes the arguments, calls the tool, serializes its result.\n\
         pub async fn dispatch(name: &str, args: Value) -> Result<Value, String> {\n\
         \x20   fn encode(result: Result<String, String>) -> Result<Value, String> {\n\
         \x20       result.and_then(|out| serde_json::to_value(out).map_err(|e| e.to_string()))\n\
         \x20   }\n\
         \x20   match name {\n",
    );
    for i in 0..tools {
        let _ = writeln!(
            out,
            "        \"tool_{i}\" => encode(tool_{i}(serde_json::from_value(args).map_err(|e| e.to_string())?).await),"
        );
    }
    out.push_str("        _ => Err(format!(\"unknown tool `{name}`\")),\n    }\n}\n\n");
    out.push_str("#[tokio::main(flavor = \"current_thread\")]\nasync fn main() {\n");
    for i in called(tools) {
        let _ = writeln!(
            out,
            "    let result = dispatch(\"tool_{i}\", serde_json::json!({})).await;\n    \
             println!(\"{{result:?}}\");",
            args_json(i)
        );
    }
    out.push_str("}\n");
    out
}

/// Writes the generated workspace, touching only files whose content changed.
fn generate(root: &Path, dir: &Path, tools: usize) -> Result<(), String> {
    let root_str = root.display().to_string();
    let dependencies = "serde = { version = \"1\", features = [\"derive\"] }\n\
                        serde_json = \"1\"\n\
                        tokio = { version = \"1\", features = [\"rt\", \"macros\"] }\n";
    let manifest = |name: &str, extra: &str| {
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\n{extra}{dependencies}"
        )
    };
    let files = [
        (
            PathBuf::from("Cargo.toml"),
            format!(
                "# Generated by `cargo xtask compile-bench`.\n[workspace]\nmembers = [\"{PEDELEC}\", \"{SERDE}\"]\nresolver = \"3\"\n"
            ),
        ),
        (
            Path::new(PEDELEC).join("Cargo.toml"),
            manifest(PEDELEC, &format!("pedelec = {{ path = {root_str:?} }}\n")),
        ),
        (Path::new(SERDE).join("Cargo.toml"), manifest(SERDE, "")),
        (
            Path::new(PEDELEC).join("src").join("main.rs"),
            pedelec_main_rs(tools),
        ),
        (
            Path::new(SERDE).join("src").join("main.rs"),
            serde_main_rs(tools),
        ),
    ];
    for (path, text) in files {
        write_if_changed(&dir.join(path), &text)?;
    }
    // The workspace's lock file: the same dependency versions, no registry resolution.
    let lock = dir.join("Cargo.lock");
    if !lock.exists() {
        std::fs::copy(root.join("Cargo.lock"), &lock)
            .map_err(|e| format!("cannot copy Cargo.lock to {}: {e}", lock.display()))?;
    }
    Ok(())
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| format!("cannot create {}: {e}", parent.display()))?;
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passes_are_parsed_and_summed() {
        let report = "time:   0.010; rss:   30MB ->   31MB (   +1MB)\tparse_crate\n\
                      time:   1.500; rss:   31MB ->   90MB (  +59MB)\tLLVM_passes\n\
                      time:   0.500; rss:   90MB ->   95MB (   +5MB)\tLLVM_passes\n\
                      some other line\n\
                      time:   3.000; rss:   30MB ->   95MB (  +65MB)\ttotal\n";
        let serde = "time:   0.700; rss:   30MB ->   90MB (  +59MB)\tLLVM_passes\n\
                     time:   1.000; rss:   30MB ->   95MB (  +65MB)\ttotal\n";
        assert_eq!(
            passes(report),
            vec![
                ("parse_crate".to_owned(), 0.01),
                ("LLVM_passes".to_owned(), 2.0),
                ("total".to_owned(), 3.0)
            ]
        );
        let table = compare_passes(serde, report);
        let lines: Vec<&str> = table.lines().collect();
        // The total first, then the passes by how much slower pedelec's are.
        assert!(
            lines[1].contains("total") && lines[1].contains("+2.00 s"),
            "{table}"
        );
        assert!(lines[2].contains("LLVM_passes"), "{table}");
        assert!(
            lines[2].contains("0.70 s") && lines[2].contains("+1.30 s"),
            "{table}"
        );
        assert!(lines[2].contains("(66.7% of pedelec's total)"), "{table}");
        assert!(compare_passes(serde, "nothing").contains("no `total`"));
    }

    #[test]
    fn children_cpu_time_is_read() {
        let before = children_cpu().unwrap();
        let status = Command::new("true").status().unwrap();
        assert!(status.success());
        assert!(children_cpu().unwrap() >= before);
    }

    #[test]
    fn tools_have_three_or_four_distinct_fields() {
        for i in 0..20 {
            let fields = fields_of(i);
            assert!((3..=4).contains(&fields.len()));
            for (k, f) in fields.iter().enumerate() {
                assert!(fields[..k].iter().all(|g| g.name != f.name), "tool {i}");
            }
        }
        assert_eq!(called(1), vec![0]);
        let main = pedelec_main_rs(3);
        assert_eq!(main.matches("#[tool]").count(), 3);
        assert_eq!(serde_main_rs(3).matches("\"tool_2\" =>").count(), 1);
    }
}
