//! A spread sample of a store's content (files and units), read from the catalog: what an
//! LLM needs to see to write realistic queries about a store.

use crate::search::UnitRef;
use crate::{Engine, EngineError};
use serde::Serialize;
use std::collections::BTreeMap;

/// What a store holds, in brief.
#[derive(Debug, Clone, Serialize)]
pub struct StoreSample {
    pub store: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Files with at least one chunk.
    pub files: usize,
    pub chunks: usize,
    /// File paths spread over the store (sorted).
    pub paths: Vec<String>,
    pub units: Vec<SampledUnit>,
}

/// One unit of the sample.
#[derive(Debug, Clone, Serialize)]
pub struct SampledUnit {
    #[serde(flatten)]
    pub unit: UnitRef,
    /// The unit's first non-blank lines, shortened.
    pub preview: String,
}

/// Lines and characters of a unit's preview.
const PREVIEW_LINES: usize = 4;
const PREVIEW_CHARS: usize = 240;

impl Engine {
    /// Up to `n` units of `store`, spread evenly over its files (by path) and, within a
    /// file, over its named units (a symbol or a heading) when it has any; plus up to `4n`
    /// file paths, also spread. Deterministic for a given index.
    pub fn sample_units(&self, store: &str, n: usize) -> Result<StoreSample, EngineError> {
        let s = self.require_store(store)?;
        let mut by_file: BTreeMap<String, usize> = BTreeMap::new();
        let all = self.catalog.chunk_paths(s.id)?;
        for path in all.values() {
            *by_file.entry(path.clone()).or_default() += 1;
        }
        let paths: Vec<&String> = by_file.keys().collect();
        let chosen_files = spread(paths.len(), n);
        let per_file = if chosen_files.is_empty() {
            0
        } else {
            n.div_ceil(chosen_files.len())
        };
        let mut units = Vec::new();
        for &fi in &chosen_files {
            let path = paths[fi];
            let chunks = self.catalog.file_chunks(s.id, path)?;
            let named: Vec<_> = chunks
                .iter()
                .filter(|c| c.chunk.symbol.is_some() || !c.chunk.headings.is_empty())
                .collect();
            let pool: Vec<_> = if named.is_empty() {
                chunks.iter().collect()
            } else {
                named
            };
            // Start at a point that depends on the path, so small files do not always
            // contribute their first unit.
            let offset = fnv(path.as_bytes()) as usize % pool.len().max(1);
            for k in spread(pool.len(), per_file) {
                let sc = pool[(k + offset) % pool.len()];
                units.push(SampledUnit {
                    unit: UnitRef::new(sc, &s),
                    preview: preview(&sc.chunk.content),
                });
            }
        }
        units.truncate(n);
        Ok(StoreSample {
            store: s.name.clone(),
            description: s.description.clone(),
            files: by_file.len(),
            chunks: all.len(),
            paths: spread(paths.len(), n.saturating_mul(4))
                .into_iter()
                .map(|i| paths[i].clone())
                .collect(),
            units,
        })
    }
}

/// `min(len, k)` distinct indexes of `0..len`, evenly spaced.
fn spread(len: usize, k: usize) -> Vec<usize> {
    let k = k.min(len);
    (0..k).map(|i| i * len / k).collect()
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn preview(content: &str) -> String {
    let text = content
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .take(PREVIEW_LINES)
        .collect::<Vec<_>>()
        .join("\n");
    match text.char_indices().nth(PREVIEW_CHARS) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_is_even_and_distinct() {
        assert_eq!(spread(10, 3), vec![0, 3, 6]);
        assert_eq!(spread(2, 5), vec![0, 1]);
        assert!(spread(0, 5).is_empty());
        assert!(spread(5, 0).is_empty());
    }

    #[test]
    fn preview_skips_blank_lines_and_shortens() {
        assert_eq!(preview("\n\na\n\n b \nc\nd\ne\n"), "a\n b\nc\nd");
        let long = "é".repeat(PREVIEW_CHARS + 5);
        let p = preview(&long);
        assert_eq!(p.chars().count(), PREVIEW_CHARS + 1);
        assert!(p.ends_with('…'));
    }
}
