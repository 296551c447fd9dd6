#[allow(clippy::needless_pass_by_value)]
fn add(AddArgs { a, b }: AddArgs) -> i64 {
    a + b
}
/// The `#[tool]` `add`.
#[allow(non_camel_case_types)]
struct add {}
#[automatically_derived]
impl ::pedelec::__private::Tool for add {
    const NAME: &'static ::core::primitive::str = "add";
    const DESCRIPTION: &'static ::core::primitive::str = concat!(
        "Add two numbers.", " Pure."
    );
    const OUTPUT_SCHEMA: ::pedelec::__private::Option<
        ::pedelec::__private::OutputSchema,
    > = {
        use ::pedelec::__private::NoToolOutput as _;
        ::pedelec::__private::OutputProbe::<
            <Self as ::pedelec::__private::Tool>::Output,
        >::OUTPUT_SCHEMA
    };
    type Args = AddArgs;
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
        ::pedelec::__private::blocking_value(move || add(__pedelec_args))
    }
}
#[automatically_derived]
impl add {
    /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
    /// description, argsSchema and timeout, with this function as its inline handler.
    #[must_use]
    pub fn definition() -> ::pedelec::__private::ToolDefinition {
        ::pedelec::__private::ToolDefinition::of::<Self>()
    }
}
const _: () = ::pedelec::__private::check_description(
    <add as ::pedelec::__private::Tool>::DESCRIPTION,
);
const _: () = ::pedelec::__private::check_args::<add>();
