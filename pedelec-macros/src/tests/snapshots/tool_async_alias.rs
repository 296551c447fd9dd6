#[cfg(feature = "clock")]
pub(crate) async fn now() -> std::io::Result<u64> {
    Ok(0)
}
/// The `#[tool]` `now`.
#[cfg(feature = "clock")]
#[allow(non_camel_case_types)]
pub(crate) struct now {}
#[cfg(feature = "clock")]
#[automatically_derived]
impl ::pedelec::__private::Tool for now {
    const NAME: &'static ::core::primitive::str = "now";
    const DESCRIPTION: &'static ::core::primitive::str = DESCRIPTION;
    const OUTPUT_SCHEMA: ::pedelec::__private::Option<
        ::pedelec::__private::OutputSchema,
    > = {
        use ::pedelec::__private::NoToolOutput as _;
        ::pedelec::__private::OutputProbe::<
            <Self as ::pedelec::__private::Tool>::Output,
        >::OUTPUT_SCHEMA
    };
    type Args = ::pedelec::__private::NoArgs;
    type Output = u64;
    fn call(
        __pedelec_args: Self::Args,
        __pedelec_ctx: ::pedelec::__private::ToolCallContext,
    ) -> impl ::core::future::Future<
        Output = ::pedelec::__private::Result<
            Self::Output,
            ::pedelec::__private::ToolError,
        >,
    > + ::core::marker::Send + 'static {
        let __pedelec_function = now;
        ::pedelec::__private::map_output(
            __pedelec_function(),
            ::pedelec::__private::into_tool_result,
        )
    }
}
#[cfg(feature = "clock")]
#[automatically_derived]
impl now {
    /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
    /// description, argsSchema and timeout, with this function as its inline handler.
    #[must_use]
    pub fn definition() -> ::pedelec::__private::ToolDefinition {
        ::pedelec::__private::ToolDefinition::of::<Self>()
    }
}
#[cfg(feature = "clock")]
const _: () = ::pedelec::__private::check_description(
    <now as ::pedelec::__private::Tool>::DESCRIPTION,
);
