//! The store replicas share: Redis 7 (single node or managed; `rediss://` and ACL users in
//! the URL), through redis-rs's connection manager (one multiplexed connection, reconnected
//! when it drops). Every operation is one Lua script: one round trip, atomic.

use std::time::Duration;

use std::sync::LazyLock;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::{Claim, Store, StoreError, StoreFuture, TaskAnswer, TaskRecord};

/// The store replicas share, in Redis (feature `redis`). Keys carry a prefix per service
/// (`pedelec:` unless set with [`prefix`](Self::prefix)).
///
/// A Redis that is down or slow makes each operation fail after the timeout (1 s unless
/// set with [`timeout`](Self::timeout)), never hang; when it is back, the next operation
/// reconnects.
#[derive(Clone)]
pub struct Redis {
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
}

impl std::fmt::Debug for Redis {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redis")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// `take`: GCRA on the server's clock. `-1` when a token was taken, else the milliseconds
/// until the next one.
const TAKE: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local period = tonumber(ARGV[1])
local interval = math.max(1, math.floor(period / tonumber(ARGV[2])))
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local nxt = tat + interval
if nxt - now <= period then
  redis.call('SET', KEYS[1], nxt, 'PX', period + interval)
  return -1
end
return nxt - now - period
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

/// `finish`: the answer kept for `ARGV[2]` ms; `0` when the key was not claimed.
const FINISH: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 's', 'a', 'a', ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
";

/// A task is one hash: `s` status, `c` created, `u` updated, `p` payload, `l` the runner's
/// lease (server time, ms), `n` requests waiting, `i:KEY` each request, `q` the answers'
/// counter and `b:N` each answer for the runner (`LEN:KEY ANSWER`, `LEN` the key's bytes). One key,
/// so one `PEXPIRE` (at creation) covers all of it.
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

/// The scripts, hashed once (`EVALSHA`, loaded on first use).
static SCRIPTS: LazyLock<[redis::Script; 10]> = LazyLock::new(|| {
    [
        TAKE,
        CLAIM,
        FINISH,
        TASK_CREATE,
        TASK_ASK,
        TASK_FINISH,
        TASK_CANCEL,
        TASK_UPDATE,
        TASK_GET,
        TASK_RENEW,
    ]
    .map(redis::Script::new)
});

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
    /// TLS).
    ///
    /// # Errors
    /// A URL that does not parse, or a Redis that cannot be reached.
    pub async fn connect(url: &str) -> Result<Redis, StoreError> {
        let timeout = Duration::from_secs(1);
        let client = redis::Client::open(url)
            .map_err(|e| StoreError::new(format!("`{url}` is not a Redis URL: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(timeout))
            .set_response_timeout(Some(timeout))
            .set_number_of_retries(1);
        let connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|e| StoreError::new(format!("cannot reach Redis at {url}: {e}")))?;
        Ok(Redis {
            connection,
            prefix: "pedelec:".to_owned(),
            timeout,
        })
    }

    /// The prefix of every key (one per service sharing a Redis), `pedelec:` by default.
    #[must_use]
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long an operation may take before it fails (1 s by default).
    #[must_use]
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
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
            Ok(Err(e)) => Err(StoreError::new(format!("Redis: {e}"))),
            Err(_) => Err(StoreError::new(format!(
                "Redis did not answer within {} ms",
                self.timeout.as_millis()
            ))),
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
        let key = format!("rate:{key}");
        Box::pin(async move {
            let capacity = capacity.max(1).to_string();
            let wait: i64 = self
                .run(&SCRIPTS[0], &key, &[&millis(period), &capacity])
                .await?;
            Ok(u64::try_from(wait).ok().map(Duration::from_millis))
        })
    }

    fn claim(&self, key: &str, fingerprint: &str, lease: Duration) -> StoreFuture<'_, Claim> {
        let key = format!("once:{key}");
        let fingerprint = fingerprint.to_owned();
        Box::pin(async move {
            let found: Vec<String> = self
                .run(
                    &SCRIPTS[1],
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
                .run(&SCRIPTS[2], &key, &[&answer, &millis(retention)])
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
        let key = format!("{}once:{key}", self.prefix);
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let mut command = redis::cmd("DEL");
            command.arg(&key);
            let deleted = command.query_async::<i64>(&mut connection);
            match tokio::time::timeout(self.timeout, deleted).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(e)) => Err(StoreError::new(format!("Redis: {e}"))),
                Err(_) => Err(StoreError::new("Redis did not answer in time")),
            }
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
        let created = self.run_task::<i64>(&SCRIPTS[3], id, args);
        Box::pin(async move { created.await.map(drop) })
    }

    fn task_ask(&self, id: &str, key: &str, request: &str, stamp: &str) -> StoreFuture<'_, bool> {
        let args = vec![key.to_owned(), request.to_owned(), stamp.to_owned()];
        let asked = self.run_task::<i64>(&SCRIPTS[4], id, args);
        Box::pin(async move { Ok(asked.await? == 1) })
    }

    fn task_finish(
        &self,
        id: &str,
        status: &str,
        payload: &str,
        stamp: &str,
    ) -> StoreFuture<'_, bool> {
        let args = vec![status.to_owned(), payload.to_owned(), stamp.to_owned()];
        let finished = self.run_task::<i64>(&SCRIPTS[5], id, args);
        Box::pin(async move { Ok(finished.await? == 1) })
    }

    fn task_cancel(&self, id: &str, stamp: &str) -> StoreFuture<'_, Option<bool>> {
        let found = self.run_task::<i64>(&SCRIPTS[6], id, vec![stamp.to_owned()]);
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
        let known = self.run_task::<i64>(&SCRIPTS[7], id, args);
        Box::pin(async move { Ok(known.await? == 1) })
    }

    fn task_get(&self, id: &str, stamp: &str, lapsed: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        let found = self.run_task::<Option<Vec<String>>>(
            &SCRIPTS[8],
            id,
            vec![stamp.to_owned(), lapsed.to_owned()],
        );
        Box::pin(async move {
            let Some(found) = found.await? else {
                return Ok(None);
            };
            let mut parts = found.into_iter();
            let mut next = || parts.next().unwrap_or_default();
            let (status, created_at, updated_at, payload) = (next(), next(), next(), next());
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
    ) -> StoreFuture<'_, Option<(String, Vec<TaskAnswer>)>> {
        let found = self.run_task::<Option<Vec<String>>>(&SCRIPTS[9], id, vec![millis(lease)]);
        Box::pin(async move {
            Ok(found.await?.map(|found| {
                let mut parts = found.into_iter();
                let status = parts.next().unwrap_or_default();
                (status, parts.filter_map(|raw| answer_of(&raw)).collect())
            }))
        })
    }
}
