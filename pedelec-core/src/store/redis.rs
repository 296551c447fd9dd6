//! The store replicas share: Redis 7 (single node or managed; `rediss://` and ACL users in
//! the URL), through redis-rs's connection manager (one multiplexed connection, reconnected
//! when it drops). Every operation is one Lua script: one round trip, atomic.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, LazyLock, Mutex, PoisonError, Weak};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use tokio::sync::Notify;

use super::{
    Claim, Store, StoreError, StoreErrorKind, StoreFuture, TaskAnswer, TaskRecord, TaskStatus,
};

/// The store replicas share, in Redis (feature `redis`). Keys carry a prefix per service
/// (`pedelec:` unless set with [`RedisConfig::prefix`]).
///
/// A Redis that is down or slow makes each operation fail after the timeout (1 s unless
/// set with [`RedisConfig::timeout`], before connecting), never hang; when it is back, the
/// next operation reconnects.
///
/// ```no_run
/// # async fn f() -> Result<(), pedelec_core::store::StoreError> {
/// use std::time::Duration;
/// use pedelec_core::store::Redis;
///
/// let store = Redis::config("redis://127.0.0.1:6379")
///     .timeout(Duration::from_secs(5))
///     .prefix("billing:")
///     .connect()
///     .await?;
/// # let _ = store; Ok(()) }
/// ```
#[derive(Clone)]
pub struct Redis {
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
    /// The waiters of running calls' keys, woken through pub/sub.
    waiters: Arc<Waiters>,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// How to connect to Redis ([`Redis::config`]): set, then [`connect`](Self::connect).
#[derive(Clone, Debug)]
#[must_use]
pub struct RedisConfig {
    url: String,
    prefix: String,
    timeout: Duration,
}

impl RedisConfig {
    /// The prefix of every key (one per service sharing a Redis), `pedelec:` by default.
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long connecting, and then each operation, may take before it fails (1 s by
    /// default).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Connects with these settings.
    ///
    /// # Errors
    /// A URL that does not parse (`INVALID_URL`-like: [`StoreErrorKind::Other`]), or a Redis
    /// that cannot be reached in time.
    pub async fn connect(self) -> Result<Redis, StoreError> {
        let RedisConfig {
            url,
            prefix,
            timeout,
        } = self;
        let client = redis::Client::open(url.as_str()).map_err(|e| {
            StoreError::with_kind(
                StoreErrorKind::Other,
                format!("`{url}` is not a Redis URL: {e}"),
            )
        })?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1);
        let connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|e| redis_error(&format!("cannot reach Redis at {url}"), &e))?;
        Ok(Redis {
            connection,
            prefix,
            timeout,
            waiters: Arc::new(Waiters::new(client, timeout)),
        })
    }
}

/// The waiters of running calls' keys in this process, and the subscription that wakes
/// them: one connection subscribed to [`CHANGED`], made when a first waiter waits and
/// re-made when it drops (meanwhile waiters wake at the end of their wait and claim again).
struct Waiters {
    client: redis::Client,
    timeout: Duration,
    keys: Mutex<HashMap<String, Arc<Notify>>>,
    started: std::sync::Once,
    /// Dropped with the store: the subscription ends.
    _closed: tokio::sync::oneshot::Sender<()>,
    closing: Mutex<Option<tokio::sync::oneshot::Receiver<()>>>,
}

impl Waiters {
    fn new(client: redis::Client, timeout: Duration) -> Self {
        let (closed, closing) = tokio::sync::oneshot::channel();
        Waiters {
            client,
            timeout,
            keys: Mutex::default(),
            started: std::sync::Once::new(),
            _closed: closed,
            closing: Mutex::new(Some(closing)),
        }
    }

    fn keys(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Notify>>> {
        self.keys.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Registers a waiter of `key` (before the store is asked whether it still runs: a
    /// wake-up cannot fall in between).
    fn wait(self: &Arc<Self>, key: &str) -> Pin<Box<tokio::sync::futures::OwnedNotified>> {
        self.started.call_once(|| {
            let closing = self
                .closing
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take();
            if let Some(closing) = closing {
                tokio::spawn(subscribe(Arc::downgrade(self), closing));
            }
        });
        let notify = self.keys().entry(key.to_owned()).or_default().clone();
        let mut notified = Box::pin(notify.notified_owned());
        notified.as_mut().enable();
        notified
    }

    /// Wakes the waiters of `key`.
    fn wake(&self, key: &str) {
        if let Some(notify) = self.keys().remove(key) {
            notify.notify_waiters();
        }
    }

    /// Wakes every waiter (a message may have been missed), forgetting the keys nobody
    /// waits on any more.
    fn wake_all(&self) {
        for (_, notify) in self.keys().drain() {
            notify.notify_waiters();
        }
    }
}

/// The subscription of [`Waiters`], until the store is dropped.
async fn subscribe(waiters: Weak<Waiters>, mut closing: tokio::sync::oneshot::Receiver<()>) {
    use tokio_stream::StreamExt as _;
    loop {
        let Some(strong) = waiters.upgrade() else {
            return;
        };
        let (client, timeout) = (strong.client.clone(), strong.timeout);
        drop(strong);
        let connected = tokio::time::timeout(timeout, async {
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe(CHANGED).await?;
            Ok::<_, redis::RedisError>(pubsub)
        })
        .await;
        if let Ok(Ok(pubsub)) = connected {
            if let Some(waiters) = waiters.upgrade() {
                waiters.wake_all();
            }
            let mut messages = pubsub.into_on_message();
            loop {
                tokio::select! {
                    _ = &mut closing => return,
                    message = messages.next() => {
                        let Some(message) = message else { break };
                        let Some(waiters) = waiters.upgrade() else { return };
                        if let Ok(key) = message.get_payload::<String>() {
                            waiters.wake(&key);
                        }
                    }
                }
            }
        }
        if let Some(waiters) = waiters.upgrade() {
            waiters.wake_all();
        }
        tokio::select! {
            _ = &mut closing => return,
            () = tokio::time::sleep(Duration::from_secs(1)) => {}
        }
    }
}

/// A redis-rs error as a [`StoreError`] of its kind.
fn redis_error(doing: &str, error: &redis::RedisError) -> StoreError {
    let kind = if error.is_timeout() {
        StoreErrorKind::Timeout
    } else if error.is_connection_refusal() || error.is_io_error() || error.is_connection_dropped()
    {
        StoreErrorKind::Unreachable
    } else if matches!(error.kind(), redis::ErrorKind::Server(_)) {
        StoreErrorKind::Script
    } else {
        StoreErrorKind::Other
    };
    StoreError::with_kind(kind, format!("{doing}: {error}"))
}

/// `take`: GCRA on the server's clock (one clock for every replica), or at `ARGV[3]` ms
/// when given (the tests' clock: [`Redis::take_at`]). `-1` when a token was taken, else
/// the milliseconds until the next one.
const TAKE: &str = r"
local now
if ARGV[3] then
  now = tonumber(ARGV[3])
else
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local period = tonumber(ARGV[1])
local interval = math.max(1, math.floor(period / tonumber(ARGV[2])))
local burst = interval * tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
if nxt - now <= burst then
  redis.call('SET', KEYS[1], nxt, 'PX', burst + interval)
  return -1
end
return nxt - now - burst
";

/// `claim`: `{'first'}`, `{'running', fingerprint}`, `{'answered', fingerprint, answer}` or
/// `{'unknown', fingerprint}` (a lease that ended without an answer).
const CLAIM: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local e = redis.call('HMGET', KEYS[1], 's', 'f', 'a', 'u')
if not e[1] then
  redis.call('HSET', KEYS[1], 's', 'r', 'f', ARGV[1], 'u', now + tonumber(ARGV[2]))
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + tonumber(ARGV[3]))
  return {'first'}
end
if e[1] == 'a' then return {'answered', e[2], e[3]} end
if tonumber(e[4]) > now then return {'running', e[2]} end
return {'unknown', e[2]}
";

/// `finish`: the answer kept for `ARGV[2]` ms, the key's waiters told on channel `ARGV[3]`;
/// `0` when the key was not claimed.
const FINISH: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 's', 'a', 'a', ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
redis.call('PUBLISH', ARGV[3], KEYS[1])
return 1
";

/// `release`: the claim dropped, the key's waiters told on channel `ARGV[1]`.
const RELEASE: &str = r"
redis.call('DEL', KEYS[1])
redis.call('PUBLISH', ARGV[1], KEYS[1])
return 1
";

/// `renew`: a running claim whose lease has not lapsed lasts `ARGV[1]` ms more (kept
/// `ARGV[2]` ms beyond, as unknown, should it lapse); `0` otherwise.
const RENEW: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local e = redis.call('HMGET', KEYS[1], 's', 'u')
if e[1] ~= 'r' or tonumber(e[2]) <= now then return 0 end
redis.call('HSET', KEYS[1], 'u', now + tonumber(ARGV[1]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]) + tonumber(ARGV[2]))
return 1
";

/// `use_once`: `1` when the mark was set now (kept `ARGV[1]` ms), `0` when it was set
/// already.
const USE_ONCE: &str = r"
if redis.call('SET', KEYS[1], '1', 'NX', 'PX', tonumber(ARGV[1])) then return 1 end
return 0
";

/// `running`: `1` when a running call holds the key and its lease has not lapsed.
const RUNNING: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local e = redis.call('HMGET', KEYS[1], 's', 'u')
if e[1] == 'r' and tonumber(e[2]) > now then return 1 end
return 0
";

/// A task is one hash: `s` status (a [`TaskStatus`]'s name), `c` created, `u` updated, `p`
/// payload, `l` the runner's lease (server time, ms), `n` requests waiting, `i:KEY` each
/// request, `q` the answers' counter and `b:N` each answer for the runner (`LEN:KEY
/// ANSWER`, `LEN` the key's bytes). One key, so one `PEXPIRE` (at creation) covers all of
/// it.
macro_rules! task_script {
    ($body:literal) => {
        concat!(
            r"
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function over(s) return s == 'completed' or s == 'failed' or s == 'cancelled' end
local function drop_requests()
  for _, f in ipairs(redis.call('HKEYS', KEYS[1])) do
    if string.sub(f, 1, 2) == 'i:' then redis.call('HDEL', KEYS[1], f) end
  end
  redis.call('HSET', KEYS[1], 'n', 0)
end
local function leave(v)
  local q = redis.call('HINCRBY', KEYS[1], 'q', 1)
  redis.call('HSET', KEYS[1], 'b:' .. q, v)
end
",
            $body
        )
    };
}

/// `task_create`: ARGV stamp, ttl, lease, then request keys and requests.
const TASK_CREATE: &str = task_script!(
    r"
local s = 'working'
if #ARGV > 3 then s = 'input_required' end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 's', s, 'c', ARGV[1], 'u', ARGV[1], 'p', '',
  'l', now() + tonumber(ARGV[3]), 'n', (#ARGV - 3) / 2, 'q', 0)
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], 'i:' .. ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
"
);

/// `task_ask`: ARGV key, request, stamp; `0` when the task is over or gone.
const TASK_ASK: &str = task_script!(
    r"
local s = redis.call('HGET', KEYS[1], 's')
if not s or over(s) then return 0 end
if redis.call('HSETNX', KEYS[1], 'i:' .. ARGV[1], ARGV[2]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'n', 1)
end
redis.call('HSET', KEYS[1], 's', 'input_required', 'u', ARGV[3])
return 1
"
);

/// `task_finish`: ARGV status, payload, stamp; `0` when the task was over or gone.
const TASK_FINISH: &str = task_script!(
    r"
local s = redis.call('HGET', KEYS[1], 's')
if not s or over(s) then return 0 end
drop_requests()
redis.call('HSET', KEYS[1], 's', ARGV[1], 'p', ARGV[2], 'u', ARGV[3])
return 1
"
);

/// `task_cancel`: ARGV stamp; `-1` unknown, `0` over already, `1` cancelled.
const TASK_CANCEL: &str = task_script!(
    r"
local s = redis.call('HGET', KEYS[1], 's')
if not s then return -1 end
if over(s) then return 0 end
drop_requests()
redis.call('HSET', KEYS[1], 's', 'cancelled', 'p', '', 'u', ARGV[1])
return 1
"
);

/// `task_update`: ARGV stamp, then keys and answers; `0` for an unknown task.
const TASK_UPDATE: &str = task_script!(
    r"
local s = redis.call('HGET', KEYS[1], 's')
if not s then return 0 end
for i = 2, #ARGV, 2 do
  if redis.call('HDEL', KEYS[1], 'i:' .. ARGV[i]) == 1 then
    redis.call('HINCRBY', KEYS[1], 'n', -1)
    leave(string.len(ARGV[i]) .. ':' .. ARGV[i] .. ARGV[i + 1])
  end
end
if s == 'input_required' and tonumber(redis.call('HGET', KEYS[1], 'n')) <= 0 then
  redis.call('HSET', KEYS[1], 's', 'working', 'u', ARGV[1])
end
return 1
"
);

/// `task_get`: ARGV stamp, the lapsed lease's error; nil, or status, created, updated,
/// payload, then request keys and requests.
const TASK_GET: &str = task_script!(
    r"
local r = redis.call('HMGET', KEYS[1], 's', 'c', 'u', 'p', 'l')
if not r[1] then return false end
if not over(r[1]) and tonumber(r[5]) < now() then
  drop_requests()
  redis.call('HSET', KEYS[1], 's', 'failed', 'p', ARGV[2], 'u', ARGV[1])
  r[1] = 'failed'
  r[3] = ARGV[1]
  r[4] = ARGV[2]
end
local out = {r[1], r[2], r[3], r[4] or ''}
if r[1] == 'input_required' then
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'i:' then
      table.insert(out, string.sub(all[i], 3))
      table.insert(out, all[i + 1])
    end
  end
end
return out
"
);

/// `task_renew`: ARGV lease; nil, or the status and the answers taken.
const TASK_RENEW: &str = task_script!(
    r"
local s = redis.call('HGET', KEYS[1], 's')
if not s then return false end
if not over(s) then redis.call('HSET', KEYS[1], 'l', now() + tonumber(ARGV[1])) end
local out = {s}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 2) == 'b:' then
    table.insert(out, all[i + 1])
    redis.call('HDEL', KEYS[1], all[i])
  end
end
return out
"
);

/// The scripts, by name, hashed once (`EVALSHA`, loaded on first use).
struct Scripts {
    take: redis::Script,
    claim: redis::Script,
    finish: redis::Script,
    release: redis::Script,
    renew: redis::Script,
    running: redis::Script,
    use_once: redis::Script,
    task_create: redis::Script,
    task_ask: redis::Script,
    task_finish: redis::Script,
    task_cancel: redis::Script,
    task_update: redis::Script,
    task_get: redis::Script,
    task_renew: redis::Script,
}

static SCRIPTS: LazyLock<Scripts> = LazyLock::new(|| Scripts {
    take: redis::Script::new(TAKE),
    claim: redis::Script::new(CLAIM),
    finish: redis::Script::new(FINISH),
    release: redis::Script::new(RELEASE),
    renew: redis::Script::new(RENEW),
    running: redis::Script::new(RUNNING),
    use_once: redis::Script::new(USE_ONCE),
    task_create: redis::Script::new(TASK_CREATE),
    task_ask: redis::Script::new(TASK_ASK),
    task_finish: redis::Script::new(TASK_FINISH),
    task_cancel: redis::Script::new(TASK_CANCEL),
    task_update: redis::Script::new(TASK_UPDATE),
    task_get: redis::Script::new(TASK_GET),
    task_renew: redis::Script::new(TASK_RENEW),
});

/// The channel `finish` and `release` tell a key's waiters on (the message: the whole key,
/// prefix included, so services sharing a Redis do not wake each other's waiters).
const CHANGED: &str = "pedelec:once-changed";

/// `head`, then each pair's two strings (a script's `ARGV`).
fn with_pairs(mut head: Vec<String>, pairs: &[(String, String)]) -> Vec<String> {
    for (key, value) in pairs {
        head.push(key.clone());
        head.push(value.clone());
    }
    head
}

/// An answer as `TASK_UPDATE` leaves it.
fn answer_of(raw: &str) -> Option<TaskAnswer> {
    let (len, rest) = raw.split_once(':')?;
    let len: usize = len.parse().ok()?;
    let (key, answer) = (rest.get(..len)?, rest.get(len..)?);
    Some(TaskAnswer {
        key: key.to_owned(),
        answer: answer.to_owned(),
    })
}

/// How long an unknown outcome is remembered once its lease ended.
const UNKNOWN_RETENTION: Duration = Duration::from_hours(24);

impl Redis {
    /// Connects to `url` (`redis://[user:password@]host:port[/db]`, or `rediss://` for
    /// TLS) with the default settings: [`Redis::config`]`(url).connect()`.
    ///
    /// # Errors
    /// A URL that does not parse, or a Redis that cannot be reached.
    pub async fn connect(url: &str) -> Result<Redis, StoreError> {
        Redis::config(url).connect().await
    }

    /// The settings to connect to `url` with: the timeout and the prefix, set before
    /// connecting (the connection is made with them).
    pub fn config(url: &str) -> RedisConfig {
        RedisConfig {
            url: url.to_owned(),
            prefix: "pedelec:".to_owned(),
            timeout: Duration::from_secs(1),
        }
    }

    /// The prefix of every key (one per service sharing a Redis), `pedelec:` by default
    /// (also [`RedisConfig::prefix`]).
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// [`Store::take`] on Redis's clock (`now`: `None`), or at `now` (milliseconds on any
    /// clock the caller keeps for this key: the tests drive the in-process store and this
    /// one with the same clock, and compare).
    pub(super) async fn take_at(
        &self,
        key: &str,
        capacity: u32,
        period: Duration,
        now: Option<u64>,
    ) -> Result<Option<Duration>, StoreError> {
        let key = format!("rate:{key}");
        let (period, capacity) = (millis(period), capacity.max(1).to_string());
        let now = now.map(|now| now.to_string());
        let mut args = vec![period.as_str(), capacity.as_str()];
        args.extend(now.as_deref());
        let wait: i64 = self.run(&SCRIPTS.take, &key, &args).await?;
        Ok(u64::try_from(wait).ok().map(Duration::from_millis))
    }

    /// Runs the task script `script` on the task `id` with `args`.
    fn run_task<T: redis::FromRedisValue + Send>(
        &self,
        script: &'static redis::Script,
        id: &str,
        args: Vec<String>,
    ) -> impl Future<Output = Result<T, StoreError>> + Send + '_ {
        let key = format!("task:{id}");
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            self.run(script, &key, &args).await
        }
    }

    async fn run<T: redis::FromRedisValue>(
        &self,
        script: &redis::Script,
        key: &str,
        args: &[&str],
    ) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        let mut invocation = script.prepare_invoke();
        invocation.key(format!("{}{key}", self.prefix));
        for arg in args {
            invocation.arg(*arg);
        }
        match tokio::time::timeout(self.timeout, invocation.invoke_async(&mut connection)).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) => Err(redis_error("Redis", &e)),
            Err(_) => Err(StoreError::with_kind(
                StoreErrorKind::Timeout,
                format!(
                    "Redis did not answer within {} ms",
                    self.timeout.as_millis()
                ),
            )),
        }
    }
}

fn millis(d: Duration) -> String {
    d.as_millis().max(1).to_string()
}

impl Store for Redis {
    fn take(
        &self,
        key: &str,
        capacity: u32,
        period: Duration,
    ) -> StoreFuture<'_, Option<Duration>> {
        let key = key.to_owned();
        Box::pin(async move { self.take_at(&key, capacity, period, None).await })
    }

    fn claim(&self, key: &str, fingerprint: &str, lease: Duration) -> StoreFuture<'_, Claim> {
        let key = format!("once:{key}");
        let fingerprint = fingerprint.to_owned();
        Box::pin(async move {
            let found: Vec<String> = self
                .run(
                    &SCRIPTS.claim,
                    &key,
                    &[&fingerprint, &millis(lease), &millis(UNKNOWN_RETENTION)],
                )
                .await?;
            let mut parts = found.into_iter();
            let (kind, fingerprint, answer) = (parts.next(), parts.next(), parts.next());
            match (kind.as_deref(), fingerprint, answer) {
                (Some("first"), ..) => Ok(Claim::First),
                (Some("running"), Some(fingerprint), _) => Ok(Claim::Running { fingerprint }),
                (Some("answered"), Some(fingerprint), Some(answer)) => Ok(Claim::Answered {
                    fingerprint,
                    answer,
                }),
                (Some("unknown"), Some(fingerprint), _) => Ok(Claim::Unknown { fingerprint }),
                other => Err(StoreError::new(format!(
                    "an unexpected answer to a claim: {other:?}"
                ))),
            }
        })
    }

    fn finish(&self, key: &str, answer: &str, retention: Duration) -> StoreFuture<'_, ()> {
        let key = format!("once:{key}");
        let answer = answer.to_owned();
        Box::pin(async move {
            let kept: i64 = self
                .run(
                    &SCRIPTS.finish,
                    &key,
                    &[&answer, &millis(retention), CHANGED],
                )
                .await?;
            if kept == 1 {
                Ok(())
            } else {
                Err(StoreError::new(format!(
                    "the idempotency key `{key}` was not claimed (or its claim expired)"
                )))
            }
        })
    }

    fn release(&self, key: &str) -> StoreFuture<'_, ()> {
        let key = format!("once:{key}");
        Box::pin(async move {
            let _: i64 = self.run(&SCRIPTS.release, &key, &[CHANGED]).await?;
            Ok(())
        })
    }

    fn renew(&self, key: &str, lease: Duration) -> StoreFuture<'_, bool> {
        let key = format!("once:{key}");
        Box::pin(async move {
            let renewed: i64 = self
                .run(
                    &SCRIPTS.renew,
                    &key,
                    &[&millis(lease), &millis(UNKNOWN_RETENTION)],
                )
                .await?;
            Ok(renewed == 1)
        })
    }

    fn changed(&self, key: &str, within: Duration) -> StoreFuture<'_, ()> {
        let key = format!("once:{key}");
        Box::pin(async move {
            let notified = self.waiters.wait(&format!("{}{key}", self.prefix));
            let running: i64 = self.run(&SCRIPTS.running, &key, &[]).await?;
            if running == 1 {
                let _ = tokio::time::timeout(within, notified).await;
            }
            Ok(())
        })
    }

    fn use_once(&self, key: &str, ttl: Duration) -> StoreFuture<'_, bool> {
        let key = format!("used:{key}");
        Box::pin(async move {
            let fresh: i64 = self.run(&SCRIPTS.use_once, &key, &[&millis(ttl)]).await?;
            Ok(fresh == 1)
        })
    }

    fn task_create(
        &self,
        id: &str,
        stamp: &str,
        requests: &[(String, String)],
        ttl: Duration,
        lease: Duration,
    ) -> StoreFuture<'_, ()> {
        let args = with_pairs(vec![stamp.to_owned(), millis(ttl), millis(lease)], requests);
        let created = self.run_task::<i64>(&SCRIPTS.task_create, id, args);
        Box::pin(async move { created.await.map(drop) })
    }

    fn task_ask(&self, id: &str, key: &str, request: &str, stamp: &str) -> StoreFuture<'_, bool> {
        let args = vec![key.to_owned(), request.to_owned(), stamp.to_owned()];
        let asked = self.run_task::<i64>(&SCRIPTS.task_ask, id, args);
        Box::pin(async move { Ok(asked.await? == 1) })
    }

    fn task_finish(
        &self,
        id: &str,
        status: TaskStatus,
        payload: &str,
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        let args = vec![
            status.as_str().to_owned(),
            payload.to_owned(),
            stamp.to_owned(),
        ];
        let finished = self.run_task::<i64>(&SCRIPTS.task_finish, id, args);
        Box::pin(async move { Ok(finished.await? == 1) })
    }

    fn task_cancel(&self, id: &str, stamp: &str) -> StoreFuture<'_, Option<bool>> {
        let found = self.run_task::<i64>(&SCRIPTS.task_cancel, id, vec![stamp.to_owned()]);
        Box::pin(async move {
            let found = found.await?;
            Ok((found >= 0).then_some(found == 1))
        })
    }

    fn task_update(
        &self,
        id: &str,
        answers: &[(String, String)],
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        let args = with_pairs(vec![stamp.to_owned()], answers);
        let known = self.run_task::<i64>(&SCRIPTS.task_update, id, args);
        Box::pin(async move { Ok(known.await? == 1) })
    }

    fn task_get(&self, id: &str, stamp: &str, lapsed: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        let found = self.run_task::<Option<Vec<String>>>(
            &SCRIPTS.task_get,
            id,
            vec![stamp.to_owned(), lapsed.to_owned()],
        );
        Box::pin(async move {
            let Some(found) = found.await? else {
                return Ok(None);
            };
            let mut parts = found.into_iter();
            let mut next = || parts.next().unwrap_or_default();
            let status = next().parse::<TaskStatus>()?;
            let (created_at, updated_at, payload) = (next(), next(), next());
            let mut input_requests = Vec::new();
            loop {
                let (k, request) = (next(), next());
                if k.is_empty() && request.is_empty() {
                    break;
                }
                input_requests.push((k, request));
            }
            Ok(Some(TaskRecord {
                status,
                created_at,
                updated_at,
                payload,
                input_requests,
            }))
        })
    }

    fn task_renew(
        &self,
        id: &str,
        lease: Duration,
    ) -> StoreFuture<'_, Option<(TaskStatus, Vec<TaskAnswer>)>> {
        let found =
            self.run_task::<Option<Vec<String>>>(&SCRIPTS.task_renew, id, vec![millis(lease)]);
        Box::pin(async move {
            let Some(found) = found.await? else {
                return Ok(None);
            };
            let mut parts = found.into_iter();
            let status = parts.next().unwrap_or_default().parse::<TaskStatus>()?;
            Ok(Some((
                status,
                parts.filter_map(|raw| answer_of(&raw)).collect(),
            )))
        })
    }
}
