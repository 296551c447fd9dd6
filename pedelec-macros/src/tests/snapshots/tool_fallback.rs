::core::compile_error! {
    "tool name \"bad name\" may contain only ASCII letters, digits, `_`, `.` and `-`; found a space; try `name = \"bad_name\"`"
}
::core::compile_error! {
    "timeout must be a positive integer number of milliseconds, not 0; write a wait limit like `timeout_ms = 5_000`, or remove `timeout_ms` for the default of 60 000 ms"
}
::core::compile_error! {
    "a `#[tool]` function cannot be generic: its argsSchema and result type must be known; use concrete types"
}
/// Checks.
#[allow(clippy::needless_pass_by_value)]
fn check<T>(args: T) -> bool {
    true
}
/// Checks.
#[allow(non_camel_case_types)]
struct check {}
#[automatically_derived]
impl ::pedelec::__private::Tool for check {
    const NAME: &'static ::core::primitive::str = "check";
    const DESCRIPTION: &'static ::core::primitive::str = "Checks.";
    type Args = ::pedelec::__private::NoArgs;
    type Output = ();
    fn call(
        __pedelec_args: Self::Args,
        __pedelec_ctx: ::pedelec::__private::ToolCallContext,
    ) -> impl ::core::future::Future<
        Output = ::pedelec::__private::Result<
            Self::Output,
            ::pedelec::__private::ToolError,
        >,
    > + ::core::marker::Send + 'static {
        ::core::future::pending()
    }
}
#[automatically_derived]
impl check {
    /// The tool's definition (`defineTool()` in the Pedelec Tools API): its name,
    /// description, argsSchema and timeout, with this function as its inline handler.
    #[must_use]
    pub fn definition() -> ::pedelec::__private::ToolDefinition {
        ::pedelec::__private::ToolDefinition::of::<Self>()
    }
}
