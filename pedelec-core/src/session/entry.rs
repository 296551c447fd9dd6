//! One tool of a live session ([`ToolEntry`]): what a call needs of it, built once from its
//! definition (the skill set's at creation, a mounted namespace's each time it is listed).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use super::concurrency::ConcurrencyLimit;
use super::layers::ToolService;
use crate::call::args::CompiledArgs;
use crate::call::handler::ToolHandler;
use crate::error::Problem;
use crate::tool::{ApprovalCheck, ToolDefinition};

/// One tool of a live session.
pub(super) struct ToolEntry {
    pub(super) name: Arc<str>,
    pub(super) args: CompiledArgs,
    pub(super) timeout: Duration,
    pub(super) inline: Option<ToolHandler>,
    pub(super) named: RwLock<Option<ToolHandler>>,
    /// Set once a named handler is registered: until then a call reads no lock and clones
    /// no handler (most tools only ever have their inline handler).
    pub(super) has_named: AtomicBool,
    /// The scopes a caller must hold (`#[tool(scopes = [...])]`).
    pub(super) scopes: Box<[Box<str>]>,
    /// `#[tool(max_concurrency = N)]`.
    pub(super) concurrency: Option<Arc<ConcurrencyLimit>>,
    /// The tool's `layer_for` layers around its endpoint.
    pub(super) layers: Option<ToolService>,
    /// Which calls need approval (`#[tool(approval)]`).
    pub(super) approval: Option<ApprovalCheck>,
    /// `#[tool(exactly_once)]`.
    pub(super) exactly_once: bool,
}

impl ToolEntry {
    /// The live form of a checked definition: its schema compiled (problems placed under
    /// `place`, e.g. `tools[3]`), its handler, policy and timeout. Without layers.
    pub(super) fn of(def: &ToolDefinition, place: &str) -> (ToolEntry, Vec<Problem>) {
        let name: Arc<str> = Arc::from(def.name());
        let timeout_ms = def
            .timeout_ms()
            .unwrap_or(pedelec_rules::DEFAULT_TIMEOUT_MS);
        let mut problems = Vec::new();
        // Compiled once here; every call validates against the compiled form.
        let mut schema = def.args_schema().clone();
        if let Err(e) = schema.compile() {
            problems.extend(
                e.problems().iter().map(|p| {
                    Problem::at(format!("{place}.argsSchema{}", p.place), p.message.clone())
                }),
            );
        }
        let args = match schema.compiled_shared() {
            Some(compiled) => CompiledArgs::new(name.clone(), compiled.clone()),
            // Reported above; the entry is not used.
            None => CompiledArgs::unchecked(name.clone()),
        };
        let entry = ToolEntry {
            args,
            name,
            timeout: Duration::from_millis(timeout_ms),
            inline: def.handler().cloned(),
            named: RwLock::new(None),
            has_named: AtomicBool::new(false),
            scopes: def.scopes().iter().map(|s| Box::from(&**s)).collect(),
            concurrency: def.max_concurrency().map(ConcurrencyLimit::new),
            layers: None,
            approval: def.approval_check(),
            exactly_once: def.exactly_once(),
        };
        (entry, problems)
    }

    /// Resolution step 1: the named handler, if one is registered.
    pub(super) fn named(&self) -> Option<ToolHandler> {
        if !self.has_named.load(Ordering::Acquire) {
            return None;
        }
        self.named
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}
