//! How current a store's index is: files changed since it was indexed (a stat-only walk,
//! the indexer's own diff), how much of it is embedded, who is indexing it now, and the
//! words of every freshness warning, the same in every adapter.

use crate::indexer::diff;
use crate::{Engine, EngineError};
use lore_index::{FileRecord, Lease, StoreRecord};
use lore_source::WalkOptions;
use serde::Serialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How current a store's index is.
#[derive(Debug, Clone, Serialize)]
pub struct Freshness {
    pub store: String,
    /// Unix seconds of the last completed index run.
    pub indexed_at: Option<i64>,
    /// Files added, changed or deleted on disk since then.
    pub changed_files: usize,
    /// The share of its chunks that have a vector (below 1 while it is being embedded:
    /// hybrid search then ranks the rest by BM25 with a typical cosine); while a store is
    /// being embedded, as counted up to 10 s before.
    pub embedded: f32,
    /// Who is indexing the store right now (a writer's id), if a run is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexing: Option<String>,
    /// A dependency store whose live source now holds another version: why its changed
    /// files are not read again (`deps::moved_on`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved_on: Option<String>,
    /// The process that watches the store's folder and re-indexes it as files change (a
    /// server, `lore watch`): `changed_files` is then taken from it, not from a walk.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub watched_by: Option<String>,
    /// The store is being walked for changed files and this answer did not wait for it
    /// (a large store's first search in a process): `changed_files` is not known yet.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub walking: bool,
}

impl Freshness {
    /// The search warning for a store whose files changed since it was indexed.
    pub(crate) fn warning(&self) -> Option<String> {
        if self.changed_files > 0
            && let Some(why) = &self.moved_on
        {
            return Some(why.clone());
        }
        (self.changed_files > 0).then(|| match &self.indexing {
            Some(holder) => format!(
                "store {}: {} files changed since it was indexed; a run is indexing it now \
                 ({holder}): search again when it ends",
                self.store, self.changed_files
            ),
            None => format!(
                "store {}: {} files changed since it was indexed; run `lore index {}` (a \
                 running `lore serve` or `lore watch` re-indexes it by itself)",
                self.store, self.changed_files, self.store
            ),
        })
    }
}

impl Engine {
    /// Those of `paths` (files of `store`) that changed (size or mtime) or vanished since
    /// they were indexed, one stat each, in the order given and without repeats.
    pub(crate) fn changed_since_indexed<'a>(
        &self,
        store: &StoreRecord,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<Vec<String>, EngineError> {
        let mut wanted: Vec<&str> = Vec::new();
        for path in paths {
            if !wanted.contains(&path) {
                wanted.push(path);
            }
        }
        if wanted.is_empty() {
            return Ok(Vec::new());
        }
        let records = self.catalog.file_records(store.id, &wanted)?;
        let mut out = Vec::new();
        for path in wanted {
            let Some(rec) = records.get(path) else {
                continue;
            };
            let changed = match std::fs::metadata(store.root.join(path)) {
                Ok(m) => m.len() != rec.size || lore_source::mtime_ns(&m) != rec.mtime_ns,
                Err(_) => true,
            };
            if changed {
                out.push(path.to_string());
            }
        }
        Ok(out)
    }

    /// The freshness warning of an answer that shows lines of `paths` of `store`, when any
    /// changed since it was indexed; every adapter shows the same words.
    pub(crate) fn stale_warning<'a>(
        &self,
        store: &StoreRecord,
        paths: impl IntoIterator<Item = &'a str>,
    ) -> Result<Option<String>, EngineError> {
        let changed = self.changed_since_indexed(store, paths)?;
        if changed.is_empty() {
            return Ok(None);
        }
        if let Some(why) = crate::project::deps::moved_on(store) {
            return Ok(Some(why));
        }
        let indexing = self.indexing_now(store)?;
        Ok(Some(stale_files(
            &store.name,
            &changed,
            indexing.as_deref(),
        )))
    }

    /// Who holds `store`'s index lease now (a run is indexing it), if anyone.
    fn indexing_now(&self, store: &StoreRecord) -> Result<Option<String>, EngineError> {
        let lease = self.catalog.store_lease(store.id, Lease::Index)?;
        Ok(lease.map(|(holder, _)| holder))
    }

    /// Counts files added, changed (size or mtime) or deleted since the last index run:
    /// exact, one walk of the store's folder now.
    pub fn freshness(&self, store: &StoreRecord) -> Result<Freshness, EngineError> {
        let known = self.known(store)?;
        let changed_files = self.walk_now(store, &known);
        self.freshness_with(store, &known, changed_files)
    }

    /// `freshness` as a search response shows it: the walk's count of changed files is
    /// reused for `WALK_REUSED_FOR`; one up to `WALK_SHOWN_FOR` old is still shown while
    /// a new walk runs in the background (the next search sees it), and an older one is
    /// walked again first. So a search does not wait for a walk of thousands of files,
    /// and never shows a count older than `WALK_SHOWN_FOR`. Exact when first asked, and
    /// whenever the store was indexed since: a run changes its generation or its time.
    /// The shown results' own files are checked exactly apart from this (`stale_warning`).
    pub(crate) fn search_freshness(&self, store: &StoreRecord) -> Result<Freshness, EngineError> {
        let known = self.known(store)?;
        let walked = self.freshness_cache.walked(store.id, &known);
        let changed_files = match walked {
            Walked::Recent(n) => n,
            Walked::Old(n) => {
                self.freshness_cache
                    .refresh(store.id, known.clone(), self.walk_options(store));
                n
            }
            Walked::Never => match self.watched_by(store)? {
                // A server or `lore watch` keeps it indexed within a second of a change:
                // a process that just started (a CLI search) does not walk thousands of
                // files to learn what the watcher already did.
                Some(holder) => {
                    let mut f = self.freshness_with(store, &known, 0)?;
                    f.watched_by = Some(holder);
                    return Ok(f);
                }
                // A store of tens of thousands of files takes a second to walk: the search
                // does not wait for it (the next one of this process sees it), and the
                // results' own files are still checked one by one (`stale_warning`).
                None if known.manifest.len() > WAIT_FOR_WALK_FILES => {
                    self.freshness_cache
                        .refresh(store.id, known.clone(), self.walk_options(store));
                    let mut f = self.freshness_with(store, &known, 0)?;
                    f.walking = true;
                    return Ok(f);
                }
                None => self.walk_now(store, &known),
            },
        };
        self.freshness_with(store, &known, changed_files)
    }

    /// Who watches `store`'s folder now (a live watch lease: a server or `lore watch`,
    /// this process or another), if anyone.
    fn watched_by(&self, store: &StoreRecord) -> Result<Option<String>, EngineError> {
        if store.kind != lore_core::StoreKind::Folder {
            return Ok(None);
        }
        Ok(self
            .catalog
            .store_lease(store.id, Lease::Watch)?
            .map(|(holder, _)| holder))
    }

    /// Walks the store here and now, and keeps what the walk found for later searches.
    fn walk_now(&self, store: &StoreRecord, known: &Arc<Known>) -> usize {
        let started = Instant::now();
        let n = changed_files(known, self.walk_options(store));
        self.freshness_cache.record(store.id, known, started, n);
        n
    }

    /// The store's manifest and chunk count as of its current index run (both change only
    /// with a run), read once per run.
    fn known(&self, store: &StoreRecord) -> Result<Arc<Known>, EngineError> {
        let key = (store.generation, store.indexed_at);
        if let Some(k) = self.freshness_cache.known(store.id, key) {
            return Ok(k);
        }
        let manifest = self.catalog.manifest(store.id)?;
        // Each file records its chunks: no count over a store's millions of chunks.
        let chunks = manifest.values().map(|f| u64::from(f.chunks)).sum();
        let known = Arc::new(Known {
            key,
            root: store.root.clone(),
            manifest,
            chunks,
        });
        self.freshness_cache.keep(store.id, known.clone());
        Ok(known)
    }

    fn freshness_with(
        &self,
        store: &StoreRecord,
        known: &Known,
        changed_files: usize,
    ) -> Result<Freshness, EngineError> {
        let chunks = known.chunks;
        let left = match self.freshness_cache.unembedded(store.id, known) {
            _ if chunks == 0 => 0,
            // A store whose record names no embedder has no vectors (see `record.rs`):
            // none are counted (a CLI search of a kernel counted 2M index entries).
            _ if store.embedder.is_none() || crate::record::lexical_only(store) => chunks,
            Some(left) => left,
            None => {
                let left = self.catalog.unembedded_count(store.id)?;
                self.freshness_cache.count_unembedded(store.id, known, left);
                left
            }
        };
        Ok(Freshness {
            store: store.name.clone(),
            indexed_at: store.indexed_at,
            changed_files,
            indexing: self.indexing_now(store)?,
            moved_on: if changed_files > 0 {
                crate::project::deps::moved_on(store)
            } else {
                None
            },
            watched_by: None,
            walking: false,
            embedded: if chunks == 0 {
                1.0
            } else {
                // Two decimals, rounded down: 0.43, and 1 only when all are.
                ((chunks - left.min(chunks)) as f32 / chunks as f32 * 100.0).floor() / 100.0
            },
        })
    }
}

/// Most files a search walks before it answers; a larger store is walked beside it.
const WAIT_FOR_WALK_FILES: usize = 20_000;

/// How long a search reuses the walk's count of changed files before it asks for a new one.
const WALK_REUSED_FOR: Duration = Duration::from_secs(2);
/// The oldest walk a search still shows (while a new one runs): past it, the search walks.
const WALK_SHOWN_FOR: Duration = Duration::from_secs(30);

/// What a store's index holds as of one run: `key` is its (generation, indexed_at).
pub(crate) struct Known {
    key: (i64, Option<i64>),
    root: PathBuf,
    manifest: HashMap<String, FileRecord>,
    chunks: u64,
}

/// Files added, changed or deleted since the run `known` describes: one walk.
fn changed_files(known: &Known, options: WalkOptions) -> usize {
    match lore_source::walk(&known.root, &options) {
        Ok(w) => {
            let (todo, deleted) = diff(&w.files, &known.manifest, false);
            todo.len() + deleted.len()
        }
        // The folder is gone: everything indexed is stale.
        Err(_) => known.manifest.len(),
    }
}

enum Walked {
    Recent(usize),
    Old(usize),
    Never,
}

/// Per store, what its last run indexed and what the last walk found (shared by an
/// engine's clones, and by the background walks that refresh it).
#[derive(Default, Clone)]
pub(crate) struct FreshnessCache(Arc<Mutex<HashMap<i64, Cached>>>);

struct Cached {
    known: Arc<Known>,
    /// The last walk against `known`: when it started, and the files it found changed.
    walked: Option<(Instant, usize)>,
    /// A background walk is under way.
    refreshing: bool,
    /// The chunks without a vector, counted then (a count over a kernel's 2M chunks took
    /// half of each search).
    unembedded: Option<(Instant, u64)>,
}

/// How long a count of chunks without a vector is shown. Within a run's generation the
/// count only falls (vectors are added, chunks are not): none left stays exact, and a
/// store being embedded shows a share at most this old.
const UNEMBEDDED_REUSED_FOR: Duration = Duration::from_secs(10);

impl FreshnessCache {
    fn known(&self, store_id: i64, key: (i64, Option<i64>)) -> Option<Arc<Known>> {
        let map = self.0.lock().ok()?;
        map.get(&store_id)
            .filter(|c| c.known.key == key)
            .map(|c| c.known.clone())
    }

    /// Keeps what a new run indexed; the last walk (against the old run) no longer counts.
    fn keep(&self, store_id: i64, known: Arc<Known>) {
        if let Ok(mut map) = self.0.lock() {
            map.insert(
                store_id,
                Cached {
                    known,
                    walked: None,
                    refreshing: false,
                    unembedded: None,
                },
            );
        }
    }

    fn walked(&self, store_id: i64, known: &Arc<Known>) -> Walked {
        let Ok(map) = self.0.lock() else {
            return Walked::Never;
        };
        match map.get(&store_id) {
            Some(c) if Arc::ptr_eq(&c.known, known) => match c.walked {
                Some((at, n)) if at.elapsed() < WALK_REUSED_FOR => Walked::Recent(n),
                Some((at, n)) if at.elapsed() < WALK_SHOWN_FOR => Walked::Old(n),
                _ => Walked::Never,
            },
            _ => Walked::Never,
        }
    }

    /// The chunks without a vector as counted against this run, while still shown.
    fn unembedded(&self, store_id: i64, known: &Known) -> Option<u64> {
        let map = self.0.lock().ok()?;
        let c = map
            .get(&store_id)
            .filter(|c| std::ptr::eq(&*c.known, known))?;
        c.unembedded
            .filter(|(at, n)| *n == 0 || at.elapsed() < UNEMBEDDED_REUSED_FOR)
            .map(|(_, n)| n)
    }

    fn count_unembedded(&self, store_id: i64, known: &Known, n: u64) {
        if let Ok(mut map) = self.0.lock()
            && let Some(c) = map.get_mut(&store_id)
            && std::ptr::eq(&*c.known, known)
        {
            c.unembedded = Some((Instant::now(), n));
        }
    }

    /// What a walk that started at `started` found, if the run it compared with is still
    /// the store's last.
    fn record(&self, store_id: i64, known: &Arc<Known>, started: Instant, n: usize) {
        if let Ok(mut map) = self.0.lock()
            && let Some(c) = map.get_mut(&store_id)
            && Arc::ptr_eq(&c.known, known)
        {
            c.walked = Some((started, n));
            c.refreshing = false;
        }
    }

    /// Walks the store again on a thread of its own, unless a walk is under way.
    fn refresh(&self, store_id: i64, known: Arc<Known>, options: WalkOptions) {
        {
            let Ok(mut map) = self.0.lock() else {
                return;
            };
            match map.get_mut(&store_id) {
                Some(c) if Arc::ptr_eq(&c.known, &known) && !c.refreshing => c.refreshing = true,
                _ => return,
            }
        }
        let cache = self.clone();
        let spawned = std::thread::Builder::new()
            .name("lore-freshness".into())
            .spawn(move || {
                let started = Instant::now();
                let n = changed_files(&known, options);
                cache.record(store_id, &known, started, n);
            });
        if spawned.is_err()
            && let Ok(mut map) = self.0.lock()
            && let Some(c) = map.get_mut(&store_id)
        {
            c.refreshing = false;
        }
    }
}

/// "These files of this store changed since indexing": the words of every freshness warning.
/// While a run indexes the store (`indexing`: who runs it), waiting is the remedy, not
/// another run.
fn stale_files(store: &str, paths: &[String], indexing: Option<&str>) -> String {
    const SHOWN: usize = 5;
    let mut list = paths[..paths.len().min(SHOWN)].join(", ");
    if paths.len() > SHOWN {
        list.push_str(&format!(" and {} more", paths.len() - SHOWN));
    }
    match indexing {
        Some(holder) => format!(
            "{store}: {list} changed since indexing, so the lines shown may be out of date \
             until the run indexing the store now ({holder}) ends"
        ),
        None => format!(
            "{store}: {list} changed since indexing, so the lines shown may be out of date; \
             run `lore index {store}`"
        ),
    }
}

#[cfg(test)]
mod tests {
    use crate::{AddStore, Mode, NoProgress, SearchRequest};

    /// A store `py` of one file (`src/a.py`, defining `wombat`) in a temp dir.
    fn py_store() -> (tempfile::TempDir, crate::Engine) {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("a.py"), "def wombat():\n    pass\n").unwrap();
        let mut e = crate::test_engine(dir.path());
        let req = AddStore {
            name: "py".into(),
            source: src.display().to_string(),
            ..Default::default()
        };
        e.add_store(&req, &NoProgress).unwrap();
        (dir, e)
    }

    #[test]
    fn a_search_reuses_the_walk_for_a_while_and_is_exact_after_a_run() {
        let (dir, mut e) = py_store();
        let src = dir.path().join("src");
        let mut search = SearchRequest::new("wombat");
        search.mode = Mode::Fts;
        let changed = |e: &crate::Engine| e.search(&search).unwrap().stores[0].changed_files;
        assert_eq!(changed(&e), 0);

        // A file added after the walk: the exact count sees it at once, and a search sees
        // it once its reused walk is refreshed in the background.
        std::fs::write(src.join("b.py"), "def numbat():\n    pass\n").unwrap();
        let store = e.store_record("py").unwrap();
        assert_eq!(e.freshness(&store).unwrap().changed_files, 1);
        std::fs::write(src.join("c.py"), "def quoll():\n    pass\n").unwrap();
        let started = std::time::Instant::now();
        while changed(&e) != 2 {
            assert!(
                started.elapsed() < super::WALK_REUSED_FOR * 5,
                "the background walk never saw c.py"
            );
            std::thread::sleep(std::time::Duration::from_millis(50));
        }

        // A run changes the store's generation: the next search walks again, exactly.
        e.index(&["py".to_string()], false, &NoProgress).unwrap();
        assert_eq!(changed(&e), 0);
    }

    /// A store another process watches is taken as it says: a search in a new process does
    /// not walk the folder for it.
    #[test]
    fn a_watched_store_is_not_walked_by_a_search() {
        let (dir, e) = py_store();
        let src = dir.path().join("src");
        std::fs::write(src.join("b.py"), "def numbat():\n    pass\n").unwrap();
        let store = e.store_record("py").unwrap();
        e.catalog
            .take_store_lease(store.id, lore_index::Lease::Watch, "host:/elsewhere", 60)
            .unwrap();
        // A new process: nothing walked yet.
        let fresh = e.try_clone().unwrap();
        let mut search = SearchRequest::new("wombat");
        search.mode = Mode::Fts;
        let f = &fresh.search(&search).unwrap().stores[0];
        assert_eq!(
            (f.changed_files, f.watched_by.as_deref()),
            (0, Some("host:/elsewhere"))
        );
        // The exact count (`lore store info`) still walks.
        assert_eq!(e.freshness(&store).unwrap().changed_files, 1);
    }
}
