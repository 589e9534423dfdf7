//! The judge runs kept in a data dir (`<data>/eval/judge/<UTC timestamp>.jsonl`), for a
//! person to look back over: each run's summary as listed, and one run's lines whole. The
//! lines are returned as the judge wrote them (its documented format), so the CLI, REST and
//! the web page show the same thing.

use crate::compare::CompareError;
use lore_core::DataDir;
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Largest run file read, in bytes (a run of 15 queries is about 100 KB).
const MAX_RUN_BYTES: u64 = 32 * 1024 * 1024;

/// Where `lore eval judge` writes its runs unless told otherwise.
pub fn default_dir(data: &DataDir) -> PathBuf {
    data.root().join("eval").join("judge")
}

/// A run as a list shows it.
#[derive(Debug, Clone, Serialize)]
pub struct RunEntry {
    /// The file's name (`2026-12-04T10-00-00Z.jsonl`): what [`read_run_lines`] takes.
    pub name: String,
    /// Query lines in the file.
    pub queries: usize,
    /// The run's summary line (averageScores, judgedQueries, failedQueries, searchMode, …);
    /// absent when the run stopped before writing it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
}

/// One run: its summary and every query line, in order.
#[derive(Debug, Clone, Serialize)]
pub struct RunLines {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
    pub queries: Vec<Value>,
}

/// Every run in `dir`, oldest first (names are UTC timestamps). A missing folder has none.
pub fn list_runs(dir: &Path) -> Result<Vec<RunEntry>, CompareError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(CompareError::Io {
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| valid_name(n))
        .collect();
    names.sort_by_key(|n| order(n));
    let mut runs = Vec::with_capacity(names.len());
    for name in names {
        // A file that is not a judge run (or not readable) is left out of the list.
        if let Ok(run) = read_run_lines(dir, &name) {
            runs.push(RunEntry {
                name: run.name,
                queries: run.queries.len(),
                summary: run.summary,
            });
        }
    }
    Ok(runs)
}

/// A run's place in time: its timestamp, then the `-N` a second run in the same second gets
/// (`…Z.jsonl` before `…Z-2.jsonl`, which plain text order would swap).
fn order(name: &str) -> (String, u32) {
    let stem = name.strip_suffix(".jsonl").unwrap_or(name);
    match stem.rsplit_once('-') {
        Some((base, n)) if base.ends_with('Z') => match n.parse() {
            Ok(n) => (base.to_string(), n),
            Err(_) => (stem.to_string(), 1),
        },
        _ => (stem.to_string(), 1),
    }
}

/// A run's file name: `NAME.jsonl` in the folder itself (no path, not hidden), not the
/// `.queries.json` beside it.
fn valid_name(name: &str) -> bool {
    name.ends_with(".jsonl")
        && !name.starts_with('.')
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control)
}

/// The run `name` in `dir`, read whole.
pub fn read_run_lines(dir: &Path, name: &str) -> Result<RunLines, CompareError> {
    // Errors name the run as asked for, never the folder (a server's data dir).
    let (shown, path) = (PathBuf::from(name), dir.join(name));
    if !valid_name(name) {
        return Err(CompareError::Line {
            path: shown,
            line: 0,
            message: "not a judge run: give a run's file name such as 2026-12-04T10-00-00Z.jsonl"
                .into(),
        });
    }
    let io = |source| CompareError::Io {
        path: shown.clone(),
        source,
    };
    let meta = match std::fs::symlink_metadata(&path) {
        Ok(m) if m.is_file() => m,
        Ok(_) => return Err(CompareError::Missing(shown)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CompareError::Missing(shown));
        }
        Err(e) => return Err(io(e)),
    };
    if meta.len() > MAX_RUN_BYTES {
        return Err(CompareError::Line {
            path: shown,
            line: 0,
            message: format!("larger than {MAX_RUN_BYTES} bytes; not a judge run"),
        });
    }
    let text = std::fs::read_to_string(&path).map_err(io)?;
    let mut summary = None;
    let mut queries = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| CompareError::Line {
            path: shown.clone(),
            line: i + 1,
            message: format!("not JSON: {e}"),
        })?;
        match v.get("type").and_then(Value::as_str) {
            Some("summary") => summary = Some(v),
            _ if v.get("query").is_some() => queries.push(v),
            _ => {
                return Err(CompareError::Line {
                    path: shown.clone(),
                    line: i + 1,
                    message: "neither a query nor a summary record".into(),
                });
            }
        }
    }
    if summary.is_none() && queries.is_empty() {
        return Err(CompareError::Empty(shown));
    }
    Ok(RunLines {
        name: name.to_string(),
        summary,
        queries,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_listed_oldest_first_and_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::write(
            d.join("2026-12-02T00-00-00Z.jsonl"),
            "{\"type\":\"query\",\"query\":\"b\",\"scores\":{\"overall\":0.5}}\n\
             {\"type\":\"summary\",\"averageScores\":{\"overall\":0.5},\"totalQueries\":1}\n",
        )
        .unwrap();
        std::fs::write(
            d.join("2026-12-01T00-00-00Z.jsonl"),
            "{\"type\":\"query\",\"query\":\"a\",\"status\":\"failed\"}\n",
        )
        .unwrap();
        std::fs::write(d.join("2026-12-01T00-00-00Z.queries.json"), "[]").unwrap();
        std::fs::write(
            d.join("2026-12-01T00-00-00Z-2.jsonl"),
            "{\"type\":\"query\",\"query\":\"c\"}\n",
        )
        .unwrap();
        std::fs::write(d.join("notes.jsonl"), "not json\n").unwrap();

        let runs = list_runs(d).unwrap();
        let names: Vec<&str> = runs.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "2026-12-01T00-00-00Z.jsonl",
                "2026-12-01T00-00-00Z-2.jsonl",
                "2026-12-02T00-00-00Z.jsonl"
            ]
        );
        assert!(runs[0].summary.is_none(), "a run that stopped early");
        assert_eq!(
            runs[2].summary.as_ref().unwrap()["averageScores"]["overall"],
            0.5
        );

        let run = read_run_lines(d, "2026-12-02T00-00-00Z.jsonl").unwrap();
        assert_eq!(run.queries[0]["query"], "b");
        for bad in ["../x.jsonl", "a/b.jsonl", ".hidden.jsonl", "x.json"] {
            assert!(
                matches!(read_run_lines(d, bad), Err(CompareError::Line { .. })),
                "{bad}"
            );
        }
        assert!(matches!(
            read_run_lines(d, "none.jsonl"),
            Err(CompareError::Missing(_))
        ));
        assert!(list_runs(&d.join("missing")).unwrap().is_empty());
    }
}
