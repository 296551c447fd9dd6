//! What a check answers: a [`Report`] when the contract holds, a [`ContractError`] when it
//! does not (or when the lock file cannot be read or written).

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::change::{Change, ChangeKind};

/// The tools whose version went up, with the versions: their breaking changes pass.
fn raised(changes: &[Change]) -> BTreeMap<&str, (u32, u32)> {
    changes
        .iter()
        .filter_map(|c| match c.kind {
            ChangeKind::VersionRaised { from, to } => Some((c.tool.as_str(), (from, to))),
            _ => None,
        })
        .collect()
}

/// Whether `changes` hold a breaking change of a tool whose version did not go up.
pub(crate) fn fails(changes: &[Change]) -> bool {
    let raised = raised(changes);
    changes
        .iter()
        .any(|c| c.breaking && !raised.contains_key(c.tool.as_str()))
}

/// Every change, one per line, each marked `breaking`, `breaking, allowed: version 1 → 2`
/// or `compatible`.
fn list(f: &mut fmt::Formatter<'_>, changes: &[Change]) -> fmt::Result {
    let raised = raised(changes);
    for c in changes {
        write!(f, "\n  - `{}`", c.tool)?;
        if !c.pointer.is_empty() {
            write!(f, " at {}", c.pointer)?;
        }
        write!(f, ": {} (", c.kind)?;
        match (c.breaking, raised.get(c.tool.as_str())) {
            (true, Some((from, to))) => write!(f, "breaking, allowed: version {from} → {to}")?,
            (true, None) => f.write_str("breaking")?,
            (false, _) => f.write_str("compatible")?,
        }
        f.write_str(")")?;
    }
    Ok(())
}

/// A passed check: the lock file it read or wrote, and every change found (compatible ones,
/// and breaking ones of tools whose version went up).
#[derive(Clone, Debug)]
pub struct Report {
    pub(crate) path: PathBuf,
    pub(crate) changes: Vec<Change>,
    pub(crate) written: bool,
}

impl Report {
    /// The lock file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every change from the lock file to the current tools, by tool (when the lock file was
    /// rewritten with `PEDELEC_CONTRACT=update`, the changes it recorded).
    #[must_use]
    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Whether the check wrote the lock file (it was missing, or `PEDELEC_CONTRACT=update`).
    #[must_use]
    pub const fn written(&self) -> bool {
        self.written
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        match (self.written, self.changes.len()) {
            (true, 0) => write!(f, "{path}: written"),
            (true, n) => write!(f, "{path}: written, recording {n} change(s):"),
            (false, 0) => write!(f, "{path}: the tools match it"),
            (false, n) => write!(
                f,
                "{path}: {n} change(s), none breaking without a version bump (record them with \
                 `PEDELEC_CONTRACT=update`):"
            ),
        }?;
        list(f, &self.changes)
    }
}

/// A failed check. Its `Display` says what to do; for breaking changes it lists every change
/// (tool, JSON pointer, kind, breaking or not).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ContractError {
    /// A tool changed in a way that breaks its callers or consumers, and its version did not
    /// go up.
    #[non_exhaustive]
    Breaking {
        /// The lock file.
        path: PathBuf,
        /// Every change, breaking or not.
        changes: Vec<Change>,
    },
    /// No lock file, and `CI` is set: a CI run does not write one.
    #[non_exhaustive]
    Missing {
        /// Where the lock file should be.
        path: PathBuf,
    },
    /// The lock file could not be read or written.
    #[non_exhaustive]
    Io {
        /// The lock file.
        path: PathBuf,
        /// Why.
        source: Arc<io::Error>,
    },
    /// The lock file is not a lock (not JSON, or an entry with a missing or unknown key).
    #[non_exhaustive]
    Malformed {
        /// The lock file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl ContractError {
    /// Every change found (empty unless [`Breaking`](Self::Breaking)).
    #[must_use]
    pub fn changes(&self) -> &[Change] {
        match self {
            ContractError::Breaking { changes, .. } => changes,
            _ => &[],
        }
    }
}

impl fmt::Display for ContractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContractError::Breaking { path, changes } => {
                let raised = raised(changes);
                let failing = changes
                    .iter()
                    .filter(|c| c.breaking && !raised.contains_key(c.tool.as_str()))
                    .count();
                write!(
                    f,
                    "{}: {failing} breaking change(s) to tools whose version did not go up:",
                    path.display()
                )?;
                list(f, changes)?;
                write!(
                    f,
                    "\nraise the `version` of each tool with a breaking change \
                     (`#[tool(version = 2)]`), or keep its old contract; to accept the changes \
                     as they are, run the check with `PEDELEC_CONTRACT=update` and commit {}",
                    path.display()
                )
            }
            ContractError::Missing { path } => write!(
                f,
                "{}: no lock file, and `CI` is set, so none is written; run the check once \
                 without `CI` (or with `PEDELEC_CONTRACT=update`) and commit the file",
                path.display()
            ),
            ContractError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ContractError::Malformed { path, message } => write!(
                f,
                "{}: not a tools lock file: {message}; fix it, or write it anew with \
                 `PEDELEC_CONTRACT=update`",
                path.display()
            ),
        }
    }
}

impl std::error::Error for ContractError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ContractError::Io { source, .. } => Some(&**source),
            _ => None,
        }
    }
}
