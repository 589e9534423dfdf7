//! Phase 6: the vector scan alone at sizes past any corpus here (131k and 1M vectors by
//! default), on synthetic unit vectors: `VectorSet::search` (int8 codes scanned on all
//! cores, the best candidates rescored in f32 from the memory-mapped snapshot) against the
//! exact single-threaded f32 scan over a heap matrix it replaced, with the recall@10 of the
//! first against the second (and its time and recall@100 for the 100 candidates a search
//! asks) and the memory the opened snapshot holds.

use crate::report::ScanRun;
use crate::stats::{resident, summarize};
use crate::status;
use crate::synthetic::XorShift;
use anyhow::Context;
use lore_index::{VectorSet, dot};
use std::path::Path;
use std::time::Instant;

const DIM: usize = lore_embed::DIM;
/// Clusters the synthetic vectors a little, like embeddings (see `XorShift::unit_vector`).
const LEAN: f32 = 0.6;
const K: usize = 10;
/// The candidates a search asks of each signal (`EngineConfig::candidates`).
const ENGINE_K: usize = 100;

pub(crate) fn measure(dir: &Path, sizes: &[usize], queries: usize) -> anyhow::Result<Vec<ScanRun>> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let queries = queries.max(1);
    let qs: Vec<Vec<f32>> = {
        let mut rng = XorShift::new(99);
        (0..queries).map(|_| rng.unit_vector(DIM, LEAN)).collect()
    };
    let mut runs = Vec::new();
    for &n in sizes.iter().filter(|&&n| n > 0) {
        status(&format!("vector scan: writing {n} synthetic vectors"));
        let path = dir.join(format!("scan-{n}.bin"));
        let rows: Vec<(i64, Vec<f32>)> = {
            let mut rng = XorShift::new(7);
            (0..n as i64)
                .map(|i| (i, rng.unit_vector(DIM, LEAN)))
                .collect()
        };
        VectorSet::write(&path, DIM, 1, &rows)
            .with_context(|| format!("cannot write {}", path.display()))?;
        drop(rows);
        let snapshot_bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        let before = resident();
        let set = VectorSet::load(&path)
            .with_context(|| format!("cannot open {}", path.display()))?
            .context("the snapshot just written is missing")?;
        for q in qs.iter().take(3) {
            set.search(q, K);
        }
        let held = resident().zip(before).map(|(a, b)| a.saturating_sub(b));

        status(&format!("vector scan: {queries} queries on {n} vectors"));
        // The exact scan's matrix, as the snapshot before was held: all f32, on the heap
        // (the same rows again, from the same seed).
        let matrix: Vec<f32> = {
            let mut rng = XorShift::new(7);
            let mut m = Vec::with_capacity(n * DIM);
            (0..n).for_each(|_| m.extend(rng.unit_vector(DIM, LEAN)));
            m
        };
        let (mut fast, mut fast_engine, mut exact) = (Vec::new(), Vec::new(), Vec::new());
        let (mut found, mut found_engine) = (0usize, 0usize);
        for q in &qs {
            let t = Instant::now();
            let got = set.search(q, K);
            fast.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let got_engine = set.search(q, ENGINE_K);
            fast_engine.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let mut scored: Vec<(f32, usize)> = matrix
                .chunks_exact(DIM)
                .enumerate()
                .map(|(i, row)| (dot(row, q), i))
                .collect();
            let k = K.min(scored.len());
            scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
            exact.push(t.elapsed().as_secs_f64() * 1000.0);
            found += overlap(&scored[..k], &got);
            let k = ENGINE_K.min(scored.len());
            scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
            found_engine += overlap(&scored[..k], &got_engine);
        }
        drop(matrix);
        drop(set);
        let _ = std::fs::remove_file(&path);
        runs.push(ScanRun {
            vectors: n,
            dim: DIM,
            queries,
            quantised: summarize(fast),
            exact: summarize(exact),
            recall_at_10: found as f64 / (queries * K.min(n)) as f64,
            quantised_at_100: summarize(fast_engine),
            recall_at_100: found_engine as f64 / (queries * ENGINE_K.min(n)) as f64,
            snapshot_bytes,
            held_bytes: held,
        });
    }
    Ok(runs)
}

/// How many of the exact top rows `want` the quantised search found.
fn overlap(want: &[(f32, usize)], got: &[(i64, f32)]) -> usize {
    want.iter()
        .filter(|(_, i)| got.iter().any(|g| g.0 == *i as i64))
        .count()
}
