//! Raw schemas (DESIGN §16): a tool schema in full JSON Schema 2020-12 (`allOf`/`anyOf`,
//! `if`/`then`/`else`, `$anchor`, `dependentRequired`, …), as people write it, kept
//! verbatim and validated by a maintained 2020-12 validator (the `jsonschema` crate, feature
//! `raw-schemas`). Beside it the schema keeps a plain node in the wire subset that accepts
//! at least every value the raw one accepts (see `schema::lenient`): what exports, code
//! mode's signatures and search read.
//!
//! Without the feature no raw schema exists: [`RawSchema`] is uninhabited, so the code that
//! asks "is this schema raw?" is the same in both builds.

#[cfg(feature = "raw-schemas")]
pub(crate) use imp::RawSchema;
#[cfg(not(feature = "raw-schemas"))]
use {
    super::{ValidationErrors, options::ValidationOptions},
    serde_json::Value,
};

/// No raw schema without the `raw-schemas` feature.
#[cfg(not(feature = "raw-schemas"))]
#[derive(Debug)]
pub(crate) enum RawSchema {}

#[cfg(not(feature = "raw-schemas"))]
impl RawSchema {
    pub(crate) fn json(&self) -> &Value {
        match *self {}
    }

    pub(crate) fn validated(
        &self,
        _: Value,
        _: ValidationOptions,
    ) -> Result<Value, ValidationErrors> {
        match *self {}
    }

    pub(crate) fn validate(&self, _: &Value, _: ValidationOptions) -> Result<(), ValidationErrors> {
        match *self {}
    }

    pub(crate) fn is_valid(&self, _: &Value, _: ValidationOptions) -> bool {
        match *self {}
    }
}

#[cfg(feature = "raw-schemas")]
mod imp {
    use std::fmt;

    use serde_json::{Map, Value};

    use super::super::format::check_format;
    use super::super::options::ValidationOptions;
    use super::super::{ASSERTED_FORMATS, ValidationErrors};
    use crate::error::Problem;

    /// A raw schema: its JSON, and its validators (one asserting `format` with pedelec's own
    /// checks, as a session validates; one taking `format` as an annotation).
    pub(crate) struct RawSchema {
        json: Value,
        asserting: jsonschema::Validator,
        plain: jsonschema::Validator,
    }

    impl fmt::Debug for RawSchema {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.debug_struct("RawSchema")
                .field("json", &self.json)
                .finish_non_exhaustive()
        }
    }

    impl RawSchema {
        /// Builds the validators of `json` (2020-12, no remote references).
        ///
        /// # Errors
        /// What the validator could not build, with the schema location it names.
        pub(crate) fn new(json: Value) -> Result<RawSchema, (String, String)> {
            let plain = options(false).build(&json).map_err(build_error)?;
            let asserting = options(true).build(&json).map_err(build_error)?;
            Ok(RawSchema {
                json,
                asserting,
                plain,
            })
        }

        /// The schema as written (after the lenient reader's repairs).
        pub(crate) fn json(&self) -> &Value {
            &self.json
        }

        fn validator(&self, options: ValidationOptions) -> &jsonschema::Validator {
            if options.assert_formats {
                &self.asserting
            } else {
                &self.plain
            }
        }

        /// `args` when valid; with [`ValidationOptions::null_as_absent`], a `null` given
        /// for a declared property its object does not require is taken as absent when the
        /// value is valid only without it (and then removed).
        pub(crate) fn validated(
            &self,
            args: Value,
            options: ValidationOptions,
        ) -> Result<Value, ValidationErrors> {
            let validator = self.validator(options);
            if validator.is_valid(&args) {
                return Ok(args);
            }
            if options.null_as_absent {
                let mut stripped = args.clone();
                if strip_nulls(&mut stripped, &self.json, &self.json, 0)
                    && validator.is_valid(&stripped)
                {
                    return Ok(stripped);
                }
            }
            Err(errors(validator, &args))
        }

        pub(crate) fn validate(
            &self,
            args: &Value,
            options: ValidationOptions,
        ) -> Result<(), ValidationErrors> {
            if self.validator(options).is_valid(args) {
                return Ok(());
            }
            self.validated(args.clone(), options).map(drop)
        }

        pub(crate) fn is_valid(&self, args: &Value, options: ValidationOptions) -> bool {
            self.validate(args, options).is_ok()
        }
    }

    /// 2020-12 whatever `$schema` says (a tool schema is 2020-12 in MCP), formats asserted
    /// with pedelec's checks or not at all, patterns as ECMA-262 regexes.
    fn options(assert_formats: bool) -> jsonschema::ValidationOptions<'static> {
        let mut options = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(assert_formats);
        if assert_formats {
            for &name in ASSERTED_FORMATS {
                options =
                    options.with_format(name, move |s: &str| check_format(name, s).unwrap_or(true));
            }
        }
        options
    }

    fn build_error(e: jsonschema::ValidationError<'_>) -> (String, String) {
        (e.instance_path().as_str().to_owned(), e.to_string())
    }

    /// Every error (at most [`ValidationErrors::LIMIT`]), each at its pointer into the args.
    fn errors(validator: &jsonschema::Validator, args: &Value) -> ValidationErrors {
        let mut problems: Vec<Problem> = validator
            .iter_errors(args)
            .take(ValidationErrors::LIMIT)
            .map(|e| {
                Problem::at(e.instance_path().as_str(), e.to_string())
                    .rule(keyword(e.kind().keyword()))
            })
            .collect();
        if problems.is_empty() {
            // `is_valid` and `iter_errors` disagreeing would be the validator's bug; never
            // report an empty list.
            problems.push(Problem::at("", "the arguments do not match the schema"));
        }
        ValidationErrors::from_errors(problems)
    }

    /// The keyword as a `'static` name (a [`Problem`]'s rule), `""` when it is not a
    /// 2020-12 keyword.
    fn keyword(name: &str) -> &'static str {
        const KEYWORDS: &[&str] = &[
            "additionalItems",
            "additionalProperties",
            "allOf",
            "anyOf",
            "const",
            "contains",
            "contentEncoding",
            "contentMediaType",
            "dependentRequired",
            "dependentSchemas",
            "enum",
            "exclusiveMaximum",
            "exclusiveMinimum",
            "false",
            "format",
            "if",
            "items",
            "maxContains",
            "maxItems",
            "maxLength",
            "maxProperties",
            "maximum",
            "minContains",
            "minItems",
            "minLength",
            "minProperties",
            "minimum",
            "multipleOf",
            "not",
            "oneOf",
            "pattern",
            "patternProperties",
            "prefixItems",
            "propertyNames",
            "$ref",
            "required",
            "type",
            "unevaluatedItems",
            "unevaluatedProperties",
            "uniqueItems",
        ];
        KEYWORDS.iter().find(|k| **k == name).copied().unwrap_or("")
    }

    /// Deeper than this, [`strip_nulls`] stops (validation bounds an instance's depth).
    const MAX_DEPTH: usize = 64;

    /// Removes, in place, every `null` given for a property that its object's schema
    /// declares in `properties` and does not list in `required`, following `properties`,
    /// `items` and local `$ref`s. Whether anything was removed.
    fn strip_nulls(value: &mut Value, schema: &Value, root: &Value, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        let Value::Object(node) = schema else {
            return false;
        };
        let mut changed = false;
        if let Some(Value::String(reference)) = node.get("$ref")
            && let Some(target) = reference.strip_prefix('#').and_then(|p| root.pointer(p))
        {
            changed |= strip_nulls(value, target, root, depth + 1);
        }
        match value {
            Value::Object(map) => {
                let Some(Value::Object(props)) = node.get("properties") else {
                    return changed;
                };
                let required = required_of(node);
                let before = map.len();
                map.retain(|k, v| !(v.is_null() && props.contains_key(k) && !required(k)));
                changed |= map.len() != before;
                for (k, v) in map.iter_mut() {
                    if let Some(sub) = props.get(k) {
                        changed |= strip_nulls(v, sub, root, depth + 1);
                    }
                }
            }
            Value::Array(items) => {
                if let Some(sub) = node.get("items") {
                    for v in items {
                        changed |= strip_nulls(v, sub, root, depth + 1);
                    }
                }
            }
            _ => {}
        }
        changed
    }

    fn required_of(node: &Map<String, Value>) -> impl Fn(&str) -> bool + '_ {
        let names = node.get("required").and_then(Value::as_array);
        move |k| names.is_some_and(|names| names.iter().any(|n| n == k))
    }
}
