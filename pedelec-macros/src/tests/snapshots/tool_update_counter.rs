/// Update the visible counter by delta.
pub async fn update_counter(
    args: UpdateCounterArgs,
    ctx: ToolCallContext,
) -> Result<CounterValue, ToolError> {
    Ok(CounterValue {
        value: ctx.state::<Counter>()?.add(args.delta),
    })
}
/// Update the visible counter by delta.
#[allow(non_camel_case_types)]
pub struct update_counter {}
#[automatically_derived]
impl ::pedelec::__private::Tool for update_counter {
    const NAME: &'static ::core::primitive::str = "update_counter";
    const DESCRIPTION: &'static ::core::primitive::str = "Update the visible counter by delta.";
    const TIMEOUT_MS: ::pedelec::__private::Option<::core::primitive::u64> = ::pedelec::__private::Some(
        5_000,
    );
    const OUTPUT_SCHEMA: ::pedelec::__private::Option<
        ::pedelec::__private::OutputSchema,
    > = {
        use ::pedelec::__private::NoToolOutput as _;
        ::pedelec::__private::OutputProbe::<
            <Self as ::pedelec::__private::Tool>::Output,
        >::OUTPUT_SCHEMA
    };
    type Args = UpdateCounterArgs;
    type Output = CounterValue;
    fn call(
        __pedelec_args: Self::Args,
        __pedelec_ctx: ::pedelec::__private::ToolCallContext,
    ) -> impl ::core::future::Future<
        Output = ::pedelec::__private::Result<
            Self::Output,
            ::pedelec::__private::ToolError,
        >,
    > + ::core::marker::Send + 'static {
        let __pedelec_function = update_counter;
        ::pedelec::__private::map_output(
            __pedelec_function(__pedelec_args, __pedelec_ctx),
            ::pedelec::__private::into_tool_result,
        )
    }
}
#[automatically_derived]
impl update_counter {
    /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
    /// description, argsSchema and timeout, with this function as its inline handler.
    #[must_use]
    pub fn definition() -> ::pedelec::__private::ToolDefinition {
        ::pedelec::__private::ToolDefinition::of::<Self>()
    }
}
const _: () = ::pedelec::__private::check_args::<update_counter>();
