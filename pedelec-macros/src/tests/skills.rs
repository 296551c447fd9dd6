//! `skills![]` expansions.

use quote::quote;

use super::snapshot;

#[test]
fn counter() {
    snapshot(
        "skills_counter",
        &crate::skills::expand(quote! {
            pub enum ToolName,
            guidance = "Read current state before making changes.",
            tools = [get_current_page, update_counter],
        }),
    );
}

#[test]
fn renamed_and_documented() {
    snapshot(
        "skills_renamed",
        &crate::skills::expand(quote! {
            /// The browser's tools.
            pub(crate) enum BrowserTool,
            guidance = GUIDANCE,
            tools = [nav::open_url as Open, read_page,],
        }),
    );
}
