//! Finding tools by what a model (or a person) asks for: an index over each tool's wire name,
//! namespace, description and its arguments' names and descriptions, ranked with BM25F.
//!
//! ```
//! use pedelec_core::search::Index;
//! use pedelec_core::manifest::SerializableSkillsManifest;
//! use serde_json::json;
//!
//! let manifest: SerializableSkillsManifest = serde_json::from_value(json!({
//!     "guidance": "Back office.",
//!     "tools": [
//!         {"name": "billing.refund_invoice", "description": "Refund an invoice, in full or in part.",
//!          "argsSchema": {"type": "object", "properties": {
//!              "invoiceId": {"type": "string", "description": "The invoice to refund."}},
//!              "required": ["invoiceId"], "additionalProperties": false}},
//!         {"name": "crm.find_customer", "description": "Find a customer by name or email.",
//!          "argsSchema": {"type": "object", "properties": {}, "additionalProperties": false}}
//!     ]
//! }))?;
//! let index = Index::of(&manifest);
//! let hits = index.search("refund a customer's last invoice", 5);
//! assert_eq!(hits[0].name, "billing.refund_invoice");
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! The ranking was chosen by measurement (`pedelec-core/tests/search_eval.rs`, on tool
//! catalogs and queries of two public benchmarks): identifier splitting (`camelCase`,
//! `snake_case`, dots), a light English stemmer, stop words, and per-field weights (a
//! match in the name counts most) beat plain BM25 over the same text at every cut-off.

mod index;
mod text;
pub(crate) mod tools;

pub use index::{Hit, Index};
