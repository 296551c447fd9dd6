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
        }
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
            let (entry, mut more) = ToolEntry::of(&def, &place);
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
