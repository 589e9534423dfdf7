//! The brain as a store: notes and wiki pages written through `lore-brain`, indexed like any
//! other store (kind `brain`, named `brain`, rooted at the brain dir, markdown under
//! `knowledge/` and `wiki/` only) and re-indexed incrementally after every write, so a
//! write is searchable as soon as the call returns. The store is created on first use.
//!
//! Writes take the writer lock (or reuse the one a server holds for life); session logs do
//! not touch the index and need no lock.

pub(crate) mod shared;

use crate::mode::Mode;
use crate::query::SearchRequest;
use crate::{Detail, Engine, EngineError, NoProgress};
use lore_brain::{Brain, Document};
use lore_core::{AddStore, StoreKind};
use lore_embed::Embedder;
use lore_index::{NewStore, StoreRecord};
use lore_llm::{LlmClient, LlmSettings};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use lore_brain::{
    BrainDocument, BrainError, BrainFile, BrainListing, Format, IngestReport, Logged, Note,
    NoteWritten, PAGE_TYPES, RawIngest, RawPage, SessionEntry,
};

/// The name of the brain's store.
pub use lore_core::BRAIN_STORE;

/// Most results one brain query may ask for.
pub const MAX_BRAIN_LIMIT: usize = 100;

/// How long one LLM call of `ingest` may take.
const LLM_TIMEOUT: Duration = Duration::from_secs(180);

/// Least cosine similarity at which a note no query word is in still counts as a match
/// (all-MiniLM-L6-v2: paraphrases of a note score 0.3–0.5, unrelated text below 0.15).
const MIN_MEANING: f32 = 0.25;

/// The same for a note of fewer than `SHORT_NOTE_WORDS` words: the model places very
/// short texts near everything (a note holding only `x` scores 0.32 against nonsense),
/// so only a near-paraphrase counts.
const MIN_MEANING_SHORT: f32 = 0.5;
const SHORT_NOTE_WORDS: usize = 4;

/// Whether a hit matches its query: it holds a query word, or means nearly the same.
fn is_match(hit: &crate::query::SearchHit) -> bool {
    let words = hit.snippet.as_deref().map_or(0, |t| {
        t.split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count()
    });
    let floor = if words < SHORT_NOTE_WORDS {
        MIN_MEANING_SHORT
    } else {
        MIN_MEANING
    };
    hit.signals
        .as_ref()
        .is_some_and(|s| s.bm25_rank.is_some() || s.vector_score.is_some_and(|c| c >= floor))
}

/// A brain search.
#[derive(Debug, Clone)]
pub struct BrainQuery {
    pub query: String,
    pub limit: usize,
    /// Default hybrid; falls back to fts (with a note) when the embedding model is missing.
    pub mode: Option<Mode>,
}

impl BrainQuery {
    pub fn new(query: impl Into<String>) -> BrainQuery {
        BrainQuery {
            query: query.into(),
            limit: 5,
            mode: None,
        }
    }
}

/// One note or page found.
#[derive(Debug, Clone, Serialize)]
pub struct BrainHit {
    /// Relative to the brain dir: `knowledge/…` or `wiki/…`.
    pub path: String,
    pub title: String,
    pub snippet: String,
    #[serde(serialize_with = "crate::query::round4")]
    pub score: f32,
    /// The matching section's lines.
    pub start_line: u32,
    pub end_line: u32,
    /// The section's result id (for `get_full_context` / `lore context`).
    pub id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BrainAnswer {
    pub query: String,
    pub mode: Mode,
    pub results: Vec<BrainHit>,
    /// Why the answer may be less than asked (an empty brain, no embedding model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(serialize_with = "crate::query::round_ms")]
    pub elapsed_ms: f64,
}

/// What re-indexing the brain after a write did.
#[derive(Debug, Clone, Serialize)]
pub struct BrainIndexed {
    pub added: usize,
    pub changed: usize,
    pub deleted: usize,
    pub chunks_written: usize,
    /// False when the embedding model is missing: the write is found by keyword search
    /// only until `lore model fetch` and the next write (or `lore index brain --full`).
    pub embedded: bool,
    pub elapsed_ms: u64,
    /// With a shared brain (servers sharing one catalog): what bringing this server's brain
    /// dir in step with the shared copy did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub synced: Option<BrainSynced>,
}

/// What a sync of the brain dir with the shared copy did.
#[derive(Debug, Clone, Default, Serialize, PartialEq, Eq)]
pub struct BrainSynced {
    /// Files written to the dir from the shared copy (or removed from it).
    pub pulled: usize,
    /// Files shared from the dir (or removed from the shared copy).
    pub pushed: usize,
    /// Conflict copies kept in the dir: `<path>.conflict-<host>`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<String>,
    /// Markdown files of the dir that cannot be shared, with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
    /// Session logs rewritten from the shared copy.
    pub sessions: usize,
}

impl BrainSynced {
    pub(crate) fn add(&mut self, o: BrainSynced) {
        self.pulled += o.pulled;
        self.pushed += o.pushed;
        self.conflicts.extend(o.conflicts);
        self.skipped = o.skipped;
        self.sessions += o.sessions;
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct BrainWritten {
    #[serde(flatten)]
    pub note: NoteWritten,
    pub indexed: BrainIndexed,
}

#[derive(Debug, Clone, Serialize)]
pub struct BrainIngested {
    pub source: String,
    #[serde(flatten)]
    pub report: IngestReport,
    /// The document's format (ingest only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<Format>,
    /// Absent in a dry run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed: Option<BrainIndexed>,
}

/// What `ingest` takes: `content` with `source`, or `path` (exactly one of the two).
#[derive(Debug, Clone, Default)]
pub struct IngestRequest {
    pub content: Option<String>,
    pub source: Option<String>,
    /// A file, already resolved by the adapter (relative to the caller's folder).
    pub path: Option<PathBuf>,
    pub dry_run: bool,
}

impl IngestRequest {
    /// Checks that exactly one of `path` and `content` is given (and `source` with
    /// `content`).
    pub fn check(&self) -> Result<(), BrainError> {
        let given = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.trim().is_empty());
        match (&self.path, self.content.is_some()) {
            (Some(_), true) => Err(BrainError::Input(
                "give either `path` or `content` with `source`, not both".into(),
            )),
            (None, false) => Err(BrainError::Input(
                "give `path` (a file to read) or `content` with `source`".into(),
            )),
            (None, true) if !given(&self.source) => Err(BrainError::Input(
                "`source` is required with `content`: say where the text comes from".into(),
            )),
            _ => Ok(()),
        }
    }
}

/// The LLM that ingestion asks, from `LORE_LLM_URL`, `LORE_LLM_MODEL`, `LORE_LLM_API_KEY`.
pub fn llm_from_env() -> Result<LlmClient, BrainError> {
    let backend = LlmSettings::from_env()
        .backend("send pages you write yourself to brain_ingest_raw (`lore brain ingest-raw`)")
        .map_err(BrainError::LlmSetup)?;
    Ok(LlmClient::new(backend, LLM_TIMEOUT))
}

/// The pages an LLM makes of a document, validated; writes nothing and needs no engine (so
/// servers run it off the writer thread). Fails before reading anything when the request
/// is wrong.
pub fn ingest_pages(
    req: &IngestRequest,
    llm: &LlmClient,
) -> Result<(RawIngest, Format), EngineError> {
    req.check()?;
    let doc = match (&req.path, &req.content) {
        (Some(path), _) => {
            // Without a source, the file's name without its extension names it.
            let shown = req
                .source
                .clone()
                .filter(|s| !s.trim().is_empty())
                .or_else(|| Some(path.file_stem()?.to_string_lossy().into_owned()))
                .unwrap_or_else(|| path.display().to_string());
            Document::from_path(path, &shown)?
        }
        (None, content) => Document::from_content(
            content.as_deref().unwrap_or_default(),
            req.source.as_deref().unwrap_or_default(),
        )?,
    };
    let pages = lore_brain::ingest::pages_from_text(llm, &doc.source, &doc.text)?;
    Ok((
        RawIngest {
            source: doc.source,
            pages,
            dry_run: req.dry_run,
        },
        doc.format,
    ))
}

impl Engine {
    /// The brain dir (`--brain-dir`, `LORE_BRAIN_DIR`, else `<data>/brain`).
    pub fn brain_dir(&self) -> PathBuf {
        self.data.brain()
    }

    pub(crate) fn brain(&self) -> Brain {
        Brain::new(self.brain_dir())
    }

    /// The brain's store, created (or moved to the current brain dir) if needed. Needs the
    /// writer lock.
    pub(crate) fn ensure_brain_store(&mut self) -> Result<StoreRecord, EngineError> {
        let brain = self.brain();
        brain.init()?;
        let root = std::fs::canonicalize(brain.root())
            .map_err(|e| EngineError::io(brain.root().display().to_string(), e))?;
        // A shared brain store is read with this server's dir as its root (its mirror).
        self.catalog.set_brain_root(root.clone());
        match self.catalog.store(BRAIN_STORE)? {
            Some(s) if s.kind != StoreKind::Brain => Err(EngineError::Input(format!(
                "a {} store named brain is in the way of the brain; remove it with \
                 `lore store remove brain` (its files are left alone)",
                s.kind.as_str()
            ))),
            Some(s) if s.root != root => {
                self.catalog.set_root(s.id, &root)?;
                self.require_store(BRAIN_STORE)
            }
            Some(s) => Ok(s),
            None => Ok(self.catalog.create_store(&NewStore {
                spec: &AddStore {
                    name: BRAIN_STORE.into(),
                    includes: lore_brain::index_globs(),
                    description: Some("notes and wiki pages agents write".into()),
                    ..Default::default()
                },
                kind: StoreKind::Brain,
                source: root.to_string_lossy().into_owned(),
                root,
                max_file_bytes: self.config.max_file_bytes,
                web: None,
                // Each server's own brain dir mirrors it (shared) or it is this one's.
                host: None,
            })?),
        }
    }

    /// The embedder for brain writes, or `None` when the model is not installed (the brain
    /// then works by keyword search; it is never fetched in the middle of a write).
    pub(crate) fn brain_embedder(&self) -> Result<Option<Arc<Embedder>>, EngineError> {
        if !self.config.embed {
            return Ok(None);
        }
        match self.embedder(false, &NoProgress) {
            Ok(e) => Ok(Some(e)),
            Err(EngineError::Embed(
                lore_embed::EmbedError::ModelDirMissing { .. }
                | lore_embed::EmbedError::ModelFileMissing { .. },
            )) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Re-indexes the brain store incrementally (the caller holds the lock). Chunks left
    /// without vectors by writes made while the model was missing are embedded once it is
    /// there (a full pass; the brain is small).
    pub(crate) fn reindex_brain(
        &mut self,
        embedder: Option<&Embedder>,
    ) -> Result<BrainIndexed, EngineError> {
        let store = self.ensure_brain_store()?;
        // Notes written while the model was missing are embedded now (progressive indexing).
        let r = if self.catalog.shares_brain() {
            // The shared brain's lock (the caller's) is its index lease: it serialises the
            // runs of every server and dies with a server that stops.
            let _store = self.store_locks.hold(store.id);
            self.index_leased_store(&store, false, embedder, &NoProgress)?
        } else {
            self.index_store(&store, false, embedder, &NoProgress)?
        };
        Ok(BrainIndexed {
            added: r.added,
            changed: r.changed,
            deleted: r.deleted,
            chunks_written: r.chunks_written,
            embedded: embedder.is_some(),
            elapsed_ms: r.elapsed_ms,
            synced: None,
        })
    }

    /// Creates the brain store if needed and indexes what changed in the brain dir (notes
    /// edited by hand, for instance).
    pub fn brain_sync(&mut self) -> Result<BrainIndexed, EngineError> {
        let embedder = self.brain_embedder()?;
        let _lock = self.lock()?;
        Ok(self.change_brain(embedder.as_deref(), |_| Ok(()))?.1)
    }

    /// `brain_sync` when a stat walk finds the brain changed on disk since its last index run
    /// (or holding files but no store yet), or a shared brain changed elsewhere: for callers
    /// no watcher serves, and for a watcher's events. `None` when nothing changed; `Locked`
    /// when another process is the writer (a server, which keeps the brain current itself).
    pub fn brain_refresh(&mut self) -> Result<Option<BrainIndexed>, EngineError> {
        if !self.brain_stale()? {
            return Ok(None);
        }
        self.brain_sync().map(Some)
    }

    /// Whether the brain's index is behind its folder (a stat walk) or, when shared, the
    /// other servers' notes. Reads only: a server asks this before queueing a refresh.
    pub fn brain_stale(&self) -> Result<bool, EngineError> {
        Ok(match self.catalog.store(BRAIN_STORE)? {
            Some(s) if s.kind == StoreKind::Brain => {
                self.freshness(&s)?.changed_files > 0 || self.brain_changed_elsewhere()?
            }
            Some(_) => false,
            None => self.brain_has_files(),
        })
    }

    /// Whether the brain's folder holds any file (a brain without a store yet that a
    /// `brain_refresh` would index). Stops at the first file found.
    pub fn brain_has_files(&self) -> bool {
        fn any_file(dir: &std::path::Path, depth: usize) -> bool {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return false;
            };
            entries.flatten().any(|e| match e.file_type() {
                Ok(t) if t.is_file() => true,
                Ok(t) if t.is_dir() && depth < 8 => any_file(&e.path(), depth + 1),
                _ => false,
            })
        }
        any_file(&self.brain_dir(), 0)
    }

    /// Writes a note to `knowledge/` and indexes it; bad input writes nothing.
    pub fn brain_write(&mut self, note: &Note) -> Result<BrainWritten, EngineError> {
        let brain = self.brain();
        brain.check_note(note)?;
        let embedder = self.brain_embedder()?;
        let _lock = self.lock()?;
        let (written, indexed) =
            self.change_brain(embedder.as_deref(), |brain| Ok(brain.write_note(note)?))?;
        Ok(BrainWritten {
            note: written,
            indexed,
        })
    }

    /// Every note, wiki page and session log, newest first, with the fields a list shows.
    pub fn brain_files(&self) -> Result<BrainListing, EngineError> {
        Ok(self.brain().list_files()?)
    }

    /// One brain file by its path in the brain dir (`knowledge/retry.md`): frontmatter,
    /// body, or a session log's events. Nothing outside the brain's three folders.
    pub fn brain_file(&self, path: &str) -> Result<BrainDocument, EngineError> {
        Ok(self.brain().read_file(path)?)
    }

    /// Hybrid search over the brain's notes and pages.
    pub fn brain_query(&self, q: &BrainQuery) -> Result<BrainAnswer, EngineError> {
        let started = Instant::now();
        if q.query.trim().is_empty() {
            return Err(EngineError::Input(
                "the query is empty; give some words to search for".into(),
            ));
        }
        if q.limit == 0 || q.limit > MAX_BRAIN_LIMIT {
            return Err(EngineError::Input(format!(
                "the limit must be between 1 and {MAX_BRAIN_LIMIT}"
            )));
        }
        let mut mode = q.mode.unwrap_or(Mode::Hybrid);
        let answer = |mode, results, note: &str| BrainAnswer {
            query: q.query.clone(),
            mode,
            results,
            note: (!note.is_empty()).then(|| note.to_string()),
            elapsed_ms: started.elapsed().as_secs_f64() * 1000.0,
        };
        let store = match self.catalog.store(BRAIN_STORE)? {
            Some(s) if s.kind == StoreKind::Brain => s,
            _ => {
                return Ok(answer(
                    mode,
                    Vec::new(),
                    "the brain is empty; write a note with brain_write (`lore brain write`)",
                ));
            }
        };
        let mut note = "";
        if mode != Mode::Fts && self.brain_embedder()?.is_none() {
            mode = Mode::Fts;
            note = "the embedding model is not installed, so this was a keyword (fts) search; \
                    run `lore model fetch` for hybrid search";
        }
        let resp = self.search(&SearchRequest {
            query: q.query.clone(),
            stores: vec![BRAIN_STORE.into()],
            mode,
            limit: q.limit,
            threshold: None,
            per_file: 1,
            freshness: false,
            intent: None,
            priors: false,
            feedback: false,
            detail: Detail::Contextual,
        })?;
        let results: Vec<BrainHit> = resp
            .results
            .into_iter()
            .filter(is_match)
            .map(|h| {
                let text =
                    std::fs::read_to_string(store.root.join(&h.unit.path)).unwrap_or_default();
                BrainHit {
                    title: Brain::title_of(&text, &h.unit.path),
                    path: h.unit.path,
                    snippet: h.snippet.unwrap_or_default(),
                    score: h.score,
                    start_line: h.unit.start_line,
                    end_line: h.unit.end_line,
                    id: h.unit.id,
                }
            })
            .collect();
        if results.is_empty() && note.is_empty() {
            note = "nothing in the brain matches this query";
        }
        Ok(answer(mode, results, note))
    }

    /// What `brain_ingest_raw` would do: the same paths and warnings, nothing written.
    pub fn brain_plan_ingest(&self, req: &RawIngest) -> Result<BrainIngested, EngineError> {
        let plan = self.brain().plan_ingest(req)?;
        Ok(BrainIngested {
            source: req.source.split_whitespace().collect::<Vec<_>>().join(" "),
            report: plan.report(true),
            format: None,
            indexed: None,
        })
    }

    /// Adds or merges wiki pages (see `lore_brain::Brain::plan_ingest`) and indexes them. A
    /// dry run plans only: it returns the same paths and warnings and writes nothing.
    pub fn brain_ingest_raw(&mut self, req: &RawIngest) -> Result<BrainIngested, EngineError> {
        let planned = self.brain_plan_ingest(req)?;
        if req.dry_run {
            return Ok(planned);
        }
        let source = planned.source;
        let embedder = self.brain_embedder()?;
        let _lock = self.lock()?;
        // Planned again under the lock (and, shared, after every server's pages were
        // pulled): another writer may have changed a page meanwhile.
        let (plan, indexed) = self.change_brain(embedder.as_deref(), |brain| {
            let plan = brain.plan_ingest(req)?;
            brain.apply(&plan)?;
            Ok(plan)
        })?;
        Ok(BrainIngested {
            source,
            report: plan.report(false),
            format: None,
            indexed: Some(indexed),
        })
    }

    /// Extracts a document's text, asks the LLM for pages, validates them, then runs
    /// `brain_ingest_raw`. Nothing is written unless every part of the document got a valid
    /// answer.
    pub fn brain_ingest_with(
        &mut self,
        req: &IngestRequest,
        llm: &LlmClient,
    ) -> Result<BrainIngested, EngineError> {
        req.check()?;
        if !req.dry_run {
            // Another writer (a server) would refuse the write after the LLM's work.
            self.check_writable()?;
        }
        let (raw, format) = ingest_pages(req, llm)?;
        let mut done = self.brain_ingest_raw(&raw)?;
        done.format = Some(format);
        Ok(done)
    }

    /// `brain_ingest_with` the LLM configured in the environment.
    pub fn brain_ingest(&mut self, req: &IngestRequest) -> Result<BrainIngested, EngineError> {
        req.check()?;
        let llm = llm_from_env()?;
        self.brain_ingest_with(req, &llm)
    }

    /// Appends one line to `sessions/<session_id>.jsonl` (and, with a shared brain, to the
    /// shared copy first). Not indexed; takes no writer lock (lines are appended under a
    /// lock on the log file itself).
    pub fn session_log(&self, entry: &SessionEntry) -> Result<Logged, EngineError> {
        self.log_session_line(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::DataDir;
    use lore_llm::fake_server::{FakeLlm, Reply};

    use crate::test_engine as engine;

    fn fts(q: &str) -> BrainQuery {
        BrainQuery {
            query: q.into(),
            limit: 5,
            mode: Some(Mode::Fts),
        }
    }

    #[test]
    fn a_write_is_found_by_the_next_query() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = engine(dir.path());
        let empty = e.brain_query(&fts("anything")).unwrap();
        assert!(empty.results.is_empty() && empty.note.unwrap().contains("empty"));

        let w = e
            .brain_write(&Note {
                content: "# Quokka census\n\nQuokkas number about 12,000 on the island.".into(),
                filename: Some("wildlife/quokkas".into()),
                kind: Some("fact".into()),
                domain: Some("zoology".into()),
            })
            .unwrap();
        assert_eq!(w.note.path, "knowledge/wildlife/quokkas.md");
        assert_eq!(w.indexed.added, 1);
        let a = e.brain_query(&fts("quokkas island")).unwrap();
        assert_eq!(a.results.len(), 1, "{a:?}");
        let hit = &a.results[0];
        assert_eq!(hit.path, "knowledge/wildlife/quokkas.md");
        assert_eq!(hit.title, "Quokka census");
        assert!(hit.snippet.contains("12,000"), "{hit:?}");
        // Hybrid without a model falls back to keywords, and says so.
        let a = e.brain_query(&BrainQuery::new("quokkas")).unwrap();
        assert_eq!(a.mode, Mode::Fts);
        assert!(a.note.unwrap().contains("lore model fetch"));
        assert_eq!(a.results.len(), 1);

        // The brain is a store like any other; session logs are not searched.
        let info = e.store_info(BRAIN_STORE).unwrap();
        assert_eq!(info.store.kind, StoreKind::Brain);
        e.session_log(&SessionEntry {
            session_id: "s1".into(),
            message: Some("quokkas discussed".into()),
            ..Default::default()
        })
        .unwrap();
        e.brain_sync().unwrap();
        assert_eq!(e.store_info(BRAIN_STORE).unwrap().stats.files, 1);

        // A hand edit is picked up by the next write's re-index.
        std::fs::write(
            e.brain_dir().join("knowledge/wildlife/quokkas.md"),
            "# Quokka census\n\nNow about 10,000 wallabies.\n",
        )
        .unwrap();
        e.brain_write(&Note {
            content: "unrelated".into(),
            ..Default::default()
        })
        .unwrap();
        let a = e.brain_query(&fts("wallabies")).unwrap();
        assert_eq!(a.results[0].path, "knowledge/wildlife/quokkas.md");
    }

    /// With the embedding model (`LORE_MODEL_DIR`; skipped without it unless CI is set): a
    /// note is found by a hybrid query within the second it was written.
    #[test]
    fn a_written_note_is_found_by_the_next_hybrid_query() {
        let model = match lore_embed::shared_model_dir() {
            Ok(m) => m,
            Err(e) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "CI is set but the embedding model cannot be had: {e}"
                );
                eprintln!("skipping: no embedding model ({e})");
                return;
            }
        };
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path().join("data"));
        // Where the engine looks when LORE_MODEL_DIR is not set.
        std::fs::create_dir_all(data.models()).unwrap();
        std::os::unix::fs::symlink(&model, data.models().join(lore_embed::MODEL_NAME)).unwrap();
        let mut e = Engine::open(data).unwrap();
        e.embedder(false, &NoProgress).unwrap();
        let started = Instant::now();
        let w = e
            .brain_write(&Note {
                content: "The kakapo is a flightless nocturnal parrot of New Zealand.".into(),
                filename: Some("birds/kakapo".into()),
                ..Default::default()
            })
            .unwrap();
        assert!(w.indexed.embedded);
        let a = e
            .brain_query(&BrainQuery::new("which parrot cannot fly"))
            .unwrap();
        let took = started.elapsed();
        assert_eq!(a.mode, Mode::Hybrid);
        assert_eq!(a.results[0].path, "knowledge/birds/kakapo.md");
        // Speed is `lore bench`'s to measure; here only that the note is found at once.
        eprintln!("write -> found by a hybrid query in {took:?}");
    }

    #[test]
    fn bad_writes_change_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = engine(dir.path());
        for (content, filename) in [
            ("", None),
            ("x", Some("../escape.md")),
            ("x", Some("/tmp/abs.md")),
        ] {
            let err = e
                .brain_write(&Note {
                    content: content.into(),
                    filename: filename.map(String::from),
                    ..Default::default()
                })
                .unwrap_err();
            assert_eq!(err.kind(), crate::ExitKind::Input, "{err}");
        }
        assert!(e.stores().unwrap().is_empty());
        assert!(!dir.path().join("data/escape.md").exists());
        assert!(!e.brain_dir().exists());
    }

    #[test]
    fn ingest_raw_then_ingest_with_a_fake_llm() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = engine(dir.path());
        let raw = RawIngest {
            source: "design.md".into(),
            pages: vec![RawPage {
                title: "Single writer".into(),
                kind: "decision".into(),
                content: "One process writes the index at a time.".into(),
            }],
            dry_run: true,
        };
        let dry = e.brain_ingest_raw(&raw).unwrap();
        assert_eq!(dry.report.pages, ["wiki/decisions/single-writer.md"]);
        assert!(dry.indexed.is_none());
        assert!(!e.brain_dir().exists());
        let done = e
            .brain_ingest_raw(&RawIngest {
                dry_run: false,
                ..raw
            })
            .unwrap();
        assert_eq!(done.indexed.unwrap().added, 1);
        assert_eq!(
            e.brain_query(&fts("one process writes")).unwrap().results[0].title,
            "Single writer"
        );

        let fake = FakeLlm::start(|_, _| {
            Reply::Content(
                r#"{"pages": [{"title": "Single writer", "type": "decision", "content": "Readers never block."},
                              {"title": "Jobs", "type": "concept", "content": "Background index runs."}]}"#
                    .into(),
            )
        })
        .unwrap();
        let llm = LlmClient::new(
            lore_llm::Backend::Endpoint {
                url: fake.url(),
                model: "m".into(),
                api_key: None,
            },
            Duration::from_secs(10),
        );
        let req = IngestRequest {
            content: Some("<p>Readers never block; jobs run in the background.</p>".into()),
            source: Some("notes.html".into()),
            path: None,
            dry_run: false,
        };
        let done = e.brain_ingest_with(&req, &llm).unwrap();
        assert_eq!(done.format, Some(Format::Html));
        assert_eq!(
            done.report.pages,
            ["wiki/decisions/single-writer.md", "wiki/concepts/jobs.md"]
        );
        assert_eq!(done.report.merged, 1);
        assert!(done.report.warnings[0].contains("merged"));
        let prompt = fake.requests()[0].last_content();
        assert!(
            prompt.contains("Readers never block") && !prompt.contains("<p>"),
            "{prompt}"
        );
        assert_eq!(
            e.brain_query(&fts("readers never block")).unwrap().results[0].path,
            "wiki/decisions/single-writer.md"
        );

        // Garbage from the LLM: retried, reported, nothing written.
        let garbage = FakeLlm::start(|_, _| Reply::Content("no JSON here".into())).unwrap();
        let llm = LlmClient::new(
            lore_llm::Backend::Endpoint {
                url: garbage.url(),
                model: "m".into(),
                api_key: None,
            },
            Duration::from_secs(10),
        );
        let before = std::fs::read_dir(e.brain_dir().join("wiki/concepts"))
            .unwrap()
            .count();
        let err = e
            .brain_ingest_with(
                &IngestRequest {
                    content: Some("Quolls are carnivorous.".into()),
                    source: Some("s".into()),
                    ..Default::default()
                },
                &llm,
            )
            .unwrap_err();
        assert!(err.to_string().contains("nothing was written"), "{err}");
        assert_eq!(err.kind(), crate::ExitKind::Internal);
        assert!(garbage.requests().len() > 1);
        assert_eq!(
            std::fs::read_dir(e.brain_dir().join("wiki/concepts"))
                .unwrap()
                .count(),
            before
        );
    }

    #[test]
    fn ingest_requests_need_path_xor_content() {
        let p = Some(PathBuf::from("/x.md"));
        let c = Some("text".to_string());
        let s = Some("src".to_string());
        for (req, needle) in [
            (
                IngestRequest {
                    path: p.clone(),
                    content: c.clone(),
                    source: s.clone(),
                    dry_run: false,
                },
                "not both",
            ),
            (IngestRequest::default(), "give `path`"),
            (
                IngestRequest {
                    content: c.clone(),
                    ..Default::default()
                },
                "`source` is required",
            ),
        ] {
            let e = req.check().unwrap_err();
            assert!(e.is_input() && e.to_string().contains(needle), "{e}");
        }
        assert!(
            IngestRequest {
                path: p,
                ..Default::default()
            }
            .check()
            .is_ok()
        );
        assert!(
            IngestRequest {
                content: c,
                source: s,
                ..Default::default()
            }
            .check()
            .is_ok()
        );
    }

    #[test]
    fn a_folder_store_named_brain_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = engine(dir.path());
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        let err = e
            .add_store(
                &crate::AddStore {
                    name: "brain".into(),
                    source: dir.path().join("src").display().to_string(),
                    ..Default::default()
                },
                &NoProgress,
            )
            .unwrap_err();
        assert!(err.to_string().contains("built in"), "{err}");
    }
}
