//! The HTTP dependency of the TM Dev Lab v2 tools: the benchmark's `api-service` (a product
//! catalog of 100,000 products built at start), written again in Rust from its definition
//! so that it runs on loopback beside the servers:
//!
//! - `GET /products/search?category=&min_price=&max_price=&limit=`: the category's products
//!   priced within the range, cheapest first, the first `limit` of them (10 by default, at
//!   most 1,000), with how many matched;
//! - `GET /products/{id}`: one product (404 beyond 1..=100,000);
//! - `POST /cart/calculate` `{"user_id", "items": [{"product_id", "quantity"}]}`: subtotal,
//!   8.5% tax, 5.99 shipping, and from 100 on free shipping and a 10% discount;
//! - `GET /health`.
//!
//! Its answers are the benchmark's. It is not what is measured (both MCP servers call it the
//! same way), and it shares the machine's cores with them, so a search answer is computed
//! once per query string and reused.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, Query, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde::{Deserialize, Serialize};

const PRODUCTS: usize = 100_000;

const CATEGORIES: [&str; 20] = [
    "Electronics",
    "Books",
    "Clothing",
    "Sports",
    "Home",
    "Garden",
    "Toys",
    "Food",
    "Beauty",
    "Automotive",
    "Music",
    "Movies",
    "Games",
    "Office",
    "Health",
    "Pets",
    "Travel",
    "Tools",
    "Jewelry",
    "Baby",
];
const BRANDS: [&str; 50] = [
    "Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta", "Eta", "Theta", "Iota", "Kappa",
    "Lambda", "Mu", "Nu", "Xi", "Omicron", "Pi", "Rho", "Sigma", "Tau", "Upsilon", "Phi", "Chi",
    "Psi", "Omega", "Apex", "Nexus", "Vertex", "Zenith", "Nadir", "Flux", "Forge", "Craft",
    "Build", "Make", "Create", "Design", "Style", "Form", "Shape", "Mold", "Cast", "Weld", "Fuse",
    "Bond", "Link", "Chain", "Wire", "Mesh", "Weave", "Knit",
];
const TAGS: [&str; 8] = [
    "sale",
    "new",
    "featured",
    "bestseller",
    "clearance",
    "limited",
    "popular",
    "exclusive",
];

/// One product of the catalog.
#[derive(Clone, Debug, Serialize)]
pub struct Product {
    /// 1..=100,000.
    pub id: u32,
    /// `SKU-000042`.
    pub sku: String,
    /// `Brand Category Item N`.
    pub name: String,
    /// One of 20 categories, in turn.
    pub category: &'static str,
    /// One of 50 brands, in turn.
    pub brand: &'static str,
    /// From 1.00 up by 0.01, wrapping every 99,900 products.
    pub price: f64,
    /// 0..=500.
    pub stock: i32,
    /// 1.0..=4.9.
    pub rating: f32,
    /// Two to four tags.
    pub tags: Vec<&'static str>,
    /// 0.1..=10.0.
    pub weight: f64,
    /// A sentence.
    pub description: String,
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The catalog: every product, and each category's product indices in catalog order.
pub struct Catalog {
    products: Vec<Product>,
    by_category: HashMap<&'static str, Vec<u32>>,
    searches: Mutex<HashMap<String, Bytes>>,
}

impl Catalog {
    /// Builds the 100,000 products.
    #[must_use]
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_possible_wrap,
        reason = "small integers"
    )]
    pub fn new() -> Self {
        let mut products = Vec::with_capacity(PRODUCTS);
        let mut by_category: HashMap<&'static str, Vec<u32>> = HashMap::new();
        for i in 0..PRODUCTS {
            let category = CATEGORIES[i % 20];
            let brand = BRANDS[i % 50];
            let tags = (0..2 + i % 3).map(|j| TAGS[(i + j) % 8]).collect();
            products.push(Product {
                id: i as u32 + 1,
                sku: format!("SKU-{:06}", i + 1),
                name: format!("{brand} {category} Item {}", i + 1),
                category,
                brand,
                price: 1.0 + (i % 99_900) as f64 / 100.0,
                stock: (i % 501) as i32,
                rating: 1.0 + (i % 40) as f32 / 10.0,
                tags,
                weight: round2((1 + i % 100) as f64 * 0.1),
                description: format!("Quality {category} by {brand}. SKU {:06}.", i + 1),
            });
            by_category.entry(category).or_default().push(i as u32);
        }
        Catalog {
            products,
            by_category,
            searches: Mutex::new(HashMap::new()),
        }
    }

    /// The search answer: `(total found, the first `limit` cheapest)`.
    #[must_use]
    pub fn search(
        &self,
        category: &str,
        min_price: f64,
        max_price: f64,
        limit: usize,
    ) -> (usize, Vec<&Product>) {
        let Some(indices) = self.by_category.get(category) else {
            return (0, Vec::new());
        };
        let mut matching: Vec<&Product> = indices
            .iter()
            .map(|&i| &self.products[i as usize])
            .filter(|p| p.price >= min_price && p.price <= max_price)
            .collect();
        matching.sort_by(|a, b| a.price.total_cmp(&b.price));
        let total = matching.len();
        matching.truncate(limit);
        (total, matching)
    }

    /// The product with `id`, if any.
    #[must_use]
    pub fn product(&self, id: usize) -> Option<&Product> {
        id.checked_sub(1).and_then(|i| self.products.get(i))
    }

    /// The cart total of `request`.
    #[must_use]
    pub fn calculate(&self, request: &CartRequest) -> CartResponse {
        let subtotal = round2(
            request
                .items
                .iter()
                .filter_map(|item| {
                    let p = self.product(usize::try_from(item.product_id).ok()?)?;
                    #[allow(clippy::cast_precision_loss, reason = "a quantity")]
                    Some(p.price * item.quantity as f64)
                })
                .sum(),
        );
        let tax = round2(subtotal * 0.085);
        let (shipping, discount) = if subtotal >= 100.0 {
            (0.0, round2(subtotal * 0.10))
        } else {
            (5.99, 0.0)
        };
        CartResponse {
            order_id: format!(
                "ORD-{}-{}",
                request.user_id.replace('-', ""),
                request.items.len()
            ),
            user_id: request.user_id.clone(),
            subtotal,
            tax,
            shipping,
            discount,
            total: round2(subtotal + tax + shipping - discount),
            items_count: request.items.len(),
        }
    }
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new()
    }
}

/// A cart to price.
#[derive(Debug, Deserialize)]
pub struct CartRequest {
    /// Whose cart.
    pub user_id: String,
    /// What is in it.
    pub items: Vec<CartItem>,
}

/// One line of a cart.
#[derive(Debug, Deserialize)]
pub struct CartItem {
    /// The product.
    pub product_id: i64,
    /// How many.
    pub quantity: i64,
}

/// A priced cart.
#[derive(Debug, Serialize)]
pub struct CartResponse {
    /// `ORD-<user id without dashes>-<item count>`.
    pub order_id: String,
    /// Whose cart.
    pub user_id: String,
    /// The sum of prices times quantities.
    pub subtotal: f64,
    /// 8.5%.
    pub tax: f64,
    /// 5.99, or 0 from a subtotal of 100 on.
    pub shipping: f64,
    /// 10% from a subtotal of 100 on.
    pub discount: f64,
    /// What is paid.
    pub total: f64,
    /// How many lines.
    pub items_count: usize,
}

#[derive(Serialize)]
struct SearchResponse<'a> {
    category: &'a str,
    total_found: usize,
    products: Vec<&'a Product>,
}

fn json_response(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn search(State(catalog): State<Arc<Catalog>>, uri: Uri) -> Response {
    let query = uri.query().unwrap_or_default().to_owned();
    if let Some(body) = catalog.searches.lock().expect("not poisoned").get(&query) {
        return json_response(body.clone());
    }
    let params: HashMap<String, String> = Query::try_from_uri(&uri)
        .map(|Query(params)| params)
        .unwrap_or_default();
    let category = params
        .get("category")
        .filter(|c| !c.is_empty())
        .map_or("Electronics", String::as_str);
    let number = |name: &str| params.get(name).and_then(|v| v.parse::<f64>().ok());
    let min_price = number("min_price").unwrap_or(0.0);
    let max_price = number("max_price")
        .filter(|&m| m != 0.0)
        .unwrap_or(f64::MAX);
    let limit = params
        .get("limit")
        .and_then(|v| v.parse::<usize>().ok())
        .filter(|&l| (1..=1000).contains(&l))
        .unwrap_or(10);
    let (total_found, products) = catalog.search(category, min_price, max_price, limit);
    let body = Bytes::from(
        serde_json::to_vec(&SearchResponse {
            category,
            total_found,
            products,
        })
        .expect("products serialize"),
    );
    catalog
        .searches
        .lock()
        .expect("not poisoned")
        .insert(query, body.clone());
    json_response(body)
}

async fn product(State(catalog): State<Arc<Catalog>>, Path(id): Path<String>) -> Response {
    match id.parse().ok().and_then(|id| catalog.product(id)) {
        Some(p) => json_response(Bytes::from(serde_json::to_vec(p).expect("serializes"))),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn calculate(State(catalog): State<Arc<Catalog>>, body: Bytes) -> Response {
    match serde_json::from_slice::<CartRequest>(&body) {
        Ok(request) => json_response(Bytes::from(
            serde_json::to_vec(&catalog.calculate(&request)).expect("serializes"),
        )),
        Err(_) => (StatusCode::BAD_REQUEST, "bad request").into_response(),
    }
}

/// The catalog's HTTP routes.
pub fn router(catalog: Arc<Catalog>) -> Router {
    Router::new()
        .route(
            "/health",
            get(|| async { json_response(Bytes::from_static(br#"{"status":"ok"}"#)) }),
        )
        .route("/products/search", get(search))
        .route("/products/{id}", get(product))
        .route("/cart/calculate", post(calculate))
        .with_state(catalog)
}

#[cfg(test)]
#[allow(
    clippy::float_cmp,
    reason = "prices rounded to cents: exactly what the JSON carries"
)]
mod tests {
    use super::*;

    #[test]
    fn the_benchmark_search() {
        let catalog = Catalog::new();
        // What the k6 script checks: 2,251 Electronics products between 50 and 500.
        let (total, products) = catalog.search("Electronics", 50.0, 500.0, 10);
        assert_eq!(total, 2251);
        assert_eq!(products.len(), 10);
        assert_eq!(products[0].price, 50.0);
        assert_eq!(products[0].sku, "SKU-004901");
        assert!(products.windows(2).all(|w| w[0].price <= w[1].price));
        assert_eq!(catalog.search("Nothing", 0.0, 1.0, 10).0, 0);
    }

    #[test]
    fn products_and_carts() {
        let catalog = Catalog::new();
        let p = catalog.product(42).unwrap();
        assert_eq!(
            (p.id, p.category, p.brand, p.price),
            (42, "Books", "Weld", 1.41)
        );
        assert_eq!(p.tags, ["new", "featured", "bestseller", "clearance"]);
        assert!(catalog.product(0).is_none() && catalog.product(100_001).is_none());
        let cart = CartRequest {
            user_id: "user-00042".into(),
            items: vec![
                CartItem {
                    product_id: 42,
                    quantity: 2,
                },
                CartItem {
                    product_id: 1337,
                    quantity: 1,
                },
            ],
        };
        let priced = catalog.calculate(&cart);
        // 2 × 1.41 + 14.36 = 17.18: under 100, so shipping and no discount.
        assert_eq!(priced.subtotal, 17.18);
        assert_eq!(priced.tax, 1.46);
        assert_eq!(priced.total, 24.63);
        assert_eq!(priced.order_id, "ORD-user00042-2");
        assert_eq!(priced.items_count, 2);
    }
}
