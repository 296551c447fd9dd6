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

impl<S: SkillSet> Export<S> {
    /// The request field that limits the model to `tools` (tools of the skill set the export
    /// is typed by, named by its `ToolName` enum, so a tool outside it does not compile),
    /// each under its provider name:
    ///
    /// | target | field | value |
    /// |---|---|---|
    /// | OpenAI Chat Completions | `tool_choice` | `{"type": "allowed_tools", "allowed_tools": {"mode", "tools": [{"type": "function", "function": {"name"}}]}}` |
    /// | OpenAI Responses | `tool_choice` | `{"type": "allowed_tools", "mode", "tools": [{"type": "function", "name"}]}` |
    /// | Anthropic | `tool_choice` | `{"type": "tool", "name"}` (`Required`, one tool), `{"type": "auto"}` (`Auto`, every tool) |
    /// | Gemini (both) | `toolConfig` | `{"functionCallingConfig": {"mode": "ANY" \| "VALIDATED", "allowedFunctionNames"}}` |
    ///
    /// On Gemini, `Required` is `ANY` and `Auto` is `VALIDATED` (a function call held to its
    /// schema, or text).
    ///
    /// # Errors
    /// What the target cannot say, with what to do instead: no tools; a tool this export does
    /// not hold; with [`Search`](super::Search), a deferred tool (or, on OpenAI Responses, one
    /// in a namespace), which the request does not declare at the top level; on Anthropic, `Required` with more than one
    /// tool, or `Auto` over some of the tools (its `tool_choice` names one tool, or leaves
    /// all); on MCP, any (MCP leaves the choice to the client).
    pub fn tool_choice(&self, tools: &[S], choice: Choice) -> Result<Value, ExportError> {
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
            let position = self.names.iter().position(|(t, _)| t == tool.as_str());
            if let Some(i) = position
                && self.search != super::Search::Off
                && (self.deferred[i] || self.namespace_of[i].is_some())
            {
                return refuse(
                    "tool-choice-deferred",
                    format!(
                        "`{}` is {} in this export, and a tool choice can name only the tools \
                         the request declares at the top level; leave it out, or export \
                         without search",
                        tool.as_str(),
                        if self.deferred[i] {
                            "deferred"
                        } else {
                            "in a namespace"
                        }
                    ),
                );
            }
            match position.map(|i| self.names[i].1.as_str()) {
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
                (Choice::Auto, _) if every => json!({"type": "auto"}),
                (Choice::Required, _) => {
                    return refuse(
                        "tool-choice-subset",
                        format!(
                            "Anthropic's `tool_choice` makes the model call one named tool, not \
                             one of {}; name one tool, or use `Choice::Auto` over every tool",
                            names.len()
                        ),
                    );
                }
                (Choice::Auto, _) => {
                    return refuse(
                        "tool-choice-subset",
                        format!(
                            "Anthropic's `tool_choice` cannot limit the model to {} of {} \
                             tools; export a skill set of just these tools",
                            names.len(),
                            self.names.len()
                        ),
                    );
                }
            },
            Target::Gemini | Target::GeminiOpenApi => {
                let mode = match choice {
                    Choice::Required => "ANY",
                    Choice::Auto => "VALIDATED",
                };
                json!({"functionCallingConfig": {"mode": mode, "allowedFunctionNames": names}})
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
