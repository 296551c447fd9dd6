/// Read the current page: its title and the visible counter.
#[allow(clippy::needless_pass_by_value)]
pub fn get_current_page(ctx: ToolCallContext) -> Result<Page, ToolError> {
    Ok(Page {
        title: "Counter",
        counter: ctx.state::<Counter>()?.get(),
    })
}
/// Read the current page: its title and the visible counter.
#[allow(non_camel_case_types)]
pub struct get_current_page {}
#[automatically_derived]
impl ::pedelec::__private::Tool for get_current_page {
    const NAME: &'static ::core::primitive::str = "get_current_page";
    const DESCRIPTION: &'static ::core::primitive::str = "Read the current page: its title and the visible counter.";
    const OUTPUT_SCHEMA: ::pedelec::__private::Option<
        ::pedelec::__private::OutputSchema,
    > = {
        use ::pedelec::__private::NoToolOutput as _;
        ::pedelec::__private::OutputProbe::<
            <Self as ::pedelec::__private::Tool>::Output,
        >::OUTPUT_SCHEMA
    };
    type Args = ::pedelec::__private::NoArgs;
    type Output = Page;
    fn call(
        __pedelec_args: Self::Args,
        __pedelec_ctx: ::pedelec::__private::ToolCallContext,
    ) -> impl ::core::future::Future<
        Output = ::pedelec::__private::Result<
            Self::Output,
            ::pedelec::__private::ToolError,
        >,
    > + ::core::marker::Send + 'static {
        let __pedelec_function = get_current_page;
        ::pedelec::__private::blocking_result(move || ::pedelec::__private::into_tool_result(
            ::core::convert::identity(__pedelec_function(__pedelec_ctx)),
        ))
    }
}
#[automatically_derived]
impl get_current_page {
    /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
    /// description, argsSchema and timeout, with this function as its inline handler.
    #[must_use]
    pub fn definition() -> ::pedelec::__private::ToolDefinition {
        ::pedelec::__private::ToolDefinition::of::<Self>()
    }
}
