//! `lore eval compare A.jsonl B.jsonl`: two judge runs side by side. The headline deltas are
//! paired: means over the queries judged in both runs (matched by their text, case and
//! spacing ignored), so a query that failed in one run moves nothing; those are listed
//! apart, with each run's own averages beside. Scores are read from the query lines, so a
//! run that stopped before its summary line can still be compared; what shaped each run
//! (mode, detail, limit, stores, judge, intent) comes from its summary, and a difference is
//! warned about.

use crate::judge::{DIMENSIONS, Scores, average};
use crate::metrics::round4;
use lore_engine::ExitKind;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum CompareError {
    #[error("{} does not exist", .0.display())]
    Missing(PathBuf),
    #[error("cannot read {}: {source}", .path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} line {line}: {message}", .path.display())]
    Line {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{} holds no judged queries; is it the output of `lore eval judge`?", .0.display())]
    Empty(PathBuf),
}

impl CompareError {
    pub fn exit_kind(&self) -> ExitKind {
        match self {
            CompareError::Missing(_) => ExitKind::NotFound,
            CompareError::Io { .. } => ExitKind::Internal,
            CompareError::Line { .. } | CompareError::Empty(_) => ExitKind::Input,
        }
    }
}

/// One query of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunQuery {
    pub query: String,
    /// `ok` or `failed`.
    pub status: String,
    /// Present when judged.
    pub scores: Option<Scores>,
    /// The judge left `overall` out (the line's is computed).
    pub overall_computed: bool,
}

/// A judge run read back.
#[derive(Debug, Clone)]
pub struct Run {
    pub path: PathBuf,
    pub queries: Vec<RunQuery>,
    /// The summary line's timestamp, when the run finished.
    pub finished: Option<String>,
    pub settings: RunSettings,
}

/// What shaped a run, as far as its file says: the search mode (from the summary, else the
/// first query line), the rest from the summary.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSettings {
    pub mode: Option<String>,
    pub detail: Option<String>,
    pub search_limit: Option<u64>,
    pub stores: Option<Vec<String>>,
    pub judge: Option<String>,
    /// `inferred` or `given`.
    pub search_intent: Option<String>,
}

impl RunSettings {
    /// `name: A … , B …` for each setting both runs record and that differs.
    fn differences(&self, b: &RunSettings) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |name: &str, x: Option<String>, y: Option<String>| {
            if let (Some(x), Some(y)) = (x, y)
                && x != y
            {
                out.push(format!("{name} differs: A {x}, B {y}"));
            }
        };
        check("mode", self.mode.clone(), b.mode.clone());
        check("detail", self.detail.clone(), b.detail.clone());
        check(
            "limit",
            self.search_limit.map(|n| n.to_string()),
            b.search_limit.map(|n| n.to_string()),
        );
        check(
            "stores",
            self.stores.as_ref().map(|s| s.join(",")),
            b.stores.as_ref().map(|s| s.join(",")),
        );
        check("judge", self.judge.clone(), b.judge.clone());
        check(
            "intent",
            self.search_intent.clone(),
            b.search_intent.clone(),
        );
        out
    }
}

#[derive(Deserialize)]
struct LineRecord {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    status: Option<String>,
    #[serde(default)]
    scores: Option<serde_json::Value>,
    /// A query line's flag (the summary line holds a count here).
    #[serde(default, rename = "overallComputed")]
    overall_computed: Option<serde_json::Value>,
    #[serde(default)]
    timestamp: Option<String>,
    /// `searchMode` (the design's name), `mode` in older runs.
    #[serde(default, alias = "mode", rename = "searchMode")]
    mode: Option<String>,
    #[serde(default)]
    detail: Option<String>,
    #[serde(default, rename = "searchLimit")]
    search_limit: Option<u64>,
    #[serde(default)]
    stores: Option<Vec<String>>,
    #[serde(default)]
    judge: Option<String>,
    #[serde(default, rename = "searchIntent")]
    search_intent: Option<String>,
}

/// Reads a judge run's JSONL; every line must be a query or summary record.
pub fn read_run(path: &Path) -> Result<Run, CompareError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(CompareError::Missing(path.to_path_buf()));
        }
        Err(source) => {
            return Err(CompareError::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let bad = |line: usize, message: String| CompareError::Line {
        path: path.to_path_buf(),
        line,
        message,
    };
    let mut queries = Vec::new();
    let mut finished = None;
    let mut settings = RunSettings::default();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let rec: LineRecord =
            serde_json::from_str(line).map_err(|e| bad(n, format!("not a JSON record ({e})")))?;
        match rec.kind.as_deref() {
            Some("summary") => {
                finished = rec.timestamp;
                settings = RunSettings {
                    mode: rec.mode.or(settings.mode),
                    detail: rec.detail,
                    search_limit: rec.search_limit,
                    stores: rec.stores,
                    judge: rec.judge,
                    search_intent: rec.search_intent,
                };
                continue;
            }
            Some("query") | None => {}
            Some(other) => {
                return Err(bad(n, format!("unknown record type {other:?}")));
            }
        }
        if settings.mode.is_none() {
            settings.mode = rec.mode;
        }
        let query = rec
            .query
            .filter(|q| !q.trim().is_empty())
            .ok_or_else(|| bad(n, "no \"query\"; not a judge record".into()))?;
        let scores = match rec.scores {
            Some(v) if !v.is_null() => Some(
                serde_json::from_value::<Scores>(v)
                    .map_err(|e| bad(n, format!("bad \"scores\": {e}")))?,
            ),
            _ => None,
        };
        let status = rec
            .status
            .unwrap_or_else(|| if scores.is_some() { "ok" } else { "failed" }.into());
        if status == "ok" && scores.is_none() {
            return Err(bad(n, "status ok but no \"scores\"".into()));
        }
        let judged = status == "ok";
        queries.push(RunQuery {
            query,
            status,
            scores: if judged { scores } else { None },
            overall_computed: rec
                .overall_computed
                .as_ref()
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false),
        });
    }
    if queries.is_empty() {
        return Err(CompareError::Empty(path.to_path_buf()));
    }
    Ok(Run {
        path: path.to_path_buf(),
        queries,
        finished,
        settings,
    })
}

/// One run's totals.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunStats {
    pub file: PathBuf,
    #[serde(flatten)]
    pub settings: RunSettings,
    pub total_queries: usize,
    pub judged_queries: usize,
    pub failed_queries: usize,
    /// Over every query this run judged (not paired: see `Comparison::averages`).
    pub average_scores: Option<Scores>,
    /// `false` when the run has no summary line (it stopped early).
    pub complete: bool,
}

/// One dimension's averages.
#[derive(Debug, Clone, Serialize)]
pub struct DimensionDelta {
    pub dimension: &'static str,
    pub a: Option<f64>,
    pub b: Option<f64>,
    /// `b - a`.
    pub delta: Option<f64>,
}

/// One query present in both runs.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryDelta {
    pub query: String,
    pub a: Option<Scores>,
    pub b: Option<Scores>,
    /// Per dimension `b - a`, when both were judged.
    pub delta: Option<Scores>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub a: RunStats,
    pub b: RunStats,
    /// How many queries both runs judged: the `averages` are over these.
    pub paired: usize,
    /// Paired means per dimension and their deltas.
    pub averages: Vec<DimensionDelta>,
    /// Shared queries, in A's order.
    pub queries: Vec<QueryDelta>,
    /// Shared queries judged in one run only (failed in the other): out of the deltas.
    pub judged_in_one: Vec<String>,
    pub only_in_a: Vec<String>,
    pub only_in_b: Vec<String>,
    /// Settings the two runs differ in (their scores may not be comparable).
    pub warnings: Vec<String>,
}

fn stats(run: &Run) -> RunStats {
    let judged: Vec<(Scores, bool)> = run
        .queries
        .iter()
        .filter_map(|q| q.scores.map(|s| (s, q.overall_computed)))
        .collect();
    RunStats {
        file: run.path.clone(),
        settings: run.settings.clone(),
        total_queries: run.queries.len(),
        judged_queries: judged.len(),
        failed_queries: run.queries.len() - judged.len(),
        average_scores: average(judged.into_iter()),
        complete: run.finished.is_some(),
    }
}

fn key(q: &str) -> String {
    q.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

fn diff(a: &Scores, b: &Scores) -> Scores {
    let (a, b) = (a.values(), b.values());
    Scores::from_values(std::array::from_fn(|i| round4(b[i] - a[i])))
}

/// Compares two runs (B against A).
pub fn compare(a: &Run, b: &Run) -> Comparison {
    let (sa, sb) = (stats(a), stats(b));
    // B's queries by key; a query asked twice pairs up in order.
    let mut in_b: HashMap<String, Vec<&RunQuery>> = HashMap::new();
    for q in b.queries.iter().rev() {
        in_b.entry(key(&q.query)).or_default().push(q);
    }
    let mut queries = Vec::new();
    let mut only_in_a = Vec::new();
    // Scores of the queries judged in both, each with whether its overall was computed.
    let mut both = Vec::new();
    for qa in &a.queries {
        match in_b.get_mut(&key(&qa.query)).and_then(|v| v.pop()) {
            Some(qb) => {
                if let Some((x, y)) = qa.scores.zip(qb.scores) {
                    both.push(((x, qa.overall_computed), (y, qb.overall_computed)));
                }
                queries.push(QueryDelta {
                    query: qa.query.clone(),
                    a: qa.scores,
                    b: qb.scores,
                    delta: qa.scores.zip(qb.scores).map(|(x, y)| diff(&x, &y)),
                });
            }
            None => only_in_a.push(qa.query.clone()),
        }
    }
    // What is left of B, in B's order.
    let mut only_in_b = Vec::new();
    let mut left: HashMap<String, usize> = in_b.iter().map(|(k, v)| (k.clone(), v.len())).collect();
    for qb in b.queries.iter().rev() {
        if let Some(n) = left.get_mut(&key(&qb.query))
            && *n > 0
        {
            *n -= 1;
            only_in_b.push(qb.query.clone());
        }
    }
    only_in_b.reverse();
    let (pa, pb) = (
        average(both.iter().map(|p| p.0)),
        average(both.iter().map(|p| p.1)),
    );
    let averages = DIMENSIONS
        .iter()
        .enumerate()
        .map(|(i, &dimension)| {
            let va = pa.map(|s| s.values()[i]);
            let vb = pb.map(|s| s.values()[i]);
            DimensionDelta {
                dimension,
                a: va,
                b: vb,
                delta: va.zip(vb).map(|(x, y)| round4(y - x)),
            }
        })
        .collect();
    let judged_in_one = queries
        .iter()
        .filter(|q| q.a.is_some() != q.b.is_some())
        .map(|q| q.query.clone())
        .collect();
    let warnings = sa.settings.differences(&sb.settings);
    Comparison {
        a: sa,
        b: sb,
        paired: both.len(),
        averages,
        queries,
        judged_in_one,
        only_in_a,
        only_in_b,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, lines: &[serde_json::Value]) -> PathBuf {
        let p = dir.join(name);
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&p, text).unwrap();
        p
    }

    fn ok(q: &str, s: [f64; 5]) -> serde_json::Value {
        serde_json::json!({"type": "query", "status": "ok", "query": q, "mode": "hybrid",
            "scores": Scores::from_values(s), "results": []})
    }

    #[test]
    fn side_by_side_and_per_query() {
        let dir = tempfile::tempdir().unwrap();
        let a = write(
            dir.path(),
            "a.jsonl",
            &[
                ok("retry backoff", [0.5, 0.5, 0.5, 0.5, 0.5]),
                ok("Parse JSON", [0.8, 0.6, 0.4, 0.2, 0.6]),
                serde_json::json!({"type": "query", "status": "failed", "query": "broken", "error": "x"}),
                ok("only a", [1.0; 5]),
                serde_json::json!({"type": "summary", "timestamp": "2026-01-01T00:00:00Z", "mode": "fts"}),
            ],
        );
        let b = write(
            dir.path(),
            "b.jsonl",
            &[
                ok("parse  json", [0.9, 0.6, 0.5, 0.4, 0.7]),
                ok("retry backoff", [0.7, 0.4, 0.5, 0.5, 0.6]),
                ok("broken", [0.3; 5]),
                ok("only b", [0.0; 5]),
            ],
        );
        let c = compare(&read_run(&a).unwrap(), &read_run(&b).unwrap());
        assert_eq!(
            (
                c.a.total_queries,
                c.a.judged_queries,
                c.a.failed_queries,
                c.a.complete
            ),
            (4, 3, 1, true)
        );
        assert_eq!(
            (c.b.total_queries, c.b.failed_queries, c.b.complete),
            (4, 0, false)
        );
        assert_eq!(
            (c.a.settings.mode.as_deref(), c.b.settings.mode.as_deref()),
            (Some("fts"), Some("hybrid"))
        );
        assert_eq!(c.warnings, ["mode differs: A fts, B hybrid"]);
        // Each run's own averages differ by -0.2917 in relevance, but over the two queries
        // both judged the delta is +0.15.
        assert_eq!(
            (
                c.a.average_scores.unwrap().relevance,
                c.b.average_scores.unwrap().relevance
            ),
            (0.7667, 0.475)
        );
        assert_eq!(c.paired, 2);
        let rel = &c.averages[0];
        assert_eq!(rel.dimension, "relevance");
        assert_eq!(rel.a, Some(0.65));
        assert_eq!(rel.b, Some(0.8));
        assert_eq!(rel.delta, Some(0.15));
        assert_eq!(c.judged_in_one, vec!["broken"]);
        assert_eq!(c.queries.len(), 3);
        assert_eq!(c.queries[0].query, "retry backoff");
        assert_eq!(
            c.queries[0].delta,
            Some(Scores::from_values([0.2, -0.1, 0.0, 0.0, 0.1]))
        );
        assert_eq!(c.queries[1].query, "Parse JSON");
        assert_eq!(c.queries[1].delta.map(|d| d.overall), Some(0.1));
        // Failed in A, judged in B: no delta.
        assert_eq!(c.queries[2].query, "broken");
        assert!(c.queries[2].a.is_none() && c.queries[2].b.is_some());
        assert!(c.queries[2].delta.is_none());
        assert_eq!(c.only_in_a, vec!["only a"]);
        assert_eq!(c.only_in_b, vec!["only b"]);
    }

    #[test]
    fn clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_run(&dir.path().join("nope.jsonl")).unwrap_err();
        assert!(matches!(e, CompareError::Missing(_)));
        assert!(e.to_string().ends_with("nope.jsonl does not exist"), "{e}");

        let p = dir.path().join("garbled.jsonl");
        std::fs::write(
            &p,
            format!("{}\n\n{{\"query\": \"x\", \"sco", ok("a", [0.5; 5])),
        )
        .unwrap();
        let e = read_run(&p).unwrap_err().to_string();
        assert!(e.contains("garbled.jsonl line 3: not a JSON record"), "{e}");

        let p = write(
            dir.path(),
            "range.jsonl",
            &[serde_json::json!({"query": "a", "status": "ok", "scores": {"relevance": 1}})],
        );
        let e = read_run(&p).unwrap_err().to_string();
        assert!(e.contains("line 1: bad \"scores\""), "{e}");

        let p = write(
            dir.path(),
            "labeled.jsonl",
            &[serde_json::json!({"type": "summary"})],
        );
        let e = read_run(&p).unwrap_err();
        assert!(e.to_string().contains("holds no judged queries"), "{e}");
        assert_eq!(e.exit_kind(), ExitKind::Input);

        let p = write(
            dir.path(),
            "other.jsonl",
            &[serde_json::json!({"ndcg10": 0.5})],
        );
        let e = read_run(&p).unwrap_err().to_string();
        assert!(e.contains("line 1: no \"query\""), "{e}");
    }
}
