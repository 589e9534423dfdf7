//! Incremental indexing of one store: plan (walk, diff against the manifest) → prepare
//! (read, chunk) → per batch: embed, commit (BM25 first, then the catalog) → finish
//! (resolve the graph, rewrite the vector snapshot).
//!
//! Files are committed in batches, so a crash loses at most one batch and the next run
//! picks up where this one stopped. A full run is the same run with every file re-read:
//! each file's old chunks stay searchable until its new ones are committed in their place.

mod commit;
mod finish;
mod plan;
mod prepare;

pub(crate) use plan::{diff, walk_options};

use crate::{Engine, EngineError, Phase, Progress};
use commit::Commits;
use lore_core::StoreKind;
use lore_embed::Embedder;
use lore_index::{Fts, StoreRecord};
use prepare::{Prepared, prepare_all};
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
    pub skipped: Vec<SkippedFile>,
    /// What the user should know, e.g. that the store holds nothing after the run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub elapsed_ms: u64,
    /// Web stores added or synced: what the crawl before the index did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crawl: Option<lore_source::web::CrawlReport>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Engine {
    pub(crate) fn index_store(
        &mut self,
        store: &StoreRecord,
        full: bool,
        embedder: Option<&Embedder>,
        progress: &dyn Progress,
    ) -> Result<IndexReport, EngineError> {
        let started = Instant::now();
        let mut report = IndexReport {
            store: store.name.clone(),
            ..Default::default()
        };
        let dir = self.data.store_dir(store.id);
        let fts_dir = dir.join("fts");
        let fts = match Fts::open(&fts_dir) {
            Ok(f) => f,
            Err(_) if full => {
                // A full rebuild also repairs an index that no longer opens.
                let _ = std::fs::remove_dir_all(&fts_dir);
                Fts::open(&fts_dir)?
            }
            Err(e) => return Err(e.into()),
        };
        let plan = self.plan(store, full, &mut report)?;
        let prepared = prepare_all(&plan, store.max_file_bytes, &self.config.chunk, progress);

        let total_chunks: usize = prepared.iter().map(Prepared::chunk_count).sum();
        progress.start(Phase::Embeddings, total_chunks as u64);
        let mut run = Commits::new(fts.writer()?, full, &plan);
        let batch = self.config.commit_every_files.max(1);
        // Always run at least one commit, so deletions and full clears land.
        let empty: &[Prepared] = &[];
        let groups: Box<dyn Iterator<Item = &[Prepared]>> = if prepared.is_empty() {
            Box::new(std::iter::once(empty))
        } else {
            Box::new(prepared.chunks(batch))
        };
        for group in groups {
            let mut vectors: Vec<Vec<Vec<f32>>> = Vec::with_capacity(group.len());
            for p in group {
                // Nothing of this batch is written yet: stopping here keeps every commit.
                if progress.cancelled() {
                    drop(run);
                    self.refresh_vectors(store.id)?;
                    self.forget_readers(store.id);
                    return Err(EngineError::Cancelled);
                }
                vectors.push(match p {
                    Prepared::Changed { file, chunks, .. } if let Some(embedder) = embedder => {
                        let (v, fresh) =
                            self.embed_chunks(store.id, &file.path, chunks, embedder, progress)?;
                        report.embedded += fresh;
                        v
                    }
                    _ => Vec::new(),
                });
            }
            self.commit_batch(store, &plan, &mut run, group, &vectors, &mut report)?;
        }
        run.writer.finish()?;
        progress.finish(Phase::Embeddings);

        let structure_changed = full
            || plan.rebuild
            || !plan.deleted.is_empty()
            || report.added > 0
            || prepared.iter().any(|p| {
                matches!(
                    p,
                    Prepared::Skipped {
                        was_indexed: true,
                        ..
                    }
                )
            });
        crate::graph::resolve_graph(
            &mut self.catalog,
            store.id,
            store.generation,
            &run.changed_paths,
            run.dirty_names,
            structure_changed,
        )?;
        let tx = self.catalog.begin()?;
        tx.set_indexed_now(store.id)?;
        tx.set_analyzer_version(store.id, lore_chunk::ANALYZER_VERSION)?;
        tx.commit()?;
        self.refresh_vectors(store.id)?;
        self.forget_readers(store.id);
        if store.kind != StoreKind::Brain && !self.catalog.has_chunks(store.id)? {
            report
                .warnings
                .push(finish::nothing_indexed(store, &report));
        }
        report.elapsed_ms = started.elapsed().as_millis() as u64;
        Ok(report)
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
}
