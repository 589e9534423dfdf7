//! Reading and chunking the files of a plan, the vectors their chunks already have, and
//! embedding the rest after the commit (progressive indexing).

use super::plan::{Plan, chunk_id};
use crate::{Engine, EngineError, Phase, Progress};
use lore_core::{Chunk, FileFacts};
use lore_embed::Embedder;
use lore_index::{FileRecord, StoreRecord};
use lore_source::{SkipReason, SourceFile};
use rayon::prelude::*;
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// Why a file is chunked again.
#[derive(Clone, Copy)]
pub(super) enum Why {
    New,
    Edited,
    Reanalyzed,
}

/// A file read and chunked, waiting for embeddings.
pub(super) enum Prepared {
    Changed {
        file: FileRecord,
        chunks: Vec<Chunk>,
        facts: FileFacts,
        why: Why,
    },
    /// Same content, new size/mtime.
    Touched(FileRecord),
    /// No longer indexable (binary, too large, unreadable).
    Skipped {
        path: String,
        size: u64,
        mtime_ns: i64,
        reason: SkipReason,
        was_indexed: bool,
    },
}

/// Chunks embedded (and committed) at a time.
pub(super) const EMBED_STEP: usize = 64;
/// Least time between rewrites of the vector snapshot while a store is being embedded.
const SNAPSHOT_EVERY: Duration = Duration::from_secs(20);

/// Reads, hashes and chunks every file of the plan, in parallel (cheap next to embedding).
pub(super) fn prepare_all(
    plan: &Plan,
    max_bytes: u64,
    opts: &lore_chunk::ChunkOptions,
    progress: &dyn Progress,
) -> Vec<Prepared> {
    progress.start(Phase::Files, plan.todo.len() as u64);
    let prepared = prepare_some(plan, &plan.todo, max_bytes, opts, progress);
    progress.finish(Phase::Files);
    prepared
}

/// Reads, hashes and chunks the files `todo` names (indexes into the plan's walk), in
/// parallel, advancing `Phase::Files` by each.
pub(super) fn prepare_some(
    plan: &Plan,
    todo: &[usize],
    max_bytes: u64,
    opts: &lore_chunk::ChunkOptions,
    progress: &dyn Progress,
) -> Vec<Prepared> {
    let tree = plan.walk.tree.as_deref();
    todo.par_iter()
        .map(|&i| {
            let f = &plan.walk.files[i];
            let p = prepare(
                tree,
                f,
                plan.manifest.get(&f.rel),
                max_bytes,
                opts,
                plan.reanalyze,
            );
            progress.advance(Phase::Files, 1);
            p
        })
        .collect()
}

/// Most bytes of source read and chunked before they are committed: the chunks and facts
/// of a window are held until then, so a run's memory does not grow with the store.
const WINDOW_BYTES: u64 = 16 << 20;

/// The plan's files to read, cut into windows of at most `WINDOW_BYTES` (and `max_files`)
/// in walk order.
pub(super) fn windows(plan: &Plan, max_files: usize) -> Vec<&[usize]> {
    let sizes: Vec<u64> = plan.todo().map(|f| f.size).collect();
    cut(&sizes, WINDOW_BYTES, max_files)
        .into_iter()
        .map(|r| &plan.todo[r])
        .collect()
}

/// Consecutive ranges of `sizes` of at most `max_bytes` and `max_files` each; a size
/// larger than `max_bytes` is a range of its own.
fn cut(sizes: &[u64], max_bytes: u64, max_files: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0u64);
    for (at, &size) in sizes.iter().enumerate() {
        if at > start && (bytes + size > max_bytes || at - start >= max_files) {
            out.push(start..at);
            (start, bytes) = (at, 0);
        }
        bytes += size;
    }
    if start < sizes.len() {
        out.push(start..sizes.len());
    }
    out
}

/// Reads, hashes and (when the content changed) chunks one file.
fn prepare(
    tree: Option<&lore_source::Tree>,
    f: &SourceFile,
    old: Option<&FileRecord>,
    max_bytes: u64,
    opts: &lore_chunk::ChunkOptions,
    reanalyze: bool,
) -> Prepared {
    // Through the walk's handle on the root: no link is followed on the way.
    let read = match tree {
        Some(t) => t.read_text(&f.rel, max_bytes),
        None => lore_source::read_text(&f.abs, max_bytes),
    };
    let text = match read {
        Ok(text) => text,
        Err(reason) => {
            return Prepared::Skipped {
                path: f.rel.clone(),
                size: f.size,
                mtime_ns: f.mtime_ns,
                reason,
                was_indexed: old.is_some(),
            };
        }
    };
    let mut file = FileRecord {
        path: f.rel.clone(),
        size: f.size,
        mtime_ns: f.mtime_ns,
        hash: lore_index::content_hash(text.as_bytes()),
        chunks: 0,
        skipped: None,
        parse_error: None,
    };
    match old {
        Some(m) if m.hash == file.hash && !reanalyze => {
            file.chunks = m.chunks;
            file.parse_error = m.parse_error.clone();
            Prepared::Touched(file)
        }
        _ => {
            let why = match old {
                None => Why::New,
                Some(m) if m.hash == file.hash => Why::Reanalyzed,
                Some(_) => Why::Edited,
            };
            let analysis = lore_chunk::analyze_file(&f.rel, &text, opts);
            file.chunks = analysis.chunks.len() as u32;
            file.parse_error = analysis.parse_error.map(|e| e.to_string());
            Prepared::Changed {
                file,
                chunks: analysis.chunks,
                facts: analysis.facts,
                why,
            }
        }
    }
}

/// How many chunks' vectors a run keeps aside from the files it deletes (about 1.5 KB
/// each with their text: 30 MB at most).
const MAX_RELEASED: usize = 20_000;

impl Engine {
    /// The vectors of the chunks in the files a run deletes, by text (at most
    /// `MAX_RELEASED`), read before the run removes them: a file renamed or moved (deleted
    /// here, added there), or a function moved to another file, keeps its vectors.
    pub(super) fn released_vectors(
        &self,
        store_id: i64,
        deleted: &[String],
    ) -> Result<HashMap<String, Vec<f32>>, EngineError> {
        let mut out = HashMap::new();
        for path in deleted {
            if out.len() >= MAX_RELEASED {
                break;
            }
            let old = self.catalog.file_chunks(store_id, path)?;
            let ids: Vec<i64> = old.iter().map(|c| c.id).collect();
            let mut vectors = self.catalog.embeddings(&ids)?;
            for c in &old {
                if let Some(v) = vectors.remove(&c.id) {
                    out.insert(c.chunk.index_text(), v);
                }
            }
        }
        Ok(out)
    }

    /// The vectors a changed file's chunks already have: chunks whose id (path, range,
    /// content) has a vector in the catalog keep it, and so do chunks whose text the file's
    /// previous version held, or a file this run deletes (`released`). Re-indexing after an
    /// edit, a rename, a migration, an interrupted run or `--full` then embeds only what is
    /// new (`embed_missing`, after the commit).
    pub(super) fn known_vectors(
        &self,
        store_id: i64,
        path: &str,
        chunks: &[Chunk],
        released: &HashMap<String, Vec<f32>>,
    ) -> Result<Vec<Option<Vec<f32>>>, EngineError> {
        let ids: Vec<i64> = chunks.iter().map(|c| chunk_id(store_id, path, c)).collect();
        let mut known = self.catalog.embeddings(&ids)?;
        // A chunk whose text is unchanged but moved (lines added above it) has a new id:
        // its vector is the one the file's previous version stored for the same text.
        if ids.iter().any(|id| !known.contains_key(id)) {
            let old = self.catalog.file_chunks(store_id, path)?;
            let old_ids: Vec<i64> = old.iter().map(|c| c.id).collect();
            let mut old_vectors = self.catalog.embeddings(&old_ids)?;
            let by_text: HashMap<String, Vec<f32>> = old
                .iter()
                .filter_map(|c| Some((c.chunk.index_text(), old_vectors.remove(&c.id)?)))
                .collect();
            for (chunk, id) in chunks.iter().zip(&ids) {
                if known.contains_key(id) {
                    continue;
                }
                let text = chunk.index_text();
                if let Some(v) = by_text.get(&text).or_else(|| released.get(&text)) {
                    known.insert(*id, v.clone());
                }
            }
        }
        Ok(ids.iter().map(|id| known.remove(id)).collect())
    }

    /// Embeds the chunks of `store` that have no vector yet, committing every step of
    /// `EMBED_STEP`, so a cancel, a crash or a restart loses at most one step and the next
    /// run goes on from there. The vector snapshot is rewritten now and then (and at the
    /// end), so searches use what is embedded so far. Returns how many were embedded.
    pub(super) fn embed_missing(
        &mut self,
        store: &StoreRecord,
        embedder: &Embedder,
        progress: &dyn Progress,
    ) -> Result<usize, EngineError> {
        let (_, left) = self.catalog.embedding_progress(store.id)?;
        if left == 0 {
            return Ok(0);
        }
        self.check_embedder(store, embedder, true)?;
        progress.start(Phase::Embeddings, left);
        let mut done = 0;
        let mut refreshed = Instant::now();
        let mut refresh_cost = Duration::ZERO;
        let outcome = loop {
            let batch = self.catalog.unembedded_chunks(store.id, EMBED_STEP * 8)?;
            if batch.is_empty() {
                break Ok(done);
            }
            let before = done;
            for step in batch.chunks(EMBED_STEP) {
                if progress.cancelled() {
                    break;
                }
                let texts: Vec<String> = step.iter().map(|c| c.chunk.index_text()).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let vectors = embedder.embed(&refs)?;
                let rows: Vec<(i64, &[f32])> = step
                    .iter()
                    .zip(&vectors)
                    .map(|(c, v)| (c.id, v.as_slice()))
                    .collect();
                let tx = self.catalog.begin()?;
                done += tx.set_embeddings(&rows)?;
                tx.commit()?;
                self.renew_store_lease(store)?;
                progress.advance(Phase::Embeddings, step.len() as u64);
            }
            if progress.cancelled() {
                break Err(EngineError::Cancelled);
            }
            // Chunks removed meanwhile (by nobody, as this process writes the store) would
            // come back forever: stop when a batch embedded nothing.
            if done == before {
                break Ok(done);
            }
            // A snapshot rewrite reads every vector: at most a sixth of the time goes there.
            if refreshed.elapsed() >= SNAPSHOT_EVERY.max(refresh_cost * 5) {
                let t = Instant::now();
                self.refresh_vectors(store.id)?;
                self.forget_readers(store.id);
                refresh_cost = t.elapsed();
                refreshed = Instant::now();
            }
        };
        self.refresh_vectors(store.id)?;
        self.forget_readers(store.id);
        progress.finish(Phase::Embeddings);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::cut;

    #[test]
    fn windows_hold_at_most_their_bytes_and_files_and_a_large_file_alone() {
        assert_eq!(cut(&[], 10, 3), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(cut(&[4, 4, 4, 4], 10, 3), [0..2, 2..4]);
        assert_eq!(cut(&[1, 1, 1, 1, 1], 10, 2), [0..2, 2..4, 4..5]);
        assert_eq!(cut(&[2, 30, 2], 10, 3), [0..1, 1..2, 2..3]);
    }
}
