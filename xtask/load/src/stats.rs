//! Latency statistics from a sorted sample (every latency of the measured window is kept:
//! at most a few million `u64`s, and the percentiles are exact).

/// Summary of a sample of latencies, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// How many latencies.
    pub count: usize,
    /// Their mean.
    pub mean: f64,
    /// The median.
    pub p50: u64,
    /// The 90th percentile.
    pub p90: u64,
    /// The 95th percentile.
    pub p95: u64,
    /// The 99th percentile.
    pub p99: u64,
    /// The largest.
    pub max: u64,
}

/// The `p`-th percentile (`0 < p <= 100`) of a sorted sample by the nearest-rank method: the
/// smallest value such that at least `p`% of the sample is at or below it. `None` for an
/// empty sample.
#[must_use]
pub fn percentile(sorted: &[u64], p: f64) -> Option<u64> {
    if sorted.is_empty() {
        return None;
    }
    let n = sorted.len();
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss,
        reason = "a rank between 1 and n, n far below 2^52"
    )]
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, n) - 1])
}

/// Sorts `sample` and summarizes it.
#[must_use]
pub fn summarize(sample: &mut [u64]) -> Summary {
    sample.sort_unstable();
    let at = |p| percentile(sample, p).unwrap_or(0);
    #[allow(clippy::cast_precision_loss, reason = "a mean")]
    let mean = if sample.is_empty() {
        0.0
    } else {
        sample.iter().map(|&v| v as f64).sum::<f64>() / sample.len() as f64
    };
    Summary {
        count: sample.len(),
        mean,
        p50: at(50.0),
        p90: at(90.0),
        p95: at(95.0),
        p99: at(99.0),
        max: sample.last().copied().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let sorted: Vec<u64> = (1..=100).collect();
        assert_eq!(percentile(&sorted, 50.0), Some(50));
        assert_eq!(percentile(&sorted, 90.0), Some(90));
        assert_eq!(percentile(&sorted, 99.0), Some(99));
        assert_eq!(percentile(&sorted, 100.0), Some(100));
        assert_eq!(percentile(&sorted, 0.5), Some(1));
        assert_eq!(percentile(&sorted, 0.0), Some(1));
        assert_eq!(percentile(&[], 50.0), None);
        // Few values: the 99th percentile of 10 values is the largest.
        let ten: Vec<u64> = (1..=10).collect();
        assert_eq!(percentile(&ten, 99.0), Some(10));
        assert_eq!(percentile(&ten, 50.0), Some(5));
        assert_eq!(percentile(&ten, 51.0), Some(6));
        assert_eq!(percentile(&[7], 1.0), Some(7));
    }

    #[test]
    fn summary_sorts_first() {
        let mut sample = vec![30, 10, 20, 40];
        let s = summarize(&mut sample);
        assert_eq!(sample, [10, 20, 30, 40]);
        assert_eq!(s.count, 4);
        assert!((s.mean - 25.0).abs() < 1e-9);
        assert_eq!((s.p50, s.p90, s.p99, s.max), (20, 40, 40, 40));
        assert_eq!(summarize(&mut []), Summary::default());
    }
}
