//! The shared-store part of `cargo xtask replicas`: three `load-server --workload replicas`
//! replicas sharing one Redis (Debian's, under `target/debs/`, as `pedelec::store::Redis`),
//! behind nginx (round robin, no stickiness), every request sent through nginx. Checked:
//!
//! 1. **limits:** a per-caller rate limit of 60 calls per 600 s holds across the three
//!    replicas within 10 % (per-process buckets would let 180 through);
//! 2. **retries:** a keyed call of the `exactly_once` tool `charge`, sent three times in a
//!    row (round robin lands each on another replica), runs once and answers the same;
//! 3. **duplicates:** three concurrent calls with one key (one per replica) run once, and all
//!    three get its answer;
//! 4. **conflicts:** the key with other args is `TOOL_IDEMPOTENCY_CONFLICT`, and runs nothing;
//! 5. **a replica killed mid-call:** its client sees the failure; retries through the others
//!    are never run, and once the claim's lease lapses they are told the outcome is unknown;
//! 6. **tasks:** a task started on one replica (MCP 2026-07-28, the tasks extension) is
//!    polled, answered (`tasks/update`) and cancelled through the others, its handler running
//!    once, where it started;
//! 7. **the official Python client** (`mcp` from `PyPI`, `cargo xtask mcp-clients`) drives
//!    a task whose form it answers with `tasks/update`, and an idempotent call retried
//!    three times, through nginx;
//! 8. **a replica killed mid-task:** the task ends `failed` within its lease, saying its
//!    replica stopped: no client polls forever;
//! 9. **Redis killed mid-run:** keyed calls fail fast (`IO_FAILED`, well under 3 s) and run
//!    nowhere; Redis restarted on its port, the same replicas serve again without a restart,
//!    and a keyed call then runs once.
//!
//! "Runs" is read from the replicas' journals: `charge` writes `charge ID` as it starts,
//! `confirm` writes `task ID`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::debs;
use super::replicas::{build_load_server, start_load_server, start_nginx, target_dir};
use super::services::{HttpAnswer, Service, post_json, redis_command, start_redis_on};

/// The calls' headers: stateless MCP, and the key when there is one.
fn headers(key: Option<&str>) -> Vec<(&str, &str)> {
    let mut headers = vec![("MCP-Protocol-Version", "2025-11-25")];
    if let Some(key) = key {
        headers.push(("Idempotency-Key", key));
    }
    headers
}

fn charge_body(id: u64, ms: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"charge","arguments":{{"id":{id},"ms":{ms}}}}}}}"#
    )
}

const COUNT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"update_counter","arguments":{"delta":1}}}"#;

/// Sends `charge(id, ms)` with `key` through `listen`.
fn charge(listen: SocketAddr, key: &str, id: u64, ms: u64) -> Result<HttpAnswer, String> {
    post_json(listen, "/mcp", &headers(Some(key)), &charge_body(id, ms))
}

/// Whether `answer` is the successful answer of `charge(id)`.
fn charged(answer: &HttpAnswer, id: u64) -> bool {
    answer.status == 200
        && answer.body.contains("\"isError\":false")
        && answer.body.contains(&format!("charged {id}"))
}

/// How often each charge ran, over every replica's journal.
fn runs(journals: &[PathBuf]) -> BTreeMap<u64, usize> {
    runs_of(journals, "charge ")
}

/// How often each line `{what}ID` is in the journals.
fn runs_of(journals: &[PathBuf], what: &str) -> BTreeMap<u64, usize> {
    let mut runs = BTreeMap::new();
    for journal in journals {
        let text = std::fs::read_to_string(journal).unwrap_or_default();
        for id in text.lines().filter_map(|l| l.strip_prefix(what)) {
            if let Ok(id) = id.trim().parse() {
                *runs.entry(id).or_default() += 1;
            }
        }
    }
    runs
}

/// The `_meta` of a 2026-07-28 request from a client that answers forms and runs tasks.
const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{},"extensions":{"io.modelcontextprotocol/tasks":{}}}}"#;

/// A 2026-07-28 request (`params`: its fields but `_meta`) through `listen`: its `result`,
/// or why there is none.
fn rpc(
    listen: SocketAddr,
    method: &str,
    name: &str,
    params: &str,
) -> Result<serde_json::Value, String> {
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", method),
        ("Mcp-Name", name),
    ];
    let body =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"{method}","params":{{{params},{META}}}}}"#);
    let answer = post_json(listen, "/mcp", &headers, &body)?;
    let value: serde_json::Value = serde_json::from_str(&answer.body)
        .map_err(|_| format!("{method}: HTTP {} {}", answer.status, answer.body))?;
    match value.get("result") {
        Some(result) => Ok(result.clone()),
        None => Err(format!("{method}: {value}")),
    }
}

/// Starts `confirm(id, ms)` as a task: its id.
fn start_task(listen: SocketAddr, id: u64, ms: u64) -> Result<String, String> {
    let result = rpc(
        listen,
        "tools/call",
        "confirm",
        &format!(r#""name":"confirm","arguments":{{"id":{id},"ms":{ms}}}"#),
    )?;
    result["taskId"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("confirm {id} did not become a task: {result}"))
}

/// `tasks/get` (through whichever replica nginx picks) until the status is `status`, for
/// up to `within`: the last result.
fn task_until(
    listen: SocketAddr,
    task_id: &str,
    status: &str,
    within: Duration,
) -> Result<serde_json::Value, String> {
    let started = Instant::now();
    loop {
        let result = rpc(
            listen,
            "tasks/get",
            task_id,
            &format!(r#""taskId":"{task_id}""#),
        )?;
        if result["status"] == status || started.elapsed() > within {
            return Ok(result);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Kills (SIGKILL) the replica whose journal shows `{what}ID` once it does (a handler
/// starts once the shared rate limit admitted it: a round trip to Redis); its index.
fn kill_where(
    journals: &[PathBuf],
    replicas: &mut [(Option<Service>, SocketAddr)],
    what: &str,
    id: u64,
) -> Result<usize, String> {
    let started = Instant::now();
    let victim = loop {
        if let Some(i) = journals
            .iter()
            .position(|j| runs_of(std::slice::from_ref(j), what).contains_key(&id))
        {
            break i;
        }
        check(
            started.elapsed() < Duration::from_secs(10),
            &format!("`{what}{id}` to kill mid-run never started"),
        )?;
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(replica) = replicas[victim].0.take() {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &replica.pid().to_string()])
            .status();
        drop(replica);
    }
    Ok(victim)
}

fn check(ok: bool, what: &str) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(format!("replicas: shared store: {what}"))
    }
}

/// The official Python client's `replicas` scenario (`tests/mcp_clients/client.py`) through
/// `listen`: a task answered with `tasks/update`, an idempotent call retried. Skipped with a
/// notice when the clients are not installed, which fails under `CI`.
fn python_client(root: &Path, listen: SocketAddr, journals: &[PathBuf]) -> Result<(), String> {
    let python = super::mcp_clients::clients_dir(root).join("py/bin/python");
    if !python.exists() {
        let notice = format!(
            "the Python MCP client is not installed ({} is missing): run `cargo xtask mcp-clients`",
            python.display()
        );
        if std::env::var_os("CI").is_some() {
            return Err(notice);
        }
        println!("replicas: shared store: note: {notice}; its scenario is skipped");
        return Ok(());
    }
    let output = std::process::Command::new(&python)
        .arg(root.join("tests/mcp_clients/client.py"))
        .args(["replicas", &format!("http://{listen}/mcp")])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    let report: serde_json::Value = text
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .ok_or_else(|| {
            format!(
                "the Python client printed no report: {text} {}",
                String::from_utf8_lossy(&output.stderr)
            )
        })?;
    let polled = &report["tasks"][0]["polled"];
    let charges = report["charges"].as_array().cloned().unwrap_or_default();
    check(
        report["task"]["content"][0]["text"] == "ok=true"
            && polled
                .as_array()
                .is_some_and(|p| p.iter().any(|s| s == "input_required")),
        &format!("the Python client's task: {report}"),
    )?;
    check(
        charges.len() == 3
            && charges
                .iter()
                .all(|c| c["content"][0]["text"] == "charged 60" && c["isError"] == false),
        &format!("the Python client's retried charge: {report}"),
    )?;
    check(
        runs(journals).get(&60) == Some(&1) && runs_of(journals, "task ").get(&50) == Some(&1),
        &format!("the Python client's calls ran more than once: {report}"),
    )?;
    println!(
        "replicas: shared store: the official Python client ({}): a task answered with tasks/update after polling {polled}, and a charge retried three times, run once",
        report["protocol"]
    );
    Ok(())
}

/// Runs the shared-store checks (see the module docs).
pub fn run(root: &Path, args: &[OsString]) -> Result<(), String> {
    let debug = args.iter().any(|a| a == "--debug");
    let build: (&str, &[&str]) = if debug {
        ("debug", &["build", "--quiet"])
    } else {
        ("release", &["build", "--release", "--quiet"])
    };
    let nginx = debs::install(root, debs::NGINX)?;
    let redis_tree = debs::install(root, debs::REDIS)?;
    let server = build_load_server(root, build)?;
    let dir = target_dir(root).join("replicas");
    let port = super::services::free_port()?;
    let mut redis = Some(start_redis_on(&redis_tree, &dir.join("redis"), port)?);
    let store = format!("redis://127.0.0.1:{port}");
    let mut replicas = Vec::new();
    let mut journals = Vec::new();
    for i in 0..3 {
        let journal = dir.join(format!("journal-store-{i}"));
        let (replica, addr) = start_load_server(
            &server,
            i,
            &journal,
            &[
                "--workload",
                "replicas",
                "--store",
                &store,
                "--rate-limit",
                "60/600",
            ],
        )?;
        replicas.push((Some(replica), addr));
        journals.push(journal);
    }
    let upstreams: Vec<SocketAddr> = replicas.iter().map(|(_, a)| *a).collect();
    let (balancer, listen) = start_nginx(&nginx, &dir, &dir.join("nginx-store.conf"), &upstreams)?;
    println!("replicas: shared store: Redis on {port}, nginx on {listen} -> {upstreams:?}");

    // 1. One budget across the replicas.
    let mut allowed = 0;
    for _ in 0..150 {
        let answer = post_json(listen, "/mcp", &headers(None), COUNT)?;
        if answer.status == 200 && answer.body.contains("\"isError\":false") {
            allowed += 1;
        } else if !answer.body.contains("TOOL_RATE_LIMITED") {
            return Err(format!(
                "replicas: shared store: a call neither answered nor rate limited: HTTP {} {}",
                answer.status, answer.body
            ));
        }
    }
    println!(
        "replicas: shared store: limit 60 per caller: {allowed} of 150 calls through three replicas allowed"
    );
    check(
        (54..=66).contains(&allowed),
        &format!("{allowed} calls allowed against a shared budget of 60 (within 10 %: 54..=66)"),
    )?;
    // A fresh budget for what follows (every keyed call that runs takes a token).
    check(redis_command(port, "FLUSHALL")? == "+OK", "FLUSHALL failed")?;

    // 2. Retries land on each replica in turn; each key runs once.
    for id in 1..=5 {
        let key = format!("retry-{id}");
        for attempt in 0..3 {
            let answer = charge(listen, &key, id, 0)?;
            check(
                charged(&answer, id),
                &format!(
                    "attempt {attempt} of {key}: HTTP {} {}",
                    answer.status, answer.body
                ),
            )?;
        }
    }
    let counted = runs(&journals);
    check(
        (1..=5).all(|id| counted.get(&id) == Some(&1)),
        &format!("five keys sent three times each ran {counted:?} (each once expected)"),
    )?;
    println!("replicas: shared store: 5 keys x 3 retries (each on another replica): each ran once");

    // 3. Three concurrent duplicates, one per replica.
    let threads: Vec<_> = (0..3)
        .map(|_| std::thread::spawn(move || charge(listen, "dup", 100, 800)))
        .collect();
    let mut answers = Vec::new();
    for thread in threads {
        answers.push(
            thread
                .join()
                .map_err(|_| "a client thread panicked".to_owned())??,
        );
    }
    check(
        answers.iter().all(|a| charged(a, 100)),
        &format!(
            "three concurrent duplicates: {:?}",
            answers.iter().map(|a| &a.body).collect::<Vec<_>>()
        ),
    )?;
    check(
        runs(&journals).get(&100) == Some(&1),
        "three concurrent duplicates did not run exactly once",
    )?;
    println!("replicas: shared store: 3 concurrent duplicates: one run, three answers");

    // 4. The key with other args.
    let answer = charge(listen, "retry-1", 999, 0)?;
    check(
        answer.body.contains("TOOL_IDEMPOTENCY_CONFLICT") && !runs(&journals).contains_key(&999),
        &format!("a key reused with other args: {}", answer.body),
    )?;
    println!(
        "replicas: shared store: a key with other args: TOOL_IDEMPOTENCY_CONFLICT, nothing run"
    );

    // 5. A replica killed mid-call.
    let first = std::thread::spawn(move || charge(listen, "killed", 200, 1_500));
    let victim = kill_where(&journals, &mut replicas, "charge ", 200)?;
    let seen = first
        .join()
        .map_err(|_| "a client thread panicked".to_owned())?;
    check(
        !matches!(&seen, Ok(a) if charged(a, 200)),
        "the killed replica's call was answered",
    )?;
    // Retries go to the others: while the dead replica's claim is unrenewed but its lease
    // (3 s, `store::LEASE`) runs, they wait; then they are told the outcome is unknown.
    let mut last = String::new();
    let retried = Instant::now();
    while retried.elapsed() < Duration::from_secs(20) {
        // The same args: other args would be a conflict.
        let answer = charge(listen, "killed", 200, 1_500)?;
        last.clone_from(&answer.body);
        check(
            !charged(&answer, 200),
            "a retry of a call that may have run ran it again",
        )?;
        if answer.body.contains("unknown") {
            break;
        }
    }
    check(
        last.contains("unknown") && runs(&journals).get(&200) == Some(&1),
        &format!(
            "after the kill, retries answered {last} and the call ran {:?} time(s)",
            runs(&journals).get(&200)
        ),
    )?;
    println!(
        "replicas: shared store: replica {victim} killed mid-call: retries elsewhere never ran it; after {:.1} s they were told its outcome is unknown",
        retried.elapsed().as_secs_f64()
    );

    // 6. Tasks through the other replicas.
    let task = start_task(listen, 1, 0)?;
    let waiting = task_until(listen, &task, "input_required", Duration::from_secs(5))?;
    check(
        waiting["inputRequests"]["confirm"]["method"] == "elicitation/create",
        &format!("a task waiting for its answer: {waiting}"),
    )?;
    rpc(
        listen,
        "tasks/update",
        &task,
        &format!(
            r#""taskId":"{task}","inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}}"#
        ),
    )?;
    let done = task_until(listen, &task, "completed", Duration::from_secs(5))?;
    check(
        done["result"]["content"][0]["text"] == "ok=true",
        &format!("a task answered through another replica: {done}"),
    )?;
    let task = start_task(listen, 2, 0)?;
    task_until(listen, &task, "input_required", Duration::from_secs(5))?;
    rpc(
        listen,
        "tasks/cancel",
        &task,
        &format!(r#""taskId":"{task}""#),
    )?;
    let cancelled = task_until(listen, &task, "cancelled", Duration::from_secs(5))?;
    check(
        cancelled["status"] == "cancelled",
        &format!("a task cancelled through another replica: {cancelled}"),
    )?;
    let started = runs_of(&journals, "task ");
    check(
        started.get(&1) == Some(&1) && started.get(&2) == Some(&1),
        &format!("the tasks' handlers ran {started:?} (once each expected)"),
    )?;
    println!(
        "replicas: shared store: tasks polled, answered and cancelled through the other replicas; each handler ran once"
    );

    // 7. The official Python client, through nginx (two replicas left).
    python_client(root, listen, &journals)?;

    // 8. A replica killed mid-task.
    let task = start_task(listen, 3, 120_000)?;
    let victim = kill_where(&journals, &mut replicas, "task ", 3)?;
    let killed = Instant::now();
    let lost = task_until(listen, &task, "failed", Duration::from_secs(15))?;
    check(
        lost["status"] == "failed"
            && lost["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("stopped renewing")),
        &format!("a task whose replica was killed: {lost}"),
    )?;
    println!(
        "replicas: shared store: replica {victim} killed mid-task: the task ended failed after {:.1} s, saying its replica stopped",
        killed.elapsed().as_secs_f64()
    );

    // 9. Redis killed mid-run, then restarted on its port.
    drop(redis.take());
    let sent = Instant::now();
    let answer = charge(listen, "down", 300, 0)?;
    let took = sent.elapsed();
    check(
        answer.body.contains("IO_FAILED") && took < Duration::from_secs(3),
        &format!("with Redis down, after {took:?}: {}", answer.body),
    )?;
    redis = Some(start_redis_on(&redis_tree, &dir.join("redis"), port)?);
    let back = Instant::now();
    let answer = loop {
        let answer = charge(listen, "down", 300, 0)?;
        if charged(&answer, 300) || back.elapsed() > Duration::from_secs(10) {
            break answer;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let again = charge(listen, "down", 300, 0)?;
    check(
        charged(&answer, 300) && charged(&again, 300) && runs(&journals).get(&300) == Some(&1),
        &format!(
            "after Redis came back: {} / {} (ran {:?} time(s))",
            answer.body,
            again.body,
            runs(&journals).get(&300)
        ),
    )?;
    println!(
        "replicas: shared store: Redis killed: a keyed call failed in {took:?} (IO_FAILED) and ran nowhere; restarted, the replicas served again after {:.1} s, the call ran once",
        back.elapsed().as_secs_f64()
    );
    drop(balancer);
    drop(replicas);
    drop::<Option<Service>>(redis);
    println!("replicas: shared store: ok");
    Ok(())
}
