//! Which side of serde a derive describes: `ToolArgs` reads what *deserializes* (a tool's
//! arguments), `ToolOutput` what *serializes* (a tool's result). One model, one type
//! mapping and one set of checks serve both; this says where they differ.

use proc_macro2::TokenStream;
use quote::quote;

use crate::util::Private;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Direction {
    /// `#[derive(ToolArgs)]`: serde's deserialize side.
    Args,
    /// `#[derive(ToolOutput)]`: serde's serialize side.
    Output,
}

impl Direction {
    /// The derived trait's name.
    pub fn trait_name(self) -> &'static str {
        match self {
            Direction::Args => "ToolArgs",
            Direction::Output => "ToolOutput",
        }
    }

    /// `::pedelec::__private::ToolArgs` / `…::ToolOutput`.
    pub fn trait_path(self) -> TokenStream {
        match self {
            Direction::Args => quote!(#Private::ToolArgs),
            Direction::Output => quote!(#Private::ToolOutput),
        }
    }

    /// The trait's schema constant.
    pub fn schema_const(self) -> &'static str {
        match self {
            Direction::Args => "SCHEMA",
            Direction::Output => "OUTPUT_SCHEMA",
        }
    }

    /// "a tool-args schema" / "an output schema", for messages.
    pub fn schema(self) -> &'static str {
        match self {
            Direction::Args => "a tool-args schema",
            Direction::Output => "an output schema",
        }
    }

    /// "deserializes from" / "serializes to", for messages.
    pub fn from(self) -> &'static str {
        match self {
            Direction::Args => "deserializes from",
            Direction::Output => "serializes to",
        }
    }

    /// serde's name of this side in `key(serialize = …, deserialize = …)`.
    pub fn serde_side(self) -> &'static str {
        match self {
            Direction::Args => "deserialize",
            Direction::Output => "serialize",
        }
    }
}
