//! The prelude shadows the hygiene tests declare their items among (serde's `test_gen.rs`
//! trick): each name given becomes a unit struct (`shadow!(struct Result, Option)`) or an
//! empty module (`shadow!(mod core, pedelec)`), so an expansion that names one without an
//! absolute path fails to compile.

/// Declares shadows of the names given; see the module docs.
macro_rules! shadow {
    (struct $($name:ident),+ $(,)?) => {
        $(
            #[doc = concat!("Shadows `", stringify!($name), "`.")]
            #[allow(non_camel_case_types)]
            pub struct $name;
        )+
    };
    (mod $($name:ident),+ $(,)?) => {
        $(
            #[doc = concat!("Shadows `", stringify!($name), "`.")]
            pub mod $name {}
        )+
    };
}
