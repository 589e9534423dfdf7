//! A store as files: the entries of one folder (`Engine::files`) and a file's outline, each
//! entry with the result id that opens its unit (`Engine::file_outline`; a unit's context
//! shows the same outline).

use crate::unit::ResultId;
use crate::{Engine, EngineError};
use serde::Serialize;
use std::collections::BTreeMap;

/// One definition (or, in prose, one section) of the same file, for orientation.
#[derive(Debug, Clone, Serialize)]
pub struct OutlineEntry {
    /// The result id that opens the entry's unit (`lore context`, `/api/results/{id}`).
    pub id: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// How many entries of the outline enclose this one (a method in a class: 1).
    #[serde(skip_serializing_if = "is_zero")]
    pub depth: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// One folder of a store: its sub-folders (with how many files each holds, at any depth)
/// and its files.
#[derive(Debug, Clone, Serialize)]
pub struct FolderListing {
    pub store: String,
    /// The folder, relative to the store's root (`""` for the root), without a trailing `/`.
    pub dir: String,
    pub dirs: Vec<FolderEntry>,
    pub files: Vec<FileEntry>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FolderEntry {
    pub name: String,
    pub files: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileEntry {
    pub name: String,
    pub size: u64,
    pub chunks: u32,
    /// Why the file was not indexed (too large, binary, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
}

/// A file's outline.
#[derive(Debug, Clone, Serialize)]
pub struct FileOutline {
    pub store: String,
    pub path: String,
    pub outline: Vec<OutlineEntry>,
}

impl Engine {
    /// The folders and files directly under `dir` of a store (`""`: its root), by name.
    pub fn files(&self, store: &str, dir: &str) -> Result<FolderListing, EngineError> {
        let record = self.require_store(store)?;
        let dir = dir.trim_matches('/');
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{dir}/")
        };
        let mut dirs: BTreeMap<String, u64> = BTreeMap::new();
        let mut files = Vec::new();
        let mut found = dir.is_empty();
        for f in self.catalog.manifest(record.id)?.into_values() {
            let Some(rest) = f.path.strip_prefix(&prefix) else {
                continue;
            };
            found = true;
            match rest.split_once('/') {
                Some((sub, _)) => *dirs.entry(sub.to_string()).or_default() += 1,
                None => files.push(FileEntry {
                    name: rest.to_string(),
                    size: f.size,
                    chunks: f.chunks,
                    skipped: f.skipped,
                    parse_error: f.parse_error,
                }),
            }
        }
        if !found {
            return Err(EngineError::NotFound(format!(
                "store {store} has no folder {dir:?}"
            )));
        }
        files.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(FolderListing {
            store: record.name,
            dir: dir.to_string(),
            dirs: dirs
                .into_iter()
                .map(|(name, files)| FolderEntry { name, files })
                .collect(),
            files,
        })
    }

    /// The outline of one file of a store, each entry with its result id.
    pub fn file_outline(&self, store: &str, path: &str) -> Result<FileOutline, EngineError> {
        let record = self.require_store(store)?;
        let path = path.trim_start_matches('/');
        if self.catalog.file_records(record.id, &[path])?.is_empty() {
            return Err(EngineError::NotFound(format!(
                "store {store} has no file {path:?}"
            )));
        }
        Ok(FileOutline {
            outline: self.outline(record.id, path)?,
            store: record.name,
            path: path.to_string(),
        })
    }
}

impl Engine {
    /// A file's outline: each definition once, nested as in the file (code); each section
    /// once, its windows merged (prose and files without definitions).
    pub(crate) fn outline(
        &self,
        store_id: i64,
        path: &str,
    ) -> Result<Vec<OutlineEntry>, EngineError> {
        let symbols = self.catalog.file_symbols(store_id, path)?;
        let chunks = self.catalog.file_chunks(store_id, path)?;
        let mut out: Vec<OutlineEntry> = Vec::new();
        if symbols.is_empty() {
            for sc in chunks {
                let id = ResultId {
                    chunk: sc.id,
                    line: None,
                };
                let c = sc.chunk;
                let symbol = c.symbol.or_else(|| c.headings.last().cloned());
                match out.last_mut() {
                    Some(last) if last.symbol == symbol && last.kind == c.kind.as_str() => {
                        last.end_line = c.end_line;
                    }
                    _ => out.push(OutlineEntry {
                        id: id.to_string(),
                        kind: c.kind.as_str().to_string(),
                        symbol,
                        start_line: c.start_line,
                        end_line: c.end_line,
                        depth: 0,
                    }),
                }
            }
            return Ok(out);
        }
        let mut sorted = symbols;
        sorted.sort_by_key(|s| (s.start_line, std::cmp::Reverse(s.end_line)));
        // The entries still open at each symbol's start line, innermost last.
        let mut open: Vec<u32> = Vec::new();
        for s in sorted {
            while open.last().is_some_and(|&end| end < s.start_line) {
                open.pop();
            }
            // The chunk that holds the definition's first byte, which its id names by line
            // (as a search names a nested unit).
            let Some(chunk) = chunks
                .iter()
                .filter(|c| c.chunk.start_byte <= s.start_byte && s.start_byte < c.chunk.end_byte)
                .min_by_key(|c| c.chunk.end_byte - c.chunk.start_byte)
            else {
                continue;
            };
            out.push(OutlineEntry {
                id: ResultId {
                    chunk: chunk.id,
                    line: Some(s.start_line),
                }
                .to_string(),
                kind: s.kind.as_str().to_string(),
                symbol: Some(s.name),
                start_line: s.start_line,
                end_line: s.end_line,
                depth: open.len() as u32,
            });
            open.push(s.end_line);
        }
        Ok(out)
    }
}
