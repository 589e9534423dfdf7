//! A spread sample of a store's content (files and units), read from the catalog: what an
//! LLM needs to see to write realistic queries about a store.

use crate::query::UnitRef;
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
    /// Up to `n` units of `store` from files chosen by what agents ask about (`choose_files`:
    /// mostly source code, then docs, a few tests and others; never licenses, images, lock
    /// files or dependency lists), spread evenly within each kind by path and, within a
    /// file, over its named units (a symbol or a heading) when it has any; plus up to `4n`
    /// file paths, spread over all. Deterministic for a given index.
    pub fn sample_units(&self, store: &str, n: usize) -> Result<StoreSample, EngineError> {
        let s = self.require_store(store)?;
        let mut by_file: BTreeMap<String, usize> = BTreeMap::new();
        let all = self.catalog.chunk_paths(s.id)?;
        for path in all.values() {
            *by_file.entry(path.clone()).or_default() += 1;
        }
        let paths: Vec<&String> = by_file.keys().collect();
        let chosen_files = choose_files(&paths, n);
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

/// What a file is to someone asking about a store, in the order sampling prefers them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FileKind {
    Code,
    Docs,
    Tests,
    Other,
    /// Never sampled: licenses, images, lock files, dependency lists, minified bundles.
    Skip,
}

/// Shares of the sampled files per kind (code, docs, tests, other), in tenths; a kind with
/// too few files leaves its slots to the others, in that order.
const SHARES: [usize; 4] = [6, 2, 1, 1];

fn file_kind(path: &str) -> FileKind {
    let lower = path.to_ascii_lowercase();
    let file = lower.rsplit('/').next().unwrap_or(&lower);
    let ext = file.rsplit_once('.').map_or("", |(_, e)| e);
    let skip_names = [
        "license",
        "licence",
        "copying",
        "notice",
        "authors",
        "requirements",
    ];
    if skip_names.iter().any(|n| file.starts_with(n))
        || matches!(
            ext,
            "svg" | "png" | "jpg" | "jpeg" | "gif" | "ico" | "lock" | "sum" | "map" | "csv"
        )
        || file.ends_with(".min.js")
        || file == "package-lock.json"
    {
        return FileKind::Skip;
    }
    if lore_core::is_test_path(path) {
        return FileKind::Tests;
    }
    let lang = lore_core::Language::from_path(std::path::Path::new(path));
    if lang.is_code() && !lore_core::is_auxiliary_path(path) {
        FileKind::Code
    } else if lang == lore_core::Language::Markdown || matches!(ext, "rst" | "adoc") {
        FileKind::Docs
    } else {
        FileKind::Other
    }
}

/// Indexes of up to `n` of the (sorted) `paths` to sample: `SHARES` of them per kind, each
/// kind's spread evenly over its files; returned in path order.
fn choose_files(paths: &[&String], n: usize) -> Vec<usize> {
    let kinds = [
        FileKind::Code,
        FileKind::Docs,
        FileKind::Tests,
        FileKind::Other,
    ];
    let pools: Vec<Vec<usize>> = kinds
        .iter()
        .map(|&k| {
            (0..paths.len())
                .filter(|&i| file_kind(paths[i]) == k)
                .collect()
        })
        .collect();
    let total: usize = pools.iter().map(Vec::len).sum();
    let n = n.min(total);
    let mut take: Vec<usize> = SHARES
        .iter()
        .zip(&pools)
        .map(|(share, pool)| (n * share).div_ceil(10).min(pool.len()))
        .collect();
    // Trim the rounding excess from the least preferred kinds, then fill what short kinds
    // left from the most preferred.
    let mut sum: usize = take.iter().sum();
    for t in take.iter_mut().rev() {
        let cut = (*t).min(sum.saturating_sub(n));
        *t -= cut;
        sum -= cut;
    }
    for (t, pool) in take.iter_mut().zip(&pools) {
        let more = (pool.len() - *t).min(n - sum);
        *t += more;
        sum += more;
    }
    let mut chosen: Vec<usize> = pools
        .iter()
        .zip(&take)
        .flat_map(|(pool, &k)| spread(pool.len(), k).into_iter().map(|i| pool[i]))
        .collect();
    chosen.sort_unstable();
    chosen
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
    fn files_are_sampled_by_what_agents_ask_about() {
        let names = [
            "LICENSE",
            "README.md",
            "docs/guide.md",
            "docs/logo.svg",
            "requirements.txt",
            "setup.cfg",
            "src/app.py",
            "src/cli.py",
            "src/config.py",
            "src/routes.py",
            "src/views.py",
            "src/vendor/six.py",
            "templates/page.html",
            "tests/test_app.py",
            "tests/test_cli.py",
        ];
        let paths: Vec<String> = names.iter().map(|s| s.to_string()).collect();
        let refs: Vec<&String> = paths.iter().collect();
        let chosen: Vec<&str> = choose_files(&refs, 10).iter().map(|&i| names[i]).collect();
        assert_eq!(chosen.len(), 10, "{chosen:?}");
        for never in ["LICENSE", "docs/logo.svg", "requirements.txt"] {
            assert!(!chosen.contains(&never), "{never} sampled: {chosen:?}");
        }
        // All five source files, both docs, then tests and the rest.
        let code = chosen
            .iter()
            .filter(|p| p.starts_with("src/") && !p.contains("vendor"))
            .count();
        assert_eq!(code, 5, "{chosen:?}");
        assert!(chosen.contains(&"README.md") && chosen.contains(&"docs/guide.md"));
        assert!(chosen.iter().any(|p| p.starts_with("tests/")), "{chosen:?}");
        // Fewer asked than the store has: the shares hold.
        let three: Vec<&str> = choose_files(&refs, 3).iter().map(|&i| names[i]).collect();
        assert_eq!(
            three.iter().filter(|p| p.starts_with("src/")).count(),
            2,
            "{three:?}"
        );
        assert!(
            choose_files(&refs[..1], 5).is_empty(),
            "a license alone is never sampled"
        );
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
