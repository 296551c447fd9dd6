//! One service on many machines (DESIGN §13): `#[tool(exactly_once)]` calls with an
//! idempotency key run once, across every session ("replica") sharing a store; rate budgets
//! are one per caller across them; a store that fails makes the calls that need it fail
//! fast. Each test runs on `store::Memory` and, with the `redis` feature, on a real Redis 7
//! (`cargo xtask redis` installs it under `target/`; without it these print a notice and
//! skip, or fail when `CI` is set).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use pedelec::context::Caller;
use pedelec::context::{Approval, ApprovalRequest};
use pedelec::session::RateLimit;
use pedelec::session::SessionEvent;
use pedelec::store::{
    Claim, Memory, Store, StoreError, StoreFuture, TaskAnswer, TaskRecord, TaskStatus,
};
use pedelec::{CallOptions, ErrorCode, Session, ToolArgs, ToolError, ToolResult, skills, tool};
use serde::Deserialize;
use serde_json::json;

static CHARGES: AtomicUsize = AtomicUsize::new(0);
static LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[derive(Debug, Deserialize, ToolArgs)]
struct ChargeArgs {
    /// Cents to charge.
    cents: u64,
}

/// Charge a card (slowly).
#[tool(exactly_once)]
async fn charge(args: ChargeArgs) -> String {
    CHARGES.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(150)).await;
    format!("charged {}", args.cents)
}

/// Say hello.
#[tool]
async fn hello() -> &'static str {
    "hello"
}

static RECEIPTS: AtomicUsize = AtomicUsize::new(0);

/// Charge a card, then fail to write the receipt (with a public code).
#[tool(exactly_once)]
async fn charge_without_receipt(args: ChargeArgs) -> Result<String, ToolError> {
    RECEIPTS.fetch_add(1, Ordering::SeqCst);
    Err(ToolError::with_code(
        ErrorCode::IoFailed,
        format!(
            "charged {} but the receipt could not be written",
            args.cents
        ),
    ))
}

static SLOW: AtomicUsize = AtomicUsize::new(0);

#[derive(Debug, Deserialize, ToolArgs)]
struct SlowArgs {
    /// Cents to charge.
    cents: u64,
    /// How long the charge takes, in milliseconds.
    ms: u64,
}

/// Charge a card, taking `ms` milliseconds.
#[tool(exactly_once)]
async fn slow_charge(args: SlowArgs) -> String {
    SLOW.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(args.ms)).await;
    format!("charged {} slowly", args.cents)
}

static REFUNDS: AtomicUsize = AtomicUsize::new(0);

/// Refund a charge, once a person approves.
#[tool(exactly_once, approval)]
async fn refund(args: ChargeArgs) -> String {
    REFUNDS.fetch_add(1, Ordering::SeqCst);
    format!("refunded {}", args.cents)
}

skills![
    guidance = "Payments.",
    tools = [charge, hello, charge_without_receipt, slow_charge, refund]
];

fn replica(store: Arc<dyn Store>) -> Session<ToolName> {
    Session::builder(ToolName::skills())
        .store(store)
        .create()
        .unwrap()
}

fn keyed(key: &str) -> CallOptions {
    CallOptions::new()
        .caller(Caller::new("alice"))
        .idempotency_key(key)
}

fn code(result: &ToolResult) -> Option<ErrorCode> {
    match result {
        ToolResult::Ok(_) => None,
        ToolResult::Err(e) => Some(e.code()),
    }
}

/// The stores each test runs on: in memory, and a real Redis when there is one.
async fn stores() -> Vec<(&'static str, Arc<dyn Store>)> {
    let mut stores: Vec<(&'static str, Arc<dyn Store>)> = vec![("memory", Arc::new(Memory::new()))];
    if let Some(redis) = redis::store().await {
        stores.push(("redis", redis));
    }
    stores
}

#[tokio::test]
async fn a_key_runs_once_and_its_retries_get_the_answer_on_every_replica() {
    let _lock = LOCK.lock().await;
    for (name, store) in stores().await {
        let (a, b) = (replica(store.clone()), replica(store.clone()));
        let key = format!("k-{name}-{}", std::process::id());
        let before = CHARGES.load(Ordering::SeqCst);
        // Two replicas at once: one runs, the other waits for its answer.
        let (first, second) = tokio::join!(
            a.call_with("charge", json!({"cents": 500}), keyed(&key)),
            b.call_with("charge", json!({"cents": 500}), keyed(&key)),
        );
        assert_eq!(first, ToolResult::Ok(json!("charged 500")), "{name}");
        assert_eq!(second, first, "{name}");
        // Later, on either: the kept answer, nothing runs.
        let later = b
            .call_with("charge", json!({"cents": 500}), keyed(&key))
            .await;
        assert_eq!(later, first, "{name}");
        assert_eq!(CHARGES.load(Ordering::SeqCst), before + 1, "{name}");
        // The same key with other args: a conflict.
        let other = a
            .call_with("charge", json!({"cents": 900}), keyed(&key))
            .await;
        assert_eq!(
            code(&other),
            Some(ErrorCode::ToolIdempotencyConflict),
            "{name}"
        );
        // Another caller's key of the same name is another key; no key, no deduplication.
        let bob = a
            .call_with(
                "charge",
                json!({"cents": 500}),
                CallOptions::new()
                    .caller(Caller::new("bob"))
                    .idempotency_key(key.as_str()),
            )
            .await;
        assert!(bob.is_ok(), "{name}: {bob:?}");
        let _ = a.call("charge", json!({"cents": 500})).await;
        assert_eq!(CHARGES.load(Ordering::SeqCst), before + 3, "{name}");
    }
}

#[tokio::test]
async fn rate_budgets_are_shared_and_a_kept_answer_costs_none() {
    let _lock = LOCK.lock().await;
    for (name, store) in stores().await {
        let limited = |store: Arc<dyn Store>| {
            Session::builder(ToolName::skills())
                .store(store)
                .rate_limit(RateLimit::per_caller(2, Duration::from_hours(1)))
                .create()
                .unwrap()
        };
        let (a, b) = (limited(store.clone()), limited(store.clone()));
        let caller = Caller::new(format!("carol-{name}-{}", std::process::id()));
        let as_carol = || CallOptions::new().caller(caller.clone());
        let key = format!("rate-{name}-{}", std::process::id());
        // One call on each replica: the shared budget of two is spent.
        let keyed_call = a
            .call_with(
                "charge",
                json!({"cents": 1}),
                as_carol().idempotency_key(key.as_str()),
            )
            .await;
        assert!(keyed_call.is_ok(), "{name}: {keyed_call:?}");
        assert!(b.call_with("hello", json!({}), as_carol()).await.is_ok());
        let refused = a.call_with("hello", json!({}), as_carol()).await;
        assert_eq!(code(&refused), Some(ErrorCode::ToolRateLimited), "{name}");
        let ToolResult::Err(e) = &refused else {
            unreachable!()
        };
        assert!(
            e.details()
                .is_some_and(|d| d["retryAfterMs"].as_u64() > Some(0))
        );
        // The keyed call again: its kept answer, with no budget left.
        let again = b
            .call_with(
                "charge",
                json!({"cents": 1}),
                as_carol().idempotency_key(key.as_str()),
            )
            .await;
        assert_eq!(again, keyed_call, "{name}");
    }
}

#[tokio::test]
async fn a_call_whose_replica_stopped_is_never_run_again() {
    let _lock = LOCK.lock().await;
    for (name, store) in stores().await {
        let key = format!("lost-{name}-{}", std::process::id());
        // A replica claimed the key and stopped before answering (its lease is short here).
        let args = json!({"cents": 7});
        let fingerprint = {
            use sha2::Digest;
            let canonical = serde_json_canonicalizer::to_string(&args).unwrap();
            sha2::Sha256::digest(canonical.as_bytes())
                .iter()
                .fold(String::new(), |mut hex, b| {
                    use std::fmt::Write as _;
                    let _ = write!(hex, "{b:02x}");
                    hex
                })
        };
        let claimed = store
            .claim(
                &format!("charge:alice:{key}"),
                &fingerprint,
                Duration::from_millis(100),
            )
            .await
            .unwrap();
        assert_eq!(claimed, Claim::First, "{name}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let before = CHARGES.load(Ordering::SeqCst);
        let retry = replica(store.clone())
            .call_with("charge", args, keyed(&key))
            .await;
        assert_eq!(
            code(&retry),
            Some(ErrorCode::ToolOutcomeUnknown),
            "{name}: {retry:?}"
        );
        assert_eq!(CHARGES.load(Ordering::SeqCst), before, "{name}");
    }
}

/// Whether a claimed key is released is decided by whether the handler started, not by its
/// error's code: a handler that did its work and then failed with a public code
/// (`IO_FAILED`) is never run again by a retry; a call refused before its handler started
/// (here: not approved) releases its key, and its retry runs.
#[tokio::test]
async fn a_handler_that_started_is_never_run_again_whatever_its_code() {
    let _lock = LOCK.lock().await;
    for (name, store) in stores().await {
        let (a, b) = (replica(store.clone()), replica(store.clone()));
        let key = format!("receipt-{name}-{}", std::process::id());
        let before = RECEIPTS.load(Ordering::SeqCst);
        let first = a
            .call_with("charge_without_receipt", json!({"cents": 5}), keyed(&key))
            .await;
        assert_eq!(code(&first), Some(ErrorCode::IoFailed), "{name}: {first:?}");
        let retry = b
            .call_with("charge_without_receipt", json!({"cents": 5}), keyed(&key))
            .await;
        assert_eq!(retry, first, "{name}");
        assert_eq!(RECEIPTS.load(Ordering::SeqCst), before + 1, "{name}");

        // Denied on one replica (its handler never started), approved on the other.
        let approving = |approve: bool| {
            Session::builder(ToolName::skills())
                .store(store.clone())
                .approver(move |_: ApprovalRequest| async move { Approval::from(approve) })
                .create()
                .unwrap()
        };
        let key = format!("refund-{name}-{}", std::process::id());
        let before = REFUNDS.load(Ordering::SeqCst);
        let denied = approving(false)
            .call_with("refund", json!({"cents": 3}), keyed(&key))
            .await;
        assert_eq!(code(&denied), Some(ErrorCode::ToolApprovalDenied), "{name}");
        let approved = approving(true)
            .call_with("refund", json!({"cents": 3}), keyed(&key))
            .await;
        assert_eq!(approved, ToolResult::Ok(json!("refunded 3")), "{name}");
        assert_eq!(REFUNDS.load(Ordering::SeqCst), before + 1, "{name}");
    }
}

/// `Memory`, except that it cannot keep an answer.
struct Forgetful(Memory);

impl Store for Forgetful {
    fn take(
        &self,
        key: &str,
        capacity: u32,
        period: Duration,
    ) -> StoreFuture<'_, Option<Duration>> {
        self.0.take(key, capacity, period)
    }
    fn claim(&self, key: &str, fingerprint: &str, lease: Duration) -> StoreFuture<'_, Claim> {
        self.0.claim(key, fingerprint, lease)
    }
    fn finish(&self, _: &str, _: &str, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(async { Err(StoreError::new("out of memory")) })
    }
    fn release(&self, key: &str) -> StoreFuture<'_, ()> {
        self.0.release(key)
    }
    fn renew(&self, key: &str, lease: Duration) -> StoreFuture<'_, bool> {
        self.0.renew(key, lease)
    }
    fn changed(&self, key: &str, within: Duration) -> StoreFuture<'_, ()> {
        self.0.changed(key, within)
    }
    fn use_once(&self, key: &str, ttl: Duration) -> StoreFuture<'_, bool> {
        self.0.use_once(key, ttl)
    }
    fn task_create(
        &self,
        id: &str,
        stamp: &str,
        requests: &[(String, String)],
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'_, ()> {
        self.0.task_create(id, stamp, requests, ttl, lease)
    }
    fn task_ask(&self, id: &str, key: &str, request: &str, stamp: &str) -> StoreFuture<'_, bool> {
        self.0.task_ask(id, key, request, stamp)
    }
    fn task_finish(
        &self,
        id: &str,
        status: TaskStatus,
        payload: &str,
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        self.0.task_finish(id, status, payload, stamp)
    }
    fn task_cancel(&self, id: &str, stamp: &str) -> StoreFuture<'_, Option<bool>> {
        self.0.task_cancel(id, stamp)
    }
    fn task_update(
        &self,
        id: &str,
        answers: &[(String, String)],
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        self.0.task_update(id, answers, stamp)
    }
    fn task_get(&self, id: &str, stamp: &str, lapsed: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        self.0.task_get(id, stamp, lapsed)
    }
    fn task_renew(
        &self,
        id: &str,
        lease: Duration,
    ) -> StoreFuture<'_, Option<(TaskStatus, Vec<TaskAnswer>)>> {
        self.0.task_renew(id, lease)
    }
}

/// A call that ran answers its result even when the store cannot keep it, and the session
/// says the answer was not kept.
#[tokio::test]
async fn an_answer_the_store_cannot_keep_is_still_answered() {
    let _lock = LOCK.lock().await;
    let session = replica(Arc::new(Forgetful(Memory::new())));
    let mut events = session.events();
    let before = CHARGES.load(Ordering::SeqCst);
    let answer = session
        .call_with("charge", json!({"cents": 4}), keyed("forgotten"))
        .await;
    assert_eq!(answer, ToolResult::Ok(json!("charged 4")));
    assert_eq!(CHARGES.load(Ordering::SeqCst), before + 1);
    let reason = loop {
        match tokio::time::timeout(Duration::from_secs(5), events.recv())
            .await
            .expect("an event")
        {
            Some(SessionEvent::AnswerNotKept { tool, reason, .. }) => {
                assert_eq!(tool, "charge");
                break reason;
            }
            Some(_) => {}
            None => panic!("the stream ended"),
        }
    };
    assert!(reason.contains("out of memory"), "{reason}");
}

/// A call that runs longer than a lease keeps its claim (it is renewed): a duplicate waits
/// and gets its answer. On `Memory`, with Tokio's clock paused: seconds pass in no time.
#[tokio::test(start_paused = true)]
async fn a_running_call_holds_its_claim_past_a_lease() {
    let _lock = LOCK.lock().await;
    let store: Arc<dyn Store> = Arc::new(Memory::new());
    let (a, b) = (replica(store.clone()), replica(store));
    let before = SLOW.load(Ordering::SeqCst);
    let args = json!({"cents": 1, "ms": 10_000});
    let (first, second) = tokio::join!(
        a.call_with("slow_charge", args.clone(), keyed("alive")),
        async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            b.call_with("slow_charge", args.clone(), keyed("alive"))
                .await
        }
    );
    assert_eq!(first, ToolResult::Ok(json!("charged 1 slowly")));
    assert_eq!(second, first);
    assert_eq!(SLOW.load(Ordering::SeqCst), before + 1);
}

/// A replica that stops mid-call (its call's future dropped: its claim no longer renewed):
/// the duplicate waiting on another replica is answered `TOOL_OUTCOME_UNKNOWN` within 5 s,
/// and the call is not run again.
async fn a_dead_call_is_answered_outcome_unknown(name: &str, store: Arc<dyn Store>) {
    let (a, b) = (replica(store.clone()), replica(store));
    let key = format!("dead-{name}-{}", std::process::id());
    let before = SLOW.load(Ordering::SeqCst);
    let args = json!({"cents": 2, "ms": 60_000});
    let running = {
        let (args, key) = (args.clone(), key.clone());
        tokio::spawn(async move { a.call_with("slow_charge", args, keyed(&key)).await })
    };
    while SLOW.load(Ordering::SeqCst) == before {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let retry = {
        let key = key.clone();
        tokio::spawn(async move { b.call_with("slow_charge", args, keyed(&key)).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    running.abort();
    let died = tokio::time::Instant::now();
    let retry = retry.await.unwrap();
    assert_eq!(
        code(&retry),
        Some(ErrorCode::ToolOutcomeUnknown),
        "{name}: {retry:?}"
    );
    assert!(
        died.elapsed() < Duration::from_secs(5),
        "{name}: answered after {:?}",
        died.elapsed()
    );
    assert_eq!(SLOW.load(Ordering::SeqCst), before + 1, "{name}");
}

#[tokio::test(start_paused = true)]
async fn a_dead_call_is_answered_outcome_unknown_within_seconds_in_memory() {
    let _lock = LOCK.lock().await;
    a_dead_call_is_answered_outcome_unknown("memory", Arc::new(Memory::new())).await;
}

/// The same on a real Redis (in real time: about three seconds).
#[tokio::test]
async fn a_dead_call_is_answered_outcome_unknown_within_seconds_on_redis() {
    let _lock = LOCK.lock().await;
    if let Some(store) = redis::store().await {
        a_dead_call_is_answered_outcome_unknown("redis", store).await;
    }
}

/// A single-use mark (an approval's) is used once, on every replica sharing the store.
#[tokio::test]
async fn a_single_use_mark_is_used_once() {
    let _lock = LOCK.lock().await;
    for (name, store) in stores().await {
        let mark = format!("approval:{name}-{}", std::process::id());
        let minute = Duration::from_mins(1);
        assert!(store.use_once(&mark, minute).await.unwrap(), "{name}");
        assert!(!store.use_once(&mark, minute).await.unwrap(), "{name}");
        assert!(
            store
                .use_once(&format!("{mark}-other"), minute)
                .await
                .unwrap(),
            "{name}"
        );
    }
}

/// A store that is down: every operation fails.
struct Down;

fn refused<T>() -> StoreFuture<'static, T> {
    Box::pin(async { Err(StoreError::new("connection refused")) })
}

impl Store for Down {
    fn take(&self, _: &str, _: u32, _: Duration) -> StoreFuture<'_, Option<Duration>> {
        Box::pin(async { Err(StoreError::new("connection refused")) })
    }
    fn claim(&self, _: &str, _: &str, _: Duration) -> StoreFuture<'_, Claim> {
        Box::pin(async { Err(StoreError::new("connection refused")) })
    }
    fn finish(&self, _: &str, _: &str, _: Duration) -> StoreFuture<'_, ()> {
        Box::pin(async { Err(StoreError::new("connection refused")) })
    }
    fn release(&self, _: &str) -> StoreFuture<'_, ()> {
        refused()
    }
    fn renew(&self, _: &str, _: Duration) -> StoreFuture<'_, bool> {
        refused()
    }
    fn changed(&self, _: &str, _: Duration) -> StoreFuture<'_, ()> {
        refused()
    }
    fn use_once(&self, _: &str, _: Duration) -> StoreFuture<'_, bool> {
        refused()
    }
    fn task_create(
        &self,
        _: &str,
        _: &str,
        _: &[(String, String)],
        _: Duration,
        _: Duration,
    ) -> StoreFuture<'_, ()> {
        refused()
    }
    fn task_ask(&self, _: &str, _: &str, _: &str, _: &str) -> StoreFuture<'_, bool> {
        refused()
    }
    fn task_finish(&self, _: &str, _: TaskStatus, _: &str, _: &str) -> StoreFuture<'_, bool> {
        refused()
    }
    fn task_cancel(&self, _: &str, _: &str) -> StoreFuture<'_, Option<bool>> {
        refused()
    }
    fn task_update(&self, _: &str, _: &[(String, String)], _: &str) -> StoreFuture<'_, bool> {
        refused()
    }
    fn task_get(&self, _: &str, _: &str, _: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        refused()
    }
    fn task_renew(
        &self,
        _: &str,
        _: Duration,
    ) -> StoreFuture<'_, Option<(TaskStatus, Vec<TaskAnswer>)>> {
        refused()
    }
}

/// MCP tasks in the store (DESIGN §13), the contract every replica relies on: a record any
/// replica reads, answers left for the runner and a cancellation it reads (when it renews
/// its lease), a finished task that stays finished, a lapsed lease that ends
/// `failed`.
#[tokio::test]
async fn tasks_in_the_store_are_one_record_for_every_replica() {
    let _lock = LOCK.lock().await;
    let minute = Duration::from_mins(1);
    for (name, store) in stores().await {
        let id = |n: &str| format!("{name}-{}-{n}", std::process::id());
        let confirm = r#"{"method":"elicitation/create","params":{"message":"Go?","requestedSchema":{"type":"object","properties":{},"required":[]}}}"#;
        // Created waiting on a request (with a key no delimiter confuses).
        let odd = "a:b\nc 1";
        let (t1, t2, t3) = (id("t1"), id("t2"), id("t3"));
        store
            .task_create(
                &t1,
                "s0",
                &[(odd.to_owned(), confirm.to_owned())],
                minute,
                minute,
            )
            .await
            .unwrap();
        let record = store.task_get(&t1, "s1", "{}").await.unwrap().unwrap();
        assert_eq!(record.status, TaskStatus::InputRequired, "{name}");
        assert_eq!(
            record.input_requests,
            [(odd.to_owned(), confirm.to_owned())],
            "{name}"
        );
        assert_eq!(
            (&*record.created_at, &*record.updated_at),
            ("s0", "s0"),
            "{name}"
        );
        // Answered from another replica: the runner takes the answer when it renews.
        let answer = r#"{"action":"accept","content":{}}"#;
        let answers = [
            (odd.to_owned(), answer.to_owned()),
            ("not-asked".to_owned(), "{}".to_owned()),
        ];
        assert!(
            store.task_update(&t1, &answers, "s2").await.unwrap(),
            "{name}"
        );
        let record = store.task_get(&t1, "s3", "{}").await.unwrap().unwrap();
        assert_eq!(
            (record.status, &*record.updated_at),
            (TaskStatus::Working, "s2"),
            "{name}"
        );
        assert!(record.input_requests.is_empty(), "{name}");
        let (status, taken) = store.task_renew(&t1, minute).await.unwrap().unwrap();
        assert_eq!(status, TaskStatus::Working, "{name}");
        assert_eq!(
            taken,
            [TaskAnswer {
                key: odd.to_owned(),
                answer: answer.to_owned()
            }],
            "{name}"
        );
        assert!(
            store
                .task_renew(&t1, minute)
                .await
                .unwrap()
                .unwrap()
                .1
                .is_empty(),
            "{name}"
        );
        // Asks again, then finishes: finished stays finished.
        assert!(
            store.task_ask(&t1, "second", confirm, "s4").await.unwrap(),
            "{name}"
        );
        assert_eq!(
            store
                .task_get(&t1, "s5", "{}")
                .await
                .unwrap()
                .unwrap()
                .status,
            TaskStatus::InputRequired
        );
        assert!(
            store
                .task_finish(&t1, TaskStatus::Completed, r#"{"content":[]}"#, "s6")
                .await
                .unwrap()
        );
        let record = store.task_get(&t1, "s7", "{}").await.unwrap().unwrap();
        assert_eq!(
            (record.status, &*record.payload),
            (TaskStatus::Completed, r#"{"content":[]}"#),
            "{name}"
        );
        assert!(record.input_requests.is_empty(), "{name}");
        assert!(
            !store.task_ask(&t1, "third", confirm, "s8").await.unwrap(),
            "{name}"
        );
        assert!(
            !store
                .task_finish(&t1, TaskStatus::Failed, "{}", "s8")
                .await
                .unwrap(),
            "{name}"
        );
        assert_eq!(
            store.task_cancel(&t1, "s8").await.unwrap(),
            Some(false),
            "{name}"
        );
        // Cancelled from another replica: the runner reads it; its own outcome comes too late.
        store
            .task_create(&t2, "s0", &[], minute, minute)
            .await
            .unwrap();
        assert_eq!(
            store
                .task_get(&t2, "s1", "{}")
                .await
                .unwrap()
                .unwrap()
                .status,
            TaskStatus::Working
        );
        assert_eq!(
            store.task_cancel(&t2, "s2").await.unwrap(),
            Some(true),
            "{name}"
        );
        assert_eq!(
            store
                .task_get(&t2, "s3", "{}")
                .await
                .unwrap()
                .unwrap()
                .status,
            TaskStatus::Cancelled
        );
        assert_eq!(
            store.task_renew(&t2, minute).await.unwrap(),
            Some((TaskStatus::Cancelled, vec![])),
            "{name}"
        );
        assert!(
            !store
                .task_finish(&t2, TaskStatus::Completed, "{}", "s4")
                .await
                .unwrap(),
            "{name}"
        );
        // Unknown tasks.
        let nope = id("nope");
        assert_eq!(
            store.task_get(&nope, "s", "{}").await.unwrap(),
            None,
            "{name}"
        );
        assert_eq!(store.task_cancel(&nope, "s").await.unwrap(), None, "{name}");
        assert!(
            !store.task_update(&nope, &answers, "s").await.unwrap(),
            "{name}"
        );
        assert_eq!(
            store.task_renew(&nope, minute).await.unwrap(),
            None,
            "{name}"
        );
        // A runner that stops renewing: the task ends failed, saying so, at the next read.
        store
            .task_create(&t3, "s0", &[], minute, Duration::from_millis(50))
            .await
            .unwrap();
        assert_eq!(
            store
                .task_get(&t3, "s1", "{}")
                .await
                .unwrap()
                .unwrap()
                .status,
            TaskStatus::Working
        );
        tokio::time::sleep(Duration::from_millis(150)).await;
        let record = store
            .task_get(&t3, "s2", r#"{"message":"lapsed"}"#)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            (record.status, &*record.payload, &*record.updated_at),
            (TaskStatus::Failed, r#"{"message":"lapsed"}"#, "s2"),
            "{name}"
        );
    }
}

#[tokio::test]
async fn a_store_that_is_down_fails_the_calls_that_need_it_and_no_other() {
    let _lock = LOCK.lock().await;
    let session = Session::builder(ToolName::skills())
        .store(Down)
        .rate_limit(RateLimit::per_caller(5, Duration::from_mins(1)))
        .create()
        .unwrap();
    let before = CHARGES.load(Ordering::SeqCst);
    let started = Instant::now();
    let keyed_call = session
        .call_with("charge", json!({"cents": 1}), keyed("k"))
        .await;
    assert_eq!(
        code(&keyed_call),
        Some(ErrorCode::IoFailed),
        "{keyed_call:?}"
    );
    let limited = session.call("hello", json!({})).await;
    assert_eq!(code(&limited), Some(ErrorCode::IoFailed), "{limited:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    assert_eq!(CHARGES.load(Ordering::SeqCst), before);
    // Without a rate limit, a call without a key needs no store.
    let plain = replica(Arc::new(Down)).call("hello", json!({})).await;
    assert_eq!(plain, ToolResult::Ok(json!("hello")));
}

#[path = "support/redis_server.rs"]
mod redis_server;

/// A real Redis, started for these tests from what `cargo xtask redis` installed.
mod redis {
    use std::process::Child;
    use std::sync::{Arc, OnceLock};

    use pedelec::store::Store;

    pub use super::redis_server::{free_port, spawn};

    struct Server {
        child: Child,
        url: String,
    }

    impl Drop for Server {
        fn drop(&mut self) {
            let _ = self.child.kill();
        }
    }

    /// The server, started once for the whole test binary (`None` without Redis).
    fn server() -> Option<&'static str> {
        static SERVER: OnceLock<Option<Server>> = OnceLock::new();
        SERVER
            .get_or_init(|| {
                let port = free_port();
                let child = spawn(port)?;
                Some(Server {
                    child,
                    url: format!("redis://127.0.0.1:{port}"),
                })
            })
            .as_ref()
            .map(|s| s.url.as_str())
    }

    #[cfg(feature = "redis")]
    pub async fn store() -> Option<Arc<dyn Store>> {
        let url = server()?;
        let store = pedelec::store::Redis::connect(url)
            .await
            .expect("the test's Redis answers")
            .prefix(format!("test-{}:", std::process::id()));
        Some(Arc::new(store))
    }

    #[cfg(not(feature = "redis"))]
    pub async fn store() -> Option<Arc<dyn Store>> {
        let _ = server;
        None
    }
}

/// Settings given before connecting take effect: while Redis is paused for two seconds
/// (`CLIENT PAUSE`), a store whose timeout is 5 s answers, and one with the default 1 s
/// fails, saying it timed out.
#[cfg(feature = "redis")]
#[tokio::test]
async fn a_redis_timeout_set_before_connecting_is_honoured() {
    use std::io::{Read as _, Write as _};

    use pedelec::store::{Redis, StoreErrorKind};

    let _lock = LOCK.lock().await;
    let port = redis::free_port();
    let Some(mut server) = redis::spawn(port) else {
        return;
    };
    let url = format!("redis://127.0.0.1:{port}");
    let patient = Redis::config(&url)
        .timeout(Duration::from_secs(5))
        .connect()
        .await
        .expect("the test's Redis answers");
    let hasty = Redis::connect(&url)
        .await
        .expect("the test's Redis answers");
    // Both connected (and their scripts loaded) before the pause.
    for store in [&patient, &hasty] {
        assert_eq!(
            store.take("warm", 10, Duration::from_mins(1)).await,
            Ok(None)
        );
    }
    let pause = |ms: u32| {
        let mut admin = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        let ms = ms.to_string();
        let command = format!(
            "*3\r\n$6\r\nCLIENT\r\n$5\r\nPAUSE\r\n${}\r\n{ms}\r\n",
            ms.len()
        );
        admin.write_all(command.as_bytes()).unwrap();
        let mut ok = [0u8; 5];
        admin.read_exact(&mut ok).unwrap();
        assert_eq!(&ok, b"+OK\r\n");
    };
    pause(2_000);
    let failed = hasty
        .take("t", 10, Duration::from_mins(1))
        .await
        .unwrap_err();
    assert_eq!(failed.kind(), StoreErrorKind::Timeout, "{failed}");
    pause(2_000);
    assert_eq!(
        patient.take("t", 10, Duration::from_mins(1)).await,
        Ok(None),
        "a 5 s timeout outlasts a 2 s pause"
    );
    let _ = server.kill();
    let _ = server.wait();
}

/// Redis killed mid-run, then started again on its port: meanwhile the calls that need it
/// fail fast (`IO_FAILED`) and none runs twice; once it is back, the same session serves
/// again without a restart (the connection is re-made).
#[cfg(feature = "redis")]
#[tokio::test]
async fn redis_killed_and_restarted_mid_run_the_session_recovers() {
    let _lock = LOCK.lock().await;
    let port = redis::free_port();
    let Some(mut server) = redis::spawn(port) else {
        return;
    };
    let store = pedelec::store::Redis::connect(&format!("redis://127.0.0.1:{port}"))
        .await
        .expect("the test's Redis answers");
    let session = Session::builder(ToolName::skills())
        .store(store)
        .rate_limit(RateLimit::per_caller(1_000, Duration::from_mins(1)))
        .create()
        .unwrap();
    let before = CHARGES.load(Ordering::SeqCst);
    let first = session
        .call_with("charge", json!({"cents": 7}), keyed("restart-1"))
        .await;
    assert_eq!(first, ToolResult::Ok(json!("charged 7")));

    server.kill().expect("Redis stops");
    let _ = server.wait();
    for key in ["restart-1", "restart-2"] {
        let started = Instant::now();
        let down = session
            .call_with("charge", json!({"cents": 7}), keyed(key))
            .await;
        assert_eq!(code(&down), Some(ErrorCode::IoFailed), "{down:?}");
        assert!(
            started.elapsed() < Duration::from_secs(3),
            "{:?}",
            started.elapsed()
        );
    }
    let limited = session.call("hello", json!({})).await;
    assert_eq!(code(&limited), Some(ErrorCode::IoFailed), "{limited:?}");
    assert_eq!(
        CHARGES.load(Ordering::SeqCst),
        before + 1,
        "nothing ran while Redis was down"
    );

    let mut server = redis::spawn(port).expect("Redis starts again");
    let deadline = Instant::now() + Duration::from_secs(15);
    let back = loop {
        let answer = session.call("hello", json!({})).await;
        if answer.is_ok() || Instant::now() > deadline {
            break answer;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(
        back,
        ToolResult::Ok(json!("hello")),
        "the session serves again"
    );
    // A fresh Redis remembers nothing: a new key runs, once.
    let again = session
        .call_with("charge", json!({"cents": 8}), keyed("restart-3"))
        .await;
    assert_eq!(again, ToolResult::Ok(json!("charged 8")));
    let retry = session
        .call_with("charge", json!({"cents": 8}), keyed("restart-3"))
        .await;
    assert_eq!(retry, again);
    assert_eq!(CHARGES.load(Ordering::SeqCst), before + 2);
    let _ = server.kill();
    let _ = server.wait();
}
