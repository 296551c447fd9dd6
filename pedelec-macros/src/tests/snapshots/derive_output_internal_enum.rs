#[automatically_derived]
#[allow(clippy::absolute_paths)]
impl ::pedelec::__private::ToolOutput for Event {
    const OUTPUT_SCHEMA: ::pedelec::__private::SchemaNode = ::pedelec::__private::SchemaNode::one_of(const {
        &[
            ::pedelec::__private::SchemaNode::object(const {
                    &[
                        ::pedelec::__private::Property::new(
                            "kind",
                            ::pedelec::__private::SchemaNode::string()
                                .with_enum_values(const {
                                    &[::pedelec::__private::Literal::str("Idle")]
                                }),
                            true,
                        ),
                    ]
                })
                .closed(),
            ::pedelec::__private::SchemaNode::object(const {
                    &[
                        ::pedelec::__private::Property::new(
                            "kind",
                            ::pedelec::__private::SchemaNode::string()
                                .with_enum_values(const {
                                    &[::pedelec::__private::Literal::str("Moved")]
                                }),
                            true,
                        ),
                        ::pedelec::__private::Property::new(
                            "to",
                            <String as ::pedelec::__private::ToolOutput>::OUTPUT_SCHEMA,
                            true,
                        ),
                    ]
                })
                .closed(),
        ]
    });
}
const _: () = ::core::mem::forget(
    <Event as ::pedelec::__private::ToolOutput>::OUTPUT_SCHEMA,
);
