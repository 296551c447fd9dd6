//! The store replicas share: Redis 7 (single node or managed; `rediss://` and ACL users in
//! the URL), through redis-rs's connection manager (one multiplexed connection, reconnected
//! when it drops). Every operation is one Lua script: one round trip, atomic.

use std::time::Duration;

use std::sync::LazyLock;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::{Claim, Store, StoreError, StoreFuture};

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

/// The scripts, hashed once (`EVALSHA`, loaded on first use).
static SCRIPTS: LazyLock<[redis::Script; 3]> =
    LazyLock::new(|| [TAKE, CLAIM, FINISH].map(redis::Script::new));

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
}
