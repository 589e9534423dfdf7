//! How current a store's index is: files changed since it was indexed (a stat-only walk,
//! the indexer's own diff), how much of it is embedded, who is indexing it now, and the
//! words of every freshness warning, the same in every adapter.

use crate::indexer::diff;
use crate::{Engine, EngineError};
use lore_index::{Lease, StoreRecord};
use serde::Serialize;

/// How current a store's index is.
#[derive(Debug, Clone, Serialize)]
pub struct Freshness {
    pub store: String,
    /// Unix seconds of the last completed index run.
    pub indexed_at: Option<i64>,
    /// Files added, changed or deleted on disk since then.
    pub changed_files: usize,
    /// The share of its chunks that have a vector (below 1 while it is being embedded:
    /// hybrid search then ranks the rest by BM25 with a typical cosine).
    pub embedded: f32,
    /// Who is indexing the store right now (a writer's id), if a run is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexing: Option<String>,
}

impl Freshness {
    /// The search warning for a store whose files changed since it was indexed.
    pub(crate) fn warning(&self) -> Option<String> {
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

    /// Counts files added, changed (size or mtime) or deleted since the last index run.
    pub fn freshness(&self, store: &StoreRecord) -> Result<Freshness, EngineError> {
        let manifest = self.catalog.manifest(store.id)?;
        let walk = lore_source::walk(&store.root, &self.walk_options(store));
        let changed_files = match walk {
            Ok(w) => {
                let (todo, deleted) = diff(&w.files, &manifest, false);
                todo.len() + deleted.len()
            }
            // The folder is gone: everything indexed is stale.
            Err(_) => manifest.len(),
        };
        let (chunks, left) = self.catalog.embedding_progress(store.id)?;
        Ok(Freshness {
            store: store.name.clone(),
            indexed_at: store.indexed_at,
            changed_files,
            indexing: self.indexing_now(store)?,
            embedded: if chunks == 0 {
                1.0
            } else {
                // Two decimals, rounded down: 0.43, and 1 only when all are.
                ((chunks - left.min(chunks)) as f32 / chunks as f32 * 100.0).floor() / 100.0
            },
        })
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
