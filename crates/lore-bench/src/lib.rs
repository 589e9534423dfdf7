//! `lore bench`: chunking, embedding, indexing and query speed on a real corpus.
//!
//! The corpus (default: the cargo registry sources) is only read. Indexing runs on a copy of
//! the taken files in a scratch folder (so touching and editing files never changes the
//! corpus), with a fresh data dir and embeddings off; the query store gets synthetic vectors,
//! written through `lore-index` (the one place the bench reaches past `Engine`).

mod chunking;
mod corpus;
mod embedding;
mod indexing;
mod queries;
mod report;
mod stats;

pub use report::{
    BenchReport, ChunkingReport, CorpusInfo, CorpusSize, EmbeddingReport, Estimate, IndexRun,
    IndexingReport, Latency, Machine, ModeLatency, QueryReport, Rate,
};

use anyhow::bail;
use lore_engine::{Engine, Progress};
use std::path::PathBuf;

/// What to measure on, and how much.
#[derive(Debug, Clone)]
pub struct BenchOptions {
    /// A folder of real files; `None`: the cargo registry sources.
    pub corpus: Option<PathBuf>,
    /// Corpus files taken, in walk order (at least 1).
    pub max_files: usize,
    /// Chunks embedded for the embedding figures.
    pub embed_chunks: usize,
    /// Size the query store is grown to, in chunks.
    pub query_chunks: usize,
    /// Timed runs of each query per mode.
    pub query_repeats: usize,
    /// Where the scratch folder goes; `None`: the temp dir.
    pub scratch: Option<PathBuf>,
    pub keep_scratch: bool,
}

/// The store every phase after chunking works on, in the scratch data dir.
const STORE: &str = "bench";

fn status(msg: &str) {
    eprintln!("bench: {msg}");
}

/// Runs every phase in turn; `engine` (the user's) only lends its config and model.
pub fn measure(
    engine: &mut Engine,
    opts: &BenchOptions,
    progress: &dyn Progress,
) -> anyhow::Result<BenchReport> {
    if opts.max_files == 0 {
        bail!("--max-files must be at least 1");
    }
    let loadavg_start = stats::loadavg();
    let mut notes = Vec::new();
    let corpus_dir = corpus::dir(opts.corpus.as_deref())?;
    let all_files = corpus::walk(&corpus_dir, engine.config().max_file_bytes)?;
    let taken = &all_files[..opts.max_files.min(all_files.len())];

    // 1. Chunking (page cache warmed first, so both runs measure CPU rather than the disk).
    let chunked = chunking::measure(engine, taken);
    let corpus = chunked.report.corpus;
    if chunked.parallel_chunks != corpus.chunks {
        notes.push("parallel chunking produced a different chunk count than single-thread".into());
    }
    let rss_after_chunking = stats::peak_rss();

    // 2. Embedding.
    let (embedding, embedding_skipped) = match embedding::measure(
        engine,
        taken,
        &chunked.per_file,
        corpus,
        opts.embed_chunks,
        progress,
    )? {
        Ok(r) => (Some(r), None),
        Err(why) => {
            status(&format!("embedding skipped: {why}"));
            (None, Some(why))
        }
    };
    let mut rss = vec![
        ("chunking", rss_after_chunking),
        ("embedding", stats::peak_rss()),
    ];

    // 3. Indexing, on a copy of the taken files.
    let scratch = corpus::Scratch::new(opts.scratch.as_deref(), opts.keep_scratch);
    let mut bench = scratch.open(engine, taken)?;
    let indexing = indexing::measure(
        &mut bench,
        &scratch.corpus(),
        taken,
        &chunked.per_file,
        corpus.bytes,
        embedding.as_ref(),
        progress,
    )?;
    if indexing.full.files_seen < 5000 {
        notes.push(format!(
            "the no-change re-index saw {} files (< 5000): the corpus or --max-files is small",
            indexing.full.files_seen
        ));
    }
    rss.push(("indexing", stats::peak_rss()));

    // 4. Queries, on a store of at least `--query-chunks` chunks.
    let (query_corpus, grown) = queries::grow_store(
        &mut bench,
        &all_files,
        taken,
        &scratch.corpus(),
        indexing.corpus,
        opts.query_chunks,
        progress,
    )?;
    if query_corpus.chunks < opts.query_chunks {
        notes.push(format!(
            "the query store has {} chunks, fewer than --query-chunks {}",
            query_corpus.chunks, opts.query_chunks
        ));
    }
    status(&format!(
        "writing synthetic vectors for {} chunks",
        query_corpus.chunks
    ));
    queries::write_synthetic_vectors(&bench)?;
    rss.push(("synthetic vectors", stats::peak_rss()));
    let repeats = opts.query_repeats.max(1);
    let modes = queries::latency(&bench, repeats)?;
    rss.push(("queries", stats::peak_rss()));
    let queries = QueryReport {
        corpus: query_corpus,
        grown,
        vectors: "synthetic vectors (latency only): deterministic pseudo-random unit vectors, one per chunk",
        note: "engine.search wall time (freshness off, limit 10); vector and hybrid include embedding the query",
        queries: queries::QUERIES.len(),
        repeats,
        modes,
    };
    drop(bench);
    drop(scratch);

    Ok(BenchReport {
        machine: Machine {
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            rayon_threads: rayon::current_num_threads(),
            os: std::env::consts::OS,
            arch: std::env::consts::ARCH,
            loadavg_start,
            loadavg_end: stats::loadavg(),
        },
        corpus: CorpusInfo {
            dir: corpus_dir.display().to_string(),
            walked_files: all_files.len(),
            taken: corpus,
            unreadable_files: chunked.unreadable,
        },
        chunking: chunked.report,
        embedding,
        embedding_skipped,
        indexing,
        queries,
        peak_rss_bytes: stats::peak_rss(),
        peak_rss_after: rss,
        notes,
    })
}
