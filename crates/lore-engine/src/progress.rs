/// The long phases of indexing, each with its own count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// Files read and chunked.
    Files,
    /// Chunks embedded.
    Embeddings,
    /// Queries run (evaluation, benchmarks).
    Queries,
    /// Web pages fetched.
    Pages,
}

impl Phase {
    pub fn label(self) -> &'static str {
        match self {
            Phase::Files => "files",
            Phase::Embeddings => "embeddings",
            Phase::Queries => "queries",
            Phase::Pages => "pages",
        }
    }
}

/// Receives progress of long work; the CLI draws bars, servers record it in a job.
pub trait Progress: Sync {
    fn start(&self, _phase: Phase, _total: u64) {}
    fn advance(&self, _phase: Phase, _n: u64) {}
    fn finish(&self, _phase: Phase) {}
    /// A one-line note (e.g. "fetching model", "cloning").
    fn message(&self, _msg: &str) {}
    /// True when the work should stop. Indexing checks it between files of a batch, before
    /// anything of that batch is written, and stops with `EngineError::Cancelled`: what was
    /// committed before stays indexed.
    fn cancelled(&self) -> bool {
        false
    }
}

/// Progress that goes nowhere.
pub struct NoProgress;
impl Progress for NoProgress {}
