//! A process's memory and CPU time, read from `/proc` (Linux).

use std::path::PathBuf;

/// `/proc`'s clock tick (`USER_HZ`): 100 on every Linux architecture Rust targets.
const TICKS_PER_SECOND: f64 = 100.0;

/// A process's resident memory, from `/proc/PID/status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Memory {
    /// `VmRSS`: resident now, in KiB.
    pub rss_kib: u64,
    /// `VmHWM`: the most resident so far, in KiB.
    pub hwm_kib: u64,
}

fn proc_path(pid: Option<u32>, file: &str) -> PathBuf {
    match pid {
        Some(pid) => PathBuf::from(format!("/proc/{pid}/{file}")),
        None => PathBuf::from(format!("/proc/self/{file}")),
    }
}

/// The memory of process `pid` (this process for `None`).
pub fn memory(pid: Option<u32>) -> std::io::Result<Memory> {
    Ok(parse_status(&std::fs::read_to_string(proc_path(
        pid, "status",
    ))?))
}

/// The user + system CPU time of process `pid` (this process for `None`), all its threads,
/// in seconds (10 ms resolution). What `getrusage(RUSAGE_SELF)` gives, without `unsafe`.
pub fn cpu_seconds(pid: Option<u32>) -> std::io::Result<f64> {
    let stat = std::fs::read_to_string(proc_path(pid, "stat"))?;
    parse_stat_cpu(&stat).ok_or_else(|| {
        std::io::Error::new(std::io::ErrorKind::InvalidData, "malformed /proc/PID/stat")
    })
}

/// `VmRSS` and `VmHWM` from the text of `/proc/PID/status`.
#[must_use]
pub fn parse_status(status: &str) -> Memory {
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    Memory {
        rss_kib: field("VmRSS:"),
        hwm_kib: field("VmHWM:"),
    }
}

/// `utime + stime` (fields 14 and 15) of `/proc/PID/stat`, in seconds. The command name
/// (field 2) may hold spaces and parentheses, so fields are counted after its last `)`.
#[must_use]
pub fn parse_stat_cpu(stat: &str) -> Option<f64> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    // After the name: state (3), ppid (4), … utime is field 14, i.e. the 12th here.
    let utime: u64 = fields.nth(11)?.parse().ok()?;
    let stime: u64 = fields.next()?.parse().ok()?;
    #[allow(clippy::cast_precision_loss, reason = "ticks")]
    Some((utime + stime) as f64 / TICKS_PER_SECOND)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields() {
        let status =
            "Name:\tload-server\nVmPeak:\t  100 kB\nVmHWM:\t    9216 kB\nVmRSS:\t    8192 kB\n";
        assert_eq!(
            parse_status(status),
            Memory {
                rss_kib: 8192,
                hwm_kib: 9216
            }
        );
        assert_eq!(parse_status(""), Memory::default());
    }

    #[test]
    fn stat_cpu_after_the_name() {
        let stat =
            "4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 1 2 3";
        assert_eq!(parse_stat_cpu(stat), Some(3.0));
        assert_eq!(parse_stat_cpu("garbage"), None);
    }

    #[test]
    fn this_process() {
        assert!(memory(None).unwrap().rss_kib > 0);
        assert!(cpu_seconds(None).unwrap() >= 0.0);
    }
}
