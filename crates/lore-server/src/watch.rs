//! Keeps folder stores and the brain fresh: file-system events (`notify`), debounced per
//! store, become an incremental re-index job on the writer. An event counts only when its path
//! is one the store's walk would index (or a folder it would enter): each store has a
//! `PathFilter`, rebuilt when an ignore file (`.gitignore`, `.ignore`, `.git/info/exclude`)
//! changes. The data dir's own files are ignored, though a brain rooted inside it is
//! watched; lore's own brain writes, already indexed, cost one re-index that finds nothing
//! new. The list of stores is re-read every few seconds, so stores added or removed
//! meanwhile are picked up.

use crate::writer::{Cmd, WriterHandle};
use lore_core::StoreKind;
use lore_engine::{Engine, JobSpec, JobStatus, PathFilter, StoreRecord};
use notify::event::{CreateKind, RemoveKind};
use notify::{EventKind, RecursiveMode, Watcher as _};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Quiet time after the last event before a store is re-indexed.
const DEBOUNCE: Duration = Duration::from_millis(400);
/// Longest a store waits under a steady stream of events.
const MAX_DELAY: Duration = Duration::from_secs(3);
/// How often the list of stores is re-read.
const REFRESH_EVERY: Duration = Duration::from_secs(2);
const TICK: Duration = Duration::from_millis(100);
/// How often finished jobs older than `JOBS_KEPT` are deleted.
const CLEAN_JOBS_EVERY: Duration = Duration::from_secs(3600);
const JOBS_KEPT: Duration = Duration::from_secs(24 * 3600);
/// How long a watch lease lasts unrenewed (each refresh renews it): another server takes
/// over a folder this long after its watcher stopped.
const WATCH_LEASE_SECS: i64 = 10;

enum Msg {
    Fs(notify::Result<notify::Event>),
    Stop,
}

pub(crate) struct Watcher {
    tx: mpsc::Sender<Msg>,
    thread: Option<JoinHandle<()>>,
}

impl Watcher {
    /// Watches the folder and brain stores named in `only` (all when empty). Each store
    /// present at start (or met before and watched again) is re-indexed once when first
    /// watched, to catch up with changes made while nobody watched; one added meanwhile is
    /// not, as its add read it.
    pub fn spawn(
        engine: Engine,
        writer: WriterHandle,
        only: Vec<String>,
    ) -> Result<Watcher, notify::Error> {
        let (tx, rx) = mpsc::channel();
        let events = tx.clone();
        let fs = notify::recommended_watcher(move |res| {
            let _ = events.send(Msg::Fs(res));
        })?;
        let thread = std::thread::Builder::new()
            .name("lore-watcher".into())
            .spawn(move || {
                let data = std::fs::canonicalize(engine.data_dir().root())
                    .unwrap_or_else(|_| engine.data_dir().root().to_path_buf());
                Loop {
                    engine,
                    writer,
                    only,
                    data,
                    fs,
                    watched: HashMap::new(),
                    pending: HashMap::new(),
                    refused: HashSet::new(),
                    elsewhere: HashMap::new(),
                    known: None,
                }
                .run(rx)
            })
            .map_err(notify::Error::io)?;
        Ok(Watcher {
            tx,
            thread: Some(thread),
        })
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Stop);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Loop {
    engine: Engine,
    writer: WriterHandle,
    only: Vec<String>,
    data: PathBuf,
    fs: notify::RecommendedWatcher,
    watched: HashMap<String, Watched>,
    /// Store name → events not yet handed to the writer.
    pending: HashMap<String, Pending>,
    /// Stores not watched because their source may not be read here (warned once).
    refused: HashSet<String>,
    /// Folder stores another server sharing the catalog watches: store → that server.
    elsewhere: HashMap<String, String>,
    /// The stores of earlier refreshes (`None` before the first): a store that appears
    /// later was just added, by a run that read its files, and needs no catch-up.
    known: Option<HashSet<String>>,
}

struct Watched {
    store: StoreRecord,
    filter: PathFilter,
}

struct Pending {
    first: Instant,
    last: Instant,
    /// The first path that counted (for the log).
    why: PathBuf,
}

impl Watched {
    /// Whether an event of `kind` on `rel` may change what the store indexes. A changed
    /// ignore file (in a folder the walk enters) rebuilds the filter and counts.
    fn matters(&mut self, engine: &Engine, rel: &Path, kind: &EventKind) -> bool {
        if let Some(dir) = ignore_file_dir(rel) {
            if !self.filter.enters(dir) {
                return false;
            }
            match engine.path_filter(&self.store) {
                Ok(f) => self.filter = f,
                Err(e) => tracing::warn!("watcher: {}: {e}", self.store.name),
            }
            return true;
        }
        let is_dir = match kind {
            EventKind::Create(CreateKind::Folder) | EventKind::Remove(RemoveKind::Folder) => {
                Some(true)
            }
            EventKind::Remove(RemoveKind::File) => Some(false),
            _ => std::fs::symlink_metadata(self.store.root.join(rel))
                .ok()
                .map(|m| m.is_dir()),
        };
        match is_dir {
            Some(true) => self.filter.enters(rel),
            Some(false) => self.filter.keeps_file(rel),
            // Gone, and not known to be a file: it counts if it could have been either.
            None => self.filter.keeps_file(rel) || self.filter.enters(rel),
        }
    }
}

/// The folder whose ignore rules `rel` holds, when it is an ignore file.
fn ignore_file_dir(rel: &Path) -> Option<&Path> {
    let name = rel.file_name()?;
    if name == ".gitignore" || name == ".ignore" {
        return rel.parent();
    }
    let dir = rel.parent()?.parent()?.parent()?;
    rel.strip_prefix(dir)
        .is_ok_and(|p| p == Path::new(".git/info/exclude"))
        .then_some(dir)
}

impl Loop {
    fn run(mut self, rx: mpsc::Receiver<Msg>) {
        self.refresh();
        let mut refreshed = Instant::now();
        let mut cleaned = Instant::now();
        loop {
            match rx.recv_timeout(TICK) {
                Ok(Msg::Fs(Ok(event))) => self.note(&event),
                Ok(Msg::Fs(Err(e))) => tracing::warn!("watcher: {e}"),
                Ok(Msg::Stop) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    self.release_all();
                    return;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let now = Instant::now();
            let due: Vec<String> = self
                .pending
                .iter()
                .filter(|(_, p)| now - p.last >= DEBOUNCE || now - p.first >= MAX_DELAY)
                .map(|(name, _)| name.clone())
                .collect();
            for name in due {
                let (Some(p), Some(w)) = (self.pending.remove(&name), self.watched.get(&name))
                else {
                    continue;
                };
                tracing::debug!("{name} changed on disk ({}); re-indexing", p.why.display());
                let store = w.store.clone();
                if !self.reindex(&store, false) {
                    return;
                }
            }
            if refreshed.elapsed() >= REFRESH_EVERY {
                self.refresh();
                refreshed = Instant::now();
            }
            // Each re-index is a job: finished ones older than a day go, hourly (`lore watch`
            // runs no server to clean them).
            if cleaned.elapsed() >= CLEAN_JOBS_EVERY {
                if let Err(e) = self.engine.clean_jobs(JOBS_KEPT) {
                    tracing::warn!("watcher: cleaning old jobs: {e}");
                }
                cleaned = Instant::now();
            }
        }
    }

    /// Records which stores an event touches.
    fn note(&mut self, event: &notify::Event) {
        if matches!(event.kind, EventKind::Access(_) | EventKind::Other) {
            return;
        }
        for path in &event.paths {
            for (name, w) in &mut self.watched {
                let Ok(rel) = path.strip_prefix(&w.store.root) else {
                    continue;
                };
                // lore's own files, unless the store lives in the data dir (the brain).
                if path.starts_with(&self.data) && !w.store.root.starts_with(&self.data) {
                    continue;
                }
                if !w.matters(&self.engine, rel, &event.kind) {
                    continue;
                }
                let now = Instant::now();
                self.pending
                    .entry(name.clone())
                    .and_modify(|p| p.last = now)
                    .or_insert_with(|| Pending {
                        first: now,
                        last: now,
                        why: rel.to_path_buf(),
                    });
            }
        }
    }

    /// Brings `store` up to date: the brain on the quick writer (`Engine::brain_refresh`), a
    /// folder as an index job, which `lore jobs`, `GET /api/jobs` and the page list and a
    /// cancel stops. No job is queued when one that writes the store is pending (it reads
    /// this change too) or, for the catch-up when first watched, running (a store being
    /// added has nothing to catch up with, and a cancelled add stays cancelled). False
    /// when the writer has stopped.
    fn reindex(&self, store: &StoreRecord, first_watch: bool) -> bool {
        if store.kind == StoreKind::Brain {
            return self.writer.send(Cmd::SyncBrain);
        }
        match self.engine.active_job_for(&store.name) {
            Ok(Some(job)) if first_watch || job.status == JobStatus::Pending => return true,
            Ok(_) => {}
            Err(e) => tracing::warn!("watcher: the jobs of {}: {e}", store.name),
        }
        let spec = JobSpec::Index {
            stores: vec![store.name.clone()],
            full: false,
        };
        match self.engine.submit_job(&spec) {
            Ok(job) => self.writer.send(Cmd::Job(job.id)),
            // Removed meanwhile: the next refresh forgets it.
            Err(e) if e.kind() == lore_engine::ExitKind::NotFound => true,
            Err(e) => {
                tracing::warn!("watcher: re-indexing {}: {e}", store.name);
                true
            }
        }
    }

    /// Frees the watch leases of the folders this watcher watched.
    fn release_all(&self) {
        for w in self.watched.values() {
            if w.store.kind == StoreKind::Folder
                && let Err(e) = self.engine.release_watch(&w.store)
            {
                tracing::warn!("watcher: freeing the watch of {}: {e}", w.store.name);
            }
        }
    }

    /// Whether this server watches folder store `s`: it holds (or now takes) the store's
    /// watch lease. With servers sharing one catalog, one of them watches each folder.
    fn owns(&mut self, s: &StoreRecord) -> bool {
        if s.kind != StoreKind::Folder {
            return true;
        }
        match self.engine.watch_lease(s, WATCH_LEASE_SECS) {
            Ok(None) => {
                if self.elsewhere.remove(&s.name).is_some() {
                    tracing::info!(
                        "{} is no longer watched elsewhere: watching it here",
                        s.name
                    );
                }
                true
            }
            Ok(Some(holder)) => {
                if self
                    .elsewhere
                    .insert(s.name.clone(), holder.clone())
                    .as_ref()
                    != Some(&holder)
                {
                    tracing::info!("not watching {}: {holder} watches it", s.name);
                }
                false
            }
            // The database is away: keep watching what is watched, start nothing new.
            Err(e) => {
                tracing::warn!("watcher: the watch lease of {}: {e}", s.name);
                self.watched.contains_key(&s.name)
            }
        }
    }

    /// Watches new folder and brain stores and forgets removed ones.
    fn refresh(&mut self) {
        let stores = match self.engine.store_records() {
            Ok(s) => s,
            Err(e) => {
                tracing::warn!("watcher: cannot list stores: {e}");
                return;
            }
        };
        let mut wanted: HashMap<String, StoreRecord> = HashMap::new();
        let names: HashSet<String> = stores.iter().map(|s| s.name.clone()).collect();
        for s in stores {
            if !matches!(s.kind, StoreKind::Folder | StoreKind::Brain)
                || !(self.only.is_empty() || self.only.contains(&s.name))
            {
                continue;
            }
            // A folder this server cannot read (on another machine, say) is not its to
            // watch: it stays wanted only to be warned about below, leased by nobody.
            if self.engine.check_source(&s).is_err() || self.owns(&s) {
                wanted.insert(s.name.clone(), s);
            }
        }
        // A brain with files but no store yet (notes written by hand, in a folder perhaps
        // made after start) has nothing to watch: it is looked at here, every refresh.
        let brain = lore_engine::brain::BRAIN_STORE;
        if (self.only.is_empty() || self.only.iter().any(|n| n == brain))
            && !wanted.contains_key(brain)
            && self.engine.brain_has_files()
        {
            self.writer.send(Cmd::SyncBrain);
        }
        // Gone, moved, or no longer readable here (a root swapped for a symlink out).
        let refused = |s: &StoreRecord| match self.engine.check_source(s) {
            Ok(()) => false,
            Err(e) => {
                tracing::warn!("not watching {} any more: {e}", s.name);
                true
            }
        };
        let gone: Vec<String> = self
            .watched
            .iter()
            .filter(|(name, w)| {
                wanted.get(*name).is_none_or(|s| s.root != w.store.root) || refused(&w.store)
            })
            .map(|(name, _)| name.clone())
            .collect();
        for name in gone {
            if let Some(w) = self.watched.remove(&name) {
                let _ = self.fs.unwatch(&w.store.root);
                self.pending.remove(&name);
            }
        }
        for (name, store) in wanted {
            if self.watched.contains_key(&name) {
                continue;
            }
            let root = store.root.display();
            if let Err(e) = self.engine.check_source(&store) {
                if self.refused.insert(name.clone()) {
                    tracing::warn!("cannot watch {name} ({root}): {e}");
                }
                continue;
            }
            self.refused.remove(&name);
            let filter = match self.engine.path_filter(&store) {
                Ok(f) => f,
                Err(e) => {
                    tracing::warn!("cannot watch {name} ({root}): {e}");
                    continue;
                }
            };
            match self.fs.watch(&store.root, RecursiveMode::Recursive) {
                Ok(()) => tracing::info!("watching {name} ({root})"),
                Err(e) => {
                    tracing::warn!("cannot watch {name} ({root}): {e}");
                    continue;
                }
            }
            if self.known.as_ref().is_none_or(|k| k.contains(&name)) {
                self.reindex(&store, true);
            }
            self.watched.insert(name, Watched { store, filter });
        }
        match &mut self.known {
            Some(known) => known.extend(names),
            None => self.known = Some(names),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{ModifyKind, RenameMode};

    #[test]
    fn events_count_where_the_walk_looks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("proj");
        for (rel, text) in [
            (".gitignore", "target/\n"),
            ("src/a.rs", "fn a() {}"),
            ("target/x.rs", "fn x() {}"),
        ] {
            std::fs::create_dir_all(root.join(rel).parent().unwrap()).unwrap();
            std::fs::write(root.join(rel), text).unwrap();
        }
        let engine = Engine::open(lore_core::DataDir::new(dir.path().join("data"))).unwrap();
        let store = StoreRecord {
            id: 1,
            name: "proj".into(),
            kind: StoreKind::Folder,
            source: root.display().to_string(),
            root: root.clone(),
            branch: None,
            includes: Vec::new(),
            excludes: Vec::new(),
            description: None,
            max_file_bytes: 1 << 20,
            created_at: 0,
            indexed_at: None,
            generation: 0,
            web: None,
            embedder: None,
            host: None,
            feedback: true,
            feedback_seq: 0,
            no_ignore: false,
        };
        let mut w = Watched {
            filter: engine.path_filter(&store).unwrap(),
            store,
        };
        let mut counts = |rel: &str, kind: EventKind| w.matters(&engine, Path::new(rel), &kind);
        let modify = || EventKind::Modify(ModifyKind::Any);
        assert!(counts("src/a.rs", modify()));
        assert!(!counts("target/x.rs", modify()));
        assert!(!counts("target", EventKind::Create(CreateKind::Folder)));
        assert!(!counts(".git/index", modify()));
        // Gone: by its path, whether known to be a file or not.
        assert!(counts("src/gone.rs", EventKind::Remove(RemoveKind::File)));
        let renamed = || EventKind::Modify(ModifyKind::Name(RenameMode::From));
        assert!(counts("src/old", renamed()));
        assert!(!counts("target/old", renamed()));
        // Ignore files count where the walk reads them, and take effect at once.
        assert!(!counts("target/sub/.gitignore", modify()));
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        assert!(counts(".gitignore", modify()));
        assert!(counts("target/x.rs", modify()));
        assert!(!counts("src/debug.log", modify()));
    }

    #[test]
    fn ignore_files_and_their_folders() {
        assert_eq!(
            ignore_file_dir(Path::new(".gitignore")),
            Some(Path::new(""))
        );
        assert_eq!(
            ignore_file_dir(Path::new("web/.ignore")),
            Some(Path::new("web"))
        );
        assert_eq!(
            ignore_file_dir(Path::new("sub/.git/info/exclude")),
            Some(Path::new("sub"))
        );
        assert_eq!(
            ignore_file_dir(Path::new(".git/info/exclude")),
            Some(Path::new(""))
        );
        assert_eq!(ignore_file_dir(Path::new("src/lib.rs")), None);
        assert_eq!(ignore_file_dir(Path::new("info/exclude")), None);
    }
}
