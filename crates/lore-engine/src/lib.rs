//! lore's library API. Every adapter (CLI, MCP, REST) calls [`Engine`] and nothing below it,
//! so each behaviour and each error is written once.

// Leaves: small types every layer may use.
mod error;
mod mode;
mod progress;
mod record;
mod text;
mod unit;

// Layers, each importing only those above it (checked by `.ci/cycles`).
pub mod brain;
pub mod feedback;
mod graph;
mod indexer;
mod locate;
mod map;
pub mod project;
mod query;
mod reach;
mod stores;

pub use project::{deps, trust};
pub use query::{fusion, sample};

pub use error::{EngineError, ExitKind, Param};
pub use fusion::{Candidates, Fusion, Signals};
pub use graph::related::{Related, RelatedUnit, Usage};
pub use graph::{Direction, EdgeRecord, GraphAnswer, GraphLink, GraphQuery, SymbolInfo};
pub use indexer::jobs::JobSpec;
pub use indexer::verify::PartFacts;
pub use indexer::writer::{ServerAnnouncement, WriterInfo, settle_stale_writer};
pub use indexer::{BATCH_LEASE_SECS, IndexReport, WorkerReport, Workers};
pub use locate::{LocateEvidence, LocateRequest, LocateResponse, LocatedFile, LocatedUnit};
pub use lore_core::AddStore;
pub use lore_embed::settle_threads;
pub use lore_index::{PatternMember, PatternRow};
pub use map::{DEFAULT_MAP_TOKENS, Hub, Module, StoreMap};
pub use mode::{Detail, Mode};
pub use progress::{NoProgress, Phase, Progress};
pub use query::browse::{FileEntry, FileOutline, FolderEntry, FolderListing, OutlineEntry};
pub use query::context::UnitContext;
pub use query::grep::{DEFAULT_MAX_LINES, GrepAnswer, GrepLine, GrepRequest, GrepUnit};
pub use query::intent::Intent;
pub use query::pattern::{PatternHit, PatternList};
pub use query::present::{ContextLayer, FullLayer, estimate_tokens};
pub use query::retrieve::Retrieved;
pub use query::task::{Frame, TaskClues};
pub use query::{IntentUsed, SearchHit, SearchRequest, SearchResponse, UnitRef};
pub use reach::{
    DEFAULT_IMPACT_DEPTH, DEFAULT_IMPACT_LIMIT, ImpactAnswer, ImpactRequest, Reached, Unreached,
    UnreachedUnit, diff_ranges,
};
pub use stores::StoreSummary;
pub use stores::db::{DatabaseHealth, DbStatus, StoreCopied, db_migrate, db_status};
pub use stores::doctor::{CatalogFacts, DoctorReport, Part, Problem, StoreHealth, doctor};
pub use stores::freshness::Freshness;
pub use unit::{Lines, MAX_UNIT_LINES, Truncation};

pub use lore_index::{FieldBoosts, JobProgress, JobRecord, JobStatus, StoreRecord};
pub use lore_source::PathFilter;

use lore_core::DataDir;
use lore_embed::Embedder;
use lore_index::{Catalog, WriterLock};
use std::sync::{Arc, OnceLock};

/// Settings that shape indexing and search.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    pub chunk: lore_chunk::ChunkOptions,
    pub max_file_bytes: u64,
    pub fusion: Fusion,
    pub boosts: FieldBoosts,
    /// Candidates taken from each signal before fusion.
    pub candidates: usize,
    /// Files per commit while indexing: a crash loses at most this much work.
    pub commit_every_files: usize,
    /// Embed chunks while indexing. Off, stores are BM25-only (no model needed) and only
    /// `Mode::Fts` finds anything in them.
    pub embed: bool,
    /// Whether index runs on PostgreSQL share their files with `lore worker`s.
    pub workers: Workers,
    /// Where web crawls, git clones and pulls may go (servers: public addresses only).
    pub fetch: lore_source::FetchPolicy,
    /// Where local sources may be read (servers: `--allow-path`), checked when a store is
    /// added and on every index and sync run.
    pub reads: lore_source::Reads,
    /// Local sources of the stores that existed when a server started (real paths), so
    /// an operator's own stores (`lore store add` before `lore serve`) stay readable
    /// outside `reads`, for as long as each still resolves to itself
    /// (`Engine::trust_present_sources`).
    pub trusted_sources: Vec<std::path::PathBuf>,
    /// Embed through an OpenAI-compatible server instead of the built-in model
    /// (`LORE_EMBED_URL`, `LORE_EMBED_MODEL`, `LORE_EMBED_API_KEY`; read by `Engine::open`).
    pub endpoint: Option<lore_embed::EndpointConfig>,
    /// On PostgreSQL, whether searches use a read copy of each store in the data dir, and
    /// whether this process builds them (see `ReadCopy`).
    pub read_copy: ReadCopy,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            chunk: lore_chunk::ChunkOptions::default(),
            max_file_bytes: 1024 * 1024,
            fusion: Fusion::default(),
            boosts: FieldBoosts::default(),
            candidates: 100,
            commit_every_files: 200,
            embed: true,
            workers: Workers::None,
            fetch: lore_source::FetchPolicy::default(),
            reads: lore_source::Reads::default(),
            trusted_sources: Vec::new(),
            endpoint: None,
            read_copy: ReadCopy::Use,
        }
    }
}

pub struct Engine {
    data: DataDir,
    catalog: Catalog,
    config: EngineConfig,
    /// Shared by engines cloned with `try_clone`: the model loads once per process.
    embedder: Arc<OnceLock<Arc<Embedder>>>,
    readers: Arc<query::retrieve::ReaderCache>,
    /// Held for the engine's lifetime after `hold_writer_lock` (servers, watchers), and
    /// shared by the engines cloned with `try_clone_writer`.
    writer_lock: Option<Arc<WriterLock>>,
    /// Which stores an engine of this process is writing now (shared by clones): two
    /// writers of one process never write one store at once.
    store_locks: Arc<indexer::writer::StoreLocks>,
    /// A second connection to the catalog, this engine's own, opened on first use: a
    /// search's vector half runs on it while its BM25 half runs on `catalog`.
    side: std::sync::Mutex<Option<Catalog>>,
    /// What search responses reuse of each store's freshness (shared by clones).
    freshness_cache: stores::freshness::FreshnessCache,
    /// The read copies this process builds (PostgreSQL; shared by clones).
    replicas: stores::replica::Replicas,
    /// Each store's feedback signals as last read (shared by clones).
    taught_cache: feedback::TaughtCache,
}

/// The data dir's catalog: its SQLite file, or the PostgreSQL database it names
/// (`DataDir::with_database`), created or migrated as needed.
pub(crate) fn open_catalog(data: &DataDir) -> Result<Catalog, EngineError> {
    Ok(match data.database() {
        Some(url) => {
            let mut catalog = Catalog::connect(url, &lore_index::PgOptions::default())?;
            // The shared brain store is read from this server's own brain dir (its mirror).
            let brain = data.brain();
            catalog.set_brain_root(std::fs::canonicalize(&brain).unwrap_or(brain));
            catalog
        }
        None => Catalog::open(&data.db())?,
    })
}

impl Engine {
    /// Opens (creating if needed) the data dir and its catalog, embedding with the server
    /// `LORE_EMBED_URL` names when it is set.
    pub fn open(data: DataDir) -> Result<Engine, EngineError> {
        let config = EngineConfig {
            endpoint: lore_embed::EndpointConfig::from_env()?,
            ..EngineConfig::default()
        };
        Self::open_with(data, config)
    }

    pub fn open_with(data: DataDir, config: EngineConfig) -> Result<Engine, EngineError> {
        let made = !data.root().exists();
        std::fs::create_dir_all(data.root())
            .map_err(|e| EngineError::io(data.root().display().to_string(), e))?;
        // A `.lore/` the user had lore make (`--data-dir .lore`) is theirs: found upward
        // later, it is used without asking.
        if made
            && data.root().file_name() == Some(std::ffi::OsStr::new(".lore"))
            && let Err(e) = trust::trust_data_dir(data.root(), false)
        {
            tracing::warn!("could not record {} as trusted: {e}", data.root().display());
        }
        let catalog = open_catalog(&data)?;
        Ok(Engine {
            data,
            catalog,
            config,
            embedder: Default::default(),
            readers: Default::default(),
            writer_lock: None,
            store_locks: Default::default(),
            side: Default::default(),
            freshness_cache: Default::default(),
            replicas: Default::default(),
            taught_cache: Default::default(),
        })
    }

    /// Another engine on the same data dir with its own catalog connection, sharing the
    /// loaded model and open readers (for a pool of searchers). It holds no writer lock.
    pub fn try_clone(&self) -> Result<Engine, EngineError> {
        Ok(Engine {
            data: self.data.clone(),
            catalog: open_catalog(&self.data)?,
            config: self.config.clone(),
            embedder: self.embedder.clone(),
            readers: self.readers.clone(),
            writer_lock: None,
            store_locks: self.store_locks.clone(),
            side: Default::default(),
            freshness_cache: self.freshness_cache.clone(),
            replicas: self.replicas.clone(),
            taught_cache: self.taught_cache.clone(),
        })
    }

    /// Another writing engine of this process: like `try_clone`, and sharing the writer
    /// lock this engine holds for life, so both may write (each store by one at a time).
    pub fn try_clone_writer(&self) -> Result<Engine, EngineError> {
        let mut e = self.try_clone()?;
        e.writer_lock = self.writer_lock.clone();
        Ok(e)
    }

    pub fn data_dir(&self) -> &DataDir {
        &self.data
    }

    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    pub fn config_mut(&mut self) -> &mut EngineConfig {
        &mut self.config
    }

    /// The writer lock for one write, or `None` when this engine holds it for life.
    fn lock(&self) -> Result<Option<WriterLock>, EngineError> {
        // Held for life (possibly shared with the other writer of this process).
        if self.writer_lock.is_some() {
            return Ok(None);
        }
        WriterLock::acquire(&self.data.lock_file())
            .map(Some)
            .map_err(|e| self.explain_lock_error(e))
    }

    pub fn model_dir(&self) -> std::path::PathBuf {
        lore_embed::default_model_dir(&self.data.models())
    }

    /// The embedder, loaded on first use. With `fetch_if_missing`, a missing model is
    /// fetched first (indexing needs it; searching only reports how to get it).
    pub fn embedder(
        &self,
        fetch_if_missing: bool,
        progress: &dyn Progress,
    ) -> Result<Arc<Embedder>, EngineError> {
        if let Some(e) = self.embedder.get() {
            return Ok(e.clone());
        }
        if let Some(cfg) = &self.config.endpoint {
            let remote = Embedder::endpoint(cfg.clone());
            return Ok(self.embedder.get_or_init(|| Arc::new(remote)).clone());
        }
        let dir = self.model_dir();
        let loaded = match Embedder::load(&dir) {
            Ok(e) => e,
            Err(
                lore_embed::EmbedError::ModelDirMissing { .. }
                | lore_embed::EmbedError::ModelFileMissing { .. },
            ) if fetch_if_missing => {
                progress.message(&format!(
                    "embedding model not found; fetching it into {}",
                    dir.display()
                ));
                self.fetch_model(progress)?;
                Embedder::load(&dir)?
            }
            Err(e) => return Err(e.into()),
        };
        Ok(self.embedder.get_or_init(|| Arc::new(loaded)).clone())
    }

    /// Downloads the embedding model into the model dir (see `lore_embed::fetch`).
    /// The embedder when indexing embeds (see `EngineConfig::embed`).
    pub(crate) fn index_embedder(
        &self,
        progress: &dyn Progress,
    ) -> Result<Option<Arc<Embedder>>, EngineError> {
        if self.config.embed {
            self.embedder(true, progress).map(Some)
        } else {
            Ok(None)
        }
    }

    pub fn fetch_model(&self, progress: &dyn Progress) -> Result<std::path::PathBuf, EngineError> {
        let dir = self.model_dir();
        Ok(lore_embed::fetch(&dir, &mut |m| progress.message(m))?)
    }
}

/// What an engine on PostgreSQL does with read copies of its stores (`replica.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReadCopy {
    /// Search the database only.
    Ignore,
    /// Use a copy that is current; never build one (one-shot commands).
    #[default]
    Use,
    /// Use copies and build them in the background when they are behind (servers).
    Keep,
}

/// An engine on a temp data dir that indexes without embeddings (no model needed).
#[cfg(test)]
pub(crate) fn test_engine(dir: &std::path::Path) -> Engine {
    let config = EngineConfig {
        embed: false,
        ..Default::default()
    };
    Engine::open_with(DataDir::new(dir.join("data")), config).expect("test engine")
}
