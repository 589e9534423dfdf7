//! Phase 4: query latency per mode on a store grown to `query_chunks` chunks, with
//! synthetic vectors standing in for embeddings (the latency does not depend on them).

use crate::corpus::copy_file;
use crate::indexing::reindex;
use crate::report::{CorpusSize, ModeLatency};
use crate::stats::summarize;
use crate::{STORE, status};
use anyhow::Context;
use lore_engine::{Engine, Mode, NoProgress, Progress, SearchRequest};
use lore_source::SourceFile;
use std::path::Path;
use std::time::Instant;

/// Realistic code-search queries: identifiers, natural language, and long pasted errors.
pub(crate) const QUERIES: [&str; 40] = [
    "HashMap::with_capacity",
    "Vec::extend_from_slice",
    "serde_json::from_str",
    "impl Display for",
    "impl Iterator for",
    "BufReader::new",
    "unwrap_or_default",
    "std::io::ErrorKind::NotFound",
    "#[derive(Debug, Clone, PartialEq)]",
    "Arc<Mutex<",
    "tokio::spawn",
    "PhantomData",
    "thread_local!",
    "fn from_str",
    "to_string_lossy",
    "Result<(), Box<dyn Error>>",
    "memcpy",
    "malloc size_t",
    "AtomicUsize::fetch_add",
    "impl Drop for",
    "parse a toml file",
    "read a file line by line",
    "convert utf-16 to a string",
    "compute the sha256 hash of bytes",
    "retry with exponential backoff",
    "parse command line arguments",
    "serialize a struct to json",
    "spawn a thread and wait for it to finish",
    "check whether a path is a directory",
    "format a duration as human readable text",
    "escape html entities",
    "compare two strings ignoring case",
    "handle the ctrl-c signal",
    "lock-free queue",
    "base64 encode bytes",
    "unicode normalization of strings",
    "create a temporary directory",
    "percent-decode a url",
    "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value: Os { code: 2, \
     kind: NotFound, message: \"No such file or directory\" }', src/main.rs:14:37\n\
     stack backtrace:\n   0: rust_begin_unwind\n   1: core::panicking::panic_fmt\n   \
     2: core::result::unwrap_failed\n   3: core::result::Result<T,E>::unwrap\n   \
     4: app::config::load\n             at ./src/config.rs:41:9\n   5: app::main\n",
    "error[E0277]: the trait bound `MyType: serde::Serialize` is not satisfied\n  --> \
     src/lib.rs:12:5\n   |\n12 |     serde_json::to_string(&value)?;\n   |     \
     ^^^^^^^^^^^^^^^^^^^^^ the trait `Serialize` is not implemented for `MyType`",
];

/// Every query of [`QUERIES`] once to warm up, then `repeats` timed runs, in each mode;
/// vector and hybrid are skipped when there is no embedding model.
pub(crate) fn latency(bench: &Engine, repeats: usize) -> anyhow::Result<Vec<ModeLatency>> {
    let vectors_ok = match bench.embedder(false, &NoProgress) {
        Ok(_) => None,
        Err(e) => Some(format!("embedding model unavailable ({e})")),
    };
    let mut modes = Vec::new();
    for mode in [Mode::Fts, Mode::Vector, Mode::Hybrid] {
        if mode != Mode::Fts
            && let Some(why) = &vectors_ok
        {
            modes.push(ModeLatency {
                mode: mode.as_str(),
                latency: None,
                skipped: Some(why.clone()),
            });
            continue;
        }
        status(&format!("queries, {} mode", mode.as_str()));
        let req = |q: &str| SearchRequest {
            stores: vec![STORE.into()],
            mode,
            freshness: false,
            ..SearchRequest::new(q)
        };
        for q in QUERIES {
            bench
                .search(&req(q))
                .with_context(|| format!("{} search for {q:?}", mode.as_str()))?;
        }
        let mut samples = Vec::with_capacity(QUERIES.len() * repeats);
        for _ in 0..repeats {
            for q in QUERIES {
                let r = req(q);
                let started = Instant::now();
                bench
                    .search(&r)
                    .with_context(|| format!("{} search for {q:?}", mode.as_str()))?;
                samples.push(started.elapsed().as_secs_f64() * 1000.0);
            }
        }
        modes.push(ModeLatency {
            mode: mode.as_str(),
            latency: Some(summarize(samples)),
            skipped: None,
        });
    }
    Ok(modes)
}

/// Adds corpus files (further files in walk order, then copies of the taken ones under
/// another folder) until the store has `target` chunks.
pub(crate) fn grow_store(
    bench: &mut Engine,
    all_files: &[SourceFile],
    taken: &[SourceFile],
    root: &Path,
    mut size: CorpusSize,
    target: usize,
    progress: &dyn Progress,
) -> anyhow::Result<(CorpusSize, Option<String>)> {
    let start = size;
    let mut next = taken.len();
    let mut copies = 0;
    let mut rounds = 0;
    while size.chunks < target {
        let per_file = (size.chunks as f64 / size.files.max(1) as f64).max(0.5);
        let want = (((target - size.chunks) as f64 / per_file) * 1.1).ceil() as usize + 1;
        if next < all_files.len() {
            let batch = &all_files[next..(next + want).min(all_files.len())];
            status(&format!(
                "store has {} chunks; adding {} more corpus files",
                size.chunks,
                batch.len()
            ));
            for f in batch {
                size.bytes += copy_file(f, root, "")?;
            }
            next += batch.len();
        } else {
            copies += 1;
            let prefix = format!("lore-bench-copy-{copies}");
            let batch = &taken[..want.min(taken.len())];
            status(&format!(
                "store has {} chunks; adding {} copied files under {prefix}/",
                size.chunks,
                batch.len()
            ));
            for f in batch {
                size.bytes += copy_file(f, root, &prefix)?;
            }
        }
        let before = size.chunks;
        let r = reindex(bench, 0, progress)?;
        let stats = bench.store_info(STORE)?.stats;
        size.files = r.files_seen;
        size.chunks = stats.chunks as usize;
        rounds += 1;
        if size.chunks <= before || rounds > 20 {
            break;
        }
    }
    let grown = (rounds > 0).then(|| {
        format!(
            "grown from {} files / {} chunks to reach --query-chunks {target}: {} more corpus files{}",
            start.files,
            start.chunks,
            next - taken.len(),
            if copies > 0 {
                format!(", plus {copies} round(s) of copied files")
            } else {
                String::new()
            }
        )
    });
    Ok((size, grown))
}

/// Writes a vector snapshot of pseudo-random unit vectors, one per chunk of the bench store,
/// at the store's current generation (the engine then loads it as is).
pub(crate) fn write_synthetic_vectors(bench: &Engine) -> anyhow::Result<()> {
    let store = bench.store_record(STORE)?;
    let mut ids: Vec<i64> = bench.chunk_paths(STORE)?.into_keys().collect();
    ids.sort_unstable();
    let mut rng = XorShift::new(0x05ee_d1ce_b0a7);
    let rows: Vec<(i64, Vec<f32>)> = ids
        .into_iter()
        .map(|id| (id, unit_vector(&mut rng, lore_embed::DIM)))
        .collect();
    let path = bench.data_dir().store_dir(store.id).join("vectors.bin");
    lore_index::VectorSet::write(&path, lore_embed::DIM, store.generation, &rows)
        .with_context(|| format!("cannot write synthetic vectors to {}", path.display()))?;
    Ok(())
}

/// xorshift64: small, deterministic, good enough for synthetic vectors.
struct XorShift(u64);

impl XorShift {
    fn new(seed: u64) -> XorShift {
        XorShift(if seed == 0 {
            0x9e37_79b9_7f4a_7c15
        } else {
            seed
        })
    }
    fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in [-1, 1).
    fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

fn unit_vector(rng: &mut XorShift, dim: usize) -> Vec<f32> {
    loop {
        let v: Vec<f32> = (0..dim).map(|_| rng.next_f32()).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if norm > 1e-6 {
            return v.into_iter().map(|x| x / norm).collect();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_vectors_are_unit_and_deterministic() {
        let mut a = XorShift::new(42);
        let mut b = XorShift::new(42);
        for _ in 0..100 {
            let v = unit_vector(&mut a, lore_embed::DIM);
            assert_eq!(v.len(), lore_embed::DIM);
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            assert!((norm - 1.0).abs() < 1e-5, "{norm}");
            assert_eq!(v, unit_vector(&mut b, lore_embed::DIM));
        }
        let mut r = XorShift::new(0);
        for _ in 0..1000 {
            let x = r.next_f32();
            assert!((-1.0..1.0).contains(&x));
        }
    }
}
