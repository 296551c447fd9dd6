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

#[test]
fn namespaced() {
    snapshot(
        "skills_namespaced",
        &crate::skills::expand(quote! {
            namespace = "billing",
            guidance = "Invoices and refunds.",
            tools = [refund_invoice],
        }),
    );
}

#[test]
fn composed() {
    snapshot(
        "skills_composed",
        &crate::skills::expand(quote! {
            guidance = "Back office.",
            include = [billing::ToolName, crm::ToolName as Customers],
            tools = [ping],
        }),
    );
}
