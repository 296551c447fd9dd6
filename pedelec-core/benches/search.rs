//! `cargo bench -p pedelec-core --bench search`: the search index over 2,000 real tool
//! definitions (the BFCL and MetaTool catalogs of `tests/data/search-eval.json`, then BFCL's
//! again under other names to reach 2,000): how long building it takes, and each of the
//! evaluation's 3,105 queries timed alone (p50, p99, max over 5 rounds). Under `cargo test
//! --benches` it runs one round, as a smoke test.

#![allow(
    clippy::doc_markdown,
    reason = "benchmark names (BFCL, MetaTool) are prose here"
)]

use std::time::{Duration, Instant};

use pedelec_core::manifest::SerializableSkillsManifest;
use pedelec_core::search::Index;
use serde_json::{Value, json};

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/search-eval.json");
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let sets = data["sets"].as_array().unwrap();
    let mut tools: Vec<Value> = sets
        .iter()
        .flat_map(|s| s["tools"].as_array().unwrap().iter().cloned())
        .collect();
    let queries: Vec<String> = sets
        .iter()
        .flat_map(|s| s["queries"].as_array().unwrap().iter())
        .map(|q| q["query"].as_str().unwrap().to_owned())
        .collect();
    let originals = tools.clone();
    let mut copy = 0;
    while tools.len() < 2000 {
        let mut tool = originals[copy % originals.len()].clone();
        tool["name"] = json!(format!("copy{}.{}", copy, tool["name"].as_str().unwrap()));
        tools.push(tool);
        copy += 1;
    }
    let manifest: SerializableSkillsManifest =
        serde_json::from_value(json!({"guidance": "Bench.", "tools": tools})).unwrap();
    let started = Instant::now();
    let index = Index::of(&manifest);
    let built = started.elapsed();
    let rounds = if measuring { 5 } else { 1 };
    let mut times: Vec<Duration> = Vec::with_capacity(queries.len() * rounds);
    let mut found = 0usize;
    for _ in 0..rounds {
        for query in &queries {
            let started = Instant::now();
            let hits = std::hint::black_box(index.search(std::hint::black_box(query), 5));
            times.push(started.elapsed());
            found += hits.len();
        }
    }
    times.sort_unstable();
    let at = |q: f64| {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let i = ((times.len() - 1) as f64 * q).round() as usize;
        times[i]
    };
    println!(
        "search: {} tools indexed in {:.1} ms; {} queries x {rounds}: p50 {:.1} µs, p99 {:.1} µs, max {:.1} µs ({found} hits){}",
        index.len(),
        built.as_secs_f64() * 1e3,
        queries.len(),
        at(0.5).as_secs_f64() * 1e6,
        at(0.99).as_secs_f64() * 1e6,
        at(1.0).as_secs_f64() * 1e6,
        if measuring {
            ""
        } else {
            " (a smoke test, not a measurement: run `cargo bench`)"
        }
    );
}
