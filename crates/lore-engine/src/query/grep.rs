//! `grep`: the lines of a store's files a pattern matches, by ripgrep's rules (a regular
//! expression, or a literal string; matched line by line; case-sensitive unless asked),
//! each shown in the unit around it. The store's trigram index names the files that can
//! match; only those are read — from the store's folder, or, where it is not on this
//! machine, put back together from the catalog's chunks.

use crate::unit::{ResultId, file_from_chunks};
use crate::{Engine, EngineError};
use lore_index::{ChunkSpan, GramQuery, StoreRecord};
use rayon::prelude::*;
use regex::bytes::{Regex, RegexBuilder};
use serde::Serialize;
use std::time::Instant;

/// What to grep for, and where.
#[derive(Debug, Clone)]
pub struct GrepRequest {
    pub pattern: String,
    /// The pattern is a literal string, not a regular expression.
    pub fixed: bool,
    pub ignore_case: bool,
    /// Stores to read (empty: all).
    pub stores: Vec<String>,
    /// Only paths that match one of these globs (empty: all).
    pub globs: Vec<String>,
    /// Most lines to return (0: every one).
    pub max_lines: usize,
}

impl GrepRequest {
    pub fn new(pattern: impl Into<String>) -> GrepRequest {
        GrepRequest {
            pattern: pattern.into(),
            fixed: false,
            ignore_case: false,
            stores: Vec::new(),
            globs: Vec::new(),
            max_lines: DEFAULT_MAX_LINES,
        }
    }
}

/// Lines a grep returns unless asked otherwise (about 3,000 tokens of code).
pub const DEFAULT_MAX_LINES: usize = 100;
/// Most bytes of one line shown (minified files have lines of megabytes).
const MAX_LINE_BYTES: usize = 400;
/// Most units whose declarations an answer reads.
pub const SIGNATURES_UP_TO: usize = 500;
/// Files read at once, between checks of whether enough lines were found.
const BATCH: usize = 256;

#[derive(Debug, Clone, Serialize)]
pub struct GrepAnswer {
    /// The matching lines, grouped by the unit around them, in store and path order.
    pub units: Vec<GrepUnit>,
    /// Matching lines found (all of them, unless `truncated`).
    pub lines: usize,
    /// Files with a match.
    pub files: usize,
    /// Files read: those the trigram index could not rule out.
    pub read: usize,
    /// Files in the stores searched.
    pub indexed: usize,
    /// `max_lines` was reached: more files may match.
    pub truncated: bool,
    pub took_ms: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Matching lines in one unit.
#[derive(Debug, Clone, Serialize)]
pub struct GrepUnit {
    pub store: String,
    pub path: String,
    /// The unit's result id (for `context`), kind, name and declaration (the declaration
    /// when at most [`SIGNATURES_UP_TO`] units are shown).
    pub id: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(skip)]
    chunk: Option<i64>,
    pub unit_lines: [u32; 2],
    pub lines: Vec<GrepLine>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GrepLine {
    pub line: u32,
    pub text: String,
}

/// The lines of `text` that `re` (built multi-line) matches, as ripgrep counts them: line
/// numbers from 1 and each line's byte range without its `\n`.
pub fn matching_lines(re: &Regex, text: &[u8]) -> Vec<(u32, std::ops::Range<usize>)> {
    let mut out = Vec::new();
    // An empty file has no line, not one empty line.
    if text.is_empty() {
        return out;
    }
    let (mut pos, mut line_no, mut counted) = (0usize, 1u32, 0usize);
    while pos <= text.len() {
        let Some(m) = re.find_at(text, pos) else {
            break;
        };
        let start = text[pos..m.start()]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(pos, |i| pos + i + 1);
        // The empty "line" after a final newline is no line.
        if start == text.len() && start > 0 {
            break;
        }
        let end = text[m.start()..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| m.start() + i);
        line_no += text[counted..start].iter().filter(|&&b| b == b'\n').count() as u32;
        counted = start;
        // A match that runs past the line (`\s` takes a newline) counts only if the line
        // alone matches.
        if m.end() <= end || re.is_match(&text[start..end]) {
            out.push((line_no, start..end));
        }
        pos = end + 1;
    }
    out
}

/// One file's matches, before units are attached.
struct FileHits {
    store: usize,
    path: String,
    lines: Vec<GrepLine>,
}

impl Engine {
    /// Every line of the stores' files `req.pattern` matches (up to `req.max_lines`).
    pub fn grep(&self, req: &GrepRequest) -> Result<GrepAnswer, EngineError> {
        let started = Instant::now();
        if req.pattern.is_empty() {
            return Err(EngineError::Input(
                "the pattern is empty; give a string or a regular expression".into(),
            ));
        }
        let pattern = if req.fixed {
            regex::escape(&req.pattern)
        } else {
            req.pattern.clone()
        };
        let re = RegexBuilder::new(&pattern)
            .case_insensitive(req.ignore_case)
            .multi_line(true)
            .build()
            .map_err(|e| {
                EngineError::Input(format!(
                    "the pattern does not parse as a regular expression (ask for a fixed \
                     string to match it as written): {e}"
                ))
            })?;
        let query = GramQuery::from_pattern(&pattern, req.ignore_case)
            .map_err(|e| EngineError::Input(format!("the pattern does not parse: {e}")))?;
        let globs = glob_set(&req.globs)?;
        let stores = self.select_stores(&req.stores)?;
        let mut answer = GrepAnswer {
            units: Vec::new(),
            lines: 0,
            files: 0,
            read: 0,
            indexed: 0,
            truncated: false,
            took_ms: 0,
            warnings: Vec::new(),
        };
        let want = if req.max_lines == 0 {
            usize::MAX
        } else {
            req.max_lines
        };
        let mut found: Vec<FileHits> = Vec::new();
        'stores: for (si, store) in stores.iter().enumerate() {
            let all = self.catalog.indexed_paths(store.id)?;
            answer.indexed += all.len();
            let candidates = match self.readers(store)?.grep_files(&query)? {
                Some(paths) => paths,
                None => {
                    if query != GramQuery::All && !all.is_empty() && !self.catalog.holds_indexes() {
                        answer.warnings.push(format!(
                            "store {}: no grep index, so every file was read; `lore index {}` \
                             builds it",
                            store.name, store.name
                        ));
                    }
                    all
                }
            };
            let candidates: Vec<String> = candidates
                .into_iter()
                .filter(|p| globs.as_ref().is_none_or(|g| g.is_match(p)))
                .collect();
            let source = self.source_of(store);
            for batch in candidates.chunks(BATCH) {
                answer.read += batch.len();
                let hits: Vec<Result<Option<FileHits>, EngineError>> = batch
                    .par_iter()
                    .map(|path| {
                        let Some(text) = source.read(path) else {
                            return Ok(None);
                        };
                        Ok(file_hits(&re, si, path, &text))
                    })
                    .collect();
                for h in hits {
                    found.extend(h?);
                }
                if found.iter().map(|f| f.lines.len()).sum::<usize>() >= want {
                    answer.truncated = true;
                    break 'stores;
                }
            }
            // Files not on this machine: from the catalog, one by one.
            for path in source.missing() {
                let text = file_from_chunks(&self.catalog.file_chunks(store.id, &path)?);
                if let Some(h) = file_hits(&re, si, &path, text.as_bytes()) {
                    found.push(h);
                }
            }
        }
        answer.files = found.len();
        answer.lines = found.iter().map(|f| f.lines.len()).sum();
        let mut budget = want;
        let mut shown: Vec<(usize, String, Vec<GrepLine>)> = Vec::new();
        for f in found {
            if budget == 0 {
                answer.truncated = true;
                break;
            }
            let mut lines = f.lines;
            if lines.len() > budget {
                lines.truncate(budget);
                answer.truncated = true;
            }
            budget -= lines.len();
            shown.push((f.store, f.path, lines));
        }
        // The units around the lines shown: one lookup per store for all its files.
        for (si, store) in stores.iter().enumerate() {
            let paths: Vec<&str> = shown
                .iter()
                .filter(|(s, _, _)| *s == si)
                .map(|(_, p, _)| p.as_str())
                .collect();
            if paths.is_empty() {
                continue;
            }
            let mut spans = self.catalog.file_spans(store.id, &paths)?;
            for (_, path, lines) in shown.iter_mut().filter(|(s, _, _)| *s == si) {
                let spans = spans.remove(path.as_str()).unwrap_or_default();
                answer
                    .units
                    .extend(group_by_unit(store, path, std::mem::take(lines), &spans));
            }
        }
        // Declarations, for an answer of a readable size (each is a chunk row's read).
        if answer.units.len() <= SIGNATURES_UP_TO {
            let ids: Vec<i64> = answer.units.iter().filter_map(|u| u.chunk).collect();
            let signatures = self.catalog.signatures(&ids)?;
            for u in &mut answer.units {
                u.signature = u.chunk.and_then(|c| signatures.get(&c).cloned());
            }
        }
        // In store, then path order, as found.
        answer.units.sort_by(|a, b| {
            let rank = |u: &GrepUnit| stores.iter().position(|s| s.name == u.store);
            (rank(a), &a.path).cmp(&(rank(b), &b.path))
        });
        answer.took_ms = started.elapsed().as_millis() as u64;
        Ok(answer)
    }

    /// Where a store's files are read from: its folder when it opens here.
    fn source_of(&self, store: &StoreRecord) -> Source {
        let opts = self.walk_options(store);
        Source {
            tree: lore_source::Tree::open(&store.root, &opts.reads).ok(),
            max_bytes: store.max_file_bytes,
            missing: std::sync::Mutex::new(Vec::new()),
        }
    }
}

struct Source {
    tree: Option<lore_source::Tree>,
    max_bytes: u64,
    /// Files that could not be read here (left for the catalog).
    missing: std::sync::Mutex<Vec<String>>,
}

impl Source {
    fn read(&self, path: &str) -> Option<Vec<u8>> {
        let text = self
            .tree
            .as_ref()
            .and_then(|t| t.read_text(path, self.max_bytes).ok());
        if text.is_none()
            && let Ok(mut m) = self.missing.lock()
        {
            m.push(path.to_owned());
        }
        text.map(String::into_bytes)
    }

    fn missing(self) -> Vec<String> {
        let mut m = self.missing.into_inner().unwrap_or_default();
        m.sort();
        m
    }
}

fn file_hits(re: &Regex, store: usize, path: &str, text: &[u8]) -> Option<FileHits> {
    // A UTF-8 byte order mark is no text (ripgrep drops it too), and a file holding a NUL
    // byte is binary: ripgrep shows none of its lines.
    let text = text.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(text);
    if text.contains(&0) {
        return None;
    }
    let lines: Vec<GrepLine> = matching_lines(re, text)
        .into_iter()
        .map(|(line, range)| GrepLine {
            line,
            text: shown_line(&text[range]),
        })
        .collect();
    (!lines.is_empty()).then(|| FileHits {
        store,
        path: path.to_owned(),
        lines,
    })
}

fn shown_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches('\r');
    if text.len() <= MAX_LINE_BYTES {
        return text.to_owned();
    }
    let mut cut = MAX_LINE_BYTES;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

/// The innermost chunk around each line, consecutive lines of one chunk together.
fn group_by_unit(
    store: &StoreRecord,
    path: &str,
    lines: Vec<GrepLine>,
    chunks: &[ChunkSpan],
) -> Vec<GrepUnit> {
    // Outer chunks before the ones they hold (same first line: the longer first), so the
    // innermost chunk around a line is the latest opened that has not ended: one pass over
    // the lines, which come in order.
    let mut spans: Vec<&ChunkSpan> = chunks.iter().collect();
    spans.sort_by_key(|c| (c.start_line, std::cmp::Reverse(c.end_line)));
    let mut open: Vec<&ChunkSpan> = Vec::new();
    let mut next = 0;
    let mut out: Vec<(Option<i64>, GrepUnit)> = Vec::new();
    for l in lines {
        while next < spans.len() && spans[next].start_line <= l.line {
            open.push(spans[next]);
            next += 1;
        }
        while open.last().is_some_and(|c| c.end_line < l.line) {
            open.pop();
        }
        // Overlapping windows are not nested: the latest opened that still holds the line.
        let around = open.iter().rev().find(|c| l.line <= c.end_line).copied();
        let key = around.map(|c| c.id);
        if let Some((k, unit)) = out.last_mut()
            && *k == key
        {
            // Lines between units (blank or whitespace) are one stretch of the file.
            unit.unit_lines[1] = unit.unit_lines[1].max(l.line);
            unit.lines.push(l);
            continue;
        }
        let unit = match around {
            Some(c) => GrepUnit {
                store: store.name.clone(),
                path: path.to_owned(),
                id: ResultId {
                    chunk: c.id,
                    line: None,
                }
                .to_string(),
                kind: c.kind.clone(),
                symbol: c.symbol.clone(),
                signature: None,
                chunk: Some(c.id),
                unit_lines: [c.start_line, c.end_line],
                lines: vec![l],
            },
            None => GrepUnit {
                store: store.name.clone(),
                path: path.to_owned(),
                id: String::new(),
                kind: "text".into(),
                symbol: None,
                signature: None,
                chunk: None,
                unit_lines: [l.line, l.line],
                lines: vec![l],
            },
        };
        out.push((key, unit));
    }
    out.into_iter().map(|(_, u)| u).collect()
}

fn glob_set(globs: &[String]) -> Result<Option<globset::GlobSet>, EngineError> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut b = globset::GlobSetBuilder::new();
    for g in globs {
        b.add(
            globset::Glob::new(g).map_err(|e| {
                EngineError::Input(format!("the path glob {g:?} does not parse: {e}"))
            })?,
        );
    }
    b.build()
        .map(Some)
        .map_err(|e| EngineError::Input(format!("the path globs do not parse: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(pattern: &str, text: &str) -> Vec<(u32, String)> {
        let re = RegexBuilder::new(pattern).multi_line(true).build().unwrap();
        matching_lines(&re, text.as_bytes())
            .into_iter()
            .map(|(n, r)| (n, text[r].to_owned()))
            .collect()
    }

    #[test]
    fn lines_match_as_ripgrep_counts_them() {
        let text = "fn a() {\n    b();\n}\n\nfn c() {}\n";
        assert_eq!(
            lines(r"^fn \w+", text),
            vec![(1, "fn a() {".into()), (5, "fn c() {}".into())]
        );
        // `\s` would take the newline: only lines that match alone count.
        assert_eq!(lines(r"\{\s+b", text), vec![]);
        assert_eq!(lines(r"b\(\);$", text), vec![(2, "    b();".into())]);
        // Every line, but not the empty one after the final newline.
        assert_eq!(lines("x*", "a\nb\n").len(), 2);
        assert_eq!(lines("^$", "a\n\nb").len(), 1);
        assert_eq!(lines("b", "a\nb"), vec![(2, "b".into())]);
        assert_eq!(lines("^$", ""), vec![]);
        // One line, several matches: once.
        assert_eq!(lines("o", "foo\nboo\n").len(), 2);
        // A byte order mark is not matched.
        let re = RegexBuilder::new("[^\\x00-\\x7F]")
            .multi_line(true)
            .build()
            .unwrap();
        assert!(file_hits(&re, 0, "a", "\u{FEFF}plain\n".as_bytes()).is_none());
        assert!(file_hits(&re, 0, "a", "\u{FEFF}café\n".as_bytes()).is_some());
        assert!(file_hits(&re, 0, "a", "café\n\0".as_bytes()).is_none());
    }
}
