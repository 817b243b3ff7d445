//! Latency summaries: nearest-rank percentiles over pooled measurements.

use serde_json::{Value, json};

/// Measurements of one query type, in milliseconds, with the label of each.
#[derive(Debug, Default)]
pub struct Timings {
    samples: Vec<(f64, String)>,
}

impl Timings {
    pub fn push(&mut self, label: &str, ms: f64) {
        self.samples.push((ms, label.to_string()));
    }

    /// count, mean, p50, p90, p95, p99, max and the five slowest labels.
    pub fn summary(&self) -> Value {
        let mut sorted: Vec<f64> = self.samples.iter().map(|s| s.0).collect();
        sorted.sort_by(f64::total_cmp);
        let mean = if sorted.is_empty() {
            0.0
        } else {
            sorted.iter().sum::<f64>() / sorted.len() as f64
        };
        let mut slowest: Vec<&(f64, String)> = self.samples.iter().collect();
        slowest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        slowest.dedup_by(|a, b| a.1 == b.1);
        json!({
            "count": sorted.len(),
            "mean_ms": r3(mean),
            "p50_ms": r3(percentile(&sorted, 50.0)),
            "p90_ms": r3(percentile(&sorted, 90.0)),
            "p95_ms": r3(percentile(&sorted, 95.0)),
            "p99_ms": r3(percentile(&sorted, 99.0)),
            "max_ms": r3(sorted.last().copied().unwrap_or(0.0)),
            "slowest": slowest
                .iter()
                .take(5)
                .map(|(ms, label)| json!({"query": label, "ms": r3(*ms)}))
                .collect::<Vec<_>>(),
        })
    }
}

/// Nearest-rank percentile of ascending `sorted` values (0 when empty).
pub fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank() {
        let v: Vec<f64> = (1..=200).map(f64::from).collect();
        assert_eq!(percentile(&v, 50.0), 100.0);
        assert_eq!(percentile(&v, 95.0), 190.0);
        assert_eq!(percentile(&v, 100.0), 200.0);
        assert_eq!(percentile(&v, 0.0), 1.0);
        assert_eq!(percentile(&[7.0], 95.0), 7.0);
        assert_eq!(percentile(&[], 95.0), 0.0);
    }

    #[test]
    fn summary_lists_slowest_first() {
        let mut t = Timings::default();
        for (i, label) in ["a", "b", "c"].iter().enumerate() {
            t.push(label, i as f64);
        }
        let s = t.summary();
        assert_eq!(s["count"], 3);
        assert_eq!(s["slowest"][0]["query"], "c");
        assert_eq!(s["max_ms"], 2.0);
    }
}
