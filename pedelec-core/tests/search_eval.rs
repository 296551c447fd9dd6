//! The search index's quality, measured: recall@1/3/5/10 on the tool catalogs and queries of
//! two public benchmarks (BFCL and MetaTool, `tests/data/search-eval.json`, built by
//! `xtask/gen_search_eval.py`), against plain BM25 over the same text (lowercased words,
//! k1 = 1.2, b = 0.75: the baseline to beat). `cargo test --test search_eval -- --nocapture`
//! prints the table.

#![allow(
    clippy::doc_markdown,
    reason = "benchmark names (BFCL, MetaTool) are prose here"
)]

use std::collections::HashMap;

use pedelec_core::manifest::SerializableSkillsManifest;
use pedelec_core::search::Index;
use serde_json::{Value, json};

const CUTS: [usize; 4] = [1, 3, 5, 10];

struct Set {
    name: String,
    manifest: SerializableSkillsManifest,
    queries: Vec<(String, String)>,
}

fn sets() -> Vec<Set> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/search-eval.json");
    let data: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    data["sets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|set| Set {
            name: set["name"].as_str().unwrap().to_owned(),
            manifest: serde_json::from_value(json!({
                "guidance": "Evaluation.",
                "tools": set["tools"],
            }))
            .unwrap(),
            queries: set["queries"]
                .as_array()
                .unwrap()
                .iter()
                .map(|q| {
                    (
                        q["query"].as_str().unwrap().to_owned(),
                        q["gold"].as_str().unwrap().to_owned(),
                    )
                })
                .collect(),
        })
        .collect()
}

/// Plain BM25 over each tool's text (name, description, argument names and descriptions),
/// split into lowercase words at anything that is not a letter or digit.
struct PlainBm25 {
    names: Vec<String>,
    docs: Vec<HashMap<String, f32>>,
    lengths: Vec<f32>,
    mean: f32,
    df: HashMap<String, f32>,
}

fn plain_words(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

fn schema_text(schema: &Value, out: &mut String) {
    if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
        for (name, property) in properties {
            out.push(' ');
            out.push_str(name);
            if let Some(d) = property.get("description").and_then(Value::as_str) {
                out.push(' ');
                out.push_str(d);
            }
            schema_text(property, out);
        }
    }
}

impl PlainBm25 {
    fn of(manifest: &SerializableSkillsManifest) -> Self {
        let mut names = Vec::new();
        let mut docs = Vec::new();
        let mut lengths = Vec::new();
        let mut df: HashMap<String, f32> = HashMap::new();
        for tool in &manifest.tools {
            let mut text = format!("{} {}", tool.name, tool.description);
            schema_text(&serde_json::to_value(&tool.args_schema).unwrap(), &mut text);
            let mut tf: HashMap<String, f32> = HashMap::new();
            let mut length = 0.0;
            for word in plain_words(&text) {
                *tf.entry(word).or_default() += 1.0;
                length += 1.0;
            }
            for word in tf.keys() {
                *df.entry(word.clone()).or_default() += 1.0;
            }
            names.push(tool.name.clone());
            docs.push(tf);
            lengths.push(length);
        }
        #[allow(clippy::cast_precision_loss)]
        let mean = lengths.iter().sum::<f32>() / lengths.len() as f32;
        PlainBm25 {
            names,
            docs,
            lengths,
            mean,
            df,
        }
    }

    fn search(&self, query: &str, k: usize) -> Vec<&str> {
        let (k1, b) = (1.2, 0.75);
        #[allow(clippy::cast_precision_loss)]
        let n = self.names.len() as f32;
        let mut words: Vec<String> = plain_words(query).collect();
        words.sort_unstable();
        words.dedup();
        let mut scored: Vec<(usize, f32)> = self
            .docs
            .iter()
            .enumerate()
            .map(|(i, doc)| {
                let score = words
                    .iter()
                    .filter_map(|w| {
                        let tf = *doc.get(w)?;
                        let df = self.df[w];
                        let idf = ((n - df + 0.5) / (df + 0.5)).ln_1p();
                        Some(
                            idf * tf * (k1 + 1.0)
                                / (tf + k1 * (1.0 - b + b * self.lengths[i] / self.mean)),
                        )
                    })
                    .sum::<f32>();
                (i, score)
            })
            .filter(|(_, s)| *s > 0.0)
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored
            .into_iter()
            .take(k)
            .map(|(i, _)| self.names[i].as_str())
            .collect()
    }
}

/// Recall at each cut: the share of queries whose tool is among the first `k` hits.
fn recall<'a>(queries: &[(String, String)], search: impl Fn(&str) -> Vec<&'a str>) -> [f64; 4] {
    let mut found = [0usize; 4];
    for (query, gold) in queries {
        let hits = search(query);
        for (c, &k) in CUTS.iter().enumerate() {
            if hits.iter().take(k).any(|h| h == gold) {
                found[c] += 1;
            }
        }
    }
    #[allow(clippy::cast_precision_loss)]
    found.map(|f| f as f64 / queries.len() as f64)
}

#[test]
fn the_index_beats_plain_bm25_at_every_cut_on_every_set() {
    println!("set        tools queries  ranking     R@1    R@3    R@5   R@10");
    for set in sets() {
        let index = Index::of(&set.manifest);
        let plain = PlainBm25::of(&set.manifest);
        let ours = recall(&set.queries, |q| {
            index.search(q, 10).into_iter().map(|h| h.name).collect()
        });
        let base = recall(&set.queries, |q| plain.search(q, 10));
        for (ranking, r) in [("plain BM25", base), ("pedelec", ours)] {
            println!(
                "{:<10} {:>5} {:>7}  {:<10} {:.3}  {:.3}  {:.3}  {:.3}",
                set.name,
                set.manifest.tools.len(),
                set.queries.len(),
                ranking,
                r[0],
                r[1],
                r[2],
                r[3]
            );
        }
        for c in 0..CUTS.len() {
            assert!(
                ours[c] > base[c],
                "{}: recall@{} {:.3} is not above plain BM25's {:.3}",
                set.name,
                CUTS[c],
                ours[c],
                base[c]
            );
        }
    }
}
