//! What is emitted next to the errors: impls with a placeholder schema, so that code using
//! the type compiles and the user sees only the real mistakes (no cascade of "`Args` has no
//! tool-args schema").

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput};

use super::direction::Direction;
use crate::util::Private;

pub fn expand(input: &DeriveInput, dir: Direction) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    if dir == Direction::Output {
        // `ToolOutput` requires `Serialize`, which serde's derive provides on its own (and
        // cannot for a union: no impl then, or its error would add to ours).
        if matches!(input.data, Data::Union(_)) {
            return TokenStream::new();
        }
        return quote! {
            #[automatically_derived]
            impl #impl_generics #Private::ToolOutput for #ident #ty_generics #where_clause {
                const OUTPUT_SCHEMA: #Private::SchemaNode = #Private::SchemaNode::any();
            }
        };
    }
    let is_struct = matches!(input.data, Data::Struct(_));
    let schema = if is_struct {
        quote!(#Private::SchemaNode::object(&[]).closed())
    } else {
        quote!(#Private::SchemaNode::any())
    };
    let root = is_struct.then(|| {
        quote! {
            #[automatically_derived]
            impl #impl_generics #Private::ToolArgsRoot for #ident #ty_generics #where_clause {}
        }
    });
    quote! {
        #[automatically_derived]
        impl #impl_generics #Private::ToolArgs for #ident #ty_generics #where_clause {
            const SCHEMA: #Private::SchemaNode = #schema;
        }
        #root
    }
}
