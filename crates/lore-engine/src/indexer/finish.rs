//! After the batches: the vector snapshot, and what a run that indexed nothing says.

use super::IndexReport;
use crate::{Engine, EngineError};
use lore_index::{StoreRecord, VectorSet};
use lore_source::PathFilter;

impl Engine {
    /// Rewrites the vector snapshot when it is missing, damaged or behind the catalog; on
    /// PostgreSQL, builds the HNSW index a large store needs.
    pub(super) fn refresh_vectors(&self, store_id: i64) -> Result<(), EngineError> {
        if self.catalog.holds_indexes() {
            // PostgreSQL keeps the vectors; a store grown past the exact scan gets HNSW.
            let started = std::time::Instant::now();
            if self
                .catalog
                .ensure_vector_index(store_id, lore_index::HNSW_MIN_VECTORS)?
            {
                tracing::info!(
                    "store #{store_id}: built its HNSW vector index in {:.1} s",
                    started.elapsed().as_secs_f64()
                );
            }
            return Ok(());
        }
        let store = self
            .catalog
            .store_by_id(store_id)?
            .ok_or_else(|| EngineError::NotFound(format!("store #{store_id}")))?;
        let dir = self.data.store_dir(store_id);
        std::fs::create_dir_all(&dir).map_err(|e| EngineError::io(dir.display().to_string(), e))?;
        let path = dir.join("vectors.bin");
        // Written at the store's generation (every commit that changes its chunks bumps
        // it) and holding as many vectors as the catalog: within one generation vectors
        // are only added, so it is current, known without reading every chunk's row (on
        // 137k chunks that read was 400 ms, most of a run that found nothing to do).
        // Anything else (missing, damaged, older, short) is rewritten from the catalog;
        // `lore doctor` compares every id.
        // A store kept without vectors has none: not counted (two counts over every
        // chunk row, 0.2 s on a kernel after each small change).
        let embedded = if crate::record::lexical_only(&store) {
            0
        } else {
            let (chunks, left) = self.catalog.embedding_progress(store_id)?;
            chunks - left.min(chunks)
        };
        if let Ok(Some(set)) = VectorSet::load(&path)
            && set.generation() == store.generation
            && set.len() as u64 == embedded
        {
            return Ok(());
        }
        // Row by row: a large store's vectors never sit in memory at once. A store with
        // none (`--embed none`) is not read at all: looking for its vectors walked every
        // chunk row (8 s on a kernel, after each small change).
        let snapshot = match embedded {
            0 => None,
            _ => lore_index::stream_snapshot(&self.catalog, store_id, &path, store.generation)?,
        };
        if snapshot.is_none() {
            VectorSet::write(
                &path,
                crate::record::store_dim(&store),
                store.generation,
                &[],
            )?;
        }
        Ok(())
    }
}

impl Engine {
    /// Judges single paths of `store` as its walk would (for watchers: an event on a path
    /// this rejects cannot change what the store indexes).
    pub fn path_filter(&self, store: &StoreRecord) -> Result<PathFilter, EngineError> {
        Ok(PathFilter::new(&store.root, &self.walk_options(store))?)
    }
}

/// Why a store holds nothing after a run: an empty index answers every search with
/// nothing, so it must not pass in silence. (A new brain is empty by design.)
pub(super) fn nothing_indexed(store: &StoreRecord, report: &IndexReport) -> String {
    let root = store.root.display();
    if report.skipped.is_empty() {
        if report.files_seen > 0 {
            return format!("nothing indexed: the files under {root} hold no text");
        }
        let globs = if store.includes.is_empty() && store.excludes.is_empty() {
            ""
        } else {
            "; check the store's include/exclude globs"
        };
        return format!(
            "nothing indexed: no files found under {root} (hidden and gitignored files are skipped: \
             --no-ignore reads past ignore files{globs})"
        );
    }
    let mut why: Vec<(&str, usize)> = Vec::new();
    for s in &report.skipped {
        // "too large (N bytes)", "binary", "not UTF-8", "unreadable: …"
        let kind = s.reason.split([':', '(']).next().unwrap_or("").trim();
        match why.iter_mut().find(|w| w.0 == kind) {
            Some(w) => w.1 += 1,
            None => why.push((kind, 1)),
        }
    }
    let why: Vec<String> = why.iter().map(|(k, n)| format!("{n} {k}")).collect();
    let cap = if report
        .skipped
        .iter()
        .any(|s| s.reason.starts_with("too large"))
    {
        "; the size cap is the store's max_file_size"
    } else {
        ""
    };
    format!(
        "nothing indexed under {root}: files skipped as {}{cap}",
        why.join(", ")
    )
}
