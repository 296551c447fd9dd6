//! `cargo xtask compile-bench [N] --profile`: where a `cargo check` of the generated crates
//! spends its time, query by query, both crates side by side.
//!
//! Each crate is checked once more with rustc's self-profiler (`cargo rustc --profile check
//! -- -Zself-profile -Zself-profile-events=default,args`, `RUSTC_BOOTSTRAP=1` on a stable
//! toolchain), and the profile is read with `analyzeme` (the library behind `measureme`'s
//! `summarize`). Times are *self* times: a query's time less the queries it called, so
//! the rows add up to the total. Then, for the queries that differ most, the items they ran
//! on, grouped with every number in their names replaced by `N` (the 100 `typeck`s of
//! `tool_N`, the 100 `eval_to_allocation_raw`s of `{impl#N}::SCHEMA`, …).
//!
//! With `--runs R`, each crate is profiled R times (interleaved) and every row is the median
//! of its R values. The profiler slows rustc down by some 30%, alike for both crates: read
//! the seconds as shares, not as what a plain `cargo check` takes.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use analyzeme::{EventPayload, ProfilingData, Timestamp};

/// Queries listed, by how much more time the pedelec crate spends in them.
const TOP_QUERIES: usize = 24;
/// Queries whose items are listed.
const TOP_DETAILED: usize = 6;
/// Items listed per query.
const TOP_ITEMS: usize = 5;

/// Self time and count per query, and per query and (normalized) item.
#[derive(Default)]
pub struct Profile {
    queries: HashMap<String, Spent>,
    items: HashMap<(String, String), Spent>,
}

#[derive(Clone, Copy, Default)]
struct Spent {
    time: Duration,
    count: usize,
}

impl Spent {
    fn add(&mut self, time: Duration) {
        self.time += time;
        self.count += 1;
    }
}

/// One interval of the profile.
struct Interval {
    thread: u32,
    start: SystemTime,
    end: SystemTime,
    query: String,
    item: String,
}

impl Profile {
    /// Reads the one `.mm_profdata` file in `dir`, written by rustc for `krate` (whose
    /// name becomes `crate` in items' paths, so that both crates' items compare).
    pub fn read(dir: &Path, krate: &str) -> Result<Profile, String> {
        let file = profile_file(dir)?;
        let data = ProfilingData::new(&file)
            .map_err(|e| format!("cannot read the profile {}: {e}", file.display()))?;
        let prefix = format!("{krate}::");
        let intervals = data.iter_full().filter_map(|event| match event.payload {
            // The profiler's own work, done once at the end.
            _ if event.label == "self_profile_alloc_query_strings" => None,
            EventPayload::Timestamp(Timestamp::Interval { start, end }) => Some(Interval {
                thread: event.thread_id,
                start,
                end,
                query: event.label.into_owned(),
                item: event
                    .additional_data
                    .first()
                    .map(|arg| normalize(arg).replace(&prefix, "crate::"))
                    .unwrap_or_default(),
            }),
            _ => None,
        });
        Ok(Profile::from_intervals(intervals.collect()))
    }

    /// Self times: each interval's length less that of the intervals nested in it (on its
    /// thread).
    fn from_intervals(mut intervals: Vec<Interval>) -> Profile {
        // Parents before their children: by thread, start, then the longest first.
        intervals.sort_by(|a, b| {
            (a.thread, a.start)
                .cmp(&(b.thread, b.start))
                .then(b.end.cmp(&a.end))
        });
        let mut profile = Profile::default();
        // The open intervals, each with the time its children took.
        let mut stack: Vec<(Interval, Duration)> = Vec::new();
        let close = |profile: &mut Profile, (interval, children): (Interval, Duration)| {
            let length = interval
                .end
                .duration_since(interval.start)
                .unwrap_or_default();
            let own = length.saturating_sub(children);
            profile
                .queries
                .entry(interval.query.clone())
                .or_default()
                .add(own);
            profile
                .items
                .entry((interval.query, interval.item))
                .or_default()
                .add(own);
        };
        for interval in intervals {
            while let Some((open, _)) = stack.last() {
                if open.thread == interval.thread && open.end > interval.start {
                    break;
                }
                let done = stack.pop().expect("the stack is not empty");
                close(&mut profile, done);
            }
            if let Some((_, children)) = stack.last_mut() {
                *children += interval
                    .end
                    .duration_since(interval.start)
                    .unwrap_or_default();
            }
            stack.push((interval, Duration::ZERO));
        }
        while let Some(done) = stack.pop() {
            close(&mut profile, done);
        }
        profile
    }

    /// Each query's and item's median over `runs` (a query missing from a run counts as
    /// zero there): one profile is as noisy as the machine, several agree.
    pub fn median(runs: &[Profile]) -> Profile {
        fn median_of<K: Clone + Eq + std::hash::Hash>(
            maps: &[&HashMap<K, Spent>],
        ) -> HashMap<K, Spent> {
            let mut out = HashMap::new();
            for key in maps.iter().flat_map(|m| m.keys()) {
                if out.contains_key(key) {
                    continue;
                }
                let mut spent: Vec<Spent> = maps
                    .iter()
                    .map(|m| m.get(key).copied().unwrap_or_default())
                    .collect();
                spent.sort_by_key(|s| s.time);
                out.insert(key.clone(), spent[spent.len() / 2]);
            }
            out
        }
        let queries: Vec<_> = runs.iter().map(|p| &p.queries).collect();
        let items: Vec<_> = runs.iter().map(|p| &p.items).collect();
        Profile {
            queries: median_of(&queries),
            items: median_of(&items),
        }
    }

    fn total(&self) -> Duration {
        self.queries.values().map(|s| s.time).sum()
    }

    fn query(&self, name: &str) -> Spent {
        self.queries.get(name).copied().unwrap_or_default()
    }
}

/// The profile rustc wrote into `dir` (the directory is emptied before each run).
fn profile_file(dir: &Path) -> Result<PathBuf, String> {
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
    entries
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .find(|path| path.extension().is_some_and(|ext| ext == "mm_profdata"))
        .ok_or_else(|| format!("rustc wrote no .mm_profdata file into {}", dir.display()))
}

/// A query's argument as a group: the item's path when there is one (the text after
/// `DefId(…~ `), the crates' disambiguators (`[1a2b]`) dropped, every number replaced by
/// `N`, and cut to a readable length.
fn normalize(arg: &str) -> String {
    const WIDTH: usize = 72;
    let path = match arg.split_once(" ~ ") {
        Some((_, rest)) => rest.split_once(')').map_or(rest, |(path, _)| path),
        None => arg,
    };
    let mut out = String::new();
    let mut chars = path.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '[' {
            // `[1a2b]`: a crate's disambiguator.
            let rest: String = chars.clone().take(5).collect();
            if rest.len() == 5
                && rest.ends_with(']')
                && rest[..4].chars().all(|c| c.is_ascii_hexdigit())
            {
                for _ in 0..5 {
                    chars.next();
                }
                continue;
            }
        }
        if c.is_ascii_digit() {
            while chars.peek().is_some_and(char::is_ascii_digit) {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    if out.chars().count() > WIDTH {
        out = out.chars().take(WIDTH - 1).collect();
        out.push('…');
    }
    out
}

/// The comparison table: totals, the queries that differ most, then their items.
pub fn compare(serde: &Profile, pedelec: &Profile) -> String {
    let mut out = String::new();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    let gap = |name: &str| ms(pedelec.query(name).time) - ms(serde.query(name).time);
    let mut names: Vec<&str> = pedelec
        .queries
        .keys()
        .chain(serde.queries.keys())
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    names.dedup();
    names.sort_by(|a, b| gap(b).total_cmp(&gap(a)).then(a.cmp(b)));
    let _ = writeln!(
        out,
        "  {:<72} {:>17} {:>17} {:>10}",
        "query (self time, count)", "plain serde", "pedelec", "difference"
    );
    let row = |out: &mut String, name: &str, s: Spent, p: Spent| {
        let _ = writeln!(
            out,
            "  {name:<72} {:>9.1} ms {:>5} {:>9.1} ms {:>5} {:>+8.1} ms",
            ms(s.time),
            s.count,
            ms(p.time),
            p.count,
            ms(p.time) - ms(s.time)
        );
    };
    let total = |p: &Profile| Spent {
        time: p.total(),
        count: p.queries.values().map(|s| s.count).sum(),
    };
    row(&mut out, "total", total(serde), total(pedelec));
    for name in names.iter().take(TOP_QUERIES) {
        row(&mut out, name, serde.query(name), pedelec.query(name));
    }
    if let Some(name) = names.last() {
        let _ = writeln!(out, "  …");
        row(&mut out, name, serde.query(name), pedelec.query(name));
    }

    let _ = writeln!(
        out,
        "\n  the items of the {TOP_DETAILED} queries that differ most (numbers in names as `N`):"
    );
    for name in names.iter().take(TOP_DETAILED) {
        let _ = writeln!(out, "  {name}");
        let mut items: Vec<(&str, Spent)> = pedelec
            .items
            .iter()
            .filter(|((query, _), _)| query == name)
            .map(|((_, item), spent)| (item.as_str(), *spent))
            .collect();
        items.sort_by(|a, b| b.1.time.cmp(&a.1.time).then(a.0.cmp(b.0)));
        for (item, p) in items.iter().take(TOP_ITEMS) {
            let s = serde
                .items
                .get(&((*name).to_owned(), (*item).to_owned()))
                .copied()
                .unwrap_or_default();
            let label = if item.is_empty() { "(no item)" } else { item };
            row(&mut out, &format!("  {label}"), s, *p);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
    }

    fn interval(thread: u32, start: u64, end: u64, query: &str, item: &str) -> Interval {
        Interval {
            thread,
            start: at(start),
            end: at(end),
            query: query.to_owned(),
            item: item.to_owned(),
        }
    }

    #[test]
    fn self_times_leave_out_nested_intervals() {
        let profile = Profile::from_intervals(vec![
            interval(1, 10, 12, "mir_built", "f"),
            interval(1, 0, 100, "typeck", "f"),
            interval(1, 20, 30, "typeck", "g"),
            interval(1, 22, 25, "evaluate_obligation", ""),
            // Another thread overlapping in time is not nested.
            interval(2, 5, 50, "expand_proc_macro", "#[tool]"),
        ]);
        let ms = |name: &str| profile.query(name).time.as_millis();
        assert_eq!(ms("typeck"), 100 - 2 - 10 + (10 - 3));
        assert_eq!(profile.query("typeck").count, 2);
        assert_eq!(ms("mir_built"), 2);
        assert_eq!(ms("evaluate_obligation"), 3);
        assert_eq!(ms("expand_proc_macro"), 45);
        assert_eq!(profile.total().as_millis(), 100 + 45);
        let g = profile.items[&("typeck".to_owned(), "g".to_owned())];
        assert_eq!(g.time.as_millis(), 7);
    }

    #[test]
    fn the_median_profile_takes_each_row_apart() {
        let runs = [
            Profile::from_intervals(vec![interval(1, 0, 10, "typeck", "f")]),
            Profile::from_intervals(vec![
                interval(1, 0, 30, "typeck", "f"),
                interval(1, 40, 41, "mir_built", "f"),
            ]),
            Profile::from_intervals(vec![interval(1, 0, 20, "typeck", "f")]),
        ];
        let median = Profile::median(&runs);
        assert_eq!(median.query("typeck").time.as_millis(), 20);
        // Missing from two runs of three: zero.
        assert_eq!(median.query("mir_built").time.as_millis(), 0);
        assert_eq!(median.items.len(), 2);
    }

    #[test]
    fn items_are_grouped_by_their_normalized_paths() {
        assert_eq!(
            normalize(
                "PseudoCanonicalInput { value: GlobalId { instance: Instance { def: \
                 Item(DefId(0:7550 ~ crate[bcaa]::_#200::_#67)), args: [] } } }"
            ),
            "crate::_#N::_#N"
        );
        assert_eq!(normalize("crate::tool_12"), "crate::tool_N");
        assert_eq!(
            normalize("crate::{{impl}}[291]::SCHEMA"),
            "crate::{{impl}}[N]::SCHEMA"
        );
        assert!(normalize(&"x".repeat(200)).ends_with('…'));
    }

    #[test]
    fn the_comparison_lists_the_largest_differences_first() {
        let serde = Profile::from_intervals(vec![interval(1, 0, 10, "typeck", "f")]);
        let pedelec = Profile::from_intervals(vec![
            interval(1, 0, 12, "typeck", "f"),
            interval(1, 20, 70, "eval_to_allocation_raw", "SCHEMA"),
        ]);
        let table = compare(&serde, &pedelec);
        let lines: Vec<&str> = table.lines().collect();
        assert!(lines[1].starts_with("  total"), "{table}");
        assert!(lines[2].contains("eval_to_allocation_raw"), "{table}");
        assert!(lines[2].contains("+50.0 ms"), "{table}");
        assert!(
            lines[3].contains("typeck") && lines[3].contains("+2.0 ms"),
            "{table}"
        );
        assert!(table.contains("    SCHEMA"), "{table}");
    }
}
