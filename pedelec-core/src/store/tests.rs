//! The rate limiter's properties, over generated sequences of calls (shrunk, on failure, to
//! the few calls that break them): it never admits more than its budget, a refused call is
//! told a wait it can trust, and `Memory` and `Redis` (with the `redis` feature, against a
//! real Redis) answer the same sequence call for call.

use std::collections::HashMap;
use std::time::Duration;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError};

use super::{Memory, Store, gcra};

/// The Redis the root crate's tests start (`cargo xtask redis` installs it).
#[cfg(feature = "redis")]
#[path = "../../../tests/support/redis_server.rs"]
mod redis_server;

#[test]
fn gcra_takes_capacity_tokens_then_says_when_the_next_frees() {
    let period = Duration::from_mins(1);
    let mut tat = None;
    for _ in 0..3 {
        tat = Some(gcra(tat, 1_000, 3, period).unwrap());
    }
    // Full: the next token frees in one interval (20 s).
    assert_eq!(gcra(tat, 1_000, 3, period), Err(20_000));
    // 20 s later, one more.
    assert!(gcra(tat, 21_000, 3, period).is_ok());
}

/// A sequence of takes from one bucket size: each call a key (of three) and the
/// milliseconds since the call before.
#[derive(Clone, Debug)]
struct Sequence {
    capacity: u32,
    period_ms: u64,
    calls: Vec<(u8, u64)>,
}

impl Sequence {
    fn period(&self) -> Duration {
        Duration::from_millis(self.period_ms)
    }

    /// The milliseconds between two tokens, as the limiter rounds them.
    fn interval(&self) -> u64 {
        (self.period_ms / u64::from(self.capacity)).max(1)
    }
}

/// Sequences of up to 150 calls, `capacity` 1 to 20 a period of `periods` ms: bursts (no
/// time between calls), calls about as often as tokens come (0 to 2 intervals apart), and
/// pauses (up to a period).
fn calls(periods: std::ops::RangeInclusive<u64>) -> impl Strategy<Value = Sequence> {
    (1u32..=20, periods).prop_flat_map(|(capacity, period_ms)| {
        let interval = (period_ms / u64::from(capacity)).max(1);
        let gap = prop_oneof![
            4 => Just(0),
            4 => 0..=2 * interval,
            1 => 0..=period_ms,
        ];
        vec((0u8..3, gap), 1..150).prop_map(move |calls| Sequence {
            capacity,
            period_ms,
            calls,
        })
    })
}

/// Each call's answer, and the time it was made at (ms).
type Answers = Vec<(u64, Option<Duration>)>;

/// The sequence on `Memory`, on Tokio's paused clock (each gap passes exactly).
fn on_memory(calls: &Sequence) -> Answers {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = Memory::new();
        let mut now = 0;
        let mut answers = Vec::new();
        for &(key, gap) in &calls.calls {
            tokio::time::advance(Duration::from_millis(gap)).await;
            now += gap;
            let answer = store
                .take(&format!("k{key}"), calls.capacity, calls.period())
                .await
                .unwrap();
            answers.push((now, answer));
        }
        answers
    })
}

/// The budget: for each key, any run of admitted calls from `start` to `end` numbers at most
/// `capacity` plus one per interval between them; a refused call is told a wait of at least
/// 1 ms, and that key admits nothing before it is over.
fn within_budget(calls: &Sequence, answers: &Answers) -> Result<(), TestCaseError> {
    let interval = calls.interval();
    let mut admitted: HashMap<u8, Vec<u64>> = HashMap::new();
    let mut not_before: HashMap<u8, u64> = HashMap::new();
    for (&(key, _), &(now, answer)) in calls.calls.iter().zip(answers) {
        match answer {
            None => {
                let told = not_before.get(&key).copied().unwrap_or(0);
                prop_assert!(
                    now >= told,
                    "key {key} admitted at {now} ms, told {told} ms"
                );
                admitted.entry(key).or_default().push(now);
            }
            Some(wait) => {
                prop_assert!(wait >= Duration::from_millis(1));
                let wait = u64::try_from(wait.as_millis()).unwrap();
                not_before.insert(key, now + wait);
            }
        }
    }
    for times in admitted.values() {
        for (i, &start) in times.iter().enumerate() {
            for (j, &end) in times.iter().enumerate().skip(i) {
                let count = u64::try_from(j - i + 1).unwrap();
                let budget = u64::from(calls.capacity) + (end - start) / interval;
                prop_assert!(
                    count <= budget,
                    "{count} calls admitted in {} ms (capacity {}, period {} ms)",
                    end - start,
                    calls.capacity,
                    calls.period_ms
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(Config::with_cases(512))]

    /// The arithmetic alone: a refused call, retried after the wait it was told, is
    /// admitted.
    #[test]
    fn a_refused_call_retried_after_its_wait_is_admitted(calls in calls(1..=5_000)) {
        let period = calls.period();
        let (mut now, mut tat) = (0, None);
        for &(_, gap) in &calls.calls {
            now += gap;
            match gcra(tat, now, calls.capacity, period) {
                Ok(next) => tat = Some(next),
                Err(wait) => {
                    prop_assert!(wait >= 1);
                    prop_assert!(gcra(tat, now + wait, calls.capacity, period).is_ok());
                    prop_assert!(gcra(tat, now + wait - 1, calls.capacity, period).is_err());
                }
            }
        }
    }

    /// `Memory` never admits more than its budget, periods from 1 ms (shorter than the
    /// capacity: the interval rounds to 1 ms) to 400 ms (where rounding the interval down
    /// loses most: up to a token), and to 5 s.
    #[test]
    fn memory_never_admits_more_than_its_budget(
        calls in prop_oneof![calls(1..=400), calls(1..=5_000)]
    ) {
        within_budget(&calls, &on_memory(&calls))?;
    }
}

/// `Memory` and `Redis` answer the same sequences call for call (so `Redis` keeps the
/// budget too), given one clock: the Lua script takes the sequence's `now` (in service it
/// reads Redis's `TIME`, one clock for every replica). Periods are of minutes: a Redis key's
/// expiry runs on Redis's own clock, and a case takes far less than a period.
#[cfg(feature = "redis")]
#[test]
fn memory_and_redis_agree_call_for_call() {
    use std::sync::atomic::{AtomicU64, Ordering};

    use proptest::test_runner::TestRunner;

    struct Killed(std::process::Child);
    impl Drop for Killed {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    let port = redis_server::free_port();
    let Some(server) = redis_server::spawn(port) else {
        return;
    };
    let _server = Killed(server);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let redis = runtime
        .block_on(super::Redis::connect(&format!("redis://127.0.0.1:{port}")))
        .expect("the test's Redis answers");
    let case = AtomicU64::new(0);
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    let outcome = runner.run(&calls(60_000..=600_000), |calls| {
        let on_memory = on_memory(&calls);
        // Fresh keys each case; the clock starts anywhere (GCRA reads only differences).
        let case = case.fetch_add(1, Ordering::Relaxed);
        let start = 1_700_000_000_000 + case;
        let on_redis: Answers = runtime.block_on(async {
            let mut now = 0;
            let mut answers = Vec::new();
            for &(key, gap) in &calls.calls {
                now += gap;
                let answer = redis
                    .take_at(
                        &format!("case{case}:k{key}"),
                        calls.capacity,
                        calls.period(),
                        Some(start + now),
                    )
                    .await
                    .unwrap();
                answers.push((now, answer));
            }
            answers
        });
        prop_assert_eq!(&on_memory, &on_redis);
        within_budget(&calls, &on_redis)
    });
    if let Err(failure) = outcome {
        panic!("{failure}");
    }
}
