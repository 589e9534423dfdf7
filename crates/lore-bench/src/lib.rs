//! `lore bench`: chunking, embedding, indexing and query speed on a real corpus.
//!
//! The corpus (default: the cargo registry sources) is only read. Everything that writes
//! works on a copy of the taken files in a scratch folder (so touching and editing files
//! never changes the corpus), each phase with a fresh data dir: the first answer of a store
//! added with embeddings on, then indexing with embeddings off. The query store gets
//! synthetic vectors, written through `lore-index` (the one place the bench reaches past
//! `Engine`), and so does the vector scan measured alone at 131k and 1M vectors.

mod chunking;
mod corpus;
mod embedding;
mod first_answer;
mod indexing;
mod postgres;
mod process;
mod queries;
mod report;
mod scan;
mod stats;
mod synthetic;

pub use queries::{QUERIES, store_latency};

pub use report::{
    BenchReport, ChunkingReport, CorpusInfo, CorpusSize, EmbeddingReport, Estimate,
    FirstAnswerReport, HnswReport, HnswRun, IndexRun, IndexingReport, Latency, Machine,
    MidEmbedding, ModeLatency, PostgresReport, ProcessRun, QueryReport, Rate, ScanRun,
};

use anyhow::bail;
use lore_engine::{Engine, Progress};
use std::path::PathBuf;
use std::time::Duration;

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
    /// How long the first-answer store may embed after its first answer before it is
    /// stopped and the rest estimated.
    pub embed_budget: Duration,
    /// Sizes of the synthetic vector scan (none: skipped).
    pub scan_sizes: Vec<usize>,
    /// Queries timed per scan size.
    pub scan_queries: usize,
    /// The lore binary, to time `lore search` as its own process (`None`: skipped).
    pub search_exe: Option<PathBuf>,
}

/// The store the indexing and query phases work on, in the scratch data dir [`DATA`].
const STORE: &str = "bench";
const DATA: &str = "data";

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

    // 3. The first answer of a store being added, on a copy of the taken files.
    let scratch = corpus::Scratch::new(opts.scratch.as_deref(), opts.keep_scratch);
    // With --database, the query phase runs on PostgreSQL too: checked now, not after
    // minutes of work.
    let database = engine.data_dir().database().map(str::to_string);
    let mut pg = match &database {
        Some(url) => Some(postgres::open(engine, &scratch, url)?),
        None => None,
    };
    scratch.copy(taken)?;
    let first_answer = first_answer::measure(
        engine,
        &scratch,
        taken,
        &chunked.per_file,
        opts.embed_budget,
        progress,
    )?;
    rss.push(("first answer", stats::peak_rss()));

    // 4. Indexing, embeddings off, on the same copy.
    let mut bench = scratch.open(engine, DATA, false)?;
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

    // 5. Queries, on a store of at least `--query-chunks` chunks.
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
        note: "engine.search wall time as every adapter asks it (with the store's freshness, limit 10); vector and hybrid include embedding the query (its cache cleared before each run)",
        queries: queries::QUERIES.len(),
        repeats,
        modes,
    };
    let postgres = match (&mut pg, &database) {
        (Some(pg), Some(url)) => Some(postgres::measure(pg, url, &scratch, repeats, progress)?),
        _ => None,
    };
    drop(pg);
    let search_processes = match &opts.search_exe {
        Some(exe) => process::measure(
            exe,
            &scratch.data_dir(DATA),
            STORE,
            queries.modes.iter().all(|m| m.latency.is_some()),
        )?,
        None => Vec::new(),
    };
    drop(bench);
    scratch.remove(DATA);

    // 6. The vector scan alone, past the corpus's size.
    let scan = scan::measure(
        &scratch.dir().join("scan"),
        &opts.scan_sizes,
        opts.scan_queries,
    )?;
    rss.push(("vector scan", stats::peak_rss()));
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
        first_answer,
        indexing,
        queries,
        postgres,
        search_processes,
        scan,
        peak_rss_bytes: stats::peak_rss(),
        peak_rss_after: rss,
        notes,
    })
}
