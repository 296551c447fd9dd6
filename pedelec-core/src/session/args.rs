//! Decoding a call's arguments: the one place where args text becomes a handler's input.
//!
//! [`CompiledArgs::decode`] is the seam for the fast path: today it parses the text to a
//! `Value`, turns `null`s of optional properties into absent ones, validates against the
//! schema and deserializes with `from_value`; a streaming validating deserializer can replace
//! its body without touching any caller.

use std::fmt::Write as _;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::error::{ErrorCode, ToolError};
use crate::schema::{
    AdditionalProperties, SchemaKind, SchemaNode, ToolArgsSchema, ValidationOptions,
};

/// A call's arguments as they arrive: JSON text from a bridge, or a value from an
/// in-process caller.
pub(crate) enum ArgsIn<'a> {
    /// JSON text, already known to be well-formed (it was parsed as part of a message).
    Text(&'a str),
    /// A JSON value.
    Value(Value),
}

/// A tool's argsSchema, prepared once per session.
pub(crate) struct CompiledArgs {
    /// The tool (for messages).
    tool: Arc<str>,
    /// `None` for a tool that is not in the manifest: nothing to validate against.
    schema: Option<ToolArgsSchema>,
}

impl CompiledArgs {
    /// `schema` should be compiled already ([`ToolArgsSchema::compile`]).
    pub(crate) fn new(tool: Arc<str>, schema: ToolArgsSchema) -> Self {
        CompiledArgs {
            tool,
            schema: Some(schema),
        }
    }

    /// For a call of a tool the session does not know (served by the fallback): the args
    /// are only required to be JSON.
    pub(crate) fn unchecked(tool: Arc<str>) -> Self {
        CompiledArgs { tool, schema: None }
    }

    /// Validates and deserializes the args into a handler's argument type.
    pub(crate) fn decode<T: DeserializeOwned>(&self, args: ArgsIn<'_>) -> Result<T, ToolError> {
        let value = self.prepare(args)?;
        serde_json::from_value(value).map_err(|e| {
            let message = e.to_string();
            invalid(
                format!("invalid arguments for `{}`: {message}", self.tool),
                vec![serde_json::json!({"pointer": "", "message": message})],
            )
        })
    }

    /// Parses, normalizes and validates the args, for handlers that take JSON.
    pub(crate) fn prepare(&self, args: ArgsIn<'_>) -> Result<Value, ToolError> {
        let mut value = match args {
            ArgsIn::Value(v) => v,
            ArgsIn::Text(text) => serde_json::from_str(text).map_err(|e| {
                let message = format!("the arguments are not valid JSON: {e}");
                invalid(
                    format!("invalid arguments for `{}`: {message}", self.tool),
                    vec![serde_json::json!({"pointer": "", "message": message})],
                )
            })?,
        };
        // No arguments at all counts as `{}`.
        if value.is_null() {
            value = Value::Object(Map::new());
        }
        if let Some(schema) = &self.schema {
            drop_null_optionals(schema.node(), &mut value);
            self.validate(schema, &value)?;
        }
        Ok(value)
    }

    /// Validates against the schema; every error goes into `details`, the first few into
    /// the message (the model reads the message first).
    fn validate(&self, schema: &ToolArgsSchema, value: &Value) -> Result<(), ToolError> {
        let options = ValidationOptions::new().null_as_absent(true);
        schema.validate_with(value, options).map_err(|errors| {
            const SHOWN: usize = 3;
            let all = errors.errors();
            let mut message = format!("invalid arguments for `{}`: ", self.tool);
            for (i, e) in all.iter().take(SHOWN).enumerate() {
                if i > 0 {
                    message.push_str("; ");
                }
                message.push_str(&e.to_string());
            }
            let more = all.len().saturating_sub(SHOWN);
            if errors.truncated() {
                let _ = write!(message, " (and more than {more} other errors)");
            } else if more > 0 {
                let _ = write!(message, " (and {more} more)");
            }
            let details =
                serde_json::to_value(&errors).unwrap_or_else(|_| serde_json::json!({"errors": []}));
            ToolError::with_code(ErrorCode::ToolArgsInvalid, message).details(details)
        })
    }
}

fn invalid(message: String, errors: Vec<Value>) -> ToolError {
    ToolError::with_code(ErrorCode::ToolArgsInvalid, message)
        .details(serde_json::json!({ "errors": errors }))
}

/// Removes `"key": null` where `key` is an optional property of the object's schema: a
/// model that writes `null` for an argument it does not want to give means "absent".
/// Recurses through properties, array items and map values. Under a `oneOf`, a `null` is
/// removed when no object branch requires the key and some branch declares it.
fn drop_null_optionals(node: &SchemaNode, value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(branches) = node.get_one_of() {
                map.retain(|key, v| !(v.is_null() && optional_in_branches(branches, key)));
                return;
            }
            if node.kind() != Some(SchemaKind::Object) {
                return;
            }
            map.retain(|key, v| {
                !(v.is_null() && node.property(key).is_some_and(|p| !p.is_required()))
            });
            for (key, v) in map.iter_mut() {
                if let Some(p) = node.property(key) {
                    drop_null_optionals(p.schema(), v);
                } else if let Some(AdditionalProperties::Schema(s)) =
                    node.get_additional_properties()
                {
                    drop_null_optionals(s, v);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = node.get_items() {
                for v in items {
                    drop_null_optionals(item, v);
                }
            }
        }
        _ => {}
    }
}

fn optional_in_branches(branches: &[SchemaNode], key: &str) -> bool {
    let mut declared = false;
    for b in branches {
        if let Some(p) = b.property(key) {
            if p.is_required() {
                return false;
            }
            declared = true;
        }
        if b.required().any(|r| r == key) {
            return false;
        }
    }
    declared
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::schema::Property;

    const INNER: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("a", SchemaNode::integer(), true),
                Property::new("b", SchemaNode::string(), false),
            ]
        },
    )
    .closed();

    const ROOT: SchemaNode = SchemaNode::object(
        const {
            &[
                Property::new("x", SchemaNode::integer(), true),
                Property::new("y", SchemaNode::string(), false),
                Property::new("inner", INNER, false),
                Property::new("list", SchemaNode::array(const { &INNER }), false),
            ]
        },
    )
    .closed();

    #[test]
    fn nulls_of_optional_properties_become_absent_at_every_level() {
        let mut v = json!({
            "x": null, "y": null,
            "inner": {"a": null, "b": null},
            "list": [{"a": 1, "b": null}, {"a": null}],
            "extra": null
        });
        drop_null_optionals(&ROOT, &mut v);
        assert_eq!(
            v,
            json!({
                "x": null,
                "inner": {"a": null},
                "list": [{"a": 1}, {"a": null}],
                "extra": null
            })
        );
    }

    #[test]
    fn missing_and_null_args_count_as_an_empty_object() {
        let args = CompiledArgs::unchecked("t".into());
        assert_eq!(args.prepare(ArgsIn::Value(Value::Null)).unwrap(), json!({}));
        assert_eq!(args.prepare(ArgsIn::Text("null")).unwrap(), json!({}));
        assert_eq!(
            args.prepare(ArgsIn::Text(r#"{"k":[1]}"#)).unwrap(),
            json!({"k": [1]})
        );
    }

    #[test]
    fn decode_failures_are_args_invalid_with_details() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Args {
            x: i64,
        }
        let args = CompiledArgs::new("t".into(), ToolArgsSchema::from_node(ROOT));
        let err = args
            .decode::<Args>(ArgsIn::Value(json!({"x": "five"})))
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::ToolArgsInvalid);
        assert!(
            err.message().starts_with("invalid arguments for `t`: "),
            "{err}"
        );
        assert!(err.get_details().unwrap()["errors"].is_array());
        let deep = "[".repeat(200) + &"]".repeat(200);
        let err = CompiledArgs::unchecked("t".into())
            .prepare(ArgsIn::Text(&deep))
            .unwrap_err();
        assert!(
            err.message()
                .contains("not valid JSON: recursion limit exceeded"),
            "{err}"
        );
    }
}
