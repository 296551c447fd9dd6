//! What `#[arg(...)]` on a field compiles to: one `const fn` per keyword, applied to the
//! schema of the field's type.
//!
//! Not public API (`#[derive(ToolArgs)]` calls it through `pedelec::__private::arg`).
//!
//! The derive checks every constraint it can while it expands: the keyword fits the field's
//! kind, bounds are ordered, a `pattern` compiles, a `default` matches. It can only do so when
//! it recognises the field's type by name (`String`, `u8`, `Vec<_>`, …). For any other type (a
//! type alias, a user type, a generic parameter, a `#[arg(schema = …)]` override) the checks
//! run here instead, while the compiler evaluates the schema constant: a failed check panics
//! with a message, which rustc reports as a compile error on the `#[arg(...)]` tokens (the
//! derive spans the call there).
//!
//! The rules themselves (bounds that leave a value, `min_length <= max_length`,
//! `multiple_of > 0`, a `default` within them) are `pedelec_rules::constraint`'s, which the
//! builders and the derive call too. Beyond the builders' own checks, a constraint must
//! *narrow* the type's schema: `#[arg(maximum = 1000)]` on a type whose schema already says
//! `maximum: 255` would replace the bound and describe values the type cannot deserialize.

use std::cmp::Ordering;

use pedelec_rules::{Number, constraint};

use super::node::{
    AdditionalProperties, Literal, SchemaNode, SchemaRef, Str, cow_slice, str_of, target,
};

/// `description` (a field's doc comment or `#[arg(description = "…")]`): replaces the type's.
#[must_use]
pub const fn description(schema: SchemaNode, description: &'static str) -> SchemaNode {
    schema.with_description(description)
}

/// `minimum`
#[must_use]
pub const fn minimum(schema: SchemaNode, n: Number) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_numeric_kind(),
        "`minimum` applies to number and integer schemas only"
    );
    if let Some(own) = schema.minimum {
        assert!(
            !n.lt(own),
            "`minimum` is below the field type's own `minimum`; a constraint can only narrow the type's range"
        );
    }
    // The builder checks that the bounds still leave a value.
    schema.with_minimum(n)
}

/// `maximum`
#[must_use]
pub const fn maximum(schema: SchemaNode, n: Number) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_numeric_kind(),
        "`maximum` applies to number and integer schemas only"
    );
    if let Some(own) = schema.maximum {
        assert!(
            !own.lt(n),
            "`maximum` is above the field type's own `maximum`; a constraint can only narrow the type's range"
        );
    }
    // The builder checks that the bounds still leave a value.
    schema.with_maximum(n)
}

/// `exclusiveMinimum`
#[must_use]
pub const fn exclusive_minimum(schema: SchemaNode, n: Number) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_numeric_kind(),
        "`exclusive_minimum` applies to number and integer schemas only"
    );
    if let Some(own) = schema.exclusive_minimum {
        assert!(
            !n.lt(own),
            "`exclusive_minimum` is below the field type's own `exclusive_minimum`; a constraint can only narrow the type's range"
        );
    }
    // The builder checks that the bounds still leave a value.
    schema.with_exclusive_minimum(n)
}

/// `exclusiveMaximum`
#[must_use]
pub const fn exclusive_maximum(schema: SchemaNode, n: Number) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_numeric_kind(),
        "`exclusive_maximum` applies to number and integer schemas only"
    );
    if let Some(own) = schema.exclusive_maximum {
        assert!(
            !own.lt(n),
            "`exclusive_maximum` is above the field type's own `exclusive_maximum`; a constraint can only narrow the type's range"
        );
    }
    // The builder checks that the bounds still leave a value.
    schema.with_exclusive_maximum(n)
}

/// `multipleOf`
#[must_use]
pub const fn multiple_of(schema: SchemaNode, n: Number) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_numeric_kind(),
        "`multiple_of` applies to number and integer schemas only"
    );
    if let Some(own) = schema.multiple_of {
        assert!(
            n.is_multiple_of(own),
            "`multiple_of` is not a multiple of the field type's own `multiple_of`; a constraint can only narrow the type's values"
        );
    }
    schema.with_multiple_of(n)
}

/// `minLength`
#[must_use]
pub const fn min_length(schema: SchemaNode, n: u64) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_kind(super::SchemaKind::String),
        "`min_length` applies to string schemas only"
    );
    if let Some(own) = schema.min_length {
        assert!(
            n >= own,
            "`min_length` is below the field type's own `min_length`; a constraint can only narrow the type's lengths"
        );
    }
    schema.with_min_length(n)
}

/// `maxLength`
#[must_use]
pub const fn max_length(schema: SchemaNode, n: u64) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_kind(super::SchemaKind::String),
        "`max_length` applies to string schemas only"
    );
    if let Some(own) = schema.max_length {
        assert!(
            n <= own,
            "`max_length` is above the field type's own `max_length`; a constraint can only narrow the type's lengths"
        );
    }
    schema.with_max_length(n)
}

/// `pattern` (the derive has already checked that it compiles).
#[must_use]
pub const fn pattern(schema: SchemaNode, pattern: &'static str) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_kind(super::SchemaKind::String),
        "`pattern` applies to string schemas only"
    );
    assert!(
        schema.pattern.is_none(),
        "the field type's schema already has a `pattern`, and a schema holds only one"
    );
    schema.with_pattern(pattern)
}

/// `format`
#[must_use]
pub const fn format(schema: SchemaNode, format: &'static str) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_kind(super::SchemaKind::String),
        "`format` applies to string schemas only"
    );
    if let Some(own) = &schema.format {
        assert!(
            pedelec_rules::str_eq(str_of(own), format),
            "the field type's schema already has another `format`"
        );
    }
    schema.with_format(format)
}

/// `x-mcp-header` (the derive has already checked the name).
#[must_use]
pub const fn mcp_header(schema: SchemaNode, name: &'static str) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        matches!(
            schema.kind,
            Some(
                super::SchemaKind::String | super::SchemaKind::Integer | super::SchemaKind::Boolean
            )
        ),
        "`mcp_header` applies to string, integer and boolean fields only: MCP mirrors no number, array or object into a header"
    );
    assert!(
        schema.mcp_header.is_none(),
        "the field type's schema already has an `x-mcp-header`, and a schema holds only one"
    );
    schema.with_mcp_header(name)
}

/// `enum_names`: an elicitation form lists the field's choice titles as the legacy
/// `enumNames` (see [`SchemaNode::with_legacy_enum_names`]).
#[must_use]
pub const fn enum_names(schema: SchemaNode) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        !schema.is_kind(super::SchemaKind::Array),
        "`enum_names` is for a single choice: a multiple choice (an array) always lists its titles as `items.anyOf`, so remove it"
    );
    assert!(
        schema.enum_titles.is_some(),
        "`enum_names` lists the titles of a string enum's variants, and this field's type has none: give its variants `#[arg(title = \"…\")]`"
    );
    schema.with_legacy_enum_names()
}

/// `minItems`
#[must_use]
pub const fn min_items(schema: SchemaNode, n: u64) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_kind(super::SchemaKind::Array),
        "`min_items` applies to array schemas only"
    );
    if let Some(own) = schema.min_items {
        assert!(
            n >= own,
            "`min_items` is below the field type's own `min_items`; a constraint can only narrow the type's lengths"
        );
    }
    schema.with_min_items(n)
}

/// `maxItems`
#[must_use]
pub const fn max_items(schema: SchemaNode, n: u64) -> SchemaNode {
    let schema = schema.materialized();
    assert!(
        schema.is_kind(super::SchemaKind::Array),
        "`max_items` applies to array schemas only"
    );
    if let Some(own) = schema.max_items {
        assert!(
            n <= own,
            "`max_items` is above the field type's own `max_items`; a constraint can only narrow the type's lengths"
        );
    }
    schema.with_max_items(n)
}

/// `uniqueItems: true`
#[must_use]
pub const fn unique_items(schema: SchemaNode) -> SchemaNode {
    let schema = schema.materialized();
    schema.with_unique_items(true)
}

/// `default`: the value must be valid against the schema built so far (its kind, `enum`,
/// bounds, lengths, item counts, `oneOf` branches; a `pattern` is checked by the derive).
#[must_use]
pub const fn default(schema: SchemaNode, value: Literal) -> SchemaNode {
    let schema = schema.materialized();
    if let Err(message) = validate(&schema, &value) {
        panic!("{}", message);
    }
    schema.with_default(value)
}

// ----- checks -----

const fn schema_ref(r: &SchemaRef) -> &SchemaNode {
    match r {
        SchemaRef::Static(node) => node,
        SchemaRef::Owned(node) => node,
    }
}

/// JSON equality: `1 == 1.0`, object key order does not matter.
const fn literal_eq(a: &Literal, b: &Literal) -> bool {
    match (a, b) {
        (Literal::Null, Literal::Null) => true,
        (Literal::Bool(a), Literal::Bool(b)) => *a == *b,
        (Literal::Num(a), Literal::Num(b)) => matches!(a.exact_cmp(*b), Some(Ordering::Equal)),
        (Literal::Str(a), Literal::Str(b)) => pedelec_rules::str_eq(str_of(a), str_of(b)),
        (Literal::Array(a), Literal::Array(b)) => {
            let (a, b) = (cow_slice(a), cow_slice(b));
            if a.len() != b.len() {
                return false;
            }
            let mut i = 0;
            while i < a.len() {
                if !literal_eq(&a[i], &b[i]) {
                    return false;
                }
                i += 1;
            }
            true
        }
        (Literal::Object(a), Literal::Object(b)) => {
            let (a, b) = (cow_slice(a), cow_slice(b));
            if a.len() != b.len() {
                return false;
            }
            let mut i = 0;
            while i < a.len() {
                match entry(b, str_of(&a[i].0)) {
                    Some(value) if literal_eq(&a[i].1, value) => {}
                    _ => return false,
                }
                i += 1;
            }
            true
        }
        _ => false,
    }
}

const fn entry<'a>(entries: &'a [(Str, Literal)], key: &str) -> Option<&'a Literal> {
    let mut i = 0;
    while i < entries.len() {
        if pedelec_rules::str_eq(str_of(&entries[i].0), key) {
            return Some(&entries[i].1);
        }
        i += 1;
    }
    None
}

/// Checks `value` against `schema`; the error says what does not match.
const fn validate(schema: &SchemaNode, value: &Literal) -> Result<(), &'static str> {
    let schema = target(schema);
    if let Some(values) = &schema.enum_values {
        let values = cow_slice(values);
        let mut found = false;
        let mut i = 0;
        while i < values.len() {
            if literal_eq(&values[i], value) {
                found = true;
            }
            i += 1;
        }
        if !found {
            return Err("`default` is not one of the values the field's schema allows (`enum`)");
        }
    }
    if let Some(branches) = &schema.one_of {
        let branches = cow_slice(branches);
        let mut matches = 0;
        let mut i = 0;
        while i < branches.len() {
            if validate(&branches[i], value).is_ok() {
                matches += 1;
            }
            i += 1;
        }
        if matches == 0 {
            return Err("`default` matches none of the field schema's `oneOf` branches");
        }
        if matches > 1 {
            return Err("`default` matches more than one of the field schema's `oneOf` branches");
        }
    }
    let Some(kind) = schema.kind else {
        return Ok(());
    };
    match (kind, value) {
        (super::SchemaKind::String, Literal::Str(s)) => validate_string(schema, str_of(s)),
        (super::SchemaKind::String, _) => {
            Err("`default` must be a string: the field's schema is a string")
        }
        (super::SchemaKind::Boolean, Literal::Bool(_)) => Ok(()),
        (super::SchemaKind::Boolean, _) => {
            Err("`default` must be `true` or `false`: the field's schema is a boolean")
        }
        (super::SchemaKind::Integer, Literal::Num(n)) => {
            if n.is_integer() {
                validate_number(schema, *n)
            } else {
                Err("`default` must be an integer: the field's schema is an integer")
            }
        }
        (super::SchemaKind::Integer, _) => {
            Err("`default` must be an integer: the field's schema is an integer")
        }
        (super::SchemaKind::Number, Literal::Num(n)) => validate_number(schema, *n),
        (super::SchemaKind::Number, _) => {
            Err("`default` must be a number: the field's schema is a number")
        }
        (super::SchemaKind::Array, Literal::Array(items)) => {
            validate_array(schema, cow_slice(items))
        }
        (super::SchemaKind::Array, _) => {
            Err("`default` must be an array: the field's schema is an array")
        }
        (super::SchemaKind::Object, Literal::Object(entries)) => {
            validate_object(schema, cow_slice(entries))
        }
        (super::SchemaKind::Object, _) => {
            Err("`default` must be an object: the field's schema is an object")
        }
    }
}

const fn validate_string(schema: &SchemaNode, s: &str) -> Result<(), &'static str> {
    match constraint::check_length(
        constraint::char_count(s),
        schema.min_length,
        schema.max_length,
    ) {
        Ok(()) => Ok(()),
        Err(problem) => Err(problem.summary()),
    }
}

const fn validate_number(schema: &SchemaNode, n: Number) -> Result<(), &'static str> {
    match constraint::check_number(n, &schema.range(), schema.multiple_of) {
        Ok(()) => Ok(()),
        Err(problem) => Err(problem.summary()),
    }
}

const fn validate_array(schema: &SchemaNode, items: &[Literal]) -> Result<(), &'static str> {
    if let Err(problem) =
        constraint::check_item_count(items.len() as u64, schema.min_items, schema.max_items)
    {
        return Err(problem.summary());
    }
    if let Some(true) = schema.unique_items {
        let mut i = 0;
        while i < items.len() {
            let mut j = i + 1;
            while j < items.len() {
                if literal_eq(&items[i], &items[j]) {
                    return Err(
                        "`default` has duplicate items, but the field's schema requires unique items",
                    );
                }
                j += 1;
            }
            i += 1;
        }
    }
    if let Some(item_schema) = &schema.items {
        let item_schema = schema_ref(item_schema);
        let mut i = 0;
        while i < items.len() {
            if let Err(message) = validate(item_schema, &items[i]) {
                return Err(message);
            }
            i += 1;
        }
    }
    Ok(())
}

const fn validate_object(
    schema: &SchemaNode,
    entries: &[(Str, Literal)],
) -> Result<(), &'static str> {
    let properties = match &schema.properties {
        Some(properties) => cow_slice(properties),
        None => &[],
    };
    let mut i = 0;
    while i < properties.len() {
        let property = &properties[i];
        match entry(entries, str_of(&property.name)) {
            Some(value) => {
                if let Err(message) = validate(&property.schema, value) {
                    return Err(message);
                }
            }
            None if property.required => {
                return Err("`default` lacks a property the field's schema requires");
            }
            None => {}
        }
        i += 1;
    }
    let mut i = 0;
    while i < entries.len() {
        let key = str_of(&entries[i].0);
        let mut known = false;
        let mut j = 0;
        while j < properties.len() {
            if pedelec_rules::str_eq(str_of(&properties[j].name), key) {
                known = true;
            }
            j += 1;
        }
        if !known {
            match &schema.additional_properties {
                Some(AdditionalProperties::Bool(false)) => {
                    return Err("`default` has a property the field's schema does not allow");
                }
                Some(AdditionalProperties::Schema(values)) => {
                    if let Err(message) = validate(schema_ref(values), &entries[i].1) {
                        return Err(message);
                    }
                }
                Some(AdditionalProperties::Bool(true)) | None => {}
            }
        }
        i += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{Property, ToolArgs};
    use serde_json::json;
    use std::borrow::Cow;

    const fn strs(values: &'static [Literal]) -> Literal {
        Literal::Array(Cow::Borrowed(values))
    }

    #[test]
    fn constraints_narrow_the_type_schema() {
        const PERCENT: SchemaNode = maximum(<u8 as ToolArgs>::SCHEMA, Number::Int(100));
        assert_eq!(
            PERCENT.to_json(),
            json!({"type": "integer", "minimum": 0, "maximum": 100})
        );
        const NAME: SchemaNode = default(
            pattern(
                max_length(min_length(SchemaNode::string(), 1), 8),
                "^[a-z]+$",
            ),
            Literal::str("ada"),
        );
        assert_eq!(
            NAME.to_json(),
            json!({"type": "string", "default": "ada", "minLength": 1, "maxLength": 8, "pattern": "^[a-z]+$"})
        );
        const TAGS: SchemaNode = default(
            unique_items(max_items(<Vec<String> as ToolArgs>::SCHEMA, 3)),
            strs(const { &[Literal::str("a"), Literal::str("b")] }),
        );
        assert_eq!(
            TAGS.to_json(),
            json!({"type": "array", "default": ["a", "b"], "items": {"type": "string"}, "maxItems": 3, "uniqueItems": true})
        );
    }

    fn check(schema: &SchemaNode, value: serde_json::Value) -> Result<(), &'static str> {
        validate(schema, &Literal::from_value(&value))
    }

    #[test]
    fn defaults_are_validated() {
        let byte = <u8 as ToolArgs>::SCHEMA;
        assert_eq!(check(&byte, json!(255)), Ok(()));
        assert_eq!(check(&byte, json!(2.0)), Ok(()));
        assert!(check(&byte, json!(256)).unwrap_err().contains("`maximum`"));
        assert!(check(&byte, json!(-1)).unwrap_err().contains("`minimum`"));
        assert!(check(&byte, json!(1.5)).unwrap_err().contains("integer"));
        assert!(check(&byte, json!("1")).unwrap_err().contains("integer"));
        let even = multiple_of(SchemaNode::number(), Number::Float(0.5));
        assert_eq!(check(&even, json!(2.5)), Ok(()));
        assert!(check(&even, json!(2.3)).unwrap_err().contains("multiple"));
        let open = exclusive_minimum(SchemaNode::number(), Number::Int(0));
        assert!(
            check(&open, json!(0))
                .unwrap_err()
                .contains("exclusive_minimum")
        );
        let letter = <char as ToolArgs>::SCHEMA;
        assert_eq!(check(&letter, json!("é")), Ok(()));
        assert!(
            check(&letter, json!("ab"))
                .unwrap_err()
                .contains("max_length")
        );
        assert!(
            check(&letter, json!(""))
                .unwrap_err()
                .contains("min_length")
        );
        const SPEED: SchemaNode = SchemaNode::string()
            .with_enum_values(const { &[Literal::str("slow"), Literal::str("fast")] });
        assert_eq!(check(&SPEED, json!("fast")), Ok(()));
        assert!(
            check(&SPEED, json!("medium"))
                .unwrap_err()
                .contains("`enum`")
        );
        let set = <std::collections::BTreeSet<u8> as ToolArgs>::SCHEMA;
        assert!(
            check(&set, json!([1, 1.0]))
                .unwrap_err()
                .contains("duplicate")
        );
        assert!(
            check(&set, json!([1, 300]))
                .unwrap_err()
                .contains("`maximum`")
        );
        const EITHER: SchemaNode = SchemaNode::one_of(
            const {
                &[
                    SchemaNode::string(),
                    SchemaNode::integer(),
                    SchemaNode::number(),
                ]
            },
        );
        assert_eq!(check(&EITHER, json!("x")), Ok(()));
        assert!(
            check(&EITHER, json!(1))
                .unwrap_err()
                .contains("more than one")
        );
        assert!(check(&EITHER, json!(true)).unwrap_err().contains("none"));
        const POINT: SchemaNode = SchemaNode::object(
            const {
                &[
                    Property::new("x", SchemaNode::integer(), true),
                    Property::new("y", SchemaNode::integer(), false),
                ]
            },
        )
        .closed();
        assert_eq!(check(&POINT, json!({"x": 1})), Ok(()));
        assert!(
            check(&POINT, json!({"y": 1}))
                .unwrap_err()
                .contains("requires")
        );
        assert!(
            check(&POINT, json!({"x": 1, "z": 1}))
                .unwrap_err()
                .contains("does not allow")
        );
        assert!(
            check(&POINT, json!({"x": "1"}))
                .unwrap_err()
                .contains("integer")
        );
    }

    #[test]
    fn numbers_compare_exactly_in_const() {
        const ORDER: Option<Ordering> = Number::Uint(u64::MAX).exact_cmp(Number::Float(1.8e19));
        assert_eq!(ORDER, Some(Ordering::Greater));
        assert!(literal_eq(
            &Literal::from_value(&json!({"a": [1, "x"], "b": true})),
            &Literal::from_value(&json!({"b": true, "a": [1.0, "x"]}))
        ));
    }
}
