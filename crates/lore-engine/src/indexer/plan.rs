//! What an index run must do: walk the store, diff the walk against the manifest.

use super::{IndexReport, SkippedFile};
use crate::{Engine, EngineError};
use lore_core::Chunk;
use lore_index::{FileRecord, StoreRecord};
use lore_source::{SourceFile, Walk, WalkOptions};
use std::collections::{HashMap, HashSet};

/// A store's walk set against its manifest.
pub(super) struct Plan {
    pub walk: Walk,
    pub manifest: HashMap<String, FileRecord>,
    /// Re-read every file: a full run, or another version of the chunker analysed them.
    pub reanalyze: bool,
    /// Nothing recorded: whatever the BM25 index holds is left over, start it afresh.
    pub rebuild: bool,
    /// Indexes into `walk.files` of the files to read: new, or another size or mtime.
    pub todo: Vec<usize>,
    /// Recorded files gone from the walk.
    pub deleted: Vec<String>,
}

impl Plan {
    pub fn todo(&self) -> impl Iterator<Item = &SourceFile> {
        self.todo.iter().map(|&i| &self.walk.files[i])
    }
}

/// The files of `files` to read again (by index) and the recorded paths no longer there.
/// Size and mtime decide; the content hash is checked later, when a file is read.
pub(crate) fn diff(
    files: &[SourceFile],
    manifest: &HashMap<String, FileRecord>,
    reanalyze: bool,
) -> (Vec<usize>, Vec<String>) {
    let todo = files
        .iter()
        .enumerate()
        .filter(|(_, f)| match manifest.get(&f.rel) {
            Some(m) => reanalyze || m.size != f.size || m.mtime_ns != f.mtime_ns,
            None => true,
        })
        .map(|(i, _)| i)
        .collect();
    let seen: HashSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    let deleted = manifest
        .keys()
        .filter(|p| !seen.contains(p.as_str()))
        .cloned()
        .collect();
    (todo, deleted)
}

/// An ignore file that hid most of the store's top level: name the rule and the way out.
fn ignored_top_warning(store: &StoreRecord, top: &lore_source::IgnoredTop) -> String {
    let file = if top.file.is_empty() {
        "an ignore file".to_string()
    } else {
        top.file.clone()
    };
    format!(
        "{} of the {} entries at the top of {} are ignored by the rule `{}` in {file}; \
         to index them, add the store with --no-ignore (or `no_ignore = true` in lore.toml)",
        top.ignored,
        top.entries,
        store.root.display(),
        top.rule
    )
}

impl Engine {
    /// Walks the store and diffs it against the manifest (`reanalyze` re-reads every
    /// file). Fills the report's counts of files seen, unchanged and skipped.
    pub(super) fn plan(
        &mut self,
        store: &StoreRecord,
        reanalyze: bool,
        report: &mut IndexReport,
    ) -> Result<Plan, EngineError> {
        let walk = lore_source::walk(&store.root, &self.walk_options(store))?;
        for dir in &walk.left_out {
            report.warnings.push(format!(
                "left out {dir}: it holds lore's own data (the catalog, the brain's notes, \
                 other stores' copies), which is never indexed as this store's files"
            ));
        }
        if let Some(top) = &walk.ignored_top {
            report.warnings.push(ignored_top_warning(store, top));
        }
        report.files_seen = walk.files.len();
        let manifest = self.catalog.manifest(store.id)?;
        // Re-read files keep their embeddings by chunk id, so this costs no embedding.
        // Nothing is cleared first: a crash leaves the last index whole.
        let (todo, deleted) = diff(&walk.files, &manifest, reanalyze);
        report.unchanged = walk.files.len() - todo.len();
        // Unchanged files known to be unindexable are still reported, without re-reading.
        for f in &walk.files {
            if let Some(m) = manifest.get(&f.rel)
                && let Some(reason) = &m.skipped
                && m.size == f.size
                && m.mtime_ns == f.mtime_ns
            {
                report.skipped.push(SkippedFile {
                    path: f.rel.clone(),
                    reason: reason.clone(),
                });
            }
        }
        for (path, reason) in &walk.skipped {
            report.skipped.push(SkippedFile {
                path: path.clone(),
                reason: reason.to_string(),
            });
        }
        Ok(Plan {
            rebuild: manifest.is_empty(),
            walk,
            manifest,
            reanalyze,
            todo,
            deleted,
        })
    }
}

impl Engine {
    /// What a store's walk keeps, from its record. A web store's globs judge URLs during
    /// the crawl; its mirror is indexed whole. lore's data dir and brain dir are never
    /// entered from a store rooted outside them.
    pub(crate) fn walk_options(&self, store: &StoreRecord) -> WalkOptions {
        let web = store.kind == lore_core::StoreKind::Web;
        let globs = |g: &Vec<String>| if web { Vec::new() } else { g.clone() };
        let root = std::fs::canonicalize(&store.root).unwrap_or_else(|_| store.root.clone());
        let leave_out = [self.data.root().to_path_buf(), self.data.brain()]
            .iter()
            .filter_map(|d| std::fs::canonicalize(d).ok())
            .filter(|d| !root.starts_with(d))
            .collect();
        WalkOptions {
            includes: globs(&store.includes),
            excludes: globs(&store.excludes),
            max_file_bytes: store.max_file_bytes,
            no_ignore: store.no_ignore,
            leave_out,
            reads: self.walk_reads(store, &root),
        }
    }

    /// Where a store's root may resolve to when it is walked: for a folder store, what this
    /// engine may read (an operator's store trusted at a server's start: only where it
    /// was); for a root lore keeps (a clone, a site's mirror, the brain), where it is now.
    fn walk_reads(&self, store: &StoreRecord, root: &std::path::Path) -> lore_source::Reads {
        use lore_source::Reads;
        let trusted = self.config.trusted_sources.contains(&store.root);
        match &self.config.reads {
            Reads::Anywhere => Reads::Anywhere,
            reads if store.kind == lore_core::StoreKind::Folder && !trusted => reads.clone(),
            Reads::Within(_) => Reads::Within(vec![root.to_path_buf()]),
        }
    }
}

pub(super) fn chunk_id(store_id: i64, path: &str, c: &Chunk) -> i64 {
    lore_index::chunk_id(store_id, path, c.start_byte, c.end_byte, &c.content)
}
