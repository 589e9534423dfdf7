//! What a bench run reports (serialised as is by `lore bench --json`).

use serde::Serialize;

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct CorpusSize {
    pub files: usize,
    pub chunks: usize,
    pub bytes: u64,
}

#[derive(Debug, Serialize)]
pub struct Machine {
    pub cores: usize,
    pub rayon_threads: usize,
    pub os: &'static str,
    pub arch: &'static str,
    /// /proc/loadavg at the start and the end (other work on the machine skews figures).
    pub loadavg_start: Option<String>,
    pub loadavg_end: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct CorpusInfo {
    pub dir: String,
    /// Files the walk found in the whole corpus folder.
    pub walked_files: usize,
    /// Files taken (first `--max-files` in walk order) and their indexable size.
    #[serde(flatten)]
    pub taken: CorpusSize,
    /// Taken files not indexable (binary, not UTF-8, unreadable).
    pub unreadable_files: usize,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rate {
    pub secs: f64,
    pub files_per_s: f64,
    pub chunks_per_s: f64,
    pub mb_per_s: f64,
}

#[derive(Debug, Serialize)]
pub struct ChunkingReport {
    pub corpus: CorpusSize,
    pub note: &'static str,
    pub single_thread: Rate,
    pub parallel: Rate,
    pub parallel_threads: usize,
}

#[derive(Debug, Serialize)]
pub struct EmbeddingReport {
    /// The corpus the chunks were sampled from (evenly spaced over its chunks).
    pub corpus: CorpusSize,
    pub chunks: usize,
    pub mean_chars: f64,
    pub mean_tokens_approx: f64,
    pub tokens_note: &'static str,
    pub model_load_ms: f64,
    pub secs: f64,
    pub chunks_per_s: f64,
    pub query_embed_ms_median: f64,
    pub query_embed_samples: usize,
}

#[derive(Debug, Serialize)]
pub struct IndexRun {
    /// Files rewritten or edited before this run.
    pub files_modified_before: usize,
    pub wall_ms: f64,
    pub files_seen: usize,
    pub added: usize,
    pub changed: usize,
    /// Unchanged plus touched (same hash) files.
    pub unchanged: usize,
    pub chunks_written: usize,
}

#[derive(Debug, Serialize)]
pub struct Estimate {
    pub note: &'static str,
    pub index_s: f64,
    pub embed_s: f64,
    pub total_s: f64,
}

#[derive(Debug, Serialize)]
pub struct IndexingReport {
    pub note: &'static str,
    pub corpus: CorpusSize,
    pub full: IndexRun,
    pub no_change: IndexRun,
    pub touch_1pct: IndexRun,
    pub edit_10: IndexRun,
    pub estimate_with_embeddings: Option<Estimate>,
}

#[derive(Debug, Default, Serialize)]
pub struct Latency {
    pub samples: usize,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub mean_ms: f64,
    pub max_ms: f64,
}

#[derive(Debug, Serialize)]
pub struct ModeLatency {
    pub mode: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub latency: Option<Latency>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct QueryReport {
    pub corpus: CorpusSize,
    /// How the store was grown past `--max-files` to reach `--query-chunks`, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grown: Option<String>,
    pub vectors: &'static str,
    pub note: &'static str,
    pub queries: usize,
    pub repeats: usize,
    pub modes: Vec<ModeLatency>,
}

/// The query store on PostgreSQL (`--database`), timed like [`QueryReport`].
#[derive(Debug, Serialize)]
pub struct PostgresReport {
    /// Without its password.
    pub database: String,
    /// `db import` of the query store, vectors included.
    pub import_secs: f64,
    pub chunks: u64,
    /// Of them, with a (synthetic) vector.
    pub vectors: u64,
    /// Searches reading the database (no read copy).
    pub modes: Vec<ModeLatency>,
    /// The server's read copy of the store (`Engine::build_replica`): how long it took,
    /// and the same queries with it.
    pub copy_secs: f64,
    pub copy_modes: Vec<ModeLatency>,
    /// The store's HNSW index (built by the import when the store is large enough).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hnsw: Option<HnswReport>,
}

/// Raw vector search through HNSW against the exact scan, on PostgreSQL.
#[derive(Debug, Serialize)]
pub struct HnswReport {
    pub note: &'static str,
    /// Stores from this many vectors get the index.
    pub min_vectors: u64,
    /// The `ef_search` searches use.
    pub ef_search_default: usize,
    /// The exact scan's latency (top 10, no hydration).
    pub exact: Latency,
    pub runs: Vec<HnswRun>,
}

#[derive(Debug, Serialize)]
pub struct HnswRun {
    pub ef_search: usize,
    /// Of the exact top 10, the share HNSW found, over the bench's queries.
    pub recall_at_10: f64,
    pub latency: Latency,
}

/// How soon a store being added answers, and how soon it is fully embedded.
#[derive(Debug, Serialize)]
pub struct FirstAnswerReport {
    pub corpus: CorpusSize,
    pub note: &'static str,
    /// False: no model here, so the store was added keyword-only (`--embed none`).
    pub embeddings: bool,
    /// The keyword searched for (a word of the corpus's first file).
    pub query: String,
    /// From the `store add` call to the first non-empty keyword answer.
    pub first_fts_answer_ms: f64,
    /// A hybrid search right after the first answer, while chunks were being embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mid_embedding: Option<MidEmbedding>,
    /// Chunks with a vector when the add ended (or was stopped).
    pub embedded_chunks: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_chunks_per_s: Option<f64>,
    /// From the `store add` call to every chunk embedded, when that came within the budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fully_embedded_ms: Option<f64>,
    /// When the budget ran out first: the add was cancelled then (what it embedded stays).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped_after_ms: Option<f64>,
    /// Then: the time to fully embedded, the rest at the rate measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fully_embedded_estimate_s: Option<f64>,
}

#[derive(Debug, Serialize)]
pub struct MidEmbedding {
    pub results: usize,
    /// The store's embedded share the response reported.
    pub embedded: f32,
    pub ms: f64,
}

/// One `lore search` process, from start to exit.
#[derive(Debug, Serialize)]
pub struct ProcessRun {
    pub mode: &'static str,
    pub wall_ms: f64,
    pub results: usize,
    /// Its peak resident memory (VmHWM sampled until exit), Linux only.
    pub peak_rss_bytes: Option<u64>,
}

/// The vector scan alone on synthetic vectors.
#[derive(Debug, Serialize)]
pub struct ScanRun {
    pub vectors: usize,
    pub dim: usize,
    pub queries: usize,
    /// `VectorSet::search`: int8 scan on all cores, top candidates rescored in f32.
    pub quantised: Latency,
    /// The exact f32 scan on one thread over a heap matrix, as before.
    pub exact: Latency,
    /// Of the exact top 10, the share the quantised scan found.
    pub recall_at_10: f64,
    /// The quantised search asked for 100 candidates, as a search asks each signal.
    pub quantised_at_100: Latency,
    /// Of the exact top 100, the share that search found.
    pub recall_at_100: f64,
    pub snapshot_bytes: u64,
    /// Resident memory the opened snapshot added after three searches.
    pub held_bytes: Option<u64>,
}

#[derive(Debug, Serialize)]
pub struct BenchReport {
    pub machine: Machine,
    pub corpus: CorpusInfo,
    pub chunking: ChunkingReport,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding_skipped: Option<String>,
    pub first_answer: FirstAnswerReport,
    pub indexing: IndexingReport,
    pub queries: QueryReport,
    /// The same queries on PostgreSQL (`--database`), side by side.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub postgres: Option<PostgresReport>,
    /// `lore search` processes on the query store (when the bench knows the lore binary).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub search_processes: Vec<ProcessRun>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scan: Vec<ScanRun>,
    /// VmHWM of this process at the end (whole run: model, index build, vector snapshot).
    pub peak_rss_bytes: Option<u64>,
    /// VmHWM after each phase (it only grows): where the peak comes from.
    pub peak_rss_after: Vec<(&'static str, Option<u64>)>,
    pub notes: Vec<String>,
}
