/// List an invoice's lines.
#[allow(clippy::needless_pass_by_value)]
fn list_lines(args: InvoiceArgs) -> Vec<String> {
    args.lines
}
/// List an invoice's lines.
#[allow(non_camel_case_types)]
struct list_lines {}
#[automatically_derived]
impl ::pedelec::__private::Tool for list_lines {
    const NAME: &'static ::core::primitive::str = "list_lines";
    const DESCRIPTION: &'static ::core::primitive::str = "List an invoice's lines.";
    const ANNOTATIONS: ::pedelec::__private::ToolAnnotations = ::pedelec::__private::ToolAnnotations::NONE
        .with_read_only(true);
    const CALLERS: ::pedelec::__private::Option<::pedelec::__private::Callers> = ::pedelec::__private::Some(
        ::pedelec::__private::Callers::PROGRAM,
    );
    const OUTPUT_SCHEMA: ::pedelec::__private::Option<
        ::pedelec::__private::OutputSchema,
    > = {
        use ::pedelec::__private::NoToolOutput as _;
        ::pedelec::__private::OutputProbe::<
            <Self as ::pedelec::__private::Tool>::Output,
        >::OUTPUT_SCHEMA
    };
    type Args = InvoiceArgs;
    type Output = Vec<String>;
    fn call(
        __pedelec_args: Self::Args,
        __pedelec_ctx: ::pedelec::__private::ToolCallContext,
    ) -> impl ::core::future::Future<
        Output = ::pedelec::__private::Result<
            Self::Output,
            ::pedelec::__private::ToolError,
        >,
    > + ::core::marker::Send + 'static {
        ::pedelec::__private::blocking_value(move || list_lines(__pedelec_args))
    }
}
#[automatically_derived]
impl list_lines {
    /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
    /// description, argsSchema and timeout, with this function as its inline handler.
    #[must_use]
    pub fn definition() -> ::pedelec::__private::ToolDefinition {
        ::pedelec::__private::ToolDefinition::of::<Self>()
    }
}
const _: () = ::pedelec::__private::check_args::<list_lines>();
