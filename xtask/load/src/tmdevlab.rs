//! The three tools of the TM Dev Lab v2 MCP benchmark (`http4k/benchmark-mcp-servers-v2`),
//! written once: the pedelec and the rmcp servers both call these functions, so they differ
//! only in the framework around them. Each does Redis and HTTP I/O, as in the benchmark:
//!
//! - `search_products`: `GET /products/search` on the catalog while Redis answers
//!   `ZREVRANGE bench:popular 0 9` (the ten most popular products), then each product with
//!   its popularity rank;
//! - `get_user_cart`: `HGETALL bench:cart:<user>`, then, at the same time, `LRANGE
//!   bench:history:<user> 0 4` and `GET /products/<the cart's first product>`;
//! - `checkout`: `POST /cart/calculate` while one Redis pipeline runs `INCR` on the user's
//!   rate-limit counter, `RPUSH` of the order to the user's history and `ZADD INCR` of the
//!   first product's popularity.
//!
//! The answer is a JSON object, sent as the tool result's text (what the benchmark's k6
//! script checks) and as `structuredContent`.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use redis::aio::MultiplexedConnection;
use rmcp::schemars;
use serde::Deserialize;
use serde_json::{Value, json};

/// What the tools call: one multiplexed Redis connection (shared by every call, pipelined)
/// and one HTTP client (a pool of keep-alive connections) for the catalog.
#[derive(Clone)]
pub struct Deps {
    redis: MultiplexedConnection,
    http: reqwest::Client,
    api: Arc<str>,
    server_type: &'static str,
}

impl Deps {
    /// Connects to Redis at `redis_url` (`redis://127.0.0.1:6379`) and to the catalog at
    /// `api_url` (`http://127.0.0.1:8100`); `server_type` goes into every answer.
    pub async fn connect(
        redis_url: &str,
        api_url: &str,
        server_type: &'static str,
    ) -> Result<Self, String> {
        let client = redis::Client::open(redis_url).map_err(|e| format!("{redis_url}: {e}"))?;
        let mut redis = client
            .get_multiplexed_async_connection()
            .await
            .map_err(|e| format!("cannot connect to Redis at {redis_url}: {e}"))?;
        // redis-rs gives up on an answer after 500 ms by default: too short on a machine
        // shared with other work, where a call should be slow rather than fail.
        redis.set_response_timeout(Duration::from_secs(10));
        let http = reqwest::Client::builder()
            .pool_max_idle_per_host(64)
            .tcp_nodelay(true)
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Deps {
            redis,
            http,
            api: api_url.trim_end_matches('/').into(),
            server_type,
        })
    }
}

fn default_category() -> String {
    "Electronics".into()
}
fn default_min_price() -> f64 {
    50.0
}
fn default_max_price() -> f64 {
    500.0
}
fn default_limit() -> u32 {
    10
}
fn default_user_id() -> String {
    "user-00042".into()
}
fn default_items() -> Vec<CheckoutItem> {
    vec![
        CheckoutItem {
            product_id: 42,
            quantity: 2,
        },
        CheckoutItem {
            product_id: 1337,
            quantity: 1,
        },
    ]
}

/// The arguments of `search_products`.
#[derive(Debug, Deserialize, pedelec::ToolArgs, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct SearchProductsArgs {
    /// The product category.
    #[serde(default = "default_category")]
    pub category: String,
    /// The lowest price.
    #[serde(default = "default_min_price")]
    pub min_price: f64,
    /// The highest price.
    #[serde(default = "default_max_price")]
    pub max_price: f64,
    /// How many products to return.
    #[serde(default = "default_limit")]
    pub limit: u32,
}

/// The arguments of `get_user_cart`.
#[derive(Debug, Deserialize, pedelec::ToolArgs, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct GetUserCartArgs {
    /// The user (`user-00042`).
    #[serde(default = "default_user_id")]
    pub user_id: String,
}

/// One line of a checkout.
#[derive(Debug, Deserialize, pedelec::ToolArgs, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct CheckoutItem {
    /// The product.
    pub product_id: u32,
    /// How many.
    pub quantity: u32,
}

/// The arguments of `checkout`.
#[derive(Debug, Deserialize, pedelec::ToolArgs, schemars::JsonSchema)]
#[schemars(crate = "rmcp::schemars")]
pub struct CheckoutArgs {
    /// The user (`user-00042`).
    #[serde(default = "default_user_id")]
    pub user_id: String,
    /// What to buy.
    #[serde(default = "default_items")]
    pub items: Vec<CheckoutItem>,
}

/// `search_products`: search products by category and price range, merged with popularity
/// data.
pub async fn search_products(deps: &Deps, p: &SearchProductsArgs) -> Result<Value, String> {
    let mut redis = deps.redis.clone();
    let popular = async move {
        redis::cmd("ZREVRANGE")
            .arg("bench:popular")
            .arg(0)
            .arg(9)
            .query_async::<Vec<String>>(&mut redis)
            .await
            .unwrap_or_default()
    };
    let search = async {
        let response = deps
            .http
            .get(format!("{}/products/search", deps.api))
            .query(&[
                ("category", p.category.as_str()),
                ("min_price", &p.min_price.to_string()),
                ("max_price", &p.max_price.to_string()),
                ("limit", &p.limit.to_string()),
            ])
            .send()
            .await
            .map_err(|e| e.to_string())?;
        response.json::<Value>().await.map_err(|e| e.to_string())
    };
    let (popular, search) = tokio::join!(popular, search);
    let search = search?;
    let top10: Vec<u64> = popular
        .iter()
        .filter_map(|m| m.strip_prefix("product:")?.parse().ok())
        .collect();
    let rank: HashMap<u64, usize> = top10
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i + 1))
        .collect();
    let products: Vec<Value> = search["products"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|product| {
            let id = product["id"].as_u64().unwrap_or(0);
            json!({
                "id": id,
                "sku": product["sku"],
                "name": product["name"],
                "price": product["price"],
                "rating": product["rating"],
                "popularity_rank": rank.get(&id).copied().unwrap_or(0),
            })
        })
        .collect();
    Ok(json!({
        "category": p.category,
        "total_found": search["total_found"],
        "products": products,
        "top10_popular_ids": top10,
        "server_type": deps.server_type,
    }))
}

/// `get_user_cart`: the user's cart with their recent order history.
pub async fn get_user_cart(deps: &Deps, p: &GetUserCartArgs) -> Result<Value, String> {
    let mut redis = deps.redis.clone();
    let cart: HashMap<String, String> = redis::cmd("HGETALL")
        .arg(format!("bench:cart:{}", p.user_id))
        .query_async(&mut redis)
        .await
        .unwrap_or_default();
    let items: Value = cart
        .get("items")
        .and_then(|items| serde_json::from_str(items).ok())
        .unwrap_or_else(|| json!([]));
    let first_product = items[0]["product_id"].as_u64().unwrap_or(1);
    let estimated_total: f64 = cart
        .get("total")
        .and_then(|t| t.parse().ok())
        .unwrap_or(0.0);
    let history = async move {
        redis::cmd("LRANGE")
            .arg(format!("bench:history:{}", p.user_id))
            .arg(0)
            .arg(4)
            .query_async::<Vec<String>>(&mut redis)
            .await
            .unwrap_or_default()
    };
    let product = async {
        if let Ok(response) = deps
            .http
            .get(format!("{}/products/{first_product}", deps.api))
            .send()
            .await
        {
            let _ = response.bytes().await;
        }
    };
    let (history, ()) = tokio::join!(history, product);
    let recent_history: Vec<Value> = history
        .iter()
        .map(|entry| serde_json::from_str(entry).unwrap_or_else(|_| json!({"raw": entry})))
        .collect();
    let item_count = items.as_array().map_or(0, Vec::len);
    Ok(json!({
        "user_id": p.user_id,
        "cart": {"items": items, "item_count": item_count, "estimated_total": estimated_total},
        "recent_history": recent_history,
        "server_type": deps.server_type,
    }))
}

/// `checkout`: price the order, count it against the user's rate limit, record it.
pub async fn checkout(deps: &Deps, p: &CheckoutArgs) -> Result<Value, String> {
    let user_number: u64 = p
        .user_id
        .rsplit('-')
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(42);
    let rate_key = format!("bench:ratelimit:user-{:05}", user_number % 100);
    let history_key = format!("bench:history:{}", p.user_id);
    let product_id = p.items.first().map_or(42, |item| item.product_id);
    let ts = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default()
        .as_secs();
    let items: Vec<Value> = p
        .items
        .iter()
        .map(|i| json!({"product_id": i.product_id, "quantity": i.quantity}))
        .collect();
    let order = json!({"order_id": format!("ORD-{}-{ts}", p.user_id), "items": items, "ts": ts})
        .to_string();
    let calculate = async {
        let response = deps
            .http
            .post(format!("{}/cart/calculate", deps.api))
            .json(&json!({"user_id": p.user_id, "items": items}))
            .send()
            .await
            .map_err(|e| e.to_string())?;
        response.json::<Value>().await.map_err(|e| e.to_string())
    };
    let mut redis = deps.redis.clone();
    let record = async move {
        let (count,): (i64,) = redis::pipe()
            .cmd("INCR")
            .arg(&rate_key)
            .cmd("RPUSH")
            .arg(&history_key)
            .arg(&order)
            .ignore()
            .cmd("ZADD")
            .arg("bench:popular")
            .arg("INCR")
            .arg(1)
            .arg(format!("product:{product_id}"))
            .ignore()
            .query_async(&mut redis)
            .await?;
        Ok::<i64, redis::RedisError>(count)
    };
    let (priced, count) = tokio::join!(calculate, record);
    let priced = priced?;
    Ok(json!({
        "order_id": priced["order_id"].as_str().unwrap_or("ORD-unknown"),
        "user_id": p.user_id,
        "total": priced["total"].as_f64().unwrap_or(0.0),
        "items_count": p.items.len(),
        "rate_limit_count": count.unwrap_or(0),
        "status": "confirmed",
        "server_type": deps.server_type,
    }))
}

/// Fills Redis as the benchmark's seeder does (after `FLUSHALL`): 10,000 carts, 1,000 order
/// histories of 20 entries, the 100,000-member popularity set, 100 rate-limit counters.
pub async fn seed(redis_url: &str) -> Result<(), String> {
    let client = redis::Client::open(redis_url).map_err(|e| e.to_string())?;
    let mut redis = client
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| format!("cannot connect to Redis at {redis_url}: {e}"))?;
    redis.set_response_timeout(Duration::from_secs(30));
    let fail = |e: redis::RedisError| format!("seeding Redis: {e}");
    redis::cmd("FLUSHALL")
        .query_async::<()>(&mut redis)
        .await
        .map_err(fail)?;
    // Pipelines of about 1,000 commands, as the benchmark's seeder sends them.
    let mut pipe = redis::pipe();
    for n in 1..=10_000u64 {
        if n % 1_000 == 0 {
            pipe.query_async::<()>(&mut redis).await.map_err(fail)?;
            pipe = redis::pipe();
        }
        let mut items = vec![
            ((n * 7) % 100_000 + 1, 1 + n % 3),
            ((n * 13) % 100_000 + 1, 1 + n % 2),
        ];
        if n % 3 == 0 {
            items.push(((n * 17) % 100_000 + 1, 1));
        }
        #[allow(clippy::cast_precision_loss, reason = "small integers")]
        let total: f64 = items
            .iter()
            .map(|&(id, qty)| qty as f64 * (((id * 100) % 9_999) + 1) as f64 / 100.0)
            .sum();
        let items: Vec<Value> = items
            .iter()
            .map(|&(id, qty)| json!({"product_id": id, "qty": qty}))
            .collect();
        pipe.cmd("HSET")
            .arg(format!("bench:cart:user-{n:05}"))
            .arg("user_id")
            .arg(format!("user-{n:05}"))
            .arg("items")
            .arg(Value::from(items).to_string())
            .arg("created")
            .arg("1740000000")
            .arg("expires")
            .arg("1740086400")
            .arg("total")
            .arg(format!("{total:.2}"))
            .ignore();
    }
    for n in 1..=1_000u64 {
        if n % 50 == 0 {
            pipe.query_async::<()>(&mut redis).await.map_err(fail)?;
            pipe = redis::pipe();
        }
        let key = format!("bench:history:user-{n:05}");
        for j in 1..=20u64 {
            #[allow(clippy::cast_precision_loss, reason = "small integers")]
            let price = (((n * j * 13) % 9_999 + 1) as f64 / 100.0 * 100.0).round() / 100.0;
            let entry = json!({
                "order_id": format!("ORD-{n:05}-{j:02}"),
                "product_id": (n * j * 7) % 100_000 + 1,
                "qty": 1 + j % 3,
                "price": price,
                "ts": 1_740_000_000 + n * 86_400 + j * 3_600,
            });
            pipe.cmd("RPUSH").arg(&key).arg(entry.to_string()).ignore();
        }
    }
    pipe.query_async::<()>(&mut redis).await.map_err(fail)?;
    let mut pipe = redis::pipe();
    for i in 1..=100_000u64 {
        if i % 5_000 == 0 {
            pipe.query_async::<()>(&mut redis).await.map_err(fail)?;
            pipe = redis::pipe();
        }
        pipe.cmd("ZADD")
            .arg("bench:popular")
            .arg(i * 7 % 10_000)
            .arg(format!("product:{i}"))
            .ignore();
    }
    for n in 1..=100u64 {
        pipe.cmd("SET")
            .arg(format!("bench:ratelimit:user-{n:05}"))
            .arg(0)
            .ignore();
    }
    pipe.query_async::<()>(&mut redis).await.map_err(fail)?;
    Ok(())
}
