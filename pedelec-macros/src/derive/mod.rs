//! `#[derive(ToolArgs)]`: the schema of a struct or enum, built as a `const`.
//!
//! The pipeline: syn parses the input; `attr` reads `#[arg]`, `#[serde]` and doc comments;
//! `model` builds what deserializes (names, shapes, modifiers) and reports what has no
//! schema; `check` runs the checks that need the whole picture; `expand` writes the impls.
//! Every error of an input is reported at once; with errors, `fallback` emits placeholder
//! impls so that they do not cascade.

mod attr;
mod case;
mod check;
mod direction;
pub mod docs; // also read by `#[tool]`: one way to turn doc comments into descriptions
mod expand;
mod fallback;
mod model;
mod pattern;
mod recursion;
mod span;
mod ty;
mod value;

#[cfg(test)]
mod tests;

use proc_macro2::TokenStream;
use syn::DeriveInput;

use crate::util::Errors;

pub use direction::Direction;

/// Expands `#[derive(ToolArgs)]` on `input`.
pub fn derive(input: TokenStream) -> TokenStream {
    derive_as(input, Direction::Args)
}

/// Expands `#[derive(ToolOutput)]` on `input`.
pub fn derive_output(input: TokenStream) -> TokenStream {
    derive_as(input, Direction::Output)
}

fn derive_as(input: TokenStream, dir: Direction) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let mut errors = Errors::default();
    let container = model::Container::build(&input, dir, &mut errors);
    if let Some(container) = &container {
        check::check(container, &mut errors);
    }
    match (errors.finish(), container) {
        (Ok(()), Some(container)) => expand::expand(&container),
        (Err(error), _) => {
            let mut out = error.to_compile_error();
            out.extend(fallback::expand(&input, dir));
            out
        }
        // `build` gives no model only after reporting why.
        (Ok(()), None) => fallback::expand(&input, dir),
    }
}
