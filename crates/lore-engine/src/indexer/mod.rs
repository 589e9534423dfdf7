//! Incremental indexing of one store: plan (walk, diff against the manifest) → prepare
//! (read, chunk) → per batch: embed, commit (BM25 first, then the catalog) → finish
//! (resolve the graph, rewrite the vector snapshot).
//!
//! Files are committed in batches, so a crash loses at most one batch and the next run
//! picks up where this one stopped. A full run is the same run with every file re-read;
//! it leaves the live BM25 index alone and, at its end, builds a fresh one from the catalog
//! beside it and swaps it in. Before a run, the BM25 index is checked against the catalog
//! (doctor's check) and rebuilt from the catalog's chunk text when missing, damaged or
//! out of step; the vector snapshot is rewritten after a run when it disagrees.

mod commit;
mod finish;
pub(crate) mod jobs;
mod plan;
mod prepare;
pub(crate) mod verify;
mod worker;
pub(crate) mod writer;

pub(crate) use plan::diff;
pub use worker::{BATCH_LEASE_SECS, WorkerReport, Workers};

use crate::{Engine, EngineError, Phase, Progress};
use commit::Commits;
use lore_core::StoreKind;
use lore_embed::Embedder;
use lore_index::{Fts, FtsBuild, IndexError, Lease, StoreRecord};
use prepare::{Prepared, prepare_some};
use serde::Serialize;
use std::time::Instant;

/// What one index run did to one store.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexReport {
    pub store: String,
    pub files_seen: usize,
    pub added: usize,
    pub changed: usize,
    /// Same content, read again: this version of lore analyses files differently, or a
    /// full run re-reads everything.
    #[serde(skip_serializing_if = "is_zero")]
    pub reanalyzed: usize,
    pub unchanged: usize,
    pub deleted: usize,
    pub chunks_written: usize,
    /// Chunks run through the model; the others kept the vector stored for their content.
    pub embedded: usize,
    /// When the store became searchable by keyword and code graph: its chunks and BM25
    /// committed, before the chunks without a vector were embedded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub searchable_ms: Option<u64>,
    pub skipped: Vec<SkippedFile>,
    /// What the user should know, e.g. that the store holds nothing after the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub elapsed_ms: u64,
    /// Web stores added or synced: what the crawl before the index did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl: Option<lore_source::web::CrawlReport>,
    /// A run shared with `lore worker`s: the batches each holder did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workers: Vec<lore_index::HolderShare>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// How long an index run's lease on its store lasts past its last commit.
const STORE_LEASE_SECS: i64 = 300;

impl Engine {
    pub(crate) fn index_store(
        &mut self,
        store: &StoreRecord,
        full: bool,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
    ) -> Result<IndexReport, EngineError> {
        // The other writer of this process (a server's) may be writing this store.
        let _store = self.store_locks.hold(store.id);
        self.index_held_store(store, full, embedder, progress)
    }

    /// `index_store` for a caller that holds the store already (`StoreLocks::hold`). Across
    /// processes (servers sharing one catalog) the store's lease says who indexes it: a run
    /// that finds another's live lease is refused with its holder's name before it writes.
    pub(crate) fn index_held_store(
        &mut self,
        store: &StoreRecord,
        full: bool,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
    ) -> Result<IndexReport, EngineError> {
        if store.kind == StoreKind::Brain && self.catalog.shares_brain() {
            return self.index_shared_brain(full, embedder, progress);
        }
        if store.indexed_at.is_some()
            && let Some(why) = crate::project::deps::moved_on(store)
        {
            return Ok(IndexReport {
                store: store.name.clone(),
                warnings: vec![why],
                ..IndexReport::default()
            });
        }
        self.renew_store_lease(store)?;
        let out = self.index_leased_store(store, full, embedder, progress);
        if let Err(e) = self
            .catalog
            .release_store_lease(store.id, Lease::Index, &self.writer_id())
        {
            tracing::warn!("store {}: releasing its index lease: {e}", store.name);
        }
        out
    }

    /// Takes or renews this writer's lease on indexing `store` (each commit renews it, so
    /// it outlives a stopped server by at most `STORE_LEASE_SECS`).
    /// A shared brain store has no lease: the shared brain's lock, held by every run of it,
    /// serialises them (and dies with a server that stops).
    pub(crate) fn renew_store_lease(&self, store: &StoreRecord) -> Result<(), EngineError> {
        if store.kind == StoreKind::Brain && self.catalog.shares_brain() {
            return Ok(());
        }
        let me = self.writer_id();
        match self
            .catalog
            .take_store_lease(store.id, Lease::Index, &me, STORE_LEASE_SECS)?
        {
            None => Ok(()),
            Some((holder, since)) => {
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs() as i64);
                Err(IndexError::Locked(format!(
                    "store {} is being indexed by {holder} (for {} s); this run did not start: \
                     try again when that one ends (a server that stopped frees it within {} s)",
                    store.name,
                    (now - since).max(0),
                    STORE_LEASE_SECS
                ))
                .into())
            }
        }
    }

    pub(crate) fn index_leased_store(
        &mut self,
        store: &StoreRecord,
        full: bool,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
    ) -> Result<IndexReport, EngineError> {
        let started = Instant::now();
        self.check_source(store)?;
        // Files another version of the analyzer read are all read again: that is a full
        // run, whose BM25 is built fresh (replaced in place, the old documents would count
        // in its statistics until their segments merge). A store with no version recorded
        // is re-read too, without being a full run (a new store searchable as it fills).
        let version = self.catalog.analyzer_version(store.id)?;
        let full = full || version.is_some_and(|v| v != lore_chunk::ANALYZER_VERSION);
        let reanalyze = full || version.is_none();
        // A store kept without vectors (`--embed none`) gets none.
        let embedder = embedder.filter(|_| !crate::record::lexical_only(store));
        if let Some(e) = embedder {
            // Before any vector of another model is reused or added.
            self.check_embedder(store, e, false)?;
        }
        let mut report = IndexReport {
            store: store.name.clone(),
            ..Default::default()
        };
        let fts_dir = self.data.store_dir(store.id).join("fts");
        // The catalog may keep BM25 itself (PostgreSQL), written with each file.
        let files_bm25 = !self.catalog.holds_indexes();
        // Leftovers of a rebuild that did not finish go first.
        if files_bm25 {
            lore_index::clean_fts(&fts_dir)?;
        }
        let mut generation = self
            .catalog
            .store_by_id(store.id)?
            .map_or(store.generation, |s| s.generation);
        let writer = if full || !files_bm25 {
            None
        } else {
            let check = verify::check_bm25(&self.catalog, store.id, generation, &fts_dir, true)?;
            if let Some(problem) = check.problem {
                drop(check.fts);
                progress.message(&format!(
                    "{}: {problem}; rebuilding it from the catalog",
                    store.name
                ));
                generation = self.rebuild_fts(store.id, &fts_dir)?;
                report
                    .warnings
                    .push(format!("{problem}: rebuilt BM25 from the catalog"));
            }
            Some(Fts::open_or_create(&fts_dir)?.writer()?)
        };
        let plan = self.plan(store, reanalyze, &mut report)?;
        // A site's pages were crawled into this data dir, and the brain is its own dir:
        // folders and repositories go to workers.
        let to_workers = self.config.workers != Workers::None
            && self.catalog.holds_indexes()
            && matches!(store.kind, StoreKind::Folder | StoreKind::Repo);
        let committed = if to_workers {
            self.index_by_batches(
                store,
                &plan,
                full,
                generation,
                embedder,
                progress,
                &mut report,
            )?
        } else {
            self.index_here(
                store,
                &plan,
                full,
                writer,
                generation,
                embedder,
                progress,
                &mut report,
            )?
            .ok_or(EngineError::Cancelled)?
        };
        if full && files_bm25 {
            self.rebuild_fts(store.id, &fts_dir)?;
        }

        let structure_changed = full
            || plan.rebuild
            || !plan.deleted.is_empty()
            || report.added > 0
            || committed.resolve_all;
        crate::graph::resolve_graph(
            &mut self.catalog,
            store.id,
            store.generation,
            &committed.changed_paths,
            committed.dirty_names,
            structure_changed,
        )?;
        let tx = self.catalog.begin()?;
        tx.set_indexed_now(store.id)?;
        tx.set_analyzer_version(store.id, lore_chunk::ANALYZER_VERSION)?;
        tx.commit()?;
        self.refresh_vectors(store.id)?;
        self.forget_readers(store.id);
        // Searchable now by BM25 and the code graph (and by the vectors it already had);
        // the rest is embedded in committed steps, which a later run resumes.
        report.searchable_ms = Some(started.elapsed().as_millis() as u64);
        if let Some(embedder) = embedder {
            let (_, left) = self.catalog.embedding_progress(store.id)?;
            if left > 0 {
                progress.message(&format!(
                    "{}: searchable by keyword and code graph now; embedding {left} chunks",
                    store.name
                ));
            }
            report.embedded += self.embed_missing(store, embedder, progress)?;
        }
        if store.kind != StoreKind::Brain && !self.catalog.has_chunks(store.id)? {
            report
                .warnings
                .push(finish::nothing_indexed(store, &report));
        }
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
    }
}

impl Engine {
    /// A run's files read, chunked and committed by this process, batch by batch.
    /// Returns the changed paths, the names the graph must resolve again, and whether a
    /// file indexed before is no longer indexable; `None` when cancelled (what was
    /// committed before stays).
    #[allow(clippy::too_many_arguments)]
    fn index_here(
        &mut self,
        store: &StoreRecord,
        plan: &plan::Plan,
        full: bool,
        writer: Option<lore_index::FtsWriter>,
        generation: i64,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
        report: &mut IndexReport,
    ) -> Result<Option<worker::Committed>, EngineError> {
        // Read before the first commit removes the deleted files.
        let released = match embedder {
            Some(_) if !plan.deleted.is_empty() => {
                self.released_vectors(store.id, &plan.deleted)?
            }
            _ => std::collections::HashMap::new(),
        };

        let mut run = Commits::new(writer, generation, full, plan);
        let batch = self.config.commit_every_files.max(1);
        let mut unindexed = false;
        progress.start(Phase::Files, plan.todo.len() as u64);
        // Files are read a window at a time, the next while this one is committed: two
        // windows at most are held, however large the store.
        let windows = prepare::windows(plan, batch * 8);
        let opts = self.config.chunk.clone();
        let max_bytes = store.max_file_bytes;
        let finished = std::thread::scope(|scope| -> Result<bool, EngineError> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Prepared>>(0);
            scope.spawn(move || {
                for todo in windows {
                    if progress.cancelled()
                        || tx
                            .send(prepare_some(plan, todo, max_bytes, &opts, progress))
                            .is_err()
                    {
                        break;
                    }
                }
            });
            // Always run at least one commit, so deletions and full clears land.
            let mut first = true;
            loop {
                let prepared = match rx.recv() {
                    Ok(p) => p,
                    Err(_) if progress.cancelled() => return Ok(false),
                    Err(_) if first => Vec::new(),
                    Err(_) => return Ok(true),
                };
                first = false;
                unindexed |= prepared.iter().any(|p| {
                    matches!(
                        p,
                        Prepared::Skipped {
                            was_indexed: true,
                            ..
                        }
                    )
                });
                let empty: &[Prepared] = &[];
                let groups: Box<dyn Iterator<Item = &[Prepared]>> = if prepared.is_empty() {
                    Box::new(std::iter::once(empty))
                } else {
                    Box::new(prepared.chunks(batch))
                };
                for group in groups {
                    let mut vectors: Vec<Vec<Option<Vec<f32>>>> = Vec::with_capacity(group.len());
                    for p in group {
                        // Nothing of this batch is written yet: stopping here keeps every
                        // commit.
                        if progress.cancelled() {
                            return Ok(false);
                        }
                        vectors.push(match p {
                            Prepared::Changed { file, chunks, .. } if embedder.is_some() => {
                                self.known_vectors(store.id, &file.path, chunks, &released)?
                            }
                            _ => Vec::new(),
                        });
                    }
                    self.commit_batch(store, plan, &mut run, group, &vectors, report)?;
                    self.renew_store_lease(store)?;
                }
            }
        })?;
        progress.finish(Phase::Files);
        if !finished {
            return self.cancelled_run(store, run);
        }
        if let Some(writer) = run.writer.take() {
            writer.finish()?;
        }
        Ok(Some(worker::Committed {
            changed_paths: run.changed_paths,
            dirty_names: run.dirty_names,
            resolve_all: unindexed || run.all_dirty,
        }))
    }

    /// A run stopped between commits: what was committed stays, searchable.
    fn cancelled_run(
        &mut self,
        store: &StoreRecord,
        run: Commits,
    ) -> Result<Option<worker::Committed>, EngineError> {
        drop(run);
        self.refresh_vectors(store.id)?;
        self.forget_readers(store.id);
        Ok(None)
    }
}

impl Engine {
    /// Builds a store's BM25 index afresh from the catalog's chunks (no file is read, nothing
    /// embedded) beside the live one and swaps it in; bumps the generation so readers reopen.
    /// Returns the new generation.
    pub(crate) fn rebuild_fts(
        &mut self,
        store_id: i64,
        dir: &std::path::Path,
    ) -> Result<i64, EngineError> {
        let generation = self
            .catalog
            .store_by_id(store_id)?
            .ok_or_else(|| EngineError::NotFound(format!("store #{store_id}")))?
            .generation;
        let mut build = FtsBuild::start(dir)?;
        self.catalog
            .for_each_chunk(store_id, |c| build.writer().add_stored(&c))?;
        build.swap_in(Some(generation + 1))?;
        let tx = self.catalog.begin()?;
        let generation = tx.bump_generation(store_id)?;
        tx.commit()?;
        self.forget_readers(store_id);
        Ok(generation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{AddStore, NoProgress};

    use crate::test_engine as engine;

    fn add(e: &mut Engine, name: &str, src: &std::path::Path) -> IndexReport {
        let req = AddStore {
            name: name.into(),
            source: src.display().to_string(),
            ..Default::default()
        };
        e.add_store(&req, &NoProgress).unwrap().1
    }

    #[test]
    fn an_upgraded_analyzer_reports_re_analysed_files_not_changed_ones() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        for i in 0..3 {
            std::fs::write(
                src.join(format!("m{i}.py")),
                format!("def f{i}():\n    pass\n"),
            )
            .unwrap();
        }
        let mut e = engine(dir.path());
        let store = add(&mut e, "py", &src).store;
        let id = e.store_record(&store).unwrap().id;
        let tx = e.catalog.begin().unwrap();
        tx.set_analyzer_version(id, lore_chunk::ANALYZER_VERSION - 1)
            .unwrap();
        tx.commit().unwrap();
        std::fs::write(src.join("m0.py"), "def g():\n    pass\n").unwrap();

        let r = &e
            .index(std::slice::from_ref(&store), false, &NoProgress)
            .unwrap()[0];
        assert_eq!((r.changed, r.reanalyzed, r.unchanged), (1, 2, 0), "{r:?}");
        let r = &e.index(&[store], false, &NoProgress).unwrap()[0];
        assert_eq!((r.changed, r.reanalyzed, r.unchanged), (0, 0, 3), "{r:?}");
    }

    #[test]
    fn an_edited_file_keeps_the_ids_of_its_symbols_and_the_edges_to_them() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        let a = "def helper():\n    return 1\n\ndef other():\n    return 2\n";
        std::fs::write(src.join("a.py"), a).unwrap();
        std::fs::write(
            src.join("b.py"),
            "from a import helper\n\ndef use():\n    return helper()\n",
        )
        .unwrap();
        let mut e = engine(dir.path());
        let store = add(&mut e, "py", &src).store;
        let sid = e.store_record(&store).unwrap().id;
        let callers = |e: &Engine| {
            let q = crate::GraphQuery {
                symbol: "helper".into(),
                direction: crate::Direction::Callers,
                stores: vec![],
            };
            let answer = e.graph(&q).unwrap();
            let def = &answer.definitions[0];
            let id = e.catalog.symbols_named(&[sid], "helper").unwrap()[0].id;
            let from: Vec<String> = answer.links.iter().map(|l| l.path.clone()).collect();
            (id, def.start_line, from)
        };
        let (id, line, from) = callers(&e);
        assert_eq!((line, from.as_slice()), (1, &["b.py".to_string()][..]));

        // Lines move and a neighbour is renamed: `helper` keeps its id, its caller its edge.
        std::fs::write(
            src.join("a.py"),
            format!("# moved\n\n{}", a.replace("other", "another")),
        )
        .unwrap();
        e.index(std::slice::from_ref(&store), false, &NoProgress)
            .unwrap();
        assert_eq!(callers(&e), (id, 3, vec!["b.py".to_string()]));

        // Gone, then back: the caller elsewhere is resolved again each time.
        std::fs::write(src.join("a.py"), "def another():\n    return 2\n").unwrap();
        e.index(std::slice::from_ref(&store), false, &NoProgress)
            .unwrap();
        assert!(
            e.catalog
                .symbols_named(&[sid], "helper")
                .unwrap()
                .is_empty()
        );
        std::fs::write(src.join("a.py"), a).unwrap();
        e.index(std::slice::from_ref(&store), false, &NoProgress)
            .unwrap();
        let (new_id, line, from) = callers(&e);
        assert_ne!(new_id, id);
        assert_eq!((line, from), (1, vec!["b.py".to_string()]));
    }

    #[test]
    fn a_store_left_empty_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let empty = dir.path().join("empty");
        let binary = dir.path().join("binary");
        std::fs::create_dir_all(&empty).unwrap();
        std::fs::create_dir_all(&binary).unwrap();
        std::fs::write(binary.join("a.bin"), [0u8, 1, 2, 0]).unwrap();
        std::fs::write(binary.join("b.txt"), "x".repeat(64)).unwrap();
        let mut e = engine(dir.path());
        let r = add(&mut e, "empty", &empty);
        assert!(r.warnings[0].contains("no files found"), "{r:?}");
        let req = AddStore {
            name: "binary".into(),
            source: binary.display().to_string(),
            max_file_bytes: Some(16),
            ..Default::default()
        };
        let r = e.add_store(&req, &NoProgress).unwrap().1;
        assert!(
            r.warnings[0].contains("1 binary, 1 too large")
                || r.warnings[0].contains("1 too large, 1 binary"),
            "{r:?}"
        );
        assert!(r.warnings[0].contains("max_file_size"), "{r:?}");
    }

    /// A folder of small Python files, each with a word of its own and common ones.
    fn corpus(dir: &std::path::Path, n: usize) -> std::path::PathBuf {
        let src = dir.join("src");
        std::fs::create_dir_all(&src).unwrap();
        for i in 0..n {
            std::fs::write(
                src.join(format!("m{i:02}.py")),
                format!(
                    "def settle_{i}(balance):\n    \"\"\"Settle ledger entry {i} for the account.\"\"\"\n    return balance - {i}\n"
                ),
            )
            .unwrap();
        }
        src
    }

    fn fts_of(e: &Engine, store: &str) -> Fts {
        let id = e.store_record(store).unwrap().id;
        Fts::open(&e.data.store_dir(id).join("fts")).unwrap()
    }

    fn scores(fts: &Fts, query: &str) -> Vec<String> {
        let hits = fts
            .search(query, 50, &lore_index::FieldBoosts::default())
            .unwrap();
        let mut s: Vec<String> = hits.hits.iter().map(|(_, s)| format!("{s:.5}")).collect();
        s.push(format!("max {:.5}", hits.max_score));
        s
    }

    #[test]
    fn a_full_rebuild_scores_bm25_as_a_fresh_index_does() {
        let dir = tempfile::tempdir().unwrap();
        let src = corpus(dir.path(), 40);
        let mut e = engine(dir.path());
        // Small batches: many segments, merged while the full runs replace their documents.
        e.config_mut().commit_every_files = 3;
        add(&mut e, "old", &src);
        for _ in 0..2 {
            e.index(&["old".into()], true, &NoProgress).unwrap();
        }
        add(&mut e, "fresh", &src);
        // Replaced documents must not count in the statistics (they did when --full
        // re-indexed in place: every term's document frequency doubled).
        for q in ["settle ledger", "balance account 7"] {
            assert_eq!(
                scores(&fts_of(&e, "old"), q),
                scores(&fts_of(&e, "fresh"), q),
                "{q}"
            );
        }
        let id = e.store_record("old").unwrap().id;
        // So is a run after an analyzer upgrade, which reads every file again: a new index
        // takes the place of the live one (in place, the chunks the new analyzer cut
        // differently would leave their old documents in the statistics).
        let fts_dir = e.data.store_dir(id).join("fts");
        let live = || std::fs::read_to_string(fts_dir.join("CURRENT")).unwrap();
        let before = live();
        let tx = e.catalog.begin().unwrap();
        tx.set_analyzer_version(id, lore_chunk::ANALYZER_VERSION - 1)
            .unwrap();
        tx.commit().unwrap();
        let r = &e.index(&["old".into()], false, &NoProgress).unwrap()[0];
        assert_eq!(r.reanalyzed, 40, "{r:?}");
        assert_ne!(live(), before, "BM25 was not built anew");
        for q in ["settle ledger", "balance account 7"] {
            assert_eq!(
                scores(&fts_of(&e, "old"), q),
                scores(&fts_of(&e, "fresh"), q),
                "after an upgrade: {q}"
            );
        }
        let health = e.doctor(Some("old")).unwrap();
        assert!(health.healthy, "{health:#?}");
        let mut left: Vec<String> = std::fs::read_dir(&fts_dir)
            .unwrap()
            .map(|d| d.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left.len(), 2, "one live index and its pointer: {left:?}");
    }

    #[test]
    fn a_deleted_or_damaged_bm25_index_is_rebuilt_from_the_catalog_by_a_plain_index() {
        let dir = tempfile::tempdir().unwrap();
        let src = corpus(dir.path(), 5);
        let mut e = engine(dir.path());
        add(&mut e, "s", &src);
        let id = e.store_record("s").unwrap().id;
        let fts_dir = e.data.store_dir(id).join("fts");
        let chunks = e.catalog.chunk_count(id).unwrap();
        assert_eq!(fts_of(&e, "s").num_docs(), chunks);

        // Deleted by hand: doctor names it and the repair; a plain index rebuilds it.
        std::fs::remove_dir_all(&fts_dir).unwrap();
        let d = crate::doctor(e.data_dir(), None, false).unwrap();
        assert!(!d.healthy);
        let p = &d.stores[0].problems[0];
        assert_eq!(
            (p.part, p.repair.as_str()),
            (crate::Part::Bm25, "lore index s")
        );
        assert!(p.problem.contains("missing"), "{p:?}");
        let r = &e.index(&["s".into()], false, &NoProgress).unwrap()[0];
        // (A plain index used to leave BM25 empty here: no file had changed.)
        assert_eq!(fts_of(&e, "s").num_docs(), chunks, "{r:?}");
        assert_eq!((r.changed, r.reanalyzed, r.added), (0, 0, 0), "{r:?}");
        assert!(
            r.warnings
                .iter()
                .any(|w| w.ends_with("rebuilt BM25 from the catalog")),
            "{r:?}"
        );
        assert!(crate::doctor(e.data_dir(), None, false).unwrap().healthy);

        // Damaged: the live index's meta.json overwritten.
        let pointer = std::fs::read_to_string(fts_dir.join("CURRENT")).unwrap();
        std::fs::write(fts_dir.join(pointer.trim()).join("meta.json"), "{").unwrap();
        assert!(!crate::doctor(e.data_dir(), None, false).unwrap().healthy);
        e.index(&["s".into()], false, &NoProgress).unwrap();
        let hits = fts_of(&e, "s")
            .search("settle_3", 5, &lore_index::FieldBoosts::default())
            .unwrap();
        assert!(!hits.hits.is_empty());
        assert!(crate::doctor(e.data_dir(), None, false).unwrap().healthy);

        // Out of step: a document the catalog does not have, and a stale snapshot.
        let mut w = fts_of(&e, "s").writer().unwrap();
        w.add_chunk(
            42,
            "ghost.py",
            &lore_core::Chunk {
                kind: lore_core::ChunkKind::Text,
                language: lore_core::Language::Text,
                symbol: None,
                parent: None,
                signature: None,
                doc: None,
                headings: vec![],
                start_line: 1,
                end_line: 1,
                start_byte: 0,
                end_byte: 5,
                content: "ghost".into(),
                context: None,
            },
        )
        .unwrap();
        w.commit(None).unwrap();
        w.finish().unwrap();
        lore_index::VectorSet::write(
            &e.data.store_dir(id).join("vectors.bin"),
            lore_embed::DIM,
            999,
            &[],
        )
        .unwrap();
        let d = e.doctor(Some("s")).unwrap();
        let problems: Vec<_> = d.stores[0]
            .problems
            .iter()
            .map(|p| p.problem.clone())
            .collect();
        assert!(
            problems[0].ends_with(&format!(
                "BM25 holds {} chunks, the catalog {chunks}: 1 not in the catalog",
                chunks + 1
            )),
            "{problems:?}"
        );
        assert!(problems[1].contains("generation 999"), "{problems:?}");
        e.index(&["s".into()], false, &NoProgress).unwrap();
        let d = e.doctor(Some("s")).unwrap();
        assert!(d.healthy, "{d:#?}");
    }

    #[test]
    fn a_rebuild_killed_before_its_swap_leaves_the_old_index_and_is_cleaned_up() {
        let dir = tempfile::tempdir().unwrap();
        let src = corpus(dir.path(), 3);
        let mut e = engine(dir.path());
        add(&mut e, "s", &src);
        let id = e.store_record("s").unwrap().id;
        let fts_dir = e.data.store_dir(id).join("fts");
        let before = fts_of(&e, "s").ids().unwrap();
        // What a kill during `--full` leaves: a half-built index beside the live one.
        let mut build = FtsBuild::start(&fts_dir).unwrap();
        build.writer().commit(None).unwrap();
        drop(build);
        assert_eq!(std::fs::read_dir(&fts_dir).unwrap().count(), 3);
        assert_eq!(fts_of(&e, "s").ids().unwrap(), before);
        assert!(e.doctor(None).unwrap().healthy);
        e.index(&["s".into()], false, &NoProgress).unwrap();
        assert_eq!(std::fs::read_dir(&fts_dir).unwrap().count(), 2);
        assert_eq!(fts_of(&e, "s").ids().unwrap(), before);
    }

    #[test]
    fn a_store_on_another_machine_names_it_and_indexes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("a.md"), "# A\n\nalpha\n").unwrap();
        let mut e = engine(dir.path());
        add(&mut e, "proj", &src);
        let store = e.require_store("proj").unwrap();
        assert_eq!(store.host.as_deref(), Some(crate::record::host_name()));
        // As another server sharing the catalog sees a folder of this machine's.
        e.catalog
            .sql()
            .execute(
                "UPDATE stores SET host = 'far-away', root = '/nonexistent/src' WHERE id = ?1",
                &[lore_index::Arg::Int(store.id)],
            )
            .unwrap();
        let err = e.index(&["proj".into()], false, &NoProgress).unwrap_err();
        let msg = err.to_string();
        assert!(
            msg.contains("are on far-away") && msg.contains("index it there"),
            "{msg}"
        );
        assert_eq!(e.catalog.stats(store.id).unwrap().files, 1);
    }
}
