//! A process's children as `/proc` shows them, for the code-mode checks that no worker is
//! left running or unreaped (the fuzz target, and `tests/code_mode.rs` through `#[path]`).

/// A child: pid, state (its main thread's), CPU ticks (user + system, the whole process's).
pub type Child = (u32, char, u64);

/// This process's children (`/proc/self/task/*/children`, then each child's `stat`).
///
/// # Panics
/// Without `/proc` (the checks would pass without looking).
pub fn children() -> Vec<Child> {
    let mut pids = Vec::new();
    for task in std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task: the worker checks need Linux's /proc")
        .flatten()
    {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        pids.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<u32>().ok()),
        );
    }
    pids.into_iter()
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // After the command's `(…)`: state, then fields 4.. (utime is field 14).
            let rest = &stat[stat.rfind(')')? + 2..];
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let state = fields.first()?.chars().next()?;
            let ticks =
                fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
            Some((pid, state, ticks))
        })
        .collect()
}

/// The children of `after` that are unreaped (zombies) or used CPU since `before`.
pub fn busy(before: &[Child], after: &[Child]) -> Vec<Child> {
    after
        .iter()
        .filter(|(pid, state, ticks)| {
            *state == 'Z' || before.iter().any(|(p, _, t)| p == pid && t != ticks)
        })
        .copied()
        .collect()
}
