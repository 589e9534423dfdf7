//! Ranking metrics over document ids, with graded relevance.

use std::collections::HashMap;

/// nDCG@k with graded gains (`2^rel - 1`), ideal from all judged documents.
pub fn ndcg_at(ranked: &[String], rels: &HashMap<String, u32>, k: usize) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, d)| {
            let g = rels.get(d).copied().unwrap_or(0);
            ((1u64 << g.min(16)) - 1) as f64 / ((i + 2) as f64).log2()
        })
        .sum();
    let mut ideal: Vec<u32> = rels.values().copied().filter(|&r| r > 0).collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(k)
        .enumerate()
        .map(|(i, &g)| ((1u64 << g.min(16)) - 1) as f64 / ((i + 2) as f64).log2())
        .sum();
    if idcg == 0.0 { 0.0 } else { dcg / idcg }
}

/// Reciprocal rank of the first relevant document within the top k.
pub fn mrr_at(ranked: &[String], rels: &HashMap<String, u32>, k: usize) -> f64 {
    ranked
        .iter()
        .take(k)
        .position(|d| rels.get(d).is_some_and(|&r| r > 0))
        .map_or(0.0, |i| 1.0 / (i + 1) as f64)
}

/// Share of the relevant documents found in the top k.
pub fn recall_at(ranked: &[String], rels: &HashMap<String, u32>, k: usize) -> f64 {
    let relevant = rels.values().filter(|&&r| r > 0).count();
    if relevant == 0 {
        return 0.0;
    }
    let found = ranked
        .iter()
        .take(k)
        .filter(|d| rels.get(*d).is_some_and(|&r| r > 0))
        .count();
    found as f64 / relevant as f64
}

/// A figure to 4 decimals, as reports print them.
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn metrics_match_hand_computation() {
        let rels = HashMap::from([("a".to_string(), 1), ("b".to_string(), 1)]);
        let ranked = v(&["x", "a", "y", "b"]);
        // DCG = 1/log2(3) + 1/log2(5); IDCG = 1 + 1/log2(3)
        let expect = (1.0 / 3f64.log2() + 1.0 / 5f64.log2()) / (1.0 + 1.0 / 3f64.log2());
        assert!((ndcg_at(&ranked, &rels, 10) - expect).abs() < 1e-12);
        assert_eq!(mrr_at(&ranked, &rels, 10), 0.5);
        assert_eq!(recall_at(&ranked, &rels, 2), 0.5);
        assert_eq!(recall_at(&ranked, &rels, 10), 1.0);
        assert_eq!(ndcg_at(&v(&["a", "b"]), &rels, 10), 1.0);
        assert_eq!(mrr_at(&v(&["x"]), &rels, 10), 0.0);
    }
}
