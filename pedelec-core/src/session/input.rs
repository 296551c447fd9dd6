//! Checking a skill set (session creation, step 1), and reading one from JSON.

use std::collections::HashMap;

use serde_json::{Map, Value};

use crate::error::{Error, Problem, describe_value as describe};
use crate::schema::ToolArgsSchema;
use crate::skills::SkillsInput;
use crate::tool::ToolDefinition;

/// Every problem of a list of definitions: each definition's own (name, description,
/// timeout, schema), then duplicate names. Paths are `tools[i].…`.
pub(crate) fn definition_problems(tools: &[ToolDefinition]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, tool) in tools.iter().enumerate() {
        for p in tool.problems() {
            problems.push(Problem {
                path: format!("tools[{i}].{}", p.path),
                message: p.message,
            });
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
            problems.push(Problem {
                path: format!("tools[{i}].name"),
                message: format!(
                    "duplicate tool name {name:?}: `tools[{j}]` already has it; tool names must be unique within a skill set"
                ),
            });
        } else {
            first.insert(name, i);
        }
    }
    problems
}

const SKILLS_KEYS: &[&str] = &["guidance", "tools"];
const TOOL_KEYS: &[&str] = &["name", "description", "argsSchema", "timeoutMs"];

impl SkillsInput<String> {
    /// Reads a skill set defined outside Rust: `{"guidance": "…", "tools": [{"name",
    /// "description", "argsSchema", "timeoutMs"?}, …]}` (the seed's `SkillsInput`, without
    /// handlers: register them on the session, or serve the tools with a fallback).
    ///
    /// # Errors
    /// One `INVALID_INPUT` [`Error`] listing every problem, each with its path
    /// (`tools[1].argsSchema/properties/delta/type: …`): a non-string `guidance`, a
    /// non-array `tools`, a tool that is not an object, a missing or bad `name`, a missing
    /// or blank `description`, the legacy `input` shorthand, a missing or invalid
    /// `argsSchema`, a `timeoutMs` that is not a positive integer, a duplicate name, and
    /// unknown keys.
    pub fn from_json(json: &Value) -> Result<Self, Error> {
        let mut problems = Vec::new();
        let Some(root) = json.as_object() else {
            return Err(Error::invalid_input(vec![Problem {
                path: String::new(),
                message: format!(
                    "a skill set is an object `{{\"guidance\": …, \"tools\": […]}}`, not {}",
                    describe(json)
                ),
            }]));
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
                    if let Some(def) = read_tool(i, entry, &mut names, &mut problems)
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
            Some(other) => problems.push(Problem {
                path: "tools".into(),
                message: format!(
                    "`tools` must be an array of tool definitions, not {}",
                    describe(other)
                ),
            }),
            None => problems.push(Problem {
                path: "tools".into(),
                message: "missing `tools`: an array of tool definitions".into(),
            }),
        }
        if problems.is_empty() {
            Ok(SkillsInput::new(guidance, tools))
        } else {
            Err(Error::invalid_input(problems))
        }
    }

    /// [`from_json`](Self::from_json) for JSON text.
    ///
    /// # Errors
    /// As `from_json`; text that is not JSON is one problem (with line and column).
    pub fn from_json_str(text: &str) -> Result<Self, Error> {
        let value: Value = serde_json::from_str(text).map_err(|e| {
            Error::invalid_input(vec![Problem {
                path: String::new(),
                message: format!("the skill set is not valid JSON: {e}"),
            }])
        })?;
        SkillsInput::from_json(&value)
    }
}

/// Reads `tools[i]`; records its name (for the duplicate check) and its problems.
fn read_tool(
    i: usize,
    entry: &Value,
    names: &mut Vec<(usize, String)>,
    problems: &mut Vec<Problem>,
) -> Option<ToolDefinition> {
    let at = |key: &str| format!("tools[{i}].{key}");
    let Some(obj) = entry.as_object() else {
        problems.push(Problem {
            path: format!("tools[{i}]"),
            message: format!(
                "a tool definition is an object with `name`, `description` and `argsSchema`, not {}",
                describe(entry)
            ),
        });
        return None;
    };
    if obj.contains_key("input") {
        problems.push(Problem {
            path: at("input"),
            message: "the legacy `input` shorthand is not supported; describe the arguments with `argsSchema` (a JSON Schema object)".into(),
        });
    }
    if obj.contains_key("handler") {
        problems.push(Problem {
            path: at("handler"),
            message: "a skill set read from JSON cannot carry handlers; register one with `session.on_tool_name(..)` or `session.set_fallback(..)`".into(),
        });
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
            problems.push(Problem {
                path: at("name"),
                message: p.to_string(),
            });
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
        problems.push(Problem {
            path: at("description"),
            message: pedelec_rules::BLANK_DESCRIPTION.into(),
        });
    }
    let schema = match obj.get("argsSchema") {
        Some(json) => match ToolArgsSchema::from_json(json) {
            Ok(schema) => Some(schema),
            Err(e) => {
                for p in e.problems() {
                    problems.push(Problem {
                        path: format!("tools[{i}].argsSchema{}", p.pointer),
                        message: p.message.clone(),
                    });
                }
                None
            }
        },
        None => {
            problems.push(Problem {
                path: at("argsSchema"),
                message: "missing `argsSchema`: a JSON Schema whose root is an object (`{\"type\": \"object\", \"properties\": {…}}`)".into(),
            });
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
                    problems.push(Problem {
                        path: at("timeoutMs"),
                        message: format!("{p} (got {n})"),
                    });
                    None
                }
            }
        }
        Some(other) => {
            problems.push(Problem {
                path: at("timeoutMs"),
                message: format!(
                    "`timeoutMs` must be a positive integer number of milliseconds, not {}",
                    describe(other)
                ),
            });
            None
        }
    };
    let mut def = ToolDefinition::new(name?, description?, schema?);
    if let Some(ms) = timeout_ms {
        def = def.with_timeout_ms(ms);
    }
    Some(def)
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
    problems.push(Problem { path, message });
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
        problems.push(Problem {
            path: format!("{prefix}{key}"),
            message,
        });
    }
}
