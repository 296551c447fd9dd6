//! The tools of a mounted namespace, replaced at run time ([`LiveTools`]).
//!
//! A remote server's tools are known only once it answers, and change when it says
//! `notifications/tools/list_changed`. The session's own table stays fixed at `create()`
//! (the hot path looks a tool up in it without a lock, and every check of §6 runs once
//! there); a mount that needs more claims a *namespace* instead (`SessionLink::live`):
//! every wire name `namespace.…` belongs to it, and its tools live in a [`LiveTools`]
//! table beside the fixed one, replaced whole (an `Arc` swapped under a lock held for a
//! pointer copy) each time the mount re-lists. A call looks there only when the fixed
//! table has no tool of its name, so native tools pay nothing; a call keeps the entry it
//! found (an `Arc`) to its end, so a re-list never pulls a table from under a running
//! call. Each entry is built by the same code as the fixed table's (schema compiled,
//! scopes, timeout, approval), so the session's policy — scopes, the rate limit, layers,
//! approval, the timeout, cancellation — applies to mounted tools exactly as to native
//! ones. A change bumps [`Session::tools_revision`](super::Session::tools_revision) and sends
//! [`SessionEvent::ToolsChanged`](super::SessionEvent::ToolsChanged), from which bridges
//! re-list and tell their clients.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, PoisonError, RwLock};

use super::entry::ToolEntry;
use super::layers::ToolService;
use crate::error::Problem;
use crate::tool::ToolDefinition;

/// What the session does when a namespace's tools changed (set at creation).
type OnChange = Box<dyn Fn(&str) + Send + Sync>;

/// The tools of a namespace a mount owns, replaced whole at run time (see the module docs).
pub(crate) struct LiveTools {
    namespace: Box<str>,
    /// `namespace.`
    prefix: Box<str>,
    table: RwLock<Arc<LiveTable>>,
    /// Tells the session, once created (it holds it weakly: the session owns this table).
    on_change: OnceLock<OnChange>,
    /// Whether the mount has listed its tools at least once.
    listed: tokio::sync::watch::Sender<bool>,
    /// Why the namespace's tools cannot be called now (its remote is down), if so.
    down: RwLock<Option<String>>,
    /// The warnings and problems of the last listing.
    report: RwLock<Vec<Problem>>,
    /// `layer_for` layers of the namespace's tools, by wire name, set at creation: each
    /// listing's entry of that name gets them.
    layers: RwLock<HashMap<Box<str>, ToolService>>,
    /// What the mount's task gave to end with the session (the drop guard of the
    /// cancellation token it runs under): dropped with this table, that is with the
    /// session, it stops the task at once wherever it waits.
    ends_with_session: std::sync::Mutex<Vec<Box<dyn Send + Sync>>>,
}

/// One listing of a namespace's tools.
#[derive(Default)]
pub(super) struct LiveTable {
    pub(super) definitions: Vec<ToolDefinition>,
    entries: HashMap<Box<str>, Arc<ToolEntry>>,
}

impl LiveTools {
    pub(super) fn new(namespace: &str) -> Self {
        LiveTools {
            namespace: namespace.into(),
            prefix: format!("{namespace}.").into(),
            table: RwLock::new(Arc::default()),
            on_change: OnceLock::new(),
            listed: tokio::sync::watch::Sender::new(false),
            down: RwLock::new(None),
            report: RwLock::new(Vec::new()),
            layers: RwLock::new(HashMap::new()),
            ends_with_session: std::sync::Mutex::new(Vec::new()),
        }
    }

    /// Keeps `guard` until the session is dropped (see `ends_with_session`).
    #[cfg_attr(
        not(feature = "gateway"),
        allow(dead_code, reason = "what remote servers mount")
    )]
    pub(crate) fn end_with_session(&self, guard: Box<dyn Send + Sync>) {
        self.ends_with_session
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(guard);
    }

    /// The `layer_for` layers of the tool `name` (set at creation, before any listing is
    /// served).
    pub(super) fn set_layers(&self, name: String, layers: ToolService) {
        self.layers
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.into(), layers);
    }

    /// What the session does when the tools change (its list rebuilt, its revision
    /// bumped, its subscribers told).
    pub(super) fn on_change(&self, f: OnChange) {
        let _ = self.on_change.set(f);
    }

    /// Says why the namespace's tools cannot be called now (`None`: they can again).
    #[cfg_attr(
        not(feature = "gateway"),
        allow(dead_code, reason = "what remote servers mount")
    )]
    pub(crate) fn set_down(&self, why: Option<String>) {
        *self.down.write().unwrap_or_else(PoisonError::into_inner) = why;
    }

    /// Why the namespace's tools cannot be called now, if so.
    pub(super) fn down(&self) -> Option<String> {
        self.down
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(super) fn report(&self) -> Vec<Problem> {
        self.report
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Waits until the mount has listed its tools once.
    pub(super) async fn listed(&self) {
        let mut listed = self.listed.subscribe();
        let _ = listed.wait_for(|listed| *listed).await;
    }

    pub(super) fn namespace(&self) -> &str {
        &self.namespace
    }

    pub(super) fn owns(&self, name: &str) -> bool {
        name.starts_with(&*self.prefix)
    }

    pub(super) fn get(&self, name: &str) -> Option<Arc<ToolEntry>> {
        self.current().entries.get(name).cloned()
    }

    pub(super) fn current(&self) -> Arc<LiveTable> {
        self.table
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the namespace's tools with `tools`, checked as a skill set's are (names,
    /// descriptions, schemas, timeouts, duplicates) and each required to be named
    /// `namespace.…`; a tool with a problem is left out and its problems returned (places
    /// `namespace.tools[i]…`). Calls already running keep the entry they started with.
    #[cfg_attr(
        not(feature = "gateway"),
        allow(dead_code, reason = "what remote servers mount")
    )]
    pub(crate) fn replace(
        &self,
        tools: Vec<ToolDefinition>,
        warnings: Vec<Problem>,
    ) -> Vec<Problem> {
        let mut problems = warnings;
        let mut table = LiveTable::default();
        let found = super::input::definition_problems(&tools);
        for (i, def) in tools.into_iter().enumerate() {
            let place = format!("tools[{i}]");
            let mut own: Vec<Problem> = found
                .iter()
                .filter(|p| p.place.starts_with(&format!("{place}.")))
                .cloned()
                .collect();
            if !self.owns(def.name()) {
                own.push(Problem::at(
                    format!("{place}.name"),
                    format!(
                        "`{}` is not in the namespace `{}`",
                        def.name(),
                        self.namespace
                    ),
                ));
            }
            let (mut entry, mut more) = ToolEntry::of(&def, &place);
            entry.layers = self
                .layers
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .get(def.name())
                .cloned();
            own.append(&mut more);
            if own.is_empty() {
                table.entries.insert(def.name().into(), Arc::new(entry));
                table.definitions.push(def);
            } else {
                problems
                    .extend(own.into_iter().map(|p| {
                        Problem::at(format!("{}.{}", self.namespace, p.place), p.message)
                    }));
            }
        }
        *self.table.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(table);
        self.report
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .clone_from(&problems);
        if let Some(on_change) = self.on_change.get() {
            on_change(&self.namespace);
        }
        // After the session's list is rebuilt: who waits for it sees the tools.
        self.listed.send_replace(true);
        problems
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::{Value, json};

    use super::*;
    use crate::call::handler::ToolHandler;
    use crate::error::{ErrorCode, ToolResult};
    use crate::session::mount::{Mount, SessionLink};
    use crate::session::{Session, SessionEvent};
    use crate::skills::SkillsInput;
    use crate::tool::ToolDefinition;

    /// A mount that hands its live table to the test.
    struct Publish(Arc<Mutex<Option<Arc<LiveTools>>>>);

    impl Mount for Publish {
        fn tools(
            self: Box<Self>,
            namespace: &str,
            _skills: &[ToolDefinition],
            link: &SessionLink,
        ) -> Result<Vec<ToolDefinition>, Vec<Problem>> {
            *self.0.lock().unwrap() = Some(link.live(namespace));
            Ok(Vec::new())
        }
    }

    fn echo(name: &str, description: &str) -> ToolDefinition {
        let schema = crate::ToolArgsSchema::from_json(&json!({"type": "object"})).unwrap();
        ToolDefinition::new(name.to_owned(), description.to_owned(), schema).with_handler(
            ToolHandler::json(|args: Value, _ctx| async move { Ok::<_, crate::ToolError>(args) }),
        )
    }

    fn code(result: &ToolResult) -> Option<ErrorCode> {
        match result {
            ToolResult::Err(e) => Some(e.code()),
            ToolResult::Ok(_) => None,
        }
    }

    #[tokio::test]
    async fn a_namespace_s_tools_change_at_run_time() {
        let slot = Arc::new(Mutex::new(None));
        let session: Session = Session::builder(SkillsInput::new("g", vec![]))
            .mount("ns", Publish(slot.clone()))
            .create()
            .unwrap();
        let live = slot.lock().unwrap().clone().unwrap();
        let mut events = session.events();
        assert!(session.has_mounts());
        assert_eq!(session.tools_revision(), 0);
        assert!(session.definitions().is_empty());

        // Listed: the session lists and calls it, and says so.
        let problems = live.replace(vec![echo("ns.a", "Echo.")], Vec::new());
        assert!(problems.is_empty(), "{problems:?}");
        session.mount_ready("ns").await.unwrap();
        assert_eq!(session.tools_revision(), 1);
        assert_eq!(session.definitions()[0].name(), "ns.a");
        assert_eq!(session.manifest().tools[0].name, "ns.a");
        let answer = session.call("ns.a", json!({"x": 1})).await;
        assert_eq!(answer, ToolResult::Ok(json!({"x": 1})));
        let event = futures_core_next(&mut events).await;
        assert_eq!(
            event,
            Some(SessionEvent::ToolsChanged {
                namespace: "ns".to_owned()
            })
        );

        // Re-listed: what breaks the rules is left out and reported at its place.
        let problems = live.replace(
            vec![
                echo("ns.b", "Echo."),
                echo("other.c", "Echo."),
                echo("ns.d", " "),
            ],
            Vec::new(),
        );
        let places: Vec<&str> = problems.iter().map(|p| p.place.as_str()).collect();
        assert_eq!(
            places,
            ["ns.tools[1].name", "ns.tools[2].description"],
            "{problems:?}"
        );
        assert_eq!(session.mount_report("ns").unwrap().len(), 2);
        let names: Vec<String> = session
            .definitions()
            .iter()
            .map(|d| d.name().to_owned())
            .collect();
        assert_eq!(names, ["ns.b"]);
        assert_eq!(
            code(&session.call("ns.a", json!({})).await),
            Some(ErrorCode::ToolHandlerNotFound)
        );
        assert_eq!(code(&session.call("ns.b", json!({})).await), None);

        // Down: a name under the namespace fails with why.
        live.set_down(Some("the remote `ns` is down".to_owned()));
        let down = session.call("ns.zzz", json!({})).await;
        assert_eq!(code(&down), Some(ErrorCode::IoFailed));
        // Nothing is mounted under another name.
        assert!(session.mount_ready("elsewhere").await.is_err());
    }

    async fn futures_core_next<S: futures_core::Stream + Unpin>(stream: &mut S) -> Option<S::Item> {
        std::future::poll_fn(|cx| std::pin::Pin::new(&mut *stream).poll_next(cx)).await
    }
}
