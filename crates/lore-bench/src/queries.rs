//! Phase 4: query latency per mode on a store grown to `query_chunks` chunks, with
//! synthetic vectors standing in for embeddings (the latency does not depend on them).

use crate::corpus::copy_file;
use crate::indexing::reindex;
use crate::report::{CorpusSize, ModeLatency};
use crate::stats::summarize;
use crate::synthetic::XorShift;
use crate::{STORE, status};
use anyhow::Context;
use lore_engine::{Engine, Mode, NoProgress, Progress, SearchRequest};
use lore_source::SourceFile;
use std::path::Path;
use std::time::Instant;

/// Realistic code-search queries: identifiers, natural language, and long pasted errors.
pub const QUERIES: [&str; 40] = [
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

/// Every query of [`QUERIES`] once to warm up, then `repeats` timed runs, in each mode,
/// on the bench's query store; vector and hybrid are skipped when there is no embedding
/// model.
pub(crate) fn latency(bench: &Engine, repeats: usize) -> anyhow::Result<Vec<ModeLatency>> {
    store_latency(bench, STORE, repeats)
}

/// [`latency`] on any store of `engine` (`examples/latency.rs` times an existing index).
pub fn store_latency(
    engine: &Engine,
    store: &str,
    repeats: usize,
) -> anyhow::Result<Vec<ModeLatency>> {
    let bench = engine;
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
        // As every adapter asks: with the store's freshness (the default).
        let req = |q: &str| SearchRequest {
            stores: vec![store.into()],
            mode,
            ..SearchRequest::new(q)
        };
        for q in QUERIES {
            bench
                .search(&req(q))
                .with_context(|| format!("{} search for {q:?}", mode.as_str()))?;
        }
        let embedder = bench.embedder(false, &NoProgress).ok();
        let mut samples = Vec::with_capacity(QUERIES.len() * repeats);
        for _ in 0..repeats {
            for q in QUERIES {
                let r = req(q);
                // Each timed query is new to the engine: its embedding is part of the time.
                if let Some(e) = &embedder {
                    e.forget_queries();
                }
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

/// Writes pseudo-random unit vectors, one per chunk of the bench store, as its vector
/// snapshot at the store's current generation (the engine then loads it as is) and in the
/// catalog, so the store is what a fully embedded one is (its freshness says so, and a copy
/// to another backend carries them).
pub(crate) fn write_synthetic_vectors(bench: &Engine) -> anyhow::Result<()> {
    let store = bench.store_record(STORE)?;
    let mut ids: Vec<i64> = bench.chunk_paths(STORE)?.into_keys().collect();
    ids.sort_unstable();
    let mut rng = XorShift::new(0x05ee_d1ce_b0a7);
    let rows: Vec<(i64, Vec<f32>)> = ids
        .into_iter()
        .map(|id| (id, rng.unit_vector(lore_embed::DIM, 0.0)))
        .collect();
    let path = bench.data_dir().store_dir(store.id).join("vectors.bin");
    lore_index::VectorSet::write(&path, lore_embed::DIM, store.generation, &rows)
        .with_context(|| format!("cannot write synthetic vectors to {}", path.display()))?;
    let db = bench.data_dir().db();
    let mut catalog =
        lore_index::Catalog::open(&db).with_context(|| format!("cannot open {}", db.display()))?;
    let tx = catalog.begin()?;
    let refs: Vec<(i64, &[f32])> = rows.iter().map(|(id, v)| (*id, v.as_slice())).collect();
    tx.set_embeddings(&refs)?;
    tx.commit()?;
    Ok(())
}
