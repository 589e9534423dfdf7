//! Vector search speed and recall at scale, on synthetic unit vectors (the scan's cost does
//! not depend on what the vectors mean; they are clustered a little, like embeddings).
//!
//!   cargo run --release -p lore-index --example vector_scan -- [N] [QUERIES]
//!
//! Writes an N-vector snapshot (384 dimensions) to the temp dir, opens it as a search
//! process does, and times `VectorSet::search` (int8 scan on all cores, top 100 rescored
//! in f32) against the exact single-threaded f32 scan it replaced; prints p50/p95, the
//! recall@10 of the first against the second, and the process's resident memory.

use lore_index::VectorSet;
use lore_index::dot;
use std::time::Instant;

const DIM: usize = 384;

fn rows(n: usize, seed: u64) -> impl Iterator<Item = Vec<f32>> {
    let mut x = seed;
    (0..n).map(move |_| {
        let mut v: Vec<f32> = (0..DIM)
            .map(|d| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 40) as f32 / (1u64 << 24) as f32 - 0.5 + if d % 5 == 0 { 0.3 } else { 0.0 }
            })
            .collect();
        let norm = dot(&v, &v).sqrt();
        v.iter_mut().for_each(|e| *e /= norm);
        v
    })
}

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn percentile(ms: &mut [f64], p: f64) -> f64 {
    ms.sort_by(f64::total_cmp);
    ms[((ms.len() - 1) as f64 * p).round() as usize]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(131_072);
    let queries: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(100);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("vectors.bin");
    let all: Vec<(i64, Vec<f32>)> = rows(n, 7).enumerate().map(|(i, v)| (i as i64, v)).collect();
    VectorSet::write(&path, DIM, 1, &all).expect("write the snapshot");
    // The exact scan's matrix, as the old snapshot loaded it (all f32 on the heap).
    let matrix: Vec<f32> = all.iter().flat_map(|(_, v)| v.iter().copied()).collect();
    drop(all);
    let before_open = rss_mb();
    let set = VectorSet::load(&path).expect("load").expect("a snapshot");
    let after_open = rss_mb();
    let qs: Vec<Vec<f32>> = rows(queries, 99).collect();
    for q in &qs[..3] {
        set.search(q, 10);
    }
    eprintln!(
        "RSS: before open {before_open:.0} MB, after open {after_open:.0} MB, after 3 searches {:.0} MB",
        rss_mb()
    );
    let (mut fast, mut exact, mut found) = (Vec::new(), Vec::new(), 0usize);
    for q in &qs {
        let t = Instant::now();
        let got = set.search(q, 10);
        fast.push(t.elapsed().as_secs_f64() * 1000.0);
        let t = Instant::now();
        let mut scored: Vec<(f32, usize)> = matrix
            .chunks_exact(DIM)
            .enumerate()
            .map(|(i, row)| (dot(row, q), i))
            .collect();
        scored.select_nth_unstable_by(9, |a, b| b.0.total_cmp(&a.0));
        exact.push(t.elapsed().as_secs_f64() * 1000.0);
        found += scored[..10]
            .iter()
            .filter(|(_, i)| got.iter().any(|g| g.0 == *i as i64))
            .count();
    }
    let rss = rss_mb();
    println!(
        "{n} vectors x {DIM}, {queries} queries: int8+rescore p50 {:.2} ms p95 {:.2} ms; \
         exact f32 (one thread) p50 {:.2} ms p95 {:.2} ms; recall@10 {:.4}; RSS {:.0} MB \
         (mapped snapshot + touched pages: {:.0} MB over the heap matrix)",
        percentile(&mut fast, 0.5),
        percentile(&mut fast, 0.95),
        percentile(&mut exact, 0.5),
        percentile(&mut exact, 0.95),
        found as f64 / (queries * 10) as f64,
        rss,
        rss - before_open,
    );
}
