//! One difference between a lock file and the current tools: [`Change`] and its
//! [`ChangeKind`].

use std::fmt;

use serde_json::Value;

/// One difference between the locked tools and the current ones: which tool, where (a JSON
/// pointer into the tool's lock entry: `/argsSchema/properties/delta/maximum`; empty for the
/// whole tool), what, and whether it breaks a caller or a consumer of results.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Change {
    /// The tool's wire name (the locked name for a removed or renamed tool).
    pub tool: String,
    /// Where, in the tool's lock entry (RFC 6901).
    pub pointer: String,
    /// What changed.
    pub kind: ChangeKind,
    /// Whether the change breaks callers (of the arguments) or consumers (of the results).
    pub breaking: bool,
}

impl Change {
    pub(crate) fn new(tool: &str, pointer: &str, kind: ChangeKind, breaking: bool) -> Self {
        Change {
            tool: tool.to_owned(),
            pointer: pointer.to_owned(),
            kind,
            breaking,
        }
    }
}

impl fmt::Display for Change {
    /// `update_counter /argsSchema/properties/delta/maximum: bound tightened: `maximum` 100
    /// → 50 (breaking)`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.tool)?;
        if !self.pointer.is_empty() {
            write!(f, " at {}", self.pointer)?;
        }
        let side = if self.breaking {
            "breaking"
        } else {
            "compatible"
        };
        write!(f, ": {} ({side})", self.kind)
    }
}

/// What changed. Whether it breaks depends on where: an argument's schema may widen (a
/// caller's old arguments stay valid), an output's may narrow (a consumer's old reading
/// stays right); see [`contract`](super) for the rules.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ChangeKind {
    /// A tool that was not locked.
    ToolAdded,
    /// A locked tool that is gone.
    ToolRemoved,
    /// A locked tool that is gone, and a new tool with its description and schemas: renamed.
    ToolRenamed {
        /// The new name.
        to: String,
    },
    /// The tool's version went up: its breaking changes pass.
    VersionRaised {
        /// The locked version.
        from: u32,
        /// The current one.
        to: u32,
    },
    /// The tool's version went down.
    VersionLowered {
        /// The locked version.
        from: u32,
        /// The current one.
        to: u32,
    },
    /// A `description` changed (the tool's, or a schema's).
    DescriptionChanged,
    /// Another annotation changed (`title`, `default`, `examples`, `deprecated`, …).
    AnnotationChanged {
        /// The keyword.
        keyword: String,
    },
    /// The tool's timeout changed.
    TimeoutChanged {
        /// The locked timeout (`None`: Core's default).
        from: Option<u64>,
        /// The current one.
        to: Option<u64>,
    },
    /// The tool's result has an output schema now.
    OutputSchemaAdded,
    /// The tool's result has no output schema any more.
    OutputSchemaRemoved,
    /// A property (an argument, or an output field) was added.
    PropertyAdded {
        /// Whether it is required.
        required: bool,
    },
    /// A property (an argument, or an output field) was removed.
    PropertyRemoved,
    /// A property became required.
    BecameRequired,
    /// A property became optional.
    BecameOptional,
    /// The `type` changed.
    TypeChanged {
        /// The locked type (`any` when there was none).
        from: String,
        /// The current type.
        to: String,
    },
    /// A value was added to an `enum`.
    EnumValueAdded {
        /// The value.
        value: Value,
    },
    /// A value was removed from an `enum`.
    EnumValueRemoved {
        /// The value.
        value: Value,
    },
    /// A constraint now admits fewer values (`minimum` raised, `maxLength` lowered, a
    /// `pattern`, `format` or `enum` added, `additionalProperties` closed, …).
    BoundTightened {
        /// The keyword.
        keyword: String,
        /// Its locked value (`None`: absent).
        from: Option<Value>,
        /// Its current value (`None`: absent).
        to: Option<Value>,
    },
    /// A constraint now admits more values (the opposite of [`BoundTightened`](Self::BoundTightened)).
    BoundLoosened {
        /// The keyword.
        keyword: String,
        /// Its locked value (`None`: absent).
        from: Option<Value>,
        /// Its current value (`None`: absent).
        to: Option<Value>,
    },
    /// A constraint was replaced by one that is neither looser nor tighter for certain (a
    /// `pattern` or `format` replaced, a `multipleOf` that divides neither way).
    BoundChanged {
        /// The keyword.
        keyword: String,
        /// Its locked value.
        from: Option<Value>,
        /// Its current value.
        to: Option<Value>,
    },
    /// A variant was added to a `oneOf` or `anyOf`.
    VariantAdded,
    /// A variant was removed from a `oneOf` or `anyOf`.
    VariantRemoved,
    /// A `$ref` points elsewhere.
    RefChanged {
        /// The locked reference.
        from: String,
        /// The current one.
        to: String,
    },
    /// Another keyword changed, whose effect the check cannot judge (counted as breaking).
    KeywordChanged {
        /// The keyword.
        keyword: String,
        /// Its locked value.
        from: Option<Value>,
        /// Its current value.
        to: Option<Value>,
    },
}

/// A keyword's value as a message shows it: the JSON, or `none`.
struct Shown<'a>(&'a Option<Value>);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(value) => write!(f, "{value}"),
            None => f.write_str("none"),
        }
    }
}

impl fmt::Display for ChangeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use ChangeKind::*;
        match self {
            ToolAdded => f.write_str("tool added"),
            ToolRemoved => f.write_str("tool removed"),
            ToolRenamed { to } => write!(f, "tool renamed to `{to}`"),
            VersionRaised { from, to } => write!(f, "version raised from {from} to {to}"),
            VersionLowered { from, to } => write!(f, "version lowered from {from} to {to}"),
            DescriptionChanged => f.write_str("description changed"),
            AnnotationChanged { keyword } => write!(f, "`{keyword}` changed"),
            TimeoutChanged { from, to } => {
                let ms = |t: &Option<u64>| {
                    t.map_or_else(|| "the default".to_owned(), |t| format!("{t} ms"))
                };
                write!(f, "timeout changed from {} to {}", ms(from), ms(to))
            }
            OutputSchemaAdded => f.write_str("output schema added"),
            OutputSchemaRemoved => f.write_str("output schema removed"),
            PropertyAdded { required: true } => f.write_str("property added, required"),
            PropertyAdded { required: false } => f.write_str("property added, optional"),
            PropertyRemoved => f.write_str("property removed"),
            BecameRequired => f.write_str("property made required"),
            BecameOptional => f.write_str("property made optional"),
            TypeChanged { from, to } => write!(f, "type changed from {from} to {to}"),
            EnumValueAdded { value } => write!(f, "enum value {value} added"),
            EnumValueRemoved { value } => write!(f, "enum value {value} removed"),
            BoundTightened { keyword, from, to } => write!(
                f,
                "bound tightened: `{keyword}` {} → {}",
                Shown(from),
                Shown(to)
            ),
            BoundLoosened { keyword, from, to } => write!(
                f,
                "bound loosened: `{keyword}` {} → {}",
                Shown(from),
                Shown(to)
            ),
            BoundChanged { keyword, from, to } => write!(
                f,
                "bound replaced: `{keyword}` {} → {}",
                Shown(from),
                Shown(to)
            ),
            VariantAdded => f.write_str("variant added"),
            VariantRemoved => f.write_str("variant removed"),
            RefChanged { from, to } => write!(f, "`$ref` changed from {from:?} to {to:?}"),
            KeywordChanged { keyword, from, to } => {
                write!(f, "`{keyword}` changed: {} → {}", Shown(from), Shown(to))
            }
        }
    }
}
