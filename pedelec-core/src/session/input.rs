//! Checking a skill set (session creation, step 1), and reading one from JSON.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::{Error, Problem, describe_value as describe};
use crate::schema::Str;
use crate::schema::ToolArgsSchema;
use crate::skills::SkillsInput;
use crate::tool::{TaskSupport, ToolDefinition, option_problems};

/// The names a session keeps for the tools it adds itself: `search_tools` and `call_tool`
/// (deferred tools, DESIGN §12) and `run_code` (code mode).
use crate::search::tools::RESERVED as RESERVED_TOOL_NAMES;

/// Every problem of a list of definitions: each definition's own (name, description,
/// timeout, schema), a reserved name, then duplicate names. Paths are `tools[i].…`.
pub(crate) fn definition_problems(tools: &[ToolDefinition]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        for p in tool.problems() {
            problems.push(Problem::at(format!("tools[{i}].{}", p.place), p.message));
        }
        if RESERVED_TOOL_NAMES.contains(&tool.name()) {
            problems.push(Problem::at(
                format!("tools[{i}].name"),
                format!(
                    "`{}` is reserved: the session adds a tool of that name itself (to search \
                     deferred tools, call one, or run code); rename this tool",
                    tool.name()
                ),
            ));
        }
    }
    problems.extend(duplicate_problems(
        tools.iter().enumerate().map(|(i, t)| (i, t.name())),
    ));
    problems
}

/// `tools[j].name: duplicate tool name …` for every name seen before.
fn duplicate_problems<'a>(names: impl Iterator<Item = (usize, &'a str)>) -> Vec<Problem> {
    let mut first: HashMap<&str, usize> = HashMap::new();
    let mut problems = Vec::new();
    for (i, name) in names {
        if let Some(&j) = first.get(name) {
            problems.push(Problem::at(format!("tools[{i}].name"), format!(
                    "duplicate tool name {name:?}: `tools[{j}]` already has it; tool names must be unique within a skill set"
                )));
        } else {
            first.insert(name, i);
        }
    }
    problems
}

const SKILLS_KEYS: &[&str] = &["guidance", "tools"];
const TOOL_KEYS: &[&str] = &[
    "name",
    "description",
    "argsSchema",
    "timeoutMs",
    "scopes",
    "maxConcurrency",
    "icon",
    "taskSupport",
    "examples",
    "defer",
    "version",
    "approval",
    "exactlyOnce",
    "callers",
];

impl SkillsInput<String> {
    /// Reads a skill set defined outside Rust: `{"guidance": "…", "tools": [{"name",
    /// "description", "argsSchema", "timeoutMs"?}, …]}` (the seed's `SkillsInput`, without
    /// handlers: register them on the session, or serve the tools with a fallback).
    ///
    /// A tool may also carry what `#[tool]` declares beyond the seed's keys: `scopes` (an
    /// array of OAuth scope tokens), `maxConcurrency` (a positive integer), `icon` (an
    /// `https:` URL or a `data:` URI of an image), `taskSupport` (`"forbidden"`,
    /// `"optional"` or `"required"`), `examples` (an array of argument objects, each
    /// valid for the argsSchema), `defer` (`true` for a tool left out of the lists a model
    /// sees until a search loads it), `version` (the contract version, an integer from 1,
    /// the default; see `pedelec::contract`), `approval` (`true` for a tool whose every
    /// call waits for a person's approval), `exactlyOnce` (`true` for a tool whose calls
    /// with an idempotency key run at most once) and `callers` (`["direct"]`,
    /// `["program"]` or both: who may call the tool, exported as `allowed_callers`). None
    /// of them is sent to Core.
    ///
    /// # Errors
    /// One `INVALID_INPUT` [`Error`] listing every problem, each with its path
    /// (`tools[1].argsSchema/properties/delta/type: …`): a non-string `guidance`, a
    /// non-array `tools`, a tool that is not an object, a missing or bad `name`, a missing
    /// or blank `description`, the legacy `input` shorthand, a missing or invalid
    /// `argsSchema`, a `timeoutMs` that is not a positive integer, a duplicate name, unknown
    /// keys, and a bad value for any of the keys above.
    pub fn from_json(json: &Value) -> Result<Self, Error> {
        read_skills(json, None)
    }

    /// [`from_json`](Self::from_json) for skill sets written by others: each `argsSchema`
    /// is read by [`ToolArgsSchema::from_json_lenient`] (full JSON Schema 2020-12, as
    /// people write it), and its warnings come back beside the set, each at its path
    /// (`tools[1].argsSchema/properties/x/default: …`). Everything else is read as
    /// `from_json` reads it.
    ///
    /// # Errors
    /// As `from_json`, except that an `argsSchema` is refused only when it cannot hold any
    /// tool's arguments (see `from_json_lenient`).
    #[cfg(feature = "raw-schemas")]
    pub fn from_json_lenient(json: &Value) -> Result<(Self, Vec<Problem>), Error> {
        let mut warnings = Vec::new();
        let skills = read_skills(json, Some(&mut warnings))?;
        Ok((skills, warnings))
    }

    /// [`from_json`](Self::from_json) for JSON text.
    ///
    /// # Errors
    /// As `from_json`; text that is not JSON is one problem (with line and column).
    pub fn from_json_str(text: &str) -> Result<Self, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            Error::invalid_input(vec![Problem::at(
                String::new(),
                format!("the skill set is not valid JSON: {e}"),
            )])
        })?;
        SkillsInput::from_json(&value)
    }
}

/// Reads a skill set; with `warnings`, its schemas leniently (their warnings there).
fn read_skills(
    json: &Value,
    mut warnings: Option<&mut Vec<Problem>>,
) -> Result<SkillsInput<String>, Error> {
    let mut problems = Vec::new();
    let Some(root) = json.as_object() else {
        return Err(Error::invalid_input(vec![Problem::at(
            String::new(),
            format!(
                "a skill set is an object `{{\"guidance\": …, \"tools\": […]}}`, not {}",
                describe(json)
            ),
        )]));
    };
    unknown_keys(root, SKILLS_KEYS, "", &mut problems);
    let guidance = required_string(
        root,
        "guidance",
        "guidance".into(),
        "a string telling the model how to use the tools",
        &mut problems,
    )
    .cloned()
    .unwrap_or_default();
    let mut tools = Vec::new();
    match root.get("tools") {
        Some(Value::Array(entries)) => {
            let mut names = Vec::new();
            for (i, entry) in entries.iter().enumerate() {
                let before = problems.len();
                if let Some(def) =
                    read_tool(i, entry, &mut names, &mut problems, warnings.as_deref_mut())
                    && problems.len() == before
                {
                    tools.push(def);
                }
            }
            problems.extend(duplicate_problems(
                names
                    .iter()
                    .map(|(i, n): &(usize, String)| (*i, n.as_str())),
            ));
        }
        Some(other) => problems.push(Problem::at(
            "tools",
            format!(
                "`tools` must be an array of tool definitions, not {}",
                describe(other)
            ),
        )),
        None => problems.push(Problem::at(
            "tools",
            "missing `tools`: an array of tool definitions",
        )),
    }
    if problems.is_empty() {
        Ok(SkillsInput::new(guidance, tools))
    } else {
        Err(Error::invalid_input(problems))
    }
}

/// Reads `tools[i].argsSchema`: strictly, or (with `warnings`) leniently, its warnings
/// there at their paths.
fn read_schema(
    i: usize,
    json: &Value,
    warnings: Option<&mut Vec<Problem>>,
) -> Result<ToolArgsSchema, crate::schema::SchemaError> {
    #[cfg(feature = "raw-schemas")]
    if let Some(warnings) = warnings {
        let (schema, read) = ToolArgsSchema::from_json_lenient(json)?;
        warnings.extend(
            read.into_iter()
                .map(|w| Problem::at(format!("tools[{i}].argsSchema{}", w.place), w.message)),
        );
        return Ok(schema);
    }
    #[cfg(not(feature = "raw-schemas"))]
    let _ = (i, warnings);
    ToolArgsSchema::from_json(json)
}

/// Reads `tools[i]`; records its name (for the duplicate check) and its problems.
fn read_tool(
    i: usize,
    entry: &Value,
    names: &mut Vec<(usize, String)>,
    problems: &mut Vec<Problem>,
    warnings: Option<&mut Vec<Problem>>,
) -> Option<ToolDefinition> {
    let at = |key: &str| format!("tools[{i}].{key}");
    let Some(obj) = entry.as_object() else {
        problems.push(Problem::at(format!("tools[{i}]"), format!(
                "a tool definition is an object with `name`, `description` and `argsSchema`, not {}",
                describe(entry)
            )));
        return None;
    };
    if obj.contains_key("input") {
        problems.push(Problem::at(at("input"), "the legacy `input` shorthand is not supported; describe the arguments with `argsSchema` (a JSON Schema object)"));
    }
    if obj.contains_key("handler") {
        problems.push(Problem::at(at("handler"), "a skill set read from JSON cannot carry handlers; register one with `session.on_tool_name(..)` or `session.set_fallback(..)`"));
    }
    let ignore: Vec<&str> = TOOL_KEYS
        .iter()
        .copied()
        .chain(["input", "handler"])
        .collect();
    unknown_keys(obj, &ignore, &format!("tools[{i}]."), problems);

    let name = required_string(
        obj,
        "name",
        at("name"),
        "the agent-facing tool name",
        problems,
    )
    .cloned();
    if let Some(s) = &name {
        if let Err(p) = pedelec_rules::check_tool_name(s) {
            problems.push(Problem::at(at("name"), p.to_string()));
        }
        names.push((i, s.clone()));
    }
    let description = required_string(
        obj,
        "description",
        at("description"),
        "explain what the tool does, its side effects and when to use it",
        problems,
    )
    .cloned();
    if description.as_deref().is_some_and(pedelec_rules::is_blank) {
        problems.push(Problem::at(
            at("description"),
            pedelec_rules::BLANK_DESCRIPTION,
        ));
    }
    let schema = match obj.get("argsSchema") {
        Some(json) => match read_schema(i, json, warnings) {
            Ok(schema) => Some(schema),
            Err(e) => {
                for p in e.problems() {
                    problems.push(Problem::at(
                        format!("tools[{i}].argsSchema{}", p.place),
                        p.message.clone(),
                    ));
                }
                None
            }
        },
        None => {
            problems.push(Problem::at(at("argsSchema"), "missing `argsSchema`: a JSON Schema whose root is an object (`{\"type\": \"object\", \"properties\": {…}}`)"));
            None
        }
    };
    let timeout_ms = match obj.get("timeoutMs") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => {
            let checked = if let Some(u) = n.as_u64() {
                pedelec_rules::check_timeout_ms(i128::from(u))
            } else if let Some(i) = n.as_i64() {
                pedelec_rules::check_timeout_ms(i128::from(i))
            } else {
                pedelec_rules::check_timeout_ms_f64(n.as_f64().unwrap_or(f64::NAN))
            };
            match checked {
                Ok(ms) => Some(ms),
                Err(p) => {
                    problems.push(Problem::at(at("timeoutMs"), format!("{p} (got {n})")));
                    None
                }
            }
        }
        Some(other) => {
            problems.push(Problem::at(
                at("timeoutMs"),
                format!(
                    "`timeoutMs` must be a positive integer number of milliseconds, not {}",
                    describe(other)
                ),
            ));
            None
        }
    };
    let options = read_options(obj, &at, problems);
    for p in option_problems(
        &options.scopes,
        options.max_concurrency,
        options.icon.as_deref(),
        &options.examples,
        schema.as_ref(),
    ) {
        problems.push(Problem::at(at(&p.place), p.message));
    }
    let mut def = ToolDefinition::new(name?, description?, schema?)
        .with_scopes(options.scopes)
        .with_task_support(options.task_support)
        .with_examples(options.examples)
        .with_defer(options.defer)
        .with_version(options.version)
        .with_approval(options.approval)
        .with_exactly_once(options.exactly_once);
    if let Some(callers) = options.callers {
        def = def.with_callers(callers);
    }
    if let Some(ms) = timeout_ms {
        def = def.with_timeout_ms(ms);
    }
    if let Some(limit) = options.max_concurrency {
        def = def.with_max_concurrency(limit);
    }
    if let Some(icon) = options.icon {
        def = def.with_icon(icon);
    }
    Some(def)
}

/// The keys beyond the seed's, as read (their values are checked by [`option_problems`],
/// `version`'s as it is read).
struct Options {
    scopes: Vec<Str>,
    max_concurrency: Option<u32>,
    icon: Option<String>,
    task_support: TaskSupport,
    examples: Vec<Str>,
    defer: bool,
    version: u32,
    approval: bool,
    exactly_once: bool,
    callers: Option<crate::tool::Callers>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scopes: Vec::new(),
            max_concurrency: None,
            icon: None,
            task_support: TaskSupport::default(),
            examples: Vec::new(),
            defer: false,
            version: 1,
            approval: false,
            exactly_once: false,
            callers: None,
        }
    }
}

/// Reads `scopes`, `maxConcurrency`, `icon`, `taskSupport`, `examples`, `defer` and
/// `version`, recording a value of the wrong JSON type, or a bad `version` (and leaving that
/// key unset).
fn read_options(
    obj: &Map<String, Value>,
    at: &dyn Fn(&str) -> String,
    problems: &mut Vec<Problem>,
) -> Options {
    let mut options = Options::default();
    let mut problem = |key: &str, message: String| {
        problems.push(Problem::at(at(key), message));
    };
    match obj.get("scopes") {
        None | Some(Value::Null) => {}
        Some(Value::Array(scopes)) if scopes.is_empty() => problem(
            "scopes",
            "`scopes` is empty; omit it for a tool any caller may call, or list the scopes a \
             caller must hold, like `[\"counter:write\"]`"
                .into(),
        ),
        Some(Value::Array(scopes)) => {
            for (j, scope) in scopes.iter().enumerate() {
                match scope {
                    Value::String(s) => options.scopes.push(s.clone().into()),
                    other => problem(
                        &format!("scopes[{j}]"),
                        format!("a scope is a string, not {}", describe(other)),
                    ),
                }
            }
        }
        Some(other) => problem(
            "scopes",
            format!(
                "`scopes` must be an array of OAuth scope strings, like `[\"counter:write\"]`, \
                 not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("maxConcurrency") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) => {
            let checked =
                match (n.as_u64(), n.as_i64()) {
                    (Some(u), _) => pedelec_rules::check_max_concurrency(i128::from(u))
                        .map_err(|p| p.to_string()),
                    (None, Some(i)) => pedelec_rules::check_max_concurrency(i128::from(i))
                        .map_err(|p| p.to_string()),
                    _ => Err("max concurrency must be a positive integer, not a fraction".into()),
                };
            match checked {
                Ok(limit) => options.max_concurrency = Some(limit),
                Err(message) => problem("maxConcurrency", format!("{message} (got {n})")),
            }
        }
        Some(other) => problem(
            "maxConcurrency",
            format!(
                "`maxConcurrency` must be a positive integer, not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("icon") {
        None | Some(Value::Null) => {}
        Some(Value::String(icon)) => options.icon = Some(icon.clone()),
        Some(other) => problem(
            "icon",
            format!(
                "`icon` must be a string (an `https:` URL or a `data:` URI of an image), not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("taskSupport") {
        None | Some(Value::Null) => {}
        Some(Value::String(name)) if TaskSupport::from_name(name).is_some() => {
            options.task_support = TaskSupport::from_name(name).unwrap_or_default();
        }
        Some(other) => problem(
            "taskSupport",
            format!(
                "`taskSupport` must be \"forbidden\", \"optional\" or \"required\", not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("examples") {
        None | Some(Value::Null) => {}
        Some(Value::Array(examples)) => {
            options.examples = examples.iter().map(|e| e.to_string().into()).collect();
        }
        Some(other) => problem(
            "examples",
            format!(
                "`examples` must be an array of argument objects, like `[{{\"delta\": 2}}]`, \
                 not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("defer") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(defer)) => options.defer = *defer,
        Some(other) => problem(
            "defer",
            format!(
                "`defer` must be `true` (listed by name only until a search loads the tool) \
                 or `false`, not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("approval") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(approval)) => options.approval = *approval,
        Some(other) => problem(
            "approval",
            format!(
                "`approval` must be `true` (every call waits for a person's approval) or \
                 `false`, not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("exactlyOnce") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(once)) => options.exactly_once = *once,
        Some(other) => problem(
            "exactlyOnce",
            format!(
                "`exactlyOnce` must be `true` (a call with an idempotency key runs at most \
                 once) or `false`, not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("version") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) => {
            let checked = match (n.as_u64(), n.as_i64()) {
                (Some(u), _) => {
                    pedelec_rules::check_tool_version(i128::from(u)).map_err(|p| p.to_string())
                }
                (None, Some(i)) => {
                    pedelec_rules::check_tool_version(i128::from(i)).map_err(|p| p.to_string())
                }
                _ => Err("a tool version is an integer from 1, not a fraction".into()),
            };
            match checked {
                Ok(version) => options.version = version,
                Err(message) => problem("version", format!("{message} (got {n})")),
            }
        }
        Some(other) => problem(
            "version",
            format!(
                "`version` must be an integer from 1 (raise it with a breaking change), not {}",
                describe(other)
            ),
        ),
    }
    match obj.get("callers") {
        None | Some(Value::Null) => {}
        Some(Value::Array(names)) => {
            let strings: Option<Vec<&str>> = names.iter().map(Value::as_str).collect();
            let read = match strings {
                Some(strings) => crate::tool::Callers::from_names(strings),
                None => Err("`callers` lists strings, like `[\"direct\", \"program\"]`".to_owned()),
            };
            match read {
                Ok(callers) => options.callers = Some(callers),
                Err(message) => problem("callers", message),
            }
        }
        Some(other) => problem(
            "callers",
            format!(
                "`callers` must be an array of `\"direct\"` and `\"program\"`, like \
                 `[\"direct\", \"program\"]`, not {}",
                describe(other)
            ),
        ),
    }
    options
}

/// The string at `key`, which must be there: `None`, with a problem at `path`, when it is
/// missing (`missing` says what belongs there) or not a string.
fn required_string<'v>(
    obj: &'v Map<String, Value>,
    key: &str,
    path: String,
    missing: &str,
    problems: &mut Vec<Problem>,
) -> Option<&'v String> {
    let message = match obj.get(key) {
        Some(Value::String(s)) => return Some(s),
        Some(other) => format!("`{key}` must be a string, not {}", describe(other)),
        None => format!("missing `{key}`: {missing}"),
    };
    problems.push(Problem::at(path, message));
    None
}

fn unknown_keys(
    obj: &Map<String, Value>,
    known: &[&str],
    prefix: &str,
    problems: &mut Vec<Problem>,
) {
    for key in obj.keys() {
        if known.contains(&key.as_str()) {
            continue;
        }
        let suggestion = known
            .iter()
            .filter(|k| !matches!(**k, "input" | "handler"))
            .map(|k| {
                (
                    strsim::jaro_winkler(&key.to_ascii_lowercase(), &k.to_ascii_lowercase()),
                    *k,
                )
            })
            .filter(|(score, _)| *score > 0.8)
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let expected = known
            .iter()
            .filter(|k| !matches!(**k, "input" | "handler"))
            .map(|k| format!("`{k}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let message = match suggestion {
            Some((_, k)) => format!("unknown key `{key}`; did you mean `{k}`?"),
            None => format!("unknown key `{key}`; expected one of {expected}"),
        };
        problems.push(Problem::at(format!("{prefix}{key}"), message));
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(extra: Value) -> Value {
        let mut tool = json!({
            "name": "update_counter",
            "description": "Update the counter.",
            "argsSchema": {
                "type": "object",
                "properties": {"delta": {"type": "integer"}},
                "required": ["delta"],
                "additionalProperties": false
            }
        });
        for (k, v) in extra.as_object().unwrap() {
            tool[k] = v.clone();
        }
        tool
    }

    fn problems(tools: Vec<Value>) -> Vec<String> {
        SkillsInput::from_json(&json!({"guidance": "g", "tools": tools}))
            .unwrap_err()
            .problems()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn the_keys_beyond_the_seeds_are_read() {
        let skills = SkillsInput::from_json(&json!({"guidance": "g", "tools": [tool(json!({
            "scopes": ["counter:read", "counter:write"],
            "maxConcurrency": 4,
            "icon": "https://example.com/counter.svg",
            "taskSupport": "required",
            "examples": [{"delta": 2}, {"delta": -1}]
        }))]}))
        .unwrap();
        let def = &skills.tools()[0];
        assert_eq!(def.scopes(), ["counter:read", "counter:write"]);
        assert_eq!(def.max_concurrency(), Some(4));
        assert_eq!(def.icon(), Some("https://example.com/counter.svg"));
        assert_eq!(def.task_support(), TaskSupport::Required);
        assert_eq!(def.examples(), [r#"{"delta":2}"#, r#"{"delta":-1}"#]);
        // None of them reaches Core.
        assert_eq!(
            serde_json::to_value(skills.manifest()).unwrap()["tools"][0]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["name", "description", "argsSchema"]
        );
    }

    /// The names the session adds tools under are refused when it is created.
    #[test]
    fn reserved_names_are_refused_at_creation() {
        let skills = SkillsInput::from_json(&json!({"guidance": "g", "tools": [
            tool(json!({"name": "search_tools"})),
            tool(json!({"name": "run_code"})),
        ]}))
        .unwrap();
        let error = crate::Session::builder(skills).create().unwrap_err();
        assert_eq!(error.code(), crate::error::ErrorCode::InvalidInput);
        let text = error.to_string();
        assert!(
            text.contains("tools[0].name: `search_tools` is reserved")
                && text.contains("tools[1].name: `run_code` is reserved"),
            "{text}"
        );
    }

    /// `callers` is read into the definition (not Core's manifest); bad lists are problems.
    #[test]
    fn callers_are_read_into_the_definition() {
        use crate::tool::Callers;
        let skills = SkillsInput::from_json(&json!({"guidance": "g", "tools": [
            tool(json!({"callers": ["program"]})),
            tool(json!({"name": "ping", "callers": ["direct", "program"]})),
            tool(json!({"name": "pong"})),
        ]}))
        .unwrap();
        assert_eq!(skills.tools()[0].declared_callers(), Some(Callers::PROGRAM));
        assert_eq!(skills.tools()[1].declared_callers(), Some(Callers::BOTH));
        assert_eq!(skills.tools()[2].declared_callers(), None);
        assert_eq!(skills.tools()[2].callers(), Callers::BOTH);
        let manifest = serde_json::to_value(skills.manifest()).unwrap();
        assert!(manifest["tools"][0].get("callers").is_none());
        assert_eq!(
            problems(vec![
                tool(json!({"callers": ["programmatic"]})),
                tool(json!({"name": "b", "callers": []})),
                tool(json!({"name": "c", "callers": ["direct", "direct"]})),
                tool(json!({"name": "d", "callers": "direct"})),
            ]),
            [
                "tools[0].callers: unknown caller \"programmatic\"; expected \"direct\" (the \
                 model) or \"program\" (a program the model wrote)",
                "tools[1].callers: no caller: list `direct`, `program` or both",
                "tools[2].callers: duplicate caller \"direct\": list each caller once",
                "tools[3].callers: `callers` must be an array of `\"direct\"` and `\"program\"`, \
                 like `[\"direct\", \"program\"]`, not a string (\"direct\")",
            ]
        );
    }

    /// `defer` is read and reaches the definition, not Core's manifest.
    #[test]
    fn defer_is_read_into_the_definition() {
        let skills = SkillsInput::from_json(&json!({"guidance": "g", "tools": [
            tool(json!({"defer": true})),
            tool(json!({"name": "ping", "defer": false})),
        ]}))
        .unwrap();
        assert!(skills.tools()[0].defer());
        assert!(!skills.tools()[1].defer());
        let manifest = serde_json::to_value(skills.manifest()).unwrap();
        assert!(manifest["tools"][0].get("defer").is_none());
        assert_eq!(
            problems(vec![tool(json!({"defer": "yes"}))]),
            [
                "tools[0].defer: `defer` must be `true` (listed by name only until a search \
              loads the tool) or `false`, not a string (\"yes\")"
            ]
        );
    }

    /// `version` is read into the definition (1 when absent), never into Core's manifest;
    /// a bad one is a problem at its path.
    #[test]
    fn version_is_read_into_the_definition() {
        let skills = SkillsInput::from_json(&json!({"guidance": "g", "tools": [
            tool(json!({"version": 3})),
            tool(json!({"name": "ping"})),
        ]}))
        .unwrap();
        assert_eq!(skills.tools()[0].version(), 3);
        assert_eq!(skills.tools()[1].version(), 1);
        let manifest = serde_json::to_value(skills.manifest()).unwrap();
        assert!(manifest["tools"][0].get("version").is_none());
        assert_eq!(
            problems(vec![
                tool(json!({"version": 0})),
                tool(json!({"name": "t1", "version": -2})),
                tool(json!({"name": "t2", "version": 1.5})),
                tool(json!({"name": "t3", "version": "2"})),
                tool(json!({"name": "t4", "version": 4_294_967_296_u64})),
            ]),
            [
                "tools[0].version: a tool version must be at least 1, not 0: versions count \
                 from 1, the default (got 0)",
                "tools[1].version: a tool version must be at least 1, not a negative number \
                 (got -2)",
                "tools[2].version: a tool version is an integer from 1, not a fraction (got 1.5)",
                "tools[3].version: `version` must be an integer from 1 (raise it with a \
                 breaking change), not a string (\"2\")",
                "tools[4].version: a tool version is too large: it must fit in 32 bits (at most \
                 4294967295) (got 4294967296)",
            ]
        );
    }

    #[test]
    fn every_bad_value_is_reported_with_its_path() {
        assert_eq!(
            problems(vec![
                tool(json!({
                    "scopes": ["a b", "a b"],
                    "maxConcurrency": 0,
                    "icon": "icons/counter.svg",
                    "examples": [{"delta": "2"}, 3]
                })),
                tool(json!({
                    "name": "t1",
                    "scopes": [],
                    "maxConcurrency": -1,
                    "taskSupport": "sometimes",
                    "examples": {"delta": 1}
                })),
                tool(json!({
                    "name": "t2",
                    "scopes": "a b",
                    "maxConcurrency": 1.5,
                    "icon": 7,
                    "max_concurrency": 2
                })),
                // The rest of the tool is wrong too: its keys are still checked.
                tool(json!({"name": "t3", "argsSchema": 1, "scopes": [""], "examples": [1]})),
            ]),
            [
                "tools[0].maxConcurrency: max concurrency must be a positive integer, not 0: a \
                 limit of 0 would refuse every call (got 0)",
                "tools[0].scopes[0]: scope \"a b\" contains a space, which separates scopes in \
                 OAuth; each scope is one token",
                "tools[0].scopes[1]: scope \"a b\" contains a space, which separates scopes in \
                 OAuth; each scope is one token",
                "tools[0].icon: icon must be an absolute `https:` URL or a `data:` URI, not a \
                 relative reference; serve it over `https:`, or embed the image as \
                 `data:image/png;base64,…`",
                "tools[0].examples[0]: /delta: expected integer, got string \"2\"",
                "tools[0].examples[1]: an example is the tool's arguments, a JSON object, not a \
                 number (`3`)",
                "tools[1].scopes: `scopes` is empty; omit it for a tool any caller may call, or \
                 list the scopes a caller must hold, like `[\"counter:write\"]`",
                "tools[1].maxConcurrency: max concurrency must be a positive integer, not a \
                 negative number (got -1)",
                "tools[1].taskSupport: `taskSupport` must be \"forbidden\", \"optional\" or \
                 \"required\", not a string (\"sometimes\")",
                "tools[1].examples: `examples` must be an array of argument objects, like \
                 `[{\"delta\": 2}]`, not an object",
                "tools[2].max_concurrency: unknown key `max_concurrency`; did you mean \
                 `maxConcurrency`?",
                "tools[2].scopes: `scopes` must be an array of OAuth scope strings, like \
                 `[\"counter:write\"]`, not a string (\"a b\")",
                "tools[2].maxConcurrency: max concurrency must be a positive integer, not a \
                 fraction (got 1.5)",
                "tools[2].icon: `icon` must be a string (an `https:` URL or a `data:` URI of an \
                 image), not a number (`7`)",
                "tools[3].argsSchema: expected a schema object such as {\"type\": \"string\"}, \
                 got number 1",
                "tools[3].scopes[0]: scope is empty",
                "tools[3].examples[0]: an example is the tool's arguments, a JSON object, not a \
                 number (`1`)",
            ]
        );
    }
}
