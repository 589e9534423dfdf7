//! Figures from samples (percentiles, rates) and from the machine (peak memory, load).

use crate::report::Latency;

/// Linear-interpolated percentile (`p` in 0..=100) of ascending `sorted`; 0 when empty.
pub(crate) fn percentile(sorted: &[f64], p: f64) -> f64 {
    match sorted.len() {
        0 => 0.0,
        1 => sorted[0],
        n => {
            let rank = (p.clamp(0.0, 100.0) / 100.0) * (n - 1) as f64;
            let lo = rank.floor() as usize;
            let hi = rank.ceil() as usize;
            sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo as f64)
        }
    }
}

pub(crate) fn summarize(mut ms: Vec<f64>) -> Latency {
    ms.sort_by(f64::total_cmp);
    Latency {
        samples: ms.len(),
        p50_ms: percentile(&ms, 50.0),
        p95_ms: percentile(&ms, 95.0),
        mean_ms: if ms.is_empty() {
            0.0
        } else {
            ms.iter().sum::<f64>() / ms.len() as f64
        },
        max_ms: ms.last().copied().unwrap_or(0.0),
    }
}

pub(crate) fn per_sec(n: f64, secs: f64) -> f64 {
    if secs > 0.0 { n / secs } else { 0.0 }
}

/// Peak resident set size (VmHWM) of this process, Linux only.
pub(crate) fn peak_rss() -> Option<u64> {
    proc_status_bytes("self", "VmHWM:")
}

/// A `kB` field of `/proc/PROCESS/status` in bytes (`self` or a pid; Linux only, `None`
/// once the process is gone).
pub(crate) fn proc_status_bytes(process: &str, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{process}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resident set size (VmRSS) of this process now, Linux only.
pub(crate) fn resident() -> Option<u64> {
    proc_status_bytes("self", "VmRSS:")
}

pub(crate) fn loadavg() -> Option<String> {
    let s = std::fs::read_to_string("/proc/loadavg").ok()?;
    Some(s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_interpolate() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0];
        assert_eq!(percentile(&v, 50.0), 3.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&v, 100.0), 5.0);
        assert!((percentile(&v, 95.0) - 4.8).abs() < 1e-12);
        assert_eq!(percentile(&[1.0, 2.0], 50.0), 1.5);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[], 50.0), 0.0);
        let s = summarize(vec![3.0, 1.0, 2.0]);
        assert_eq!(
            (s.samples, s.p50_ms, s.mean_ms, s.max_ms),
            (3, 2.0, 2.0, 3.0)
        );
    }
}
