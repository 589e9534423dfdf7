//! Committing one batch of prepared files: BM25 first (marked with the generation the
//! catalog will be at), then the catalog in one transaction (chunks, embeddings and code
//! facts per file; the generation bumped). A full run writes no BM25 here: it builds a
//! fresh index from the catalog at its end (`rebuild_fts`).

use super::plan::{Plan, chunk_id};
use super::prepare::{Prepared, Why};
use super::{IndexReport, SkippedFile};
use crate::{Engine, EngineError};
use lore_index::{ChunkRow, FileRecord, FtsWriter, StoreRecord};

/// What the batches of one run carry from one commit to the next.
pub(super) struct Commits {
    /// The live BM25 index's writer; `None` in a full run.
    pub writer: Option<FtsWriter>,
    /// The store's catalog generation now.
    pub generation: i64,
    /// No batch committed yet: the first one also clears and deletes.
    first: bool,
    /// Something changed that searches see: every commit after it bumps the generation.
    changed_any: bool,
    /// What the code graph must resolve again once the files are in.
    pub dirty_names: Vec<String>,
    /// More names changed than are worth listing: the whole graph is resolved again.
    pub all_dirty: bool,
    pub changed_paths: Vec<String>,
}

/// Most names a run lists for the graph to resolve again; past it, it resolves them all
/// (a first run of a large store would hold every name it defines).
pub(super) const MAX_DIRTY_NAMES: usize = 100_000;

/// Adds `more` to the names to resolve again, or forgets them all once there are too many.
pub(super) fn note_dirty(
    names: &mut Vec<String>,
    all: &mut bool,
    more: impl IntoIterator<Item = String>,
) {
    if *all {
        return;
    }
    names.extend(more);
    if names.len() > MAX_DIRTY_NAMES {
        *names = Vec::new();
        *all = true;
    }
}

impl Commits {
    pub fn new(writer: Option<FtsWriter>, generation: i64, full: bool, plan: &Plan) -> Commits {
        Commits {
            writer,
            generation,
            first: true,
            changed_any: full || !plan.deleted.is_empty(),
            dirty_names: Vec::new(),
            all_dirty: false,
            changed_paths: Vec::new(),
        }
    }
}

impl Engine {
    /// Commits one batch: `vectors[i]` are the embeddings of `group[i]`'s chunks (empty
    /// when the store is not embedded).
    pub(super) fn commit_batch(
        &mut self,
        store: &StoreRecord,
        plan: &Plan,
        run: &mut Commits,
        group: &[Prepared],
        vectors: &[Vec<Option<Vec<f32>>>],
        report: &mut IndexReport,
    ) -> Result<(), EngineError> {
        // Whether the catalog transaction below bumps the generation.
        let bumps = run.changed_any
            || group.iter().any(|p| {
                matches!(
                    p,
                    Prepared::Changed { .. }
                        | Prepared::Skipped {
                            was_indexed: true,
                            ..
                        }
                )
            });
        // BM25 first …
        if let Some(writer) = run.writer.as_mut() {
            if run.first {
                if plan.rebuild {
                    writer.delete_all();
                }
                for path in &plan.deleted {
                    writer.delete_file(path);
                }
            }
            for p in group {
                match p {
                    Prepared::Changed { file, chunks, .. } => {
                        writer.delete_file(&file.path);
                        for c in chunks {
                            writer.add_chunk(chunk_id(store.id, &file.path, c), &file.path, c)?;
                        }
                    }
                    Prepared::Skipped {
                        path,
                        was_indexed: true,
                        ..
                    } => writer.delete_file(path),
                    _ => {}
                }
            }
            writer.commit(Some(run.generation + i64::from(bumps)))?;
        }
        // … then the catalog, in one transaction.
        let tx = self.catalog.begin()?;
        if run.first {
            for path in &plan.deleted {
                let gone = tx.remove_facts(store.id, path)?;
                note_dirty(&mut run.dirty_names, &mut run.all_dirty, gone);
                tx.remove_file(store.id, path)?;
            }
            report.deleted = plan.deleted.len();
        }
        for (p, vectors) in group.iter().zip(vectors) {
            match p {
                Prepared::Changed {
                    file,
                    chunks,
                    facts,
                    why,
                } => {
                    let rows: Vec<ChunkRow> = chunks
                        .iter()
                        .zip(
                            vectors
                                .iter()
                                .map(Option::as_deref)
                                .chain(std::iter::repeat(None)),
                        )
                        .map(|(c, v)| ChunkRow {
                            id: chunk_id(store.id, &file.path, c),
                            chunk: c,
                            embedding: v,
                        })
                        .collect();
                    tx.replace_file(store.id, file, &rows)?;
                    // The file's own references are resolved again (`changed_paths`);
                    // elsewhere, those naming what it added, removed or changed.
                    let dirty = tx.replace_facts(store.id, &file.path, facts)?;
                    note_dirty(&mut run.dirty_names, &mut run.all_dirty, dirty);
                    run.changed_paths.push(file.path.clone());
                    report.chunks_written += rows.len();
                    match why {
                        Why::New => report.added += 1,
                        Why::Edited => report.changed += 1,
                        Why::Reanalyzed => report.reanalyzed += 1,
                    }
                    run.changed_any = true;
                }
                Prepared::Touched(file) => {
                    tx.touch_file(store.id, file)?;
                    report.unchanged += 1;
                }
                Prepared::Skipped {
                    path,
                    size,
                    mtime_ns,
                    reason,
                    was_indexed,
                } => {
                    // Recorded without chunks, so it is not re-read (nor reported as
                    // stale) until it changes again.
                    let file = FileRecord {
                        path: path.clone(),
                        size: *size,
                        mtime_ns: *mtime_ns,
                        hash: String::new(),
                        chunks: 0,
                        skipped: Some(reason.to_string()),
                        parse_error: None,
                    };
                    let gone = tx.remove_facts(store.id, path)?;
                    note_dirty(&mut run.dirty_names, &mut run.all_dirty, gone);
                    tx.replace_file(store.id, &file, &[])?;
                    run.changed_any |= *was_indexed;
                    report.skipped.push(SkippedFile {
                        path: path.clone(),
                        reason: reason.to_string(),
                    });
                }
            }
        }
        if run.changed_any {
            run.generation = tx.bump_generation(store.id)?;
        }
        tx.commit()?;
        run.first = false;
        Ok(())
    }
}
