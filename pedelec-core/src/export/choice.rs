//! Typed tool choice: which of an export's tools a model may (or must) call, as the
//! request field of each target ([`Export::tool_choice`]).

use serde_json::{Value, json};

use super::{Export, ExportError, Target, problem};
use crate::skills::SkillSet;

/// How the model may use the tools a [`tool_choice`](Export::tool_choice) allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Choice {
    /// The model may call one of them, or answer in text.
    Auto,
    /// The model must call one (or more) of them.
    Required,
}

impl Export {
    /// The request field that limits the model to `tools` (tools of the skill set, named by
    /// its `ToolName` enum, so a tool outside it does not compile), each under its provider
    /// name:
    ///
    /// | target | field | value |
    /// |---|---|---|
    /// | OpenAI Chat Completions | `tool_choice` | `{"type": "allowed_tools", "allowed_tools": {"mode", "tools": [{"type": "function", "function": {"name"}}]}}` |
    /// | OpenAI Responses | `tool_choice` | `{"type": "allowed_tools", "mode", "tools": [{"type": "function", "name"}]}` |
    /// | Anthropic | `tool_choice` | `{"type": "tool", "name"}` (one tool, required), `{"type": "any"}` / `{"type": "auto"}` (every tool) |
    /// | Gemini (both) | `toolConfig` | `{"functionCallingConfig": {"mode": "ANY" \| "VALIDATED" \| "AUTO", "allowedFunctionNames"?}}` |
    ///
    /// On Gemini, `Required` is `ANY`; `Auto` is `VALIDATED` (calls held to their schemas)
    /// when the export was asked for strict mode, else `AUTO`, which names no functions.
    ///
    /// # Errors
    /// What the target cannot say, with what to do instead: no tools; a tool this export does
    /// not hold (an enum of another skill set); on Anthropic, a subset of more than one tool,
    /// or `Auto` over a subset (its `tool_choice` names one tool or all of them: export a
    /// skill set of just those tools); on Gemini, `Auto` over a subset without strict mode;
    /// on MCP, any (MCP leaves the choice to the client).
    pub fn tool_choice<S: SkillSet>(
        &self,
        tools: &[S],
        choice: Choice,
    ) -> Result<Value, ExportError> {
        let refuse = |rule: &'static str, message: String| {
            Err(ExportError::new(
                self.target,
                vec![problem(None, "", rule, message)],
            ))
        };
        if tools.is_empty() {
            return refuse(
                "tool-choice-empty",
                "no tools to choose from: name at least one tool of the skill set".to_owned(),
            );
        }
        let mut names: Vec<&str> = Vec::with_capacity(tools.len());
        for tool in tools {
            match self.provider_name(tool.as_str()) {
                Some(name) if !names.contains(&name) => names.push(name),
                Some(_) => {}
                None => {
                    return refuse(
                        "tool-choice-unknown",
                        format!(
                            "`{}` is not a tool of this export; export the skill set that \
                             declares it",
                            tool.as_str()
                        ),
                    );
                }
            }
        }
        let every = names.len() == self.names.len();
        let mode = match choice {
            Choice::Auto => "auto",
            Choice::Required => "required",
        };
        Ok(match self.target {
            Target::OpenAiChat => json!({
                "type": "allowed_tools",
                "allowed_tools": {
                    "mode": mode,
                    "tools": names
                        .iter()
                        .map(|n| json!({"type": "function", "function": {"name": n}}))
                        .collect::<Vec<_>>(),
                },
            }),
            Target::OpenAiResponses => json!({
                "type": "allowed_tools",
                "mode": mode,
                "tools": names
                    .iter()
                    .map(|n| json!({"type": "function", "name": n}))
                    .collect::<Vec<_>>(),
            }),
            Target::Anthropic => match (choice, names.as_slice()) {
                (Choice::Required, [one]) => json!({"type": "tool", "name": one}),
                (Choice::Required, _) if every => json!({"type": "any"}),
                (Choice::Auto, _) if every => json!({"type": "auto"}),
                _ => {
                    return refuse(
                        "tool-choice-subset",
                        format!(
                            "Anthropic's `tool_choice` names one tool (required) or all of \
                             them, not {} of {}{}; export a skill set of just these tools",
                            names.len(),
                            self.names.len(),
                            if choice == Choice::Auto {
                                " the model may skip"
                            } else {
                                ""
                            }
                        ),
                    );
                }
            },
            Target::Gemini | Target::GeminiOpenApi => {
                let mode = match choice {
                    Choice::Required => "ANY",
                    Choice::Auto if self.strict_asked => "VALIDATED",
                    Choice::Auto if every => "AUTO",
                    Choice::Auto => {
                        return refuse(
                            "tool-choice-subset",
                            "Gemini's `AUTO` mode cannot limit the model to some functions \
                             (`allowedFunctionNames` needs `ANY` or `VALIDATED`); export with \
                             strict mode for `VALIDATED`, use `Choice::Required`, or export a \
                             skill set of just these tools"
                                .to_owned(),
                        );
                    }
                };
                if mode == "AUTO" {
                    json!({"functionCallingConfig": {"mode": mode}})
                } else {
                    json!({"functionCallingConfig": {"mode": mode, "allowedFunctionNames": names}})
                }
            }
            Target::Mcp => {
                return refuse(
                    "tool-choice-mcp",
                    "MCP has no tool choice: the client decides which tools its model sees"
                        .to_owned(),
                );
            }
        })
    }
}
