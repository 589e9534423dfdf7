//! Reading and chunking the files of a plan, and embedding what is new.

use super::plan::{Plan, chunk_id};
use crate::{Engine, EngineError, Phase, Progress};
use lore_core::{Chunk, FileFacts};
use lore_embed::Embedder;
use lore_index::FileRecord;
use lore_source::{SkipReason, SourceFile};
use rayon::prelude::*;
use std::collections::HashMap;

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

impl Prepared {
    pub fn chunk_count(&self) -> usize {
        match self {
            Prepared::Changed { chunks, .. } => chunks.len(),
            _ => 0,
        }
    }
}

const EMBED_STEP: usize = 64;

/// Reads, hashes and chunks every file of the plan, in parallel (cheap next to embedding).
pub(super) fn prepare_all(
    plan: &Plan,
    max_bytes: u64,
    opts: &lore_chunk::ChunkOptions,
    progress: &dyn Progress,
) -> Vec<Prepared> {
    progress.start(Phase::Files, plan.todo.len() as u64);
    let todo: Vec<&SourceFile> = plan.todo().collect();
    let prepared = todo
        .par_iter()
        .map(|f| {
            let p = prepare(
                f,
                plan.manifest.get(&f.rel),
                max_bytes,
                opts,
                plan.reanalyze,
            );
            progress.advance(Phase::Files, 1);
            p
        })
        .collect();
    progress.finish(Phase::Files);
    prepared
}

/// Reads, hashes and (when the content changed) chunks one file.
fn prepare(
    f: &SourceFile,
    old: Option<&FileRecord>,
    max_bytes: u64,
    opts: &lore_chunk::ChunkOptions,
    reanalyze: bool,
) -> Prepared {
    let text = match lore_source::read_text(&f.abs, max_bytes) {
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
    };
    match old {
        Some(m) if m.hash == file.hash && !reanalyze => {
            file.chunks = m.chunks;
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
            Prepared::Changed {
                file,
                chunks: analysis.chunks,
                facts: analysis.facts,
                why,
            }
        }
    }
}

impl Engine {
    /// Embeddings of a changed file's chunks, and how many were computed. Chunks whose id
    /// (path, range, content) already has a vector in the catalog keep it, and so do chunks
    /// whose text the file's previous version held: re-indexing after an edit, a
    /// migration, an interrupted run or `--full` only embeds what is new.
    pub(super) fn embed_chunks(
        &self,
        store_id: i64,
        path: &str,
        chunks: &[Chunk],
        embedder: &Embedder,
        progress: &dyn Progress,
    ) -> Result<(Vec<Vec<f32>>, usize), EngineError> {
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
                if !known.contains_key(id)
                    && let Some(v) = by_text.get(&chunk.index_text())
                {
                    known.insert(*id, v.clone());
                }
            }
        }
        let missing: Vec<usize> = (0..chunks.len())
            .filter(|i| !known.contains_key(&ids[*i]))
            .collect();
        progress.advance(Phase::Embeddings, (chunks.len() - missing.len()) as u64);
        let mut fresh = Vec::with_capacity(missing.len());
        for step in missing.chunks(EMBED_STEP) {
            // One large file can hold tens of thousands of chunks: a cancel is heard
            // between steps, not only between files.
            if progress.cancelled() {
                return Err(EngineError::Cancelled);
            }
            let texts: Vec<String> = step.iter().map(|&i| chunks[i].index_text()).collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            fresh.extend(embedder.embed(&refs)?);
            progress.advance(Phase::Embeddings, step.len() as u64);
        }
        let count = fresh.len();
        let mut fresh = fresh.into_iter();
        let vectors = ids
            .iter()
            .map(|id| match known.get(id) {
                Some(v) => v.clone(),
                None => fresh.next().unwrap_or_default(),
            })
            .collect();
        Ok((vectors, count))
    }
}
