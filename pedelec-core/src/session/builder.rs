//! Creating a session: [`SessionBuilder`] checks the skill set, compiles the argsSchemas
//! and keeps the inline handlers.

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, RwLock, Weak};

use super::ToolKey;
use super::dispatch::Shared;
use super::dispatch::{Dispatch, Endpoint};
use super::entry::ToolEntry;
use super::layers::{LayerFn, ToolLayer, ToolService, layer_fn, stack};
use super::mount::{Mount, SessionLink};
use super::rate::{RateLimit, RateLimiter};
use super::{Session, events, input};

use crate::context::StateMap;
use crate::error::{Error, Problem};
use crate::skills::SkillsInput;
use crate::tool::ToolDefinition;

/// Creates a session with default options: `Session::builder(skills).create()`.
///
/// # Errors
/// `INVALID_INPUT` listing every problem of the skill set (see [`SessionBuilder::create`]).
#[doc(alias = "createSession")]
pub fn create_session<N>(skills: SkillsInput<N>) -> Result<Session<N>, Error> {
    Session::builder(skills).create()
}

/// Options of a session being created (`Session::builder(skills)`).
pub struct SessionBuilder<N = String> {
    pub(super) skills: SkillsInput<N>,
    pub(super) state: StateMap,
    pub(super) event_capacity: usize,
    pub(super) layers: Vec<LayerFn>,
    pub(super) tool_layers: Vec<(String, LayerFn)>,
    pub(super) rate_limit: Option<RateLimit>,
    pub(super) approver: Option<crate::context::ApproverFn>,
    pub(super) store: Option<Arc<dyn crate::store::Store>>,
    pub(super) mounts: Vec<(String, Box<dyn Mount>)>,
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

    /// Wraps every call of the session in a `tower` layer (any `tower::Layer`: a
    /// `ConcurrencyLimitLayer`, a `TimeoutLayer`, tracing, or one of your own), whose
    /// service takes a [`ToolCall`](crate::ToolCall) and answers a
    /// [`ToolResult`](crate::ToolResult). The first layer added is the outermost, as in
    /// `tower::ServiceBuilder`.
    ///
    /// A layer sees each call after the scopes and the rate limit were checked, with the
    /// caller's args as sent (not validated yet); it may answer the call itself (the
    /// handler never runs), change the call's args (whatever it passes on is validated
    /// before a handler sees it), change the result, or time it. Calls of names outside
    /// the skill set pass through it too (a fallback may serve them). The call's timeout
    /// covers the time spent in layers; a layer that panics answers `TOOL_HANDLER_ERROR`.
    ///
    /// ```
    /// # use pedelec_core::{Session, SkillsInput, ToolCall, ToolResult};
    /// # use pedelec_core::session::ToolService;
    /// # use std::convert::Infallible;
    /// # use std::task::{Context, Poll};
    /// /// Answers every call with its args, without a handler (a layer may refuse calls).
    /// #[derive(Clone)]
    /// struct Echo;
    /// impl tower_layer::Layer<ToolService> for Echo {
    ///     type Service = EchoService;
    ///     fn layer(&self, _inner: ToolService) -> EchoService { EchoService }
    /// }
    /// #[derive(Clone)]
    /// struct EchoService;
    /// impl tower_service::Service<ToolCall> for EchoService {
    ///     type Response = ToolResult;
    ///     type Error = Infallible;
    ///     type Future = std::future::Ready<Result<ToolResult, Infallible>>;
    ///     fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
    ///         Poll::Ready(Ok(()))
    ///     }
    ///     fn call(&mut self, call: ToolCall) -> Self::Future {
    ///         std::future::ready(Ok(ToolResult::Ok(call.args)))
    ///     }
    /// }
    /// # let skills = SkillsInput::<String>::new("g", vec![]);
    /// let session = Session::builder(skills).layer(Echo).create()?;
    /// # Ok::<(), pedelec_core::Error>(())
    /// ```
    #[must_use]
    pub fn layer(mut self, layer: impl ToolLayer) -> Self {
        self.layers.push(layer_fn(layer));
        self
    }

    /// Wraps the calls of one tool (named by the skill set's `ToolName` enum, or by name
    /// for a skill set read at run time) in a `tower` layer, inside the session's layers
    /// and the tool's `max_concurrency`, around the validation of its args and its handler.
    /// Several layers of one tool nest like [`layer`](Self::layer)'s. A mounted tool is
    /// named with [`layer_for_mounted`](Self::layer_for_mounted).
    #[must_use]
    pub fn layer_for(mut self, tool: impl ToolKey<N>, layer: impl ToolLayer) -> Self {
        self.tool_layers
            .push((tool.tool_name().to_owned(), layer_fn(layer)));
        self
    }

    /// [`layer_for`](Self::layer_for) for a tool of a mounted namespace
    /// ([`mount`](Self::mount)), by its wire name (`"weather.forecast"`): its calls pass
    /// through the layer whenever the remote lists the tool. A name in no mounted namespace
    /// is an error of [`create`](Self::create).
    #[must_use]
    pub fn layer_for_mounted(mut self, name: impl Into<String>, layer: impl ToolLayer) -> Self {
        self.tool_layers.push((name.into(), layer_fn(layer)));
        self
    }

    /// Limits how often each caller may call the session's tools (a token bucket per
    /// [`Caller::subject`](crate::context::Caller::subject); see [`RateLimit`]). A call
    /// over it is answered at once with `TOOL_RATE_LIMITED` and `details.retryAfterMs`.
    #[must_use]
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.rate_limit = Some(limit);
        self
    }

    /// Where what replicas must agree on lives (DESIGN §13): the rate limit's budgets (one
    /// per caller across every replica sharing the store) and the answers of
    /// `#[tool(exactly_once)]` calls. [`Memory`](crate::store::Memory) (one process) unless
    /// set; [`Redis`](crate::store) (feature `redis`) to share it. A store that fails makes
    /// the calls that need it fail at once (`IO_FAILED`), never hang.
    #[must_use]
    pub fn store(mut self, store: impl crate::store::Store) -> Self {
        self.store = Some(Arc::new(store));
        self
    }

    /// Who approves calls of tools that need it (`#[tool(approval)]`; DESIGN §14), on every
    /// path: in process, in provider loops and over MCP (where, without one, the person at
    /// the client is asked). A call's own `CallOptions::approver` comes first. Without
    /// either, such a call is `TOOL_APPROVAL_REQUIRED` unless its caller can be asked.
    #[must_use]
    pub fn approver(mut self, approver: impl crate::context::Approver) -> Self {
        self.approver = Some(Arc::new(approver));
        self
    }

    /// Mounts tools served by something else under `namespace`: a remote MCP server
    /// (`McpRemote::stdio(cmd)` or `McpRemote::http(url)`, feature `gateway`), whose tools
    /// are listed as `namespace.tool` and called through the session's policy (scopes, the
    /// rate limit, layers, approval, timeouts) like its own. `namespace` follows the tool
    /// name rule without a `.`; no tool of the skill set may be named `namespace.…`.
    /// Checked by [`create`](Self::create).
    #[must_use]
    pub fn mount(mut self, namespace: impl Into<String>, mount: impl Mount) -> Self {
        self.mounts.push((namespace.into(), Box::new(mount)));
        self
    }

    /// Mounts the session's own tools (code mode), without a namespace.
    #[cfg_attr(
        not(feature = "code-mode"),
        allow(dead_code, reason = "what code mode mounts")
    )]
    pub(crate) fn mount_own(mut self, mount: impl Mount) -> Self {
        self.mounts.push((String::new(), Box::new(mount)));
        self
    }

    /// Creates the session (the seed's `createSession()`): checks every tool, compiles the
    /// argsSchemas, keeps the inline handlers and builds the manifest.
    ///
    /// # Errors
    /// One `INVALID_INPUT` [`Error`] listing every problem, each with its path
    /// (`tools[1].name: …`): bad names, blank descriptions, invalid schemas, zero timeouts,
    /// duplicate names.
    #[doc(alias = "createSession")]
    pub fn create(self) -> Result<Session<N>, Error> {
        let problems = input::definition_problems(self.skills.tools());
        if !problems.is_empty() {
            return Err(Error::invalid_input(problems));
        }
        let mut manifest = self.skills.manifest();
        let mut definitions = self.skills.tools().to_vec();
        let link = SessionLink::default();
        let mut problems = Vec::new();
        for (namespace, mount) in self.mounts {
            if !namespace.is_empty() {
                problems.extend(namespace_problems(&namespace, self.skills.tools()));
            }
            match mount.tools(&namespace, self.skills.tools(), &link) {
                Ok(tools) => {
                    manifest
                        .tools
                        .extend(tools.iter().map(ToolDefinition::manifest));
                    definitions.extend(tools);
                }
                Err(mut found) => problems.append(&mut found),
            }
        }
        let live = link.take_live();
        let mut by_name = HashMap::with_capacity_and_hasher(
            definitions.len(),
            foldhash::fast::RandomState::default(),
        );
        let mut tools = Vec::with_capacity(definitions.len());
        for (i, def) in definitions.iter().enumerate() {
            by_name.insert(Box::from(def.name()), i);
            let (entry, mut found) = ToolEntry::of(def, &format!("tools[{i}]"));
            problems.append(&mut found);
            tools.push(entry);
        }
        let mut tool_layers: Vec<Vec<LayerFn>> = tools.iter().map(|_| Vec::new()).collect();
        // Layers of a mounted namespace's tools, by name: applied whenever the tool is listed.
        let mut live_layers: Vec<(usize, String, Vec<LayerFn>)> = Vec::new();
        for (name, layer) in self.tool_layers {
            if let Some(&i) = by_name.get(name.as_str()) {
                tool_layers[i].push(layer);
            } else if let Some(l) = live.iter().position(|l| l.owns(&name)) {
                match live_layers.iter_mut().find(|(_, n, _)| *n == name) {
                    Some((_, _, layers)) => layers.push(layer),
                    None => live_layers.push((l, name, vec![layer])),
                }
            } else {
                problems.push(Problem::at(
                    String::new(),
                    format!("`layer_for(\"{name}\", ..)` names no tool of the skill set"),
                ));
            }
        }
        if !problems.is_empty() {
            return Err(Error::invalid_input(problems));
        }
        let layered = !self.layers.is_empty()
            || !live_layers.is_empty()
            || tool_layers.iter().any(|l| !l.is_empty());
        let shared = Arc::new_cyclic(|this: &Weak<Shared>| {
            for (l, name, layers) in live_layers {
                let endpoint = ToolService::new(Endpoint(this.clone()));
                live[l].set_layers(name, stack(endpoint, layers));
            }
            for (tool, layers) in tools.iter_mut().zip(tool_layers) {
                if !layers.is_empty() {
                    let endpoint = ToolService::new(Endpoint(this.clone()));
                    tool.layers = Some(stack(endpoint, layers));
                }
            }
            let layers = (!self.layers.is_empty()).then(|| {
                let dispatch = ToolService::new(Dispatch(this.clone()));
                stack(dispatch, self.layers)
            });
            Shared {
                manifest,
                package: self.skills.package(),
                listed: RwLock::new(definitions.clone().into()),
                definitions,
                live: live.clone().into(),
                revision: AtomicU64::new(0),
                tools,
                by_name,
                fallback: RwLock::new(None),
                state: Arc::new(self.state),
                spare: super::spare::SpareSlot::default(),
                events: events::EventHub::new(self.event_capacity),
                next_call: AtomicU64::new(1),
                shutdown: super::shutdown::new_state(),
                rate_limit: self.rate_limit.map(RateLimiter::new),
                approver: self.approver,
                shares_limits: self.store.is_some(),
                store: self
                    .store
                    .unwrap_or_else(|| Arc::new(crate::store::Memory::new())),
                layers,
                layered,
                this: this.clone(),
            }
        });
        link.set(&shared);
        for live in &live {
            let session = Arc::downgrade(&shared);
            live.on_change(Box::new(move |namespace| {
                if let Some(shared) = session.upgrade() {
                    shared.tools_changed(namespace);
                }
            }));
        }
        // A mount may have listed its tools before the session existed.
        if !live.is_empty() {
            shared.refresh_listed();
        }
        Ok(Session {
            shared,
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

/// What is wrong with a mount's namespace: it must be a tool name without `.`, and no tool
/// of the skill set may live under it.
fn namespace_problems(namespace: &str, skills: &[ToolDefinition]) -> Vec<Problem> {
    let mut problems = Vec::new();
    if let Err(e) = pedelec_rules::check_tool_name(namespace) {
        problems.push(Problem::at(
            format!("mount(\"{namespace}\")"),
            format!("namespace: {e}"),
        ));
    } else if namespace.contains('.') {
        problems.push(Problem::at(
            format!("mount(\"{namespace}\")"),
            "a namespace may not contain `.` (it ends at the first one)",
        ));
    }
    let prefix = format!("{namespace}.");
    for (i, tool) in skills.iter().enumerate() {
        if tool.name().starts_with(&prefix) {
            problems.push(Problem::at(
                format!("tools[{i}].name"),
                format!(
                    "`{}` is in the namespace `{namespace}`, which a mount owns",
                    tool.name()
                ),
            ));
        }
    }
    problems
}
