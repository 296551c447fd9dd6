//! Creating a session: [`SessionBuilder`] checks the skill set, compiles the argsSchemas
//! and keeps the inline handlers.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use super::dispatch::{Shared, ToolEntry};
use super::{Session, events, input};
use crate::call::args::CompiledArgs;
use crate::context::StateMap;
use crate::error::{Error, Problem};
use crate::skills::SkillsInput;

/// Creates a session with default options: `Session::builder(skills).create()`.
///
/// # Errors
/// `INVALID_INPUT` listing every problem of the skill set (see [`SessionBuilder::create`]).
pub fn create_session<N>(skills: SkillsInput<N>) -> Result<Session<N>, Error> {
    Session::builder(skills).create()
}

/// Options of a session being created (`Session::builder(skills)`).
pub struct SessionBuilder<N = String> {
    pub(super) skills: SkillsInput<N>,
    pub(super) state: StateMap,
    pub(super) event_capacity: usize,
}

impl<N> SessionBuilder<N> {
    /// Registers shared application state, read by handlers with `ctx.state::<T>()`. One
    /// value per type; registering a second value of a type replaces the first.
    #[must_use]
    pub fn state<T: Send + Sync + 'static>(mut self, value: T) -> Self {
        self.state.insert(value);
        self
    }

    /// Registers shared state the application also keeps a handle to.
    #[must_use]
    pub fn state_arc<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Self {
        self.state.insert_arc(value);
        self
    }

    /// How many events a slow [`EventStream`](crate::session::EventStream) may fall behind before it misses some
    /// (default 1024).
    #[must_use]
    pub fn event_capacity(mut self, capacity: usize) -> Self {
        self.event_capacity = capacity;
        self
    }

    /// Creates the session (the seed's `createSession()`): checks every tool, compiles the
    /// argsSchemas, keeps the inline handlers and builds the manifest.
    ///
    /// # Errors
    /// One `INVALID_INPUT` [`Error`] listing every problem, each with its path
    /// (`tools[1].name: …`): bad names, blank descriptions, invalid schemas, zero timeouts,
    /// duplicate names.
    pub fn create(self) -> Result<Session<N>, Error> {
        let problems = input::definition_problems(self.skills.tools());
        if !problems.is_empty() {
            return Err(Error::invalid_input(problems));
        }
        let manifest = self.skills.manifest();
        let mut by_name = HashMap::with_capacity_and_hasher(
            self.skills.tools().len(),
            foldhash::fast::RandomState::default(),
        );
        let mut tools = Vec::with_capacity(self.skills.tools().len());
        let mut problems = Vec::new();
        for (i, def) in self.skills.tools().iter().enumerate() {
            let name: Arc<str> = Arc::from(def.name());
            by_name.insert(Box::from(def.name()), i);
            let timeout_ms = def
                .timeout_ms()
                .unwrap_or(pedelec_rules::DEFAULT_TIMEOUT_MS);
            // Compiled once here; every call validates against the compiled form.
            let mut schema = def.args_schema().clone();
            if let Err(e) = schema.compile() {
                problems.extend(e.problems().iter().map(|p| Problem {
                    path: format!("tools[{i}].argsSchema{}", p.pointer),
                    message: p.message.clone(),
                }));
            }
            let args = match schema.compiled_shared() {
                Some(compiled) => CompiledArgs::new(name.clone(), compiled.clone()),
                // Reported above; the session is not created.
                None => CompiledArgs::unchecked(name.clone()),
            };
            tools.push(ToolEntry {
                args,
                name,
                timeout: Duration::from_millis(timeout_ms),
                inline: def.handler().cloned(),
                named: RwLock::new(None),
                has_named: AtomicBool::new(false),
            });
        }
        if !problems.is_empty() {
            return Err(Error::invalid_input(problems));
        }
        Ok(Session {
            shared: Arc::new(Shared {
                manifest,
                definitions: self.skills.tools().to_vec(),
                tools,
                by_name,
                fallback: RwLock::new(None),
                state: Arc::new(self.state),
                spare: super::spare::SpareSlot::default(),
                events: events::EventHub::new(self.event_capacity),
                next_call: AtomicU64::new(1),
                shutdown: super::shutdown::new_state(),
            }),
            names: PhantomData,
        })
    }
}

impl<N> fmt::Debug for SessionBuilder<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SessionBuilder")
            .field("skills", &self.skills)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}
