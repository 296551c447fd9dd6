/// Update the visible counter by delta.
async fn update_counter(args: UpdateCounterArgs) -> i64 {
    args.delta
}
/// Update the visible counter by delta.
#[allow(non_camel_case_types)]
struct update_counter {}
#[automatically_derived]
impl ::pedelec::__private::Tool for update_counter {
    const NAME: &'static ::core::primitive::str = "update_counter";
    const DESCRIPTION: &'static ::core::primitive::str = "Update the visible counter by delta.";
    const SCOPES: &'static [&'static ::core::primitive::str] = &[
        "counter:read",
        "counter:write",
    ];
    const MAX_CONCURRENCY: ::pedelec::__private::Option<::core::primitive::u32> = ::pedelec::__private::Some(
        4,
    );
    const ICON: ::pedelec::__private::Option<&'static ::core::primitive::str> = ::pedelec::__private::Some(
        "data:image/svg+xml;base64,PHN2Zy8+",
    );
    const TASK: ::pedelec::__private::TaskSupport = ::pedelec::__private::TaskSupport::Optional;
    const EXAMPLES: &'static [&'static ::core::primitive::str] = &[
        r#"{"delta": 2}"#,
        r#"{"delta": -1}"#,
    ];
    const DEFER: ::core::primitive::bool = true;
    const VERSION: ::core::primitive::u32 = 2;
    const EXACTLY_ONCE: ::core::primitive::bool = true;
    const APPROVAL: ::core::primitive::bool = true;
    fn needs_approval(
        __pedelec_args: &Self::Args,
        __pedelec_caller: ::pedelec::__private::Option<&::pedelec::__private::Caller>,
    ) -> ::core::primitive::bool {
        let __pedelec_decide: fn(
            &Self::Args,
            ::pedelec::__private::Option<&::pedelec::__private::Caller>,
        ) -> ::core::primitive::bool = large_update;
        __pedelec_decide(__pedelec_args, __pedelec_caller)
    }
    const OUTPUT_SCHEMA: ::pedelec::__private::Option<
        ::pedelec::__private::OutputSchema,
    > = {
        use ::pedelec::__private::NoToolOutput as _;
        ::pedelec::__private::OutputProbe::<
            <Self as ::pedelec::__private::Tool>::Output,
        >::OUTPUT_SCHEMA
    };
    type Args = UpdateCounterArgs;
    type Output = i64;
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
        ::pedelec::__private::async_value(__pedelec_function(__pedelec_args))
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
