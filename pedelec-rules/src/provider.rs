//! What each model provider accepts in a tool declaration: name length and characters, the
//! description's length, and the documented limits of its strict mode. One implementation,
//! run by `skills![targets = [...]]` at compile time (in a `const` item) and by
//! `pedelec::export` at run time.
//!
//! The inputs are plain numbers ([`ToolFacts`], [`SetFacts`]) so this crate needs no schema
//! type: `pedelec-core` computes them over a schema with `const fn`s, once for both uses.
//! Sources for every limit are in `research/providers.md` (OpenAI structured outputs,
//! Anthropic strict tool use, Gemini `FunctionDeclaration`, MCP 2025-11-25); the name and
//! tool-count rules cite theirs where they are defined ([`check_name`], [`Provider::max_tools`]).
//! Where sources disagree, the stricter rule is kept.

#![allow(
    clippy::doc_markdown,
    reason = "provider and API names (OpenAI, OpenAPI) are prose here, not code"
)]

use std::fmt;

/// The rules of one provider (both OpenAI APIs, Chat Completions and Responses, share one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Provider {
    /// OpenAI Chat Completions and Responses.
    OpenAi,
    /// Anthropic Messages.
    Anthropic,
    /// Google Gemini, `parametersJsonSchema` (JSON Schema).
    Gemini,
    /// Google Gemini, the older `parameters` (an OpenAPI 3.0 subset).
    GeminiOpenApi,
    /// The Model Context Protocol (`tools/list`).
    Mcp,
}

impl Provider {
    /// Every provider, in the order of [`Provider::NAMES`].
    pub const ALL: [Provider; 5] = [
        Provider::OpenAi,
        Provider::Anthropic,
        Provider::Gemini,
        Provider::GeminiOpenApi,
        Provider::Mcp,
    ];
    /// The names `skills![targets = [...]]` accepts.
    pub const NAMES: [&'static str; 5] = ["openai", "anthropic", "gemini", "gemini_openapi", "mcp"];

    /// The name written in `targets = [...]`.
    #[must_use]
    pub const fn name(self) -> &'static str {
        Provider::NAMES[self as usize]
    }

    /// The provider written `name` in `targets = [...]`.
    #[must_use]
    pub const fn from_name(name: &str) -> Option<Provider> {
        let mut i = 0;
        while i < Provider::NAMES.len() {
            if crate::str_eq(Provider::NAMES[i], name) {
                return Some(Provider::ALL[i]);
            }
            i += 1;
        }
        None
    }

    /// The provider as people write it in prose.
    #[must_use]
    pub const fn title(self) -> &'static str {
        match self {
            Provider::OpenAi => "OpenAI",
            Provider::Anthropic => "Anthropic",
            Provider::Gemini => "Gemini",
            Provider::GeminiOpenApi => "Gemini (OpenAPI `parameters`)",
            Provider::Mcp => "MCP",
        }
    }

    /// Whether the provider has a strict (constrained decoding) mode.
    #[must_use]
    pub const fn has_strict_mode(self) -> bool {
        matches!(self, Provider::OpenAi | Provider::Anthropic)
    }

    /// The longest tool name the provider accepts (after [`provider_byte`] mapping): 64
    /// everywhere, the stricter reading where sources disagree.
    ///
    /// - OpenAI: `^[a-zA-Z0-9_-]{1,64}$` (function `name`, API reference).
    /// - Anthropic: `^[a-zA-Z0-9_-]{1,64}$`
    ///   (<https://platform.claude.com/docs/en/agents-and-tools/tool-use/define-tools>);
    ///   older guides said 128.
    /// - Gemini: "maximum length of 64" (Gemini API v1beta `FunctionDeclaration.name`; Vertex
    ///   AI `aiplatform/v1` `FunctionDeclaration.name`); an older Vertex release said 128.
    /// - MCP: the 2025-11-25 specification says names SHOULD be 1 to 128 characters, but the
    ///   official conformance suite (`src/scenarios/server/tools.ts`, `TOOL_NAME_MAX_LENGTH =
    ///   64`) fails longer ones.
    #[must_use]
    pub const fn max_name_len(self) -> usize {
        64
    }

    /// The most tools one request may declare, where the provider documents a limit.
    ///
    /// OpenAI refuses more than 128 (`400 array_above_max_length`: "Invalid 'tools': array
    /// too long. Expected an array with maximum length 128", quoted in
    /// <https://github.com/zed-industries/zed/issues/32946> and
    /// <https://github.com/vishalmysore/Tools4AI/issues/16>). Gemini's count is documented
    /// as 64 (Vertex AI SDK `FunctionDeclarationsTool`), 128 and 512 in different places:
    /// not enforced until one source settles it.
    #[must_use]
    pub const fn max_tools(self) -> Option<usize> {
        match self {
            Provider::OpenAi => Some(OPENAI_MAX_TOOLS),
            _ => None,
        }
    }

    /// The longest tool description the provider accepts, in characters.
    #[must_use]
    pub const fn max_description_chars(self) -> Option<usize> {
        match self {
            Provider::OpenAi => Some(1024),
            _ => None,
        }
    }

    /// Whether a schema node must close every object (`additionalProperties: false`).
    #[must_use]
    pub const fn requires_closed_objects(self, strict: bool) -> bool {
        strict && self.has_strict_mode()
    }

    /// Whether a schema may refer to a root `$defs` entry with `$ref` (recursive types):
    /// OpenAI (strict mode supports recursive schemas through `$defs`), Gemini's
    /// `parametersJsonSchema` (JSON Schema, `$ref` and `$defs` included), MCP (JSON
    /// Schema) and Anthropic without strict mode; not Anthropic's strict mode (its
    /// structured outputs do not support recursive schemas) nor Gemini's OpenAPI
    /// `parameters` (an OpenAPI 3.0 subset without references).
    #[must_use]
    pub const fn accepts_refs(self, strict: bool) -> bool {
        match self {
            Provider::OpenAi | Provider::Gemini | Provider::Mcp => true,
            Provider::Anthropic => !strict,
            Provider::GeminiOpenApi => false,
        }
    }

    /// Whether `oneOf` must become `anyOf` (rejected, or silently ignored, by the provider).
    #[must_use]
    pub const fn rewrites_one_of(self, strict: bool) -> bool {
        match self {
            Provider::OpenAi | Provider::Anthropic => strict,
            Provider::Gemini | Provider::GeminiOpenApi => true,
            Provider::Mcp => false,
        }
    }
}

/// The byte a tool name's byte becomes in the provider's name: `.` is `_` for OpenAI and
/// Anthropic (their names match `^[a-zA-Z0-9_-]+$`); every other byte of a Pedelec name is
/// accepted everywhere as it is.
#[must_use]
pub const fn provider_byte(provider: Provider, byte: u8) -> u8 {
    match provider {
        Provider::OpenAi | Provider::Anthropic if byte == b'.' => b'_',
        _ => byte,
    }
}

/// Whether the provider accepts `byte` in a tool name (after [`provider_byte`] mapping):
/// ASCII letters, digits, `_` and `-` everywhere; `.` too for Gemini and MCP.
///
/// Gemini's Developer API also lists `:`; Vertex AI's current reference does not, so it is
/// left out (the stricter reading; a Pedelec name never contains one).
#[must_use]
pub const fn is_name_byte(provider: Provider, byte: u8) -> bool {
    match byte {
        b'a'..=b'z' | b'A'..=b'Z' | b'0'..=b'9' | b'_' | b'-' => true,
        b'.' => matches!(
            provider,
            Provider::Gemini | Provider::GeminiOpenApi | Provider::Mcp
        ),
        _ => false,
    }
}

/// The provider's rule for a tool name, applied to the name after [`provider_byte`]
/// mapping: its length ([`Provider::max_name_len`]), its characters ([`is_name_byte`]),
/// and for Gemini its first character, a letter or `_` ("Must start with a letter or an
/// underscore", Vertex AI `FunctionDeclaration.name`). Every Pedelec name passes the last
/// two; a name that breaks the Pedelec rule is reported by it, not here.
///
/// ```
/// use pedelec_rules::provider::{check_name, Provider, Rule};
/// assert_eq!(check_name(Provider::OpenAi, "nav.open_url"), None);
/// assert_eq!(
///     check_name(Provider::Mcp, &"a".repeat(65)),
///     Some(Rule::NameTooLong { len: 65, max: 64 })
/// );
/// assert_eq!(
///     check_name(Provider::Gemini, "9lives"),
///     Some(Rule::NameBadStart { found: '9' })
/// );
/// ```
#[must_use]
pub const fn check_name(provider: Provider, name: &str) -> Option<Rule> {
    let max = provider.max_name_len();
    let len = char_count(name);
    if len > max {
        return Some(Rule::NameTooLong { len, max });
    }
    let bytes = name.as_bytes();
    if matches!(provider, Provider::Gemini | Provider::GeminiOpenApi)
        && let Some(&first) = bytes.first()
        && !(first.is_ascii_alphabetic() || first == b'_')
    {
        return Some(Rule::NameBadStart {
            found: crate::first_char(name, 0),
        });
    }
    let mut i = 0;
    while i < bytes.len() {
        if !is_name_byte(provider, provider_byte(provider, bytes[i])) {
            return Some(Rule::NameBadChar {
                found: crate::first_char(name, i),
            });
        }
        i += 1;
    }
    None
}

/// Whether two tool names become the same provider name.
#[must_use]
pub const fn provider_names_collide(provider: Provider, a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if provider_byte(provider, a[i]) != provider_byte(provider, b[i]) {
            return false;
        }
        i += 1;
    }
    true
}

/// The number of characters (Unicode scalar values) of `s`.
#[must_use]
pub const fn char_count(s: &str) -> usize {
    let bytes = s.as_bytes();
    let (mut i, mut n) = (0, 0);
    while i < bytes.len() {
        if bytes[i] & 0xC0 != 0x80 {
            n += 1;
        }
        i += 1;
    }
    n
}

/// What the rules need to know about one tool's argsSchema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchemaFacts {
    /// Levels of object nesting (the root object is level 1).
    pub depth: usize,
    /// Object properties, in total.
    pub properties: usize,
    /// Enum values, in total.
    pub enum_values: usize,
    /// Properties that are not required.
    pub optional: usize,
    /// Union (`oneOf`) nodes.
    pub unions: usize,
    /// Objects not closed with `additionalProperties: false`, maps aside (an object with
    /// only `additionalProperties: <schema>`, which strict modes take as an array of
    /// `{"key", "value"}` entries).
    pub open_objects: usize,
    /// `oneOf` nodes whose branches are not provably disjoint.
    pub ambiguous_unions: usize,
    /// `$ref` nodes: a recursive type refers to itself through the root's `$defs`.
    pub refs: usize,
}

/// One tool as the rules see it (its name is checked apart, by [`check_name`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ToolFacts {
    /// The description's length in characters.
    pub description_chars: usize,
    /// Its argsSchema.
    pub schema: SchemaFacts,
}

/// The running totals of the tools listed before a tool: OpenAI's tool count, and
/// Anthropic's strict limits, are per request, across every (strict) tool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetFacts {
    /// Tools.
    pub tools: usize,
    /// Strict tools.
    pub strict_tools: usize,
    /// Optional parameters.
    pub optional: usize,
    /// Union-typed parameters.
    pub unions: usize,
}

impl SetFacts {
    /// No tool yet.
    pub const NONE: SetFacts = SetFacts {
        tools: 0,
        strict_tools: 0,
        optional: 0,
        unions: 0,
    };

    /// The totals once `tool` is added.
    #[must_use]
    pub const fn with(self, tool: &ToolFacts) -> SetFacts {
        SetFacts {
            tools: self.tools + 1,
            strict_tools: self.strict_tools + 1,
            optional: self.optional + tool.schema.optional,
            unions: self.unions + tool.schema.unions,
        }
    }
}

/// OpenAI: at most this many tools in one request.
pub const OPENAI_MAX_TOOLS: usize = 128;
/// OpenAI strict mode: at most this many levels of object nesting.
pub const OPENAI_STRICT_MAX_DEPTH: usize = 10;
/// OpenAI strict mode: at most this many object properties in one schema.
pub const OPENAI_STRICT_MAX_PROPERTIES: usize = 5000;
/// OpenAI strict mode: at most this many enum values in one schema.
pub const OPENAI_STRICT_MAX_ENUM_VALUES: usize = 1000;
/// Anthropic strict mode: at most this many strict tools in one request.
pub const ANTHROPIC_STRICT_MAX_TOOLS: usize = 20;
/// Anthropic strict mode: at most this many optional parameters across strict tools.
pub const ANTHROPIC_STRICT_MAX_OPTIONAL: usize = 24;
/// Anthropic strict mode: at most this many union-typed parameters across strict tools.
pub const ANTHROPIC_STRICT_MAX_UNIONS: usize = 16;

/// One broken rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// The provider name is longer than the provider accepts.
    NameTooLong {
        /// Its length in characters.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The provider name starts with a character the provider does not accept first.
    NameBadStart {
        /// The character.
        found: char,
    },
    /// The provider name contains a character the provider does not accept.
    NameBadChar {
        /// The character.
        found: char,
    },
    /// More tools in one request than the provider accepts.
    TooManyTools {
        /// The count up to this tool.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// The description is longer than the provider accepts.
    DescriptionTooLong {
        /// Its length in characters.
        chars: usize,
        /// The limit.
        max: usize,
    },
    /// Objects nested deeper than strict mode allows.
    TooDeep {
        /// The schema's depth.
        depth: usize,
        /// The limit.
        max: usize,
    },
    /// More object properties than strict mode allows.
    TooManyProperties {
        /// The schema's count.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// More enum values than strict mode allows.
    TooManyEnumValues {
        /// The schema's count.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// An object that accepts other properties, which strict mode cannot express.
    OpenObject,
    /// A `oneOf` whose branches are not provably disjoint, where the provider needs `anyOf`.
    AmbiguousUnion,
    /// A recursive type (`$ref` to a `$defs` entry), which the provider cannot express.
    Recursive,
    /// More strict tools than the provider accepts in one request.
    TooManyStrictTools {
        /// The count up to this tool.
        count: usize,
        /// The limit.
        max: usize,
    },
    /// More optional parameters across strict tools than the provider accepts.
    TooManyOptional {
        /// The total up to this tool.
        total: usize,
        /// The limit.
        max: usize,
    },
    /// More union-typed parameters across strict tools than the provider accepts.
    TooManyUnions {
        /// The total up to this tool.
        total: usize,
        /// The limit.
        max: usize,
    },
}

impl Rule {
    /// A short, stable identifier of the rule (`name-length`, `strict-depth`, …).
    #[must_use]
    pub const fn id(self) -> &'static str {
        match self {
            Rule::NameTooLong { .. } => "name-length",
            Rule::NameBadStart { .. } => "name-start",
            Rule::NameBadChar { .. } => "name-chars",
            Rule::TooManyTools { .. } => "tool-count",
            Rule::DescriptionTooLong { .. } => "description-length",
            Rule::TooDeep { .. } => "strict-depth",
            Rule::TooManyProperties { .. } => "strict-properties",
            Rule::TooManyEnumValues { .. } => "strict-enum-values",
            Rule::OpenObject => "strict-open-object",
            Rule::AmbiguousUnion => "ambiguous-one-of",
            Rule::Recursive => "recursive-schema",
            Rule::TooManyStrictTools { .. } => "strict-tools",
            Rule::TooManyOptional { .. } => "strict-optional-parameters",
            Rule::TooManyUnions { .. } => "strict-union-parameters",
        }
    }

    /// Writes the rule's explanation (without the tool or provider) into `m`.
    pub const fn write(self, m: &mut Message) {
        match self {
            Rule::NameTooLong { len, max } => {
                m.push("its name is ");
                m.push_usize(len);
                m.push(" characters long; at most ");
                m.push_usize(max);
                m.push(" are accepted: shorten it with `#[tool(name = \"…\")]`");
            }
            Rule::NameBadStart { found } => {
                m.push("its name starts with ");
                m.push_char(found);
                m.push(", and names must start with a letter or `_`: rename it with `#[tool(name = \"…\")]`");
            }
            Rule::NameBadChar { found } => {
                m.push("its name contains ");
                m.push_char(found);
                m.push(
                    ", and names may contain only ASCII letters, digits, `_` and `-` (and `.` \
                     where the provider accepts it): rename it with `#[tool(name = \"…\")]`",
                );
            }
            Rule::TooManyTools { count, max } => {
                m.push("it is tool number ");
                m.push_usize(count);
                m.push(" of the set, and at most ");
                m.push_usize(max);
                m.push(
                    " tools are accepted in one request: split the set into smaller ones, or \
                     send only the tools a turn needs",
                );
            }
            Rule::DescriptionTooLong { chars, max } => {
                m.push("its description is ");
                m.push_usize(chars);
                m.push(" characters long; at most ");
                m.push_usize(max);
                m.push(" are accepted: shorten the doc comment or `#[tool(description = …)]`");
            }
            Rule::TooDeep { depth, max } => {
                m.push("its argsSchema nests objects ");
                m.push_usize(depth);
                m.push(" levels deep; strict mode accepts at most ");
                m.push_usize(max);
                m.push(": flatten the arguments, or export with `strict(false)`");
            }
            Rule::TooManyProperties { count, max } => {
                m.push("its argsSchema has ");
                m.push_usize(count);
                m.push(" object properties; strict mode accepts at most ");
                m.push_usize(max);
            }
            Rule::TooManyEnumValues { count, max } => {
                m.push("its argsSchema has ");
                m.push_usize(count);
                m.push(" enum values; strict mode accepts at most ");
                m.push_usize(max);
            }
            Rule::OpenObject => m.push(
                "its argsSchema has an object that accepts other properties (no \
                 `additionalProperties: false`, or declared properties beside an \
                 `additionalProperties` schema); strict mode needs every object closed: use a \
                 struct or a map, or export with `strict(false)`",
            ),
            Rule::AmbiguousUnion => m.push(
                "its argsSchema has a `oneOf` whose branches are not provably disjoint, and \
                 the provider only takes `anyOf` (which would accept a value matching two \
                 branches): give each variant a distinct tag (a serde `tag`, or distinct \
                 types)",
            ),
            Rule::Recursive => m.push(
                "its argsSchema has a recursive type (a `$ref` to a `$defs` entry), which this \
                 provider cannot express: bound the nesting with distinct types (e.g. a \
                 `Filter` whose children are a non-recursive `Leaf`), export with \
                 `strict(false)` where the provider has a non-strict mode, or leave this \
                 target out",
            ),
            Rule::TooManyStrictTools { count, max } => {
                m.push("it is strict tool number ");
                m.push_usize(count);
                m.push(" of the set; strict mode accepts at most ");
                m.push_usize(max);
                m.push(" per request: export with `strict(false)`, or split the set");
            }
            Rule::TooManyOptional { total, max } => {
                m.push("with it the strict tools have ");
                m.push_usize(total);
                m.push(" optional parameters; strict mode accepts at most ");
                m.push_usize(max);
                m.push(" across the request: make some required, or export with `strict(false)`");
            }
            Rule::TooManyUnions { total, max } => {
                m.push("with it the strict tools have ");
                m.push_usize(total);
                m.push(" union-typed parameters; strict mode accepts at most ");
                m.push_usize(max);
                m.push(" across the request");
            }
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut m = Message::new();
        self.write(&mut m);
        f.write_str(m.as_str())
    }
}

/// Every rule a tool breaks (at most one of each), its name's apart ([`check_name`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Violations {
    rules: [Option<Rule>; 10],
    len: usize,
}

impl Violations {
    const fn new() -> Self {
        Violations {
            rules: [None; 10],
            len: 0,
        }
    }

    const fn push(&mut self, rule: Rule) {
        self.rules[self.len] = Some(rule);
        self.len += 1;
    }

    /// How many rules are broken.
    #[must_use]
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether no rule is broken.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th broken rule.
    #[must_use]
    pub const fn get(&self, i: usize) -> Option<Rule> {
        if i < self.len { self.rules[i] } else { None }
    }

    /// The broken rules.
    pub fn iter(&self) -> impl Iterator<Item = Rule> + '_ {
        self.rules[..self.len].iter().flatten().copied()
    }
}

/// Every rule of `provider` that `tool` breaks, `before` being the totals of the strict
/// tools listed before it. Name collisions are checked apart, with
/// [`provider_names_collide`].
#[must_use]
pub const fn check_tool(
    provider: Provider,
    strict: bool,
    tool: &ToolFacts,
    before: &SetFacts,
) -> Violations {
    let mut v = Violations::new();
    // Reported once, at the tool that goes over the limit.
    if let Some(max) = provider.max_tools()
        && before.tools + 1 > max
        && before.tools <= max
    {
        v.push(Rule::TooManyTools {
            count: before.tools + 1,
            max,
        });
    }
    if let Some(max) = provider.max_description_chars()
        && tool.description_chars > max
    {
        v.push(Rule::DescriptionTooLong {
            chars: tool.description_chars,
            max,
        });
    }
    let s = &tool.schema;
    if provider.rewrites_one_of(strict) && s.ambiguous_unions > 0 {
        v.push(Rule::AmbiguousUnion);
    }
    if provider.requires_closed_objects(strict) && s.open_objects > 0 {
        v.push(Rule::OpenObject);
    }
    if s.refs > 0 && !provider.accepts_refs(strict) {
        v.push(Rule::Recursive);
    }
    if !strict {
        return v;
    }
    match provider {
        Provider::OpenAi => {
            if s.depth > OPENAI_STRICT_MAX_DEPTH {
                v.push(Rule::TooDeep {
                    depth: s.depth,
                    max: OPENAI_STRICT_MAX_DEPTH,
                });
            }
            if s.properties > OPENAI_STRICT_MAX_PROPERTIES {
                v.push(Rule::TooManyProperties {
                    count: s.properties,
                    max: OPENAI_STRICT_MAX_PROPERTIES,
                });
            }
            if s.enum_values > OPENAI_STRICT_MAX_ENUM_VALUES {
                v.push(Rule::TooManyEnumValues {
                    count: s.enum_values,
                    max: OPENAI_STRICT_MAX_ENUM_VALUES,
                });
            }
        }
        Provider::Anthropic => {
            // Reported once, at the tool that goes over the limit.
            let after = before.with(tool);
            if after.strict_tools > ANTHROPIC_STRICT_MAX_TOOLS
                && before.strict_tools <= ANTHROPIC_STRICT_MAX_TOOLS
            {
                v.push(Rule::TooManyStrictTools {
                    count: after.strict_tools,
                    max: ANTHROPIC_STRICT_MAX_TOOLS,
                });
            }
            if after.optional > ANTHROPIC_STRICT_MAX_OPTIONAL
                && before.optional <= ANTHROPIC_STRICT_MAX_OPTIONAL
            {
                v.push(Rule::TooManyOptional {
                    total: after.optional,
                    max: ANTHROPIC_STRICT_MAX_OPTIONAL,
                });
            }
            if after.unions > ANTHROPIC_STRICT_MAX_UNIONS
                && before.unions <= ANTHROPIC_STRICT_MAX_UNIONS
            {
                v.push(Rule::TooManyUnions {
                    total: after.unions,
                    max: ANTHROPIC_STRICT_MAX_UNIONS,
                });
            }
        }
        Provider::Gemini | Provider::GeminiOpenApi | Provider::Mcp => {}
    }
    v
}

/// A message assembled in a `const fn` (to `panic!` with at compile time), truncated with
/// `…` at a character boundary when it does not fit.
#[derive(Clone, Copy, Debug)]
pub struct Message {
    bytes: [u8; Message::CAPACITY],
    len: usize,
    truncated: bool,
}

impl Default for Message {
    fn default() -> Self {
        Message::new()
    }
}

impl Message {
    const CAPACITY: usize = 1024;

    /// An empty message.
    #[must_use]
    pub const fn new() -> Self {
        Message {
            bytes: [0; Message::CAPACITY],
            len: 0,
            truncated: false,
        }
    }

    /// Appends `s` (or as much as fits, then `…`).
    pub const fn push(&mut self, s: &str) {
        let s = s.as_bytes();
        let room = Message::CAPACITY - 3;
        let mut i = 0;
        while i < s.len() && !self.truncated {
            let mut end = i + 1;
            while end < s.len() && s[end] & 0xC0 == 0x80 {
                end += 1;
            }
            if self.len + (end - i) > room {
                self.truncated = true;
                let e = "…".as_bytes();
                let mut j = 0;
                while j < e.len() {
                    self.bytes[self.len] = e[j];
                    self.len += 1;
                    j += 1;
                }
                return;
            }
            while i < end {
                self.bytes[self.len] = s[i];
                self.len += 1;
                i += 1;
            }
        }
    }

    /// Appends a character as a message quotes it: `` `x` ``, "a space", or escaped.
    pub const fn push_char(&mut self, c: char) {
        if c == ' ' {
            self.push("a space");
            return;
        }
        let mut buf = [0u8; 4];
        let s: &str = c.encode_utf8(&mut buf);
        if matches!(c, '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}') {
            self.push("a control character");
        } else {
            self.push("`");
            self.push(s);
            self.push("`");
        }
    }

    /// Appends a number in decimal.
    #[allow(clippy::cast_possible_truncation, reason = "a digit, below 10")]
    pub const fn push_usize(&mut self, n: usize) {
        let mut digits = [0u8; 20];
        let (mut n, mut len) = (n, 0);
        loop {
            digits[digits.len() - 1 - len] = b'0' + (n % 10) as u8;
            len += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        let (_, tail) = digits.split_at(digits.len() - len);
        match std::str::from_utf8(tail) {
            Ok(s) => self.push(s),
            Err(_) => self.push("?"),
        }
    }

    /// The message so far.
    #[must_use]
    pub const fn as_str(&self) -> &str {
        let (bytes, _) = self.bytes.split_at(self.len);
        match std::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(_) => "",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(f: impl FnOnce(&mut ToolFacts)) -> ToolFacts {
        let mut t = ToolFacts {
            description_chars: 10,
            schema: SchemaFacts {
                depth: 1,
                ..SchemaFacts::default()
            },
        };
        f(&mut t);
        t
    }

    #[test]
    fn names_and_provider_names() {
        assert_eq!(Provider::from_name("gemini"), Some(Provider::Gemini));
        assert_eq!(Provider::from_name("claude"), None);
        for p in Provider::ALL {
            assert_eq!(Provider::from_name(p.name()), Some(p));
        }
        assert!(provider_names_collide(Provider::OpenAi, "a.b", "a_b"));
        assert!(provider_names_collide(Provider::Anthropic, "a.b", "a_b"));
        assert!(!provider_names_collide(Provider::Gemini, "a.b", "a_b"));
        assert!(!provider_names_collide(Provider::OpenAi, "a.b", "a_bc"));
        assert_eq!(char_count("é€x"), 3);
    }

    #[test]
    fn each_limit_is_inclusive() {
        let ok = facts(|_| {});
        assert!(check_tool(Provider::OpenAi, true, &ok, &SetFacts::NONE).is_empty());
        for p in Provider::ALL {
            assert_eq!(check_name(p, &"a".repeat(64)), None, "{p:?}");
            assert_eq!(
                check_name(p, &"a".repeat(65)),
                Some(Rule::NameTooLong { len: 65, max: 64 }),
                "{p:?}"
            );
        }
        let deep = facts(|t| {
            t.schema.depth = 11;
            t.schema.enum_values = 1001;
            t.description_chars = 1025;
        });
        let v = check_tool(Provider::OpenAi, true, &deep, &SetFacts::NONE);
        assert_eq!(v.len(), 3);
        assert_eq!(
            v.iter().map(Rule::id).collect::<Vec<_>>(),
            ["description-length", "strict-depth", "strict-enum-values"]
        );
        // Not strict: only the description.
        assert_eq!(
            check_tool(Provider::OpenAi, false, &deep, &SetFacts::NONE).len(),
            1
        );
    }

    #[test]
    fn provider_name_characters() {
        // Dots become `_` for OpenAI and Anthropic: accepted everywhere.
        for p in Provider::ALL {
            assert_eq!(check_name(p, "nav.open-url_2"), None, "{p:?}");
            assert_eq!(
                check_name(p, "page:read"),
                Some(Rule::NameBadChar { found: ':' }),
                "{p:?}"
            );
        }
        assert_eq!(check_name(Provider::Gemini, "_private"), None);
        for p in [Provider::Gemini, Provider::GeminiOpenApi] {
            assert_eq!(check_name(p, "-x"), Some(Rule::NameBadStart { found: '-' }));
        }
        assert_eq!(check_name(Provider::OpenAi, "-x"), None);
        assert_eq!(check_name(Provider::Mcp, "9x"), None);
        assert_eq!(
            check_name(Provider::Mcp, "caf\u{e9}"),
            Some(Rule::NameBadChar { found: '\u{e9}' })
        );
        // Length counts characters.
        assert_eq!(
            check_name(Provider::Mcp, &"\u{e9}".repeat(65)),
            Some(Rule::NameTooLong { len: 65, max: 64 })
        );
        assert_eq!(
            Rule::NameBadStart { found: '9' }.to_string(),
            "its name starts with `9`, and names must start with a letter or `_`: rename it with \
             `#[tool(name = \"…\")]`"
        );
        assert_eq!(
            Rule::NameBadChar { found: ' ' }.to_string(),
            "its name contains a space, and names may contain only ASCII letters, digits, `_` \
             and `-` (and `.` where the provider accepts it): rename it with \
             `#[tool(name = \"…\")]`"
        );
    }

    #[test]
    fn openai_takes_128_tools_per_request() {
        let tool = facts(|_| {});
        let mut before = SetFacts::NONE;
        let mut fired = Vec::new();
        for i in 0..200 {
            for strict in [true, false] {
                let v = check_tool(Provider::OpenAi, strict, &tool, &before);
                fired.extend(v.iter().map(|r| (i, strict, r)));
            }
            assert!(check_tool(Provider::Gemini, false, &tool, &before).is_empty());
            before = before.with(&tool);
        }
        let rule = Rule::TooManyTools {
            count: 129,
            max: 128,
        };
        assert_eq!(fired, [(128, true, rule), (128, false, rule)]);
        assert_eq!(
            rule.to_string(),
            "it is tool number 129 of the set, and at most 128 tools are accepted in one \
             request: split the set into smaller ones, or send only the tools a turn needs"
        );
    }

    #[test]
    fn set_limits_fire_once_at_the_tool_that_crosses_them() {
        let tool = facts(|t| t.schema.optional = 5);
        let mut before = SetFacts::NONE;
        let mut fired = Vec::new();
        for i in 0..22 {
            let v = check_tool(Provider::Anthropic, true, &tool, &before);
            fired.extend(v.iter().map(|r| (i, r.id())));
            before = before.with(&tool);
        }
        assert_eq!(
            fired,
            [(4, "strict-optional-parameters"), (20, "strict-tools")]
        );
    }

    #[test]
    fn messages_format_numbers_and_truncate() {
        let mut m = Message::new();
        m.push("x");
        m.push_usize(0);
        m.push_usize(1_234_567);
        assert_eq!(m.as_str(), "x01234567");
        let mut m = Message::new();
        m.push(&"é".repeat(600));
        assert!(m.as_str().ends_with('…'));
        assert_eq!(
            Rule::NameTooLong { len: 70, max: 64 }.to_string(),
            "its name is 70 characters long; at most 64 are accepted: shorten it with \
             `#[tool(name = \"…\")]`"
        );
    }
}
