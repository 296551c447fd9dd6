//! [`Index`]: BM25F over four fields of each tool.

use std::collections::HashMap;

use super::text::terms;
use crate::manifest::SerializableSkillsManifest;
use crate::schema::SchemaNode;

/// The fields of a tool, and how much a match in each counts (chosen by measurement; see
/// the module docs).
#[derive(Clone, Copy)]
enum Field {
    /// The wire name, namespace included (`billing.refund_invoice`).
    Name = 0,
    /// The description.
    Description = 1,
    /// The arguments' names, nested ones included.
    ArgName = 2,
    /// The arguments' descriptions.
    ArgDescription = 3,
}

const FIELDS: usize = 4;
const WEIGHTS: [f32; FIELDS] = [2.0, 1.0, 1.0, 0.4];
/// BM25's saturation and length normalization, per field.
const K1: f32 = 1.2;
const B: [f32; FIELDS] = [0.3, 0.75, 0.5, 0.75];

/// A search index over a skill set's tools. Built once (per skill set, or per manifest read
/// at run time); a search reads it only.
#[derive(Clone, Debug)]
pub struct Index {
    names: Vec<String>,
    /// Term → its postings: `(tool, frequency in each field)`.
    postings: HashMap<String, Vec<(u32, [u16; FIELDS])>>,
    /// Each tool's length in terms, per field.
    lengths: Vec<[u16; FIELDS]>,
    /// The mean length of each field.
    mean: [f32; FIELDS],
}

/// A tool found by [`Index::search`], best first.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit<'a> {
    /// The tool's wire name.
    pub name: &'a str,
    /// How well it matches (higher is better; comparable within one search only).
    pub score: f32,
}

/// One tool's text, by field.
#[derive(Default)]
struct Doc {
    fields: [Vec<String>; FIELDS],
}

impl Doc {
    fn add(&mut self, field: Field, text: &str) {
        terms(text, &mut self.fields[field as usize]);
    }

    /// The names and descriptions of the arguments below `node` (properties, items,
    /// `oneOf` branches), `depth` levels at most.
    fn arguments(&mut self, node: &SchemaNode, depth: usize) {
        if depth == 0 {
            return;
        }
        for property in node.properties() {
            self.add(Field::ArgName, property.name());
            if let Some(description) = property.schema().description() {
                self.add(Field::ArgDescription, description);
            }
            self.arguments(property.schema(), depth - 1);
        }
        if let Some(items) = node.items() {
            self.arguments(items, depth - 1);
        }
        for branch in node.one_of_branches().unwrap_or(&[]) {
            self.arguments(branch, depth - 1);
        }
    }
}

impl Index {
    /// The index of a manifest's tools (a skill set read at run time, or any `skills![]`
    /// set's `ToolName::manifest()`).
    #[must_use]
    pub fn of(manifest: &SerializableSkillsManifest) -> Self {
        Index::from_tools(manifest.tools.iter().map(|tool| {
            let mut doc = Doc::default();
            doc.add(Field::Name, &tool.name);
            doc.add(Field::Description, &tool.description);
            doc.arguments(tool.args_schema.node(), 3);
            (tool.name.clone(), doc)
        }))
    }

    fn from_tools(tools: impl Iterator<Item = (String, Doc)>) -> Self {
        let mut names = Vec::new();
        let mut postings: HashMap<String, Vec<(u32, [u16; FIELDS])>> = HashMap::new();
        let mut lengths = Vec::new();
        for (i, (name, doc)) in tools.enumerate() {
            let i = u32::try_from(i).unwrap_or(u32::MAX);
            let mut length = [0u16; FIELDS];
            let mut counts: HashMap<&str, [u16; FIELDS]> = HashMap::new();
            for (f, terms) in doc.fields.iter().enumerate() {
                length[f] = u16::try_from(terms.len()).unwrap_or(u16::MAX);
                for term in terms {
                    let count = &mut counts.entry(term.as_str()).or_default()[f];
                    *count = count.saturating_add(1);
                }
            }
            for (term, count) in counts {
                postings
                    .entry(term.to_owned())
                    .or_default()
                    .push((i, count));
            }
            names.push(name);
            lengths.push(length);
        }
        let mut mean = [0f32; FIELDS];
        if !lengths.is_empty() {
            for (f, m) in mean.iter_mut().enumerate() {
                let total: f32 = lengths.iter().map(|l| f32::from(l[f])).sum();
                #[allow(clippy::cast_precision_loss, reason = "counts of tools are small")]
                let n = lengths.len() as f32;
                *m = (total / n).max(1.0);
            }
        }
        Index {
            names,
            postings,
            lengths,
            mean,
        }
    }

    /// The number of tools indexed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether no tool is indexed.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The `k` tools that best match `query`, best first (fewer when fewer match at all;
    /// ties in the skill set's order).
    #[must_use]
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit<'_>> {
        let mut ranked = self.ranked(query);
        ranked.truncate(k);
        ranked
            .into_iter()
            .map(|(position, score)| Hit {
                name: &self.names[position],
                score,
            })
            .collect()
    }

    /// Every tool that matches `query` at all, as its position in the manifest and its
    /// score, best first (ties in the manifest's order).
    pub(crate) fn ranked(&self, query: &str) -> Vec<(usize, f32)> {
        let mut query_terms = Vec::new();
        terms(query, &mut query_terms);
        query_terms.sort_unstable();
        query_terms.dedup();
        let mut scores: HashMap<u32, f32> = HashMap::new();
        #[allow(clippy::cast_precision_loss, reason = "counts of tools are small")]
        let n = self.names.len() as f32;
        for term in &query_terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            #[allow(clippy::cast_precision_loss, reason = "counts of tools are small")]
            let df = list.len() as f32;
            let idf = ((n - df + 0.5) / (df + 0.5)).ln_1p();
            for &(doc, counts) in list {
                let length = &self.lengths[doc as usize];
                let mut tf = 0.0;
                for f in 0..FIELDS {
                    if counts[f] > 0 {
                        let norm = 1.0 - B[f] + B[f] * f32::from(length[f]) / self.mean[f];
                        tf += WEIGHTS[f] * f32::from(counts[f]) / norm;
                    }
                }
                *scores.entry(doc).or_default() += idf * tf / (K1 + tf);
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .map(|(doc, score)| (doc as usize, score))
            .collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn build(tools: serde_json::Value) -> Index {
        Index::of(&serde_json::from_value(json!({"guidance": "g", "tools": tools})).unwrap())
    }

    fn tool(name: &str, description: &str, properties: serde_json::Value) -> serde_json::Value {
        json!({"name": name, "description": description,
               "argsSchema": {"type": "object", "properties": properties}})
    }

    #[test]
    fn names_descriptions_and_arguments_are_all_searched() {
        let index = build(json!([
            tool("crm.find_customer", "Look a person up.", json!({})),
            tool(
                "mail.send",
                "Send a message.",
                json!({
                    "recipientAddress": {"type": "string", "description": "Where it goes."}
                })
            ),
            tool(
                "billing.refund_invoice",
                "Give money back.",
                json!({
                    "items": {"type": "array", "items": {"type": "object", "properties": {
                        "sku": {"type": "string", "description": "The product's stock keeping unit."}
                    }}}
                })
            ),
        ]));
        assert_eq!(index.len(), 3);
        // The name, split at the dot and the underscore.
        assert_eq!(
            index.search("find a customer", 1)[0].name,
            "crm.find_customer"
        );
        // An argument's name, split at its capital.
        assert_eq!(index.search("recipient address", 1)[0].name, "mail.send");
        // A nested argument's description, stemmed ("products" meets "product's").
        assert_eq!(
            index.search("which products", 1)[0].name,
            "billing.refund_invoice"
        );
        // Nothing matches: nothing is returned; `k` caps the hits.
        assert!(index.search("zebra", 3).is_empty());
        assert!(index.search("", 3).is_empty());
        assert_eq!(index.search("send refund customer", 2).len(), 2);
    }

    #[test]
    fn hits_are_best_first_and_ties_keep_the_skill_sets_order() {
        let index = build(json!([
            tool("weather.today", "The weather today.", json!({})),
            tool("weather.tomorrow", "The weather tomorrow.", json!({})),
            tool(
                "weather.forecast",
                "The weather forecast for a week, with the weather by day.",
                json!({})
            ),
        ]));
        let hits = index.search("weather", 3);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
        let tied: Vec<&str> = hits
            .iter()
            .filter(|h| h.score.to_bits() == hits[0].score.to_bits())
            .map(|h| h.name)
            .collect();
        let mut in_order = tied.clone();
        in_order.sort_by_key(|n| {
            ["weather.today", "weather.tomorrow", "weather.forecast"]
                .iter()
                .position(|m| m == n)
        });
        assert_eq!(tied, in_order);
        assert!(build(json!([])).is_empty());
    }
}
