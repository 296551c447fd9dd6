#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolArgs for UpdateCounterArgs {
    const SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::named!(
        "UpdateCounterArgs", ::pedelec::__private::SchemaNode::object(const { &
        [::pedelec::__private::Property::new("delta",
        ::pedelec::__private::arg::maximum(::pedelec::__private::arg::minimum(< i32 as
        ::pedelec::__private::ToolArgs > ::SCHEMA
        .with_description("How much to add; negative to subtract."),
        ::pedelec::__private::Num::Int(- 100)), ::pedelec::__private::Num::Int(100)), ! <
        i32 as ::pedelec::__private::ToolArgs > ::OPTIONAL),
        ::pedelec::__private::Property::new("reasonText", < Option < String > as
        ::pedelec::__private::ToolArgs > ::SCHEMA
        .with_description("Shown next to the counter."), ! < Option < String > as
        ::pedelec::__private::ToolArgs > ::OPTIONAL)] })
        .with_description("Update the visible counter by `delta`.").closed()
    );
}
#[automatically_derived]
impl ::pedelec::__private::ToolArgsRoot for UpdateCounterArgs {}
