//! Store lifecycle: add, list, inspect, remove, sync.

pub(crate) mod db;
pub(crate) mod doctor;
pub(crate) mod freshness;
pub(crate) mod replica;
pub(crate) mod sync;

use crate::indexer::IndexReport;
pub(crate) use crate::record::{LEXICAL_ONLY, default_web, lexical_only};
use crate::{Engine, EngineError, Param, Phase, Progress};
use lore_core::{AddStore, StoreKind, WebSettings, validate_store_name};
use lore_embed::Embedder;
use lore_index::{NewStore, StoreRecord, StoreStats};
use lore_source::web::{CrawlOptions, CrawlReport, WebUrl};
use lore_source::{WalkOptions, git};
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

const WEB_ONLY: &str = "applies to web stores only (type web)";
const REPO_ONLY: &str = "applies to repo stores only";

/// A store with its counts.
#[derive(Debug, Clone, Serialize)]
pub struct StoreSummary {
    #[serde(flatten)]
    pub store: StoreRecord,
    #[serde(flatten)]
    pub stats: StoreStats,
}

impl Engine {
    pub(crate) fn require_store(&self, name: &str) -> Result<StoreRecord, EngineError> {
        self.catalog
            .store(name)?
            .ok_or_else(|| lore_index::IndexError::StoreNotFound(name.to_string()).into())
    }

    /// Checks an add request without writing anything: the name, globs, size cap, that the
    /// store is new, and that a folder exists. Returns the kind, the resolved source and
    /// the walk options.
    pub(crate) fn check_add(
        &self,
        req: &AddStore,
    ) -> Result<(StoreKind, String, WalkOptions), EngineError> {
        if crate::project::deps::is_dep_store(&req.name) {
            return Err(EngineError::Input(format!(
                "store names starting with dep: are lore's own dependency stores; \
                 `lore deps` makes them from the project's lockfiles (give {:?} another name)",
                req.name
            )));
        }
        self.check_add_any(req)
    }

    /// `check_add` for any name, `dep:` included (`lore deps`'s own stores).
    fn check_add_any(
        &self,
        req: &AddStore,
    ) -> Result<(StoreKind, String, WalkOptions), EngineError> {
        validate_store_name(&req.name).map_err(EngineError::Input)?;
        if req.name == lore_core::BRAIN_STORE || req.kind == Some(StoreKind::Brain) {
            return Err(EngineError::Input(
                "the brain store is built in and named brain; write to it with `lore brain write` \
                 (or the brain_write tool) and give other stores another name"
                    .into(),
            ));
        }
        let walk_opts = self.add_walk_options(req);
        if self.catalog.store(&req.name)?.is_some() {
            return Err(lore_index::IndexError::StoreExists(req.name.clone()).into());
        }
        let (kind, source) = self.check_spec(req, &walk_opts)?;
        Ok((kind, source, walk_opts))
    }

    /// How a store `req` defines is walked: its globs and size cap (else the default).
    pub(crate) fn add_walk_options(&self, req: &AddStore) -> WalkOptions {
        WalkOptions {
            includes: req.includes.clone(),
            excludes: req.excludes.clone(),
            max_file_bytes: req.max_file_bytes.unwrap_or(self.config.max_file_bytes),
            no_ignore: req.no_ignore,
            ..WalkOptions::default()
        }
    }

    /// What `req` would store, checked as an add checks it (whether or not the store
    /// exists): its kind and its source as recorded (a folder's real path, a URL as parsed).
    pub(crate) fn check_spec(
        &self,
        req: &AddStore,
        walk_opts: &WalkOptions,
    ) -> Result<(StoreKind, String), EngineError> {
        lore_source::validate_globs(walk_opts)?;
        if walk_opts.max_file_bytes == 0 {
            return Err(EngineError::param(Param::MaxFileSize, "must be above 0"));
        }
        let kind = req.kind.unwrap_or(if git::looks_like_url(&req.source) {
            StoreKind::Repo
        } else {
            StoreKind::Folder
        });
        if kind != StoreKind::Web {
            if req.max_pages.is_some() {
                return Err(EngineError::param(Param::MaxPages, WEB_ONLY));
            }
            if req.max_depth.is_some() {
                return Err(EngineError::param(Param::MaxDepth, WEB_ONLY));
            }
        }
        let source = match kind {
            StoreKind::Web => {
                if req.branch.is_some() {
                    return Err(EngineError::param(Param::Branch, REPO_ONLY));
                }
                if req.max_pages == Some(0) {
                    return Err(EngineError::param(Param::MaxPages, "must be at least 1"));
                }
                WebUrl::parse(&req.source)
                    .ok_or_else(|| {
                        EngineError::Input(format!(
                            "{} is not an http:// or https:// URL; a web store crawls a \
                             documentation site from its start page",
                            req.source
                        ))
                    })?
                    .to_string()
            }
            StoreKind::Folder => {
                if req.branch.is_some() {
                    return Err(EngineError::param(Param::Branch, REPO_ONLY));
                }
                self.config.reads.check(Path::new(&req.source), "folder")?;
                let p = std::fs::canonicalize(&req.source).map_err(|e| {
                    EngineError::Input(format!("folder {} cannot be opened: {e}", req.source))
                })?;
                if !p.is_dir() {
                    return Err(EngineError::Input(format!(
                        "{} is not a folder",
                        req.source
                    )));
                }
                p.to_string_lossy().into_owned()
            }
            StoreKind::Repo if git::looks_like_url(&req.source) => req.source.clone(),
            StoreKind::Brain => {
                return Err(EngineError::Input("the brain store is built in".into()));
            }
            StoreKind::Repo => {
                let path = self.config.reads.check_repo(Path::new(&req.source))?;
                std::fs::canonicalize(path)
                    .map_err(|e| {
                        EngineError::Input(format!("repo {} cannot be opened: {e}", req.source))
                    })?
                    .to_string_lossy()
                    .into_owned()
            }
        };
        Ok((kind, source))
    }

    /// Checks that a store's local source may still be read (`EngineConfig::reads`): a
    /// folder store's root, a local repository's git dir, common dir and alternates. Runs
    /// before every index and sync, since a folder may have become a symlink meanwhile.
    /// A trusted source (`trust_present_sources`) passes while it still resolves to itself.
    pub fn check_source(&self, store: &StoreRecord) -> Result<(), EngineError> {
        // Servers sharing one catalog: a folder or clone of another machine, not here.
        if let Some(host) = store
            .host
            .as_deref()
            .filter(|h| *h != crate::record::host_name())
            && !store.root.exists()
        {
            return Err(EngineError::Input(format!(
                "store {}'s files are on {host} ({}), not on this machine; index it there \
                 (a server on {host} indexes and watches it)",
                store.name,
                store.root.display()
            )));
        }
        let Some(path) = local_source(store) else {
            return Ok(());
        };
        if self.config.trusted_sources.iter().any(|t| t == path) && resolves_to_itself(path) {
            return Ok(());
        }
        match store.kind {
            StoreKind::Repo => self.config.reads.check_repo(path).map(drop)?,
            _ => self.config.reads.check(path, "folder").map(drop)?,
        }
        Ok(())
    }

    /// Trusts the local sources of the stores present now (their operator added them, with
    /// the CLI or an earlier server): `check_source` passes them while each still resolves
    /// to the real path recorded when it was added. A server calls this at start, before
    /// clients can add stores; a source since swapped for a symlink is not trusted.
    pub fn trust_present_sources(&mut self) -> Result<(), EngineError> {
        let mut trusted = Vec::new();
        for store in self.catalog.stores()? {
            if let Some(path) = local_source(&store)
                && resolves_to_itself(path)
            {
                trusted.push(path.to_path_buf());
            }
        }
        self.config.trusted_sources = trusted;
        Ok(())
    }

    /// Creates a store and indexes it. Bad input fails before anything is written; a failed
    /// clone leaves no store behind.
    pub fn add_store(
        &mut self,
        req: &AddStore,
        progress: &dyn Progress,
    ) -> Result<(StoreRecord, IndexReport), EngineError> {
        let checked = self.check_add(req)?;
        self.add_checked(req, checked, progress)
    }

    /// `add_store`, except that a store of that name defined exactly so (source, type,
    /// branch, globs, cap, embedding) is indexed instead, incrementally (`true` then): the
    /// same add can be run again. One defined otherwise is refused, naming what differs.
    pub fn add_or_index(
        &mut self,
        req: &AddStore,
        progress: &dyn Progress,
    ) -> Result<(StoreRecord, IndexReport, bool), EngineError> {
        // Reserved names (the brain, `dep:`) and new ones: as `add_store` answers them.
        let existing = self.catalog.store(&req.name)?.filter(|r| {
            r.kind != StoreKind::Brain && !crate::project::deps::is_dep_store(&req.name)
        });
        let Some(rec) = existing else {
            let (store, report) = self.add_store(req, progress)?;
            return Ok((store, report, false));
        };
        let walk = self.add_walk_options(req);
        let (kind, source) = self.check_spec(req, &walk)?;
        let (action, changes) = crate::project::diff(&rec, req, kind, &source, walk.max_file_bytes);
        if action != crate::project::SyncAction::Index || rec.description != req.description {
            let mut changes = changes;
            if changes.is_empty() {
                changes.push("description".into());
            }
            return Err(EngineError::Input(format!(
                "store {} already exists with another definition ({}); remove it first \
                 (`lore store remove {}`), or give another name",
                req.name,
                changes.join("; "),
                req.name
            )));
        }
        let report = self
            .sync(std::slice::from_ref(&req.name), progress)?
            .into_iter()
            .next()
            .unwrap_or_default();
        let store = self.require_store(&req.name)?;
        Ok((store, report, true))
    }

    /// `add_store` for a dependency store (`dep:` names are `lore deps`'s alone).
    pub(crate) fn add_store_as_deps(
        &mut self,
        req: &AddStore,
        progress: &dyn Progress,
    ) -> Result<(StoreRecord, IndexReport), EngineError> {
        let checked = self.check_add_any(req)?;
        self.add_checked(req, checked, progress)
    }

    fn add_checked(
        &mut self,
        req: &AddStore,
        (kind, source, walk_opts): (StoreKind, String, WalkOptions),
        progress: &dyn Progress,
    ) -> Result<(StoreRecord, IndexReport), EngineError> {
        // Load (or fetch) the model before anything is written.
        let embedder = if req.lexical_only {
            None
        } else {
            self.index_embedder(progress)?
        };
        let _lock = self.lock()?;
        let mut store = self.catalog.create_store(&NewStore {
            spec: req,
            kind,
            source: source.clone(),
            root: source.clone().into(),
            max_file_bytes: walk_opts.max_file_bytes,
            web: (kind == StoreKind::Web).then(|| {
                let d = default_web();
                WebSettings {
                    max_pages: req.max_pages.unwrap_or(d.max_pages),
                    max_depth: req.max_depth.unwrap_or(d.max_depth),
                    site: None,
                }
            }),
            // A folder and a clone are files on this machine.
            host: (kind != StoreKind::Web).then(|| crate::record::host_name().to_string()),
        })?;
        // Held from its creation to the end of its first index run.
        let _store = self.store_locks.hold(store.id);
        if req.lexical_only {
            self.catalog.set_embedder(store.id, Some(LEXICAL_ONLY))?;
            store = self.require_store(&req.name)?;
        }
        let mut crawl = None;
        if kind == StoreKind::Web {
            match self.crawl(&store, progress) {
                Ok(report) => crawl = Some(report),
                Err(e) => {
                    let _ = self.catalog.remove_store(store.id);
                    let _ = std::fs::remove_dir_all(self.data.web_dir(store.id));
                    return Err(e);
                }
            }
            store = self.require_store(&req.name)?;
        }
        if kind == StoreKind::Repo {
            let dest = self.data.repo_dir(store.id);
            progress.message(&format!("cloning {source}"));
            let cloned = std::fs::remove_dir_all(&dest)
                .or_else(|e| {
                    if e.kind() == std::io::ErrorKind::NotFound {
                        Ok(())
                    } else {
                        Err(e)
                    }
                })
                .map_err(|e| EngineError::io(dest.display().to_string(), e))
                .and_then(|_| {
                    let branch = req.branch.as_deref();
                    Ok(git::clone(&source, &dest, branch, self.config.fetch)?)
                })
                .and_then(|_| self.catalog.set_root(store.id, &dest).map_err(Into::into));
            if let Err(e) = cloned {
                let _ = self.catalog.remove_store(store.id);
                return Err(e);
            }
            store = self.require_store(&req.name)?;
        }
        let report = self.index_held_store(&store, false, embedder.as_deref(), progress)?;
        Ok((self.require_store(&req.name)?, with_crawl(report, crawl)))
    }

    /// Every store, without its counts (a watcher asks every 2 s; the counts of a
    /// kernel-sized store take most of a second).
    pub fn store_records(&self) -> Result<Vec<StoreRecord>, EngineError> {
        Ok(self.catalog.stores()?)
    }

    pub fn stores(&self) -> Result<Vec<StoreSummary>, EngineError> {
        self.catalog
            .stores()?
            .into_iter()
            .map(|store| {
                let stats = self.catalog.stats(store.id)?;
                Ok(StoreSummary { store, stats })
            })
            .collect()
    }

    pub fn store_info(&self, name: &str) -> Result<StoreSummary, EngineError> {
        let store = self.require_store(name)?;
        let stats = self.catalog.stats(store.id)?;
        Ok(StoreSummary { store, stats })
    }

    /// Crawls a web store's site into its mirror (replaced only when the crawl succeeds)
    /// and records the site and the mirror as the store's root.
    fn crawl(
        &self,
        store: &StoreRecord,
        progress: &dyn Progress,
    ) -> Result<CrawlReport, EngineError> {
        let settings = store.web.clone().unwrap_or_else(default_web);
        let opts = CrawlOptions {
            max_pages: settings.max_pages,
            max_depth: settings.max_depth,
            max_page_bytes: store.max_file_bytes,
            includes: store.includes.clone(),
            excludes: store.excludes.clone(),
            policy: self.config.fetch,
            ..CrawlOptions::default()
        };
        let dest = self.data.web_dir(store.id);
        progress.message(&format!("crawling {}", store.source));
        // The total grows as links are found: a level's pages are known when it starts.
        progress.start(Phase::Pages, 1);
        let (done, total) = (AtomicUsize::new(0), AtomicUsize::new(1));
        let report = lore_source::web::crawl(&store.source, &dest, &opts, &|n, known| {
            if total.fetch_max(known, Ordering::Relaxed) < known {
                progress.start(Phase::Pages, known as u64);
            }
            let before = done.fetch_max(n, Ordering::Relaxed);
            progress.advance(Phase::Pages, n.saturating_sub(before) as u64);
        });
        progress.finish(Phase::Pages);
        let report = report?;
        self.catalog.set_root(store.id, &dest)?;
        self.catalog.set_web(
            store.id,
            &WebSettings {
                site: Some(report.site.clone()),
                ..settings
            },
        )?;
        Ok(report)
    }

    /// Deletes a store, its index and its clone (repos) or mirror (web). The source folder
    /// is untouched.
    pub fn remove_store(&mut self, name: &str) -> Result<StoreRecord, EngineError> {
        let store = self.require_store(name)?;
        let _lock = self.lock()?;
        let Some(_store) = self.store_locks.try_hold(store.id) else {
            let job = match self.active_job_for(name) {
                Ok(Some(job)) => format!("job {}", job.id),
                _ => "its job (`lore jobs`)".to_string(),
            };
            return Err(lore_index::IndexError::Locked(format!(
                "store {name} is being indexed now; cancel {job} or wait for it, then remove \
                 the store"
            ))
            .into());
        };
        self.catalog.drop_vector_index(store.id)?;
        self.catalog.remove_store(store.id)?;
        self.forget_readers(store.id);
        for dir in [
            self.data.store_dir(store.id),
            self.data.repo_dir(store.id),
            self.data.web_dir(store.id),
        ] {
            match std::fs::remove_dir_all(&dir) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(EngineError::io(dir.display().to_string(), e)),
            }
        }
        Ok(store)
    }

    /// Resolves store names; an empty list means every store.
    pub(crate) fn select_stores(&self, names: &[String]) -> Result<Vec<StoreRecord>, EngineError> {
        if names.is_empty() {
            return Ok(self.catalog.stores()?);
        }
        let mut out: Vec<StoreRecord> = Vec::with_capacity(names.len());
        for n in names {
            let s = self
                .require_store(n)
                .map_err(|e| self.being_added(n).unwrap_or(e))?;
            // A store named twice is searched once.
            if !out.iter().any(|o| o.id == s.id) {
                out.push(s);
            }
        }
        Ok(out)
    }

    /// A store not there yet because a job is adding it: an answer that names the job and
    /// how far it got, instead of "no store named".
    fn being_added(&self, name: &str) -> Option<EngineError> {
        use lore_index::JobStatus;
        let job = self.catalog.jobs(50).ok()?.into_iter().find(|j| {
            j.kind == "add"
                && j.spec["name"] == name
                && matches!(j.status, JobStatus::Pending | JobStatus::Running)
        })?;
        let p = &job.progress;
        Some(EngineError::NotFound(format!(
            "store {name} is still being added (job {}: {}, {}/{} files, {}/{} chunks); \
             search it when the job is done (`lore jobs show {}`, or stores {{action: \"status\", \
             job: \"{}\"}})",
            job.id,
            job.status.as_str(),
            p.files_done,
            p.files_total,
            p.chunks_done,
            p.chunks_total,
            job.id,
            job.id
        )))
    }

    /// Incrementally (or, with `full`, completely) re-indexes the named stores.
    pub fn index(
        &mut self,
        names: &[String],
        full: bool,
        progress: &dyn Progress,
    ) -> Result<Vec<IndexReport>, EngineError> {
        self.update(names, full, false, progress)
    }

    /// Pulls repo stores, then indexes every named store incrementally.
    pub fn sync(
        &mut self,
        names: &[String],
        progress: &dyn Progress,
    ) -> Result<Vec<IndexReport>, EngineError> {
        self.update(names, false, true, progress)
    }

    fn update(
        &mut self,
        names: &[String],
        full: bool,
        pull: bool,
        progress: &dyn Progress,
    ) -> Result<Vec<IndexReport>, EngineError> {
        let stores = self.select_stores(names)?;
        if stores.is_empty() {
            return Ok(Vec::new());
        }
        // Stores kept without vectors need no model; the brain uses it when it is there
        // (and is found by keyword search until it is), never fetching it.
        let embedder = if stores.iter().all(lexical_only) {
            None
        } else if stores
            .iter()
            .all(|s| lexical_only(s) || s.kind == StoreKind::Brain)
        {
            self.brain_embedder()?
        } else {
            self.index_embedder(progress)?
        };
        let _lock = self.lock()?;
        let mut reports = Vec::new();
        for store in stores {
            // Held from the pull or crawl to the end of the index run.
            let _store = self.store_locks.hold(store.id);
            let mut crawl = None;
            if pull && store.kind == StoreKind::Repo {
                self.check_source(&store)?;
                progress.message(&format!("pulling {}", store.source));
                git::pull(&store.root, store.branch.as_deref(), self.config.fetch)?;
            }
            if pull && store.kind == StoreKind::Web {
                crawl = Some(self.crawl(&store, progress)?);
            }
            let report = self.index_held_store(&store, full, embedder.as_deref(), progress)?;
            reports.push(with_crawl(report, crawl));
        }
        Ok(reports)
    }
}

/// An index report with the crawl that came before it; the crawl's warnings join the
/// report's, which every adapter shows.
fn with_crawl(mut report: IndexReport, crawl: Option<CrawlReport>) -> IndexReport {
    if let Some(c) = &crawl {
        report.warnings.extend(c.warnings.iter().cloned());
    }
    report.crawl = crawl;
    report
}

/// Whether `path` is still its own real path (not swapped for, nor moved under, a symlink).
fn resolves_to_itself(path: &Path) -> bool {
    std::fs::canonicalize(path).is_ok_and(|real| real == path)
}

/// Where a store reads local files from: a folder store's root, a local repository.
fn local_source(store: &StoreRecord) -> Option<&Path> {
    match store.kind {
        StoreKind::Folder => Some(&store.root),
        StoreKind::Repo if git::is_local(&store.source) => Some(Path::new(&store.source)),
        _ => None,
    }
}

/// `MODEL/DIMENSION` of an embedder, as stores record it.
pub(crate) fn embedder_id(e: &Embedder) -> Result<String, EngineError> {
    Ok(format!("{}/{}", e.model_name(), e.dim()?))
}

impl Engine {
    /// Refuses to mix models: `store`'s vectors must come from the embedder `e` (by model
    /// and dimension). A store with no vector yet takes any, and records it here when
    /// `record` (the first embedding of it).
    pub(crate) fn check_embedder(
        &self,
        store: &StoreRecord,
        e: &Embedder,
        record: bool,
    ) -> Result<(), EngineError> {
        if lexical_only(store) {
            return Ok(());
        }
        let want = embedder_id(e)?;
        // No record: no vectors (the catalog migrations recorded the legacy ones).
        let have = store.embedder.clone();
        match have {
            Some(have) if have != want => Err(EngineError::Input(format!(
                "store {} was embedded with {have}, and this lore embeds with {want}{}: \
                 vectors of two models cannot be compared. Re-embed it with `lore index \
                 --reembed {}`, or go back to the embedder it was made with",
                store.name,
                if self.config.endpoint.is_some() {
                    " (LORE_EMBED_URL)"
                } else {
                    " (the built-in model; LORE_EMBED_URL is not set)"
                },
                store.name
            ))),
            None if record => Ok(self.catalog.set_embedder(store.id, Some(&want))?),
            _ => Ok(()),
        }
    }

    /// Gives stores kept without vectors (`--embed none`) their vectors: each is embedded by
    /// this lore's embedder from now on (`lore index --embed`).
    pub fn embed_stores(
        &mut self,
        names: &[String],
        progress: &dyn Progress,
    ) -> Result<Vec<IndexReport>, EngineError> {
        self.forget_embedder(names, lexical_only, progress)?;
        self.index(names, false, progress)
    }

    /// Forgets every vector of the named stores (all when empty) and what made them, then
    /// indexes them in full: each is embedded again by this lore's embedder.
    pub fn reembed(
        &mut self,
        names: &[String],
        progress: &dyn Progress,
    ) -> Result<Vec<IndexReport>, EngineError> {
        self.forget_embedder(names, |_| true, progress)?;
        self.index(names, true, progress)
    }

    /// Drops the vectors and the embedder record of the named stores that `which` picks,
    /// once this lore's embedder is known to load.
    fn forget_embedder(
        &mut self,
        names: &[String],
        which: impl Fn(&StoreRecord) -> bool,
        progress: &dyn Progress,
    ) -> Result<(), EngineError> {
        let stores = self.select_stores(names)?;
        self.index_embedder(progress)?;
        let _lock = self.lock()?;
        for store in stores.iter().filter(|s| which(s)) {
            let _store = self.store_locks.hold(store.id);
            self.catalog.set_embedder(store.id, None)?;
        }
        Ok(())
    }
}
