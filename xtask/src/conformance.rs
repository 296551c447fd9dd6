//! `cargo xtask conformance [--scenario NAME]… [--spec-version V]… [--stateless] [--list]`:
//! the official MCP conformance suite against pedelec's `McpHttp`.
//!
//! 1. Installs `@modelcontextprotocol/conformance` (and `glob`, see [`LOADER`]) pinned into
//!    `target/mcp-conformance/` (or `$CARGO_TARGET_DIR/mcp-conformance/`); a stamp file makes
//!    a second run install nothing.
//! 2. Builds `examples/mcp_conformance.rs` and starts it on a free loopback port, waiting
//!    until it answers HTTP. It runs `--stateful` (`McpHttp::stateful(true)`: sessions for
//!    clients that `initialize`, as 2025-11-25 clients do, which server-to-client requests and
//!    the session scenarios need; 2026-07-28 requests are stateless either way), or in
//!    `McpHttp`'s default stateless mode with `--stateless`.
//! 3. Runs every server scenario the suite lists (`conformance list --server`) for each
//!    revision in [`VERSIONS`] it applies to, except those in [`NOT_APPLICABLE`] (with the
//!    reason), each in its own run of the suite, and reads the checks it saved
//!    (`checks.json`).
//! 4. Prints one table (scenario × revision: passed/counted checks), then every failed check
//!    with its message, kills the server, and fails when an applicable scenario failed a check
//!    or did not run.
//!
//! `--scenario NAME` and `--spec-version V` (each repeatable) narrow the run; a scenario named
//! with `--scenario` runs even when it is in [`NOT_APPLICABLE`], marked `n/a` and not counted.
//! `--list` prints the plan (what runs, what does not and why) without building the server.
//! Logs of each run: `target/mcp-conformance/results/<revision>/<scenario>/`.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The suite (npm, MIT, by the MCP maintainers): the 0.2 line adds the 2026-07-28 revision,
/// the tasks extension and the input-required scenarios.
pub const SUITE: (&str, &str) = ("@modelcontextprotocol/conformance", "0.2.0-alpha.12");
/// `fs.globSync` for Node 20 (see [`LOADER`]); the 11 line supports Node 20.
pub const GLOB: (&str, &str) = ("glob", "11.1.0");

/// The columns of the table: the revisions pedelec serves (the suite's `--spec-version`,
/// cumulative: 2025-11-25 includes what 2025-06-18 introduced), and `extension` for the
/// scenarios off the spec timeline (the tasks extension; the suite runs them on the
/// newest revision's wire, without `--spec-version`).
pub const VERSIONS: [&str; 3] = ["2025-11-25", "2026-07-28", EXTENSION];
const EXTENSION: &str = "extension";

/// The server scenarios that do not apply to a tools-only server, with the reason. Every
/// other scenario the suite lists must pass. A scenario a tools server can serve (content
/// types, elicitation from a tool, tasks, input-required results, caching, headers, …)
/// belongs here only with a reason that holds for every tools server.
pub const NOT_APPLICABLE: &[(&str, &str)] = &[
    (
        "completion-complete",
        "`completion/complete` completes prompt and resource-template arguments; a tools-only server has neither",
    ),
    (
        "resources-list",
        "resources: not served by a tools-only server",
    ),
    (
        "resources-read-text",
        "resources: not served by a tools-only server",
    ),
    (
        "resources-read-binary",
        "resources: not served by a tools-only server",
    ),
    (
        "resources-templates-read",
        "resource templates: not served by a tools-only server",
    ),
    (
        "resources-subscribe",
        "resource subscriptions: not served by a tools-only server",
    ),
    (
        "resources-unsubscribe",
        "resource subscriptions: not served by a tools-only server",
    ),
    (
        "sep-2164-resource-not-found",
        "`resources/read` of an unknown URI: not served by a tools-only server",
    ),
    (
        "sep-2640-skills-directory",
        "skills extension (SEP-2640): agent skills published as `skill://` resources, not tools",
    ),
    (
        "sep-2640-skills-enumeration",
        "skills extension (SEP-2640): agent skills published as `skill://` resources, not tools",
    ),
    (
        "sep-2640-skills-manifest",
        "skills extension (SEP-2640): agent skills published as `skill://` resources, not tools",
    ),
    ("prompts-list", "prompts: not served by a tools-only server"),
    (
        "prompts-get-simple",
        "prompts: not served by a tools-only server",
    ),
    (
        "prompts-get-with-args",
        "prompts: not served by a tools-only server",
    ),
    (
        "prompts-get-embedded-resource",
        "prompts: not served by a tools-only server",
    ),
    (
        "prompts-get-with-image",
        "prompts: not served by a tools-only server",
    ),
    (
        "input-required-result-non-tool-request",
        "an input-required result from `prompts/get` (prompt `test_input_required_result_prompt`): \
         prompts are not served by a tools-only server; the tool side is covered by the other \
         input-required-result scenarios",
    ),
];

/// Applicable scenarios that fail today, each with what it needs: pedelec's argsSchema
/// model (DESIGN §1) has no way to say it yet. They run and are shown; the task fails when
/// any other applicable scenario fails, and when one of these passes (the entry is then
/// stale: remove it).
pub const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Why an applicable scenario is expected to fail, if it is in [`KNOWN_FAILURES`].
fn known_failure(name: &str) -> Option<&'static str> {
    KNOWN_FAILURES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// The Node.js module hooks that let the suite run on Node 20: its bundle imports
/// `globSync` from `fs`, which Node 22 added; where `fs.globSync` is missing, the import is
/// taken from the `glob` package instead (same name, same signature for the suite's use).
/// Nothing else is changed. `register.mjs` is loaded with `node --import`.
pub const LOADER: [(&str, &str); 2] = [
    (
        "register.mjs",
        "// Written by `cargo xtask conformance`: on a Node.js without fs.globSync (before 22),\n\
         // load the hook that takes it from the `glob` package.\n\
         import fs from 'node:fs';\n\
         import { register } from 'node:module';\n\
         if (typeof fs.globSync !== 'function') {\n\
         \x20 register('./globsync-hook.mjs', import.meta.url);\n\
         }\n",
    ),
    (
        "globsync-hook.mjs",
        "// Written by `cargo xtask conformance`. The conformance suite's bundle imports\n\
         // `globSync` from \"fs\"; take that one binding from the `glob` package instead.\n\
         const SUITE = '/node_modules/@modelcontextprotocol/conformance/dist/index.js';\n\
         const FS_IMPORT = /import\\s*\\{([^}]*)\\}\\s*from\\s*[\"'](?:node:)?fs[\"'];?/g;\n\
         export async function load(url, context, nextLoad) {\n\
         \x20 const loaded = await nextLoad(url, context);\n\
         \x20 if (!url.endsWith(SUITE)) return loaded;\n\
         \x20 const source = String(loaded.source).replace(FS_IMPORT, (whole, names) => {\n\
         \x20   const all = names.split(',').map((n) => n.trim()).filter(Boolean);\n\
         \x20   const glob = all.filter((n) => /^globSync(\\s+as\\s+[\\w$]+)?$/.test(n));\n\
         \x20   if (glob.length === 0) return whole;\n\
         \x20   const rest = all.filter((n) => !glob.includes(n));\n\
         \x20   const fs = rest.length ? `import{${rest.join(',')}}from\"fs\";` : '';\n\
         \x20   return `${fs}import{${glob.join(',')}}from\"glob\";`;\n\
         \x20 });\n\
         \x20 return { ...loaded, source };\n\
         }\n",
    ),
];

/// How long one scenario may run before it is killed (the suite's own per-scenario timeout
/// is 30 s).
const SCENARIO_LIMIT: Duration = Duration::from_mins(2);
/// How long the fixture server may take to answer its first request.
const SERVER_START_LIMIT: Duration = Duration::from_secs(30);

/// The suite's directory: `<target dir>/mcp-conformance`.
pub fn suite_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("mcp-conformance")
}

#[derive(Debug, Default)]
struct Options {
    scenarios: Vec<String>,
    versions: Vec<String>,
    list: bool,
    stateless: bool,
}

fn parse_options(args: &[OsString]) -> Result<Options, String> {
    let mut options = Options::default();
    let mut args = args.iter().map(|a| a.to_string_lossy().into_owned());
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--list" => options.list = true,
            "--stateless" => options.stateless = true,
            "--scenario" | "--spec-version" => {
                let value = args
                    .next()
                    .ok_or_else(|| format!("`{flag}` takes a value"))?;
                if flag == "--scenario" {
                    options.scenarios.push(value);
                } else if VERSIONS.contains(&value.as_str()) {
                    options.versions.push(value);
                } else {
                    return Err(format!(
                        "unknown spec version `{value}` (expected one of {})",
                        VERSIONS.join(", ")
                    ));
                }
            }
            _ => {
                return Err(format!(
                    "unknown flag `{flag}` for conformance (expected --scenario NAME, \
                     --spec-version V, --stateless, --list)"
                ));
            }
        }
    }
    Ok(options)
}

/// `cargo xtask conformance [ARGS]`.
pub fn run(root: &Path, args: &[OsString]) -> Result<(), String> {
    let options = parse_options(args)?;
    let dir = suite_dir(root);
    install(&dir)?;
    let listed = parse_list(&node_output(&dir, &["list", "--server"])?)?;
    check_table(&listed)?;
    let plan = plan(&listed, &options)?;
    if options.list {
        print!("{}", render_plan(&listed));
        return Ok(());
    }
    if plan.is_empty() {
        return Err("no scenario matches the filters".into());
    }

    // The features of the README's test command: CI's test run has built all of it.
    super::run(super::cargo(root).args([
        "build",
        "--all-features",
        "--example",
        "mcp_conformance",
    ]))?;
    let server_bin = std::env::var_os("CARGO_TARGET_DIR")
        .map_or_else(|| root.join("target"), PathBuf::from)
        .join("debug/examples/mcp_conformance");
    let server = Server::start(&server_bin, !options.stateless)?;
    println!(
        "conformance: fixture server at {} ({})",
        server.url,
        if options.stateless {
            "stateless"
        } else {
            "stateful"
        }
    );

    let results_dir = dir.join("results");
    let mut outcomes = Vec::with_capacity(plan.len());
    for (i, run) in plan.iter().enumerate() {
        let outcome = run_scenario(&dir, &results_dir, &server.url, run);
        println!(
            "conformance: [{}/{}] {} {}: {}",
            i + 1,
            plan.len(),
            run.version,
            run.scenario,
            outcome.cell()
        );
        outcomes.push(outcome);
    }
    drop(server);

    println!();
    print!("{}", render_table(&outcomes));
    let failures = render_failures(&outcomes);
    if !failures.is_empty() {
        println!();
        print!("{failures}");
    }
    let not_run: Vec<&str> = NOT_APPLICABLE
        .iter()
        .map(|(name, _)| *name)
        .filter(|name| !options.scenarios.iter().any(|s| s == name))
        .collect();
    println!(
        "\nnot applicable to a tools-only server ({}, reasons: `cargo xtask conformance --list`): {}",
        not_run.len(),
        not_run.join(", ")
    );
    let vacuous: Vec<String> = outcomes
        .iter()
        .filter(|o| o.applies && o.vacuous())
        .map(|o| format!("{} ({})", o.scenario, o.version))
        .collect();
    if !vacuous.is_empty() {
        println!(
            "conformance: the suite counted no check in {} run(s) (not failures): {}",
            vacuous.len(),
            vacuous.join(", ")
        );
    }
    let expected: Vec<String> = outcomes
        .iter()
        .filter(|o| o.applies && !o.passed() && known_failure(&o.scenario).is_some())
        .map(|o| format!("{} ({})", o.scenario, o.version))
        .collect();
    if !expected.is_empty() {
        println!(
            "conformance: {} run(s) fail as expected (KNOWN_FAILURES, reasons: `--list`): {}",
            expected.len(),
            expected.join(", ")
        );
    }
    let stale: Vec<String> = outcomes
        .iter()
        .filter(|o| o.applies && o.passed() && !o.vacuous() && known_failure(&o.scenario).is_some())
        .map(|o| format!("{} ({})", o.scenario, o.version))
        .collect();
    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| o.applies && !o.passed() && known_failure(&o.scenario).is_none())
        .map(|o| format!("{} ({})", o.scenario, o.version))
        .collect();
    if !stale.is_empty() {
        return Err(format!(
            "{} run(s) in KNOWN_FAILURES passed: remove them from the table: {}",
            stale.len(),
            stale.join(", ")
        ));
    }
    if failed.is_empty() {
        println!("conformance: every other applicable scenario passed");
        Ok(())
    } else {
        Err(format!(
            "{} applicable scenario run(s) failed: {}",
            failed.len(),
            failed.join(", ")
        ))
    }
}

// ---------------------------------------------------------------------------------------
// Installing the suite

/// The `package.json` that pins the suite; the stamp file holds a copy once installed.
fn package_json() -> String {
    format!(
        "{{\n  \"name\": \"pedelec-mcp-conformance\",\n  \"version\": \"0.0.0\",\n  \"private\": true,\n  \
         \"dependencies\": {{\n    \"{}\": \"{}\",\n    \"{}\": \"{}\"\n  }}\n}}\n",
        SUITE.0, SUITE.1, GLOB.0, GLOB.1
    )
}

/// The suite's entry point inside `dir`.
fn suite_entry(dir: &Path) -> PathBuf {
    dir.join("node_modules").join(SUITE.0).join("dist/index.js")
}

/// Installs the pinned suite into `dir` unless the stamp says it is there, and writes the
/// loader files (every time: they are small and must match this xtask).
fn install(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let manifest = package_json();
    let stamp = dir.join(".pedelec-installed");
    let installed = std::fs::read_to_string(&stamp).is_ok_and(|text| text == manifest)
        && suite_entry(dir).exists()
        && dir.join("node_modules").join(GLOB.0).exists();
    if installed {
        println!(
            "conformance: npm `{}` {} already in {}",
            SUITE.0,
            SUITE.1,
            dir.display()
        );
    } else {
        println!(
            "conformance: installing npm `{}@{}` and `{}@{}` into {}",
            SUITE.0,
            SUITE.1,
            GLOB.0,
            GLOB.1,
            dir.display()
        );
        let _ = std::fs::remove_file(&stamp);
        write(&dir.join("package.json"), &manifest)?;
        let npm = Command::new("npm")
            .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
            .current_dir(dir)
            .output();
        let wanted = format!("`{}@{}` and `{}@{}`", SUITE.0, SUITE.1, GLOB.0, GLOB.1);
        match npm {
            Err(e) => {
                return Err(format!(
                    "cannot run `npm` to install {wanted} from the npm registry: {e} \
                     (Node.js 20 or later with npm is needed; on Debian `apt-get install nodejs npm`)"
                ));
            }
            Ok(out) if !out.status.success() => {
                return Err(format!(
                    "`npm install` of {wanted} from the npm registry failed ({}); is the registry \
                     reachable?\n{}",
                    out.status,
                    npm_summary(&out.stderr)
                ));
            }
            Ok(_) => {}
        }
        if !suite_entry(dir).exists() {
            return Err(format!(
                "npm finished but {} is missing",
                suite_entry(dir).display()
            ));
        }
        write(&stamp, &manifest)?;
    }
    for (name, text) in LOADER {
        let path = dir.join(name);
        if std::fs::read_to_string(&path).ok().as_deref() != Some(text) {
            write(&path, text)?;
        }
    }
    Ok(())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// What npm said went wrong: its `npm error` lines without the indented JSON dumps it
/// adds (`code ECONNREFUSED`, `request to … failed`, `notarget …`), at most 8.
fn npm_summary(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| {
            let rest = l.strip_prefix("npm error").unwrap_or(l);
            !rest.trim().is_empty() && !rest.starts_with("  ") && !matches!(rest.trim(), "{" | "}")
        })
        .take(8)
        .collect();
    lines.join("\n")
}

/// The last `lines` lines of a command's output.
fn tail(bytes: &[u8], lines: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// `node --import register.mjs <suite> ARGS`, in `dir`.
fn node(dir: &Path) -> Command {
    let mut command = Command::new("node");
    command
        .arg("--import")
        .arg(dir.join("register.mjs"))
        .arg(suite_entry(dir))
        .current_dir(dir);
    command
}

fn node_output(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = node(dir).args(args).output().map_err(|e| {
        format!("cannot run `node` (Node.js 20 or later is needed to run the suite): {e}")
    })?;
    if !out.status.success() {
        return Err(format!(
            "`conformance {}` failed ({}):\n{}",
            args.join(" "),
            out.status,
            tail(&out.stderr, 12)
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

// ---------------------------------------------------------------------------------------
// What runs

/// A server scenario as `conformance list --server` shows it: `  - name [v1,v2]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    name: String,
    /// The revisions (or `extension`) it applies to.
    versions: Vec<String>,
}

/// The server scenarios of `conformance list` (the section that starts with
/// `Server scenarios`, up to the next section).
fn parse_list(text: &str) -> Result<Vec<Listed>, String> {
    let mut listed = Vec::new();
    let mut in_server = false;
    for line in text.lines() {
        if !line.starts_with(' ') && !line.trim().is_empty() {
            in_server = line.starts_with("Server scenarios");
            continue;
        }
        if !in_server {
            continue;
        }
        let Some(entry) = line.trim().strip_prefix("- ") else {
            continue;
        };
        let (name, versions) = match entry.split_once(" [") {
            Some((name, rest)) => {
                let inner = rest
                    .strip_suffix(']')
                    .ok_or_else(|| format!("cannot read the scenario line `{line}`"))?;
                (
                    name,
                    inner.split(',').map(|v| v.trim().to_owned()).collect(),
                )
            }
            None => (entry, Vec::new()),
        };
        listed.push(Listed {
            name: name.trim().to_owned(),
            versions,
        });
    }
    if listed.is_empty() {
        return Err("`conformance list --server` listed no server scenario".into());
    }
    Ok(listed)
}

/// Fails when [`NOT_APPLICABLE`] names a scenario the suite does not list (a stale entry),
/// or when the suite lists a dated revision newer than the newest in [`VERSIONS`] (a
/// revision this task does not run yet).
fn check_table(listed: &[Listed]) -> Result<(), String> {
    let stale: Vec<&str> = NOT_APPLICABLE
        .iter()
        .chain(KNOWN_FAILURES)
        .map(|(name, _)| *name)
        .filter(|name| !listed.iter().any(|l| l.name == *name))
        .collect();
    if !stale.is_empty() {
        return Err(format!(
            "NOT_APPLICABLE or KNOWN_FAILURES in xtask/src/conformance.rs names scenarios the suite does not list: {}",
            stale.join(", ")
        ));
    }
    let newest = VERSIONS[VERSIONS.len() - 2];
    let newer: BTreeSet<&str> = listed
        .iter()
        .flat_map(|l| l.versions.iter().map(String::as_str))
        .filter(|v| *v != EXTENSION && *v > newest)
        .collect();
    if !newer.is_empty() {
        return Err(format!(
            "the suite lists revision(s) this task does not run: {} (add them to VERSIONS in \
             xtask/src/conformance.rs)",
            newer.into_iter().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(())
}

/// Why a scenario does not apply, if it is in [`NOT_APPLICABLE`].
fn not_applicable(name: &str) -> Option<&'static str> {
    NOT_APPLICABLE
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, why)| *why)
}

/// The columns a listed scenario runs in: the revisions of [`VERSIONS`] the suite lists it
/// for (it lists every revision a scenario applies to, so one introduced in 2025-06-18 and
/// still current shows 2025-11-25 too).
fn columns(listed: &Listed) -> Vec<&'static str> {
    VERSIONS
        .iter()
        .copied()
        .filter(|column| listed.versions.iter().any(|v| v == column))
        .collect()
}

/// One run of the suite: a scenario at a revision.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Run {
    scenario: String,
    version: &'static str,
    /// Counted toward the exit status (not in [`NOT_APPLICABLE`]).
    applies: bool,
}

fn plan(listed: &[Listed], options: &Options) -> Result<Vec<Run>, String> {
    for wanted in &options.scenarios {
        if !listed.iter().any(|l| &l.name == wanted) {
            let names: Vec<&str> = listed.iter().map(|l| l.name.as_str()).collect();
            return Err(format!(
                "the suite has no server scenario `{wanted}`; it has: {}",
                names.join(", ")
            ));
        }
    }
    let mut runs = Vec::new();
    for l in listed {
        let named = options.scenarios.contains(&l.name);
        if !options.scenarios.is_empty() && !named {
            continue;
        }
        let applies = not_applicable(&l.name).is_none();
        if !applies && !named {
            continue;
        }
        for version in columns(l) {
            if options.versions.is_empty() || options.versions.iter().any(|v| v == version) {
                runs.push(Run {
                    scenario: l.name.clone(),
                    version,
                    applies,
                });
            }
        }
    }
    Ok(runs)
}

/// `--list`: every server scenario with its columns, and whether it runs or why not.
fn render_plan(listed: &[Listed]) -> String {
    let width = listed.iter().map(|l| l.name.len()).max().unwrap_or(0);
    let all = format!("[{}]", VERSIONS[..2].join(", "));
    let mut out = String::from("server scenarios of the suite (runs | not applicable: reason):\n");
    for l in listed {
        let columns = columns(l);
        let columns = if columns.is_empty() {
            format!("(only {})", l.versions.join(", "))
        } else {
            columns.join(", ")
        };
        let columns = format!("{:w$}", format!("[{columns}]"), w = all.len());
        let status = match (not_applicable(&l.name), known_failure(&l.name)) {
            (Some(why), _) => format!("not applicable: {why}"),
            (None, _) if columns.starts_with("[(") => "not run: no revision pedelec serves".into(),
            (None, Some(why)) => format!("runs, fails as expected: {why}"),
            (None, None) => "runs".into(),
        };
        let _ = writeln!(out, "  {:width$}  {columns}  {status}", l.name);
    }
    out
}

// ---------------------------------------------------------------------------------------
// Running

/// The fixture server, killed when dropped.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    /// Starts the example (with `--stateful` when asked) on a free loopback port (it binds `127.0.0.1:0` and prints the
    /// address it got) and waits until it answers an HTTP request.
    fn start(bin: &Path, stateful: bool) -> Result<Server, String> {
        let mut child = Command::new(bin)
            .arg("127.0.0.1:0")
            .args(stateful.then_some("--stateful"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", bin.display()))?;
        let stderr = child.stderr.take().expect("piped");
        let (lines, first) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if !sent && let Some(url) = served_url(&line) {
                    let _ = lines.send(url);
                    sent = true;
                } else {
                    eprintln!("mcp_conformance: {line}");
                }
            }
        });
        let mut server = Server {
            child,
            url: String::new(),
        };
        server.url = first
            .recv_timeout(SERVER_START_LIMIT)
            .map_err(|_| "the fixture server did not print its address".to_owned())?;
        let addr: SocketAddr = server
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .parse()
            .map_err(|e| format!("the fixture server printed `{}`: {e}", server.url))?;
        let started = Instant::now();
        while !answers(addr) {
            if let Ok(Some(status)) = server.child.try_wait() {
                return Err(format!("the fixture server exited ({status})"));
            }
            if started.elapsed() > SERVER_START_LIMIT {
                return Err(format!("the fixture server at {addr} does not answer"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(server)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The URL in the example's `serving … at http://ADDR/mcp` line.
fn served_url(line: &str) -> Option<String> {
    let start = line.find("http://")?;
    let url = line[start..].split_whitespace().next()?;
    url.ends_with("/mcp").then(|| url.to_owned())
}

/// Whether an HTTP server answers at `addr` (any status line will do).
fn answers(addr: SocketAddr) -> bool {
    let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let request = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0_u8; 12];
    stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.")
}

/// What one run gave.
#[derive(Debug, Clone, PartialEq)]
struct Outcome {
    scenario: String,
    version: &'static str,
    applies: bool,
    /// The checks that passed, failed, warned.
    passed: usize,
    failed: usize,
    warnings: usize,
    /// The failed checks: id and message.
    failures: Vec<(String, String)>,
    /// The checks not counted (warnings, skipped, informational): id and message.
    notes: Vec<(String, String)>,
    /// The run itself failed (no checks saved): why.
    error: Option<String>,
}

impl Outcome {
    /// No check failed and the run itself did not fail.
    fn passed(&self) -> bool {
        self.error.is_none() && self.failed == 0
    }

    /// The suite counted no check (all were skipped, informational or warnings): it could
    /// not test anything, which the table shows as `skip`.
    fn vacuous(&self) -> bool {
        self.passed() && self.passed == 0
    }

    /// The table cell: `ok 4/4`, `FAIL 4/7`, `skip 0/0`, `ERROR`, with `(Nw)` for warnings
    /// and `n/a` for a scenario run on request though it does not apply.
    fn cell(&self) -> String {
        let counted = self.passed + self.failed;
        let mut cell = if self.error.is_some() {
            "ERROR".to_owned()
        } else if self.vacuous() {
            "skip 0/0".to_owned()
        } else if self.passed() {
            format!("ok {}/{counted}", self.passed)
        } else {
            format!("FAIL {}/{counted}", self.passed)
        };
        if self.warnings > 0 {
            let _ = write!(cell, " ({}w)", self.warnings);
        }
        if !self.applies {
            cell.push_str(" n/a");
        }
        cell
    }
}

fn run_scenario(dir: &Path, results: &Path, url: &str, run: &Run) -> Outcome {
    let out_dir = results.join(run.version).join(&run.scenario);
    let _ = std::fs::remove_dir_all(&out_dir);
    let mut outcome = Outcome {
        scenario: run.scenario.clone(),
        version: run.version,
        applies: run.applies,
        passed: 0,
        failed: 0,
        warnings: 0,
        failures: Vec::new(),
        notes: Vec::new(),
        error: None,
    };
    if let Err(e) = std::fs::create_dir_all(&out_dir) {
        outcome.error = Some(format!("cannot create {}: {e}", out_dir.display()));
        return outcome;
    }
    let mut command = node(dir);
    command
        .args(["server", "--url", url, "--scenario", &run.scenario])
        .arg("--output-dir")
        .arg(&out_dir);
    if run.version != EXTENSION {
        command.args(["--spec-version", run.version]);
    }
    let status = run_logged(&mut command, &out_dir.join("output.log"));
    let checks = find_checks(&out_dir).and_then(|path| {
        std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))
    });
    match checks.and_then(|text| count_checks(&text)) {
        Ok(counts) => {
            outcome.passed = counts.passed;
            outcome.failed = counts.failed;
            outcome.warnings = counts.warnings;
            outcome.failures = counts.failures;
            outcome.notes = counts.notes;
        }
        Err(e) => {
            let status = match status {
                Ok(status) => status.to_string(),
                Err(e) => e,
            };
            outcome.error = Some(format!(
                "{e}; the suite ended with {status} (log: {})",
                out_dir.join("output.log").display()
            ));
        }
    }
    outcome
}

/// Runs `command` with its output into `log`, killed past [`SCENARIO_LIMIT`].
fn run_logged(command: &mut Command, log: &Path) -> Result<ExitStatus, String> {
    let file =
        std::fs::File::create(log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    let mut child = command
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .env("NO_COLOR", "1")
        .spawn()
        .map_err(|e| format!("cannot run `node`: {e}"))?;
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            return Ok(status);
        }
        if started.elapsed() > SCENARIO_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("killed after {} s", SCENARIO_LIMIT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The suite saves `<out>/server-<scenario>-<time>/checks.json`.
fn find_checks(out_dir: &Path) -> Result<PathBuf, String> {
    let entries = std::fs::read_dir(out_dir)
        .map_err(|e| format!("cannot read {}: {e}", out_dir.display()))?;
    entries
        .filter_map(|e| e.ok().map(|e| e.path().join("checks.json")))
        .find(|p| p.exists())
        .ok_or_else(|| "the suite saved no checks".to_owned())
}

#[derive(Debug, Default, PartialEq)]
struct Counts {
    passed: usize,
    failed: usize,
    warnings: usize,
    failures: Vec<(String, String)>,
    notes: Vec<(String, String)>,
}

/// Counts a `checks.json`: `SUCCESS` passes, `FAILURE` fails (with its `errorMessage`),
/// `WARNING` warns; `INFO` and `SKIPPED` are not counted (the suite's own rule).
fn count_checks(text: &str) -> Result<Counts, String> {
    let checks: Value =
        serde_json::from_str(text).map_err(|e| format!("checks.json is not JSON: {e}"))?;
    let checks = checks
        .as_array()
        .ok_or("checks.json is not an array of checks")?;
    let mut counts = Counts::default();
    for check in checks {
        let field = |key: &str| check.get(key).and_then(Value::as_str).unwrap_or("");
        let message = [
            field("errorMessage"),
            check
                .pointer("/details/message")
                .and_then(Value::as_str)
                .unwrap_or(""),
            field("description"),
        ]
        .into_iter()
        .find(|m| !m.is_empty())
        .unwrap_or("");
        let entry = (field("id").to_owned(), one_line(message, 300));
        match field("status") {
            "SUCCESS" => counts.passed += 1,
            "FAILURE" => {
                counts.failed += 1;
                counts.failures.push(entry);
            }
            status => {
                if status == "WARNING" {
                    counts.warnings += 1;
                }
                counts
                    .notes
                    .push((format!("{} ({status})", entry.0), entry.1));
            }
        }
    }
    Ok(counts)
}

/// `text` on one line, cut to `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        joined
    } else {
        let cut: String = joined.chars().take(max).collect();
        format!("{cut}…")
    }
}

// ---------------------------------------------------------------------------------------
// Reporting

/// One row per scenario, one column per revision run; a cell is `ok P/N`, `FAIL P/N`,
/// `ERROR`, or `-` where the scenario is not listed for (or not run at) that revision.
fn render_table(outcomes: &[Outcome]) -> String {
    let columns: Vec<&str> = VERSIONS
        .iter()
        .copied()
        .filter(|v| outcomes.iter().any(|o| o.version == *v))
        .collect();
    let mut rows: Vec<&str> = Vec::new();
    for o in outcomes {
        if !rows.contains(&o.scenario.as_str()) {
            rows.push(&o.scenario);
        }
    }
    let cell = |scenario: &str, version: &str| {
        outcomes
            .iter()
            .find(|o| o.scenario == scenario && o.version == version)
            .map_or_else(|| "-".to_owned(), Outcome::cell)
    };
    let first = rows
        .iter()
        .map(|r| r.len())
        .max()
        .unwrap_or(0)
        .max("scenario".len());
    let widths: Vec<usize> = columns
        .iter()
        .map(|c| {
            rows.iter()
                .map(|r| cell(r, c).chars().count())
                .max()
                .unwrap_or(0)
                .max(c.len())
        })
        .collect();
    let mut out = format!("{:first$}", "scenario");
    for (c, w) in columns.iter().zip(&widths) {
        let _ = write!(out, " | {c:w$}");
    }
    out.push('\n');
    out.push_str(&"-".repeat(first));
    for w in &widths {
        let _ = write!(out, "-|-{}", "-".repeat(*w));
    }
    out.push('\n');
    for row in &rows {
        let _ = write!(out, "{row:first$}");
        for (c, w) in columns.iter().zip(&widths) {
            let text = cell(row, c);
            let pad = w - text.chars().count();
            let _ = write!(out, " | {text}{}", " ".repeat(pad));
        }
        out.push('\n');
    }
    out
}

/// Every failed check and failed run, one line each, then why a `skip` run counted nothing
/// (its first two uncounted checks).
fn render_failures(outcomes: &[Outcome]) -> String {
    let mut out = String::new();
    for o in outcomes.iter().filter(|o| o.vacuous()) {
        // Warnings and skips say why; informational checks (requests sent, …) come last.
        let mut notes: Vec<&(String, String)> = o.notes.iter().collect();
        notes.sort_by_key(|(id, _)| id.ends_with("(INFO)"));
        for (id, message) in notes.into_iter().take(2) {
            let _ = writeln!(out, "{} {} (skip): {id}: {message}", o.version, o.scenario);
        }
    }
    for o in outcomes {
        let tag = if o.applies { "" } else { " (n/a)" };
        if let Some(error) = &o.error {
            let _ = writeln!(out, "{} {}{tag}: {error}", o.version, o.scenario);
        }
        for (id, message) in &o.failures {
            let _ = writeln!(out, "{} {}{tag}: {id}: {message}", o.version, o.scenario);
        }
    }
    out
}

#[cfg(test)]
mod tests;
