/// Open a page.
async fn open_page(args: OpenArgs) -> Result<Page, PageError> {
    open(args.url).await
}
/// Open a page.
#[allow(non_camel_case_types)]
struct open_page {}
#[automatically_derived]
impl ::pedelec::__private::Tool for open_page {
    const NAME: &'static ::core::primitive::str = "open_page";
    const DESCRIPTION: &'static ::core::primitive::str = "Open a page.";
    const TITLE: ::pedelec::__private::Option<&'static ::core::primitive::str> = ::pedelec::__private::Some(
        "Open page",
    );
    const ANNOTATIONS: ::pedelec::__private::ToolAnnotations = ::pedelec::__private::ToolAnnotations::NONE
        .with_destructive(false)
        .with_idempotent(true)
        .with_open_world(true);
    const OUTPUT_SCHEMA: ::pedelec::__private::Option<
        ::pedelec::__private::OutputSchema,
    > = {
        use ::pedelec::__private::NoToolOutput as _;
        ::pedelec::__private::OutputProbe::<
            <Self as ::pedelec::__private::Tool>::Output,
        >::OUTPUT_SCHEMA
    };
    type Args = OpenArgs;
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
        let __pedelec_function = open_page;
        ::pedelec::__private::map_output(
            __pedelec_function(__pedelec_args),
            ::pedelec::__private::into_tool_result,
        )
    }
}
#[automatically_derived]
impl open_page {
    /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
    /// description, argsSchema and timeout, with this function as its inline handler.
    #[must_use]
    pub fn definition() -> ::pedelec::__private::ToolDefinition {
        ::pedelec::__private::ToolDefinition::of::<Self>()
    }
}
const _: () = ::pedelec::__private::check_args::<open_page>();
