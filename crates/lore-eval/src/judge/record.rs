//! The run file: one JSON line per query, written and flushed as soon as it is judged, then
//! the summary line.

use super::JudgeError;
use super::answer::{Analysis, GeneratedQuery, JudgeAnswer, Scores};
use super::io_err;
use lore_engine::Mode;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

/// One search result as recorded and shown to the judge.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResultView {
    pub rank: u32,
    pub score: f64,
    /// `store:path:start-end`.
    pub source: String,
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    pub preview: String,
    /// The result id (see `lore context`).
    pub id: String,
    /// The start of the result's unit, shown to the judge to grade relevance by when the
    /// agent's view does not hold the unit (minimal and contextual detail; see
    /// `prompt::bounded_code`); not recorded: `id` leads to it.
    #[serde(skip)]
    pub code: Option<String>,
    /// The result as the agent receives it (its JSON in a search response at the run's
    /// detail), cut to `prompt::AGENT_VIEW_CHARS`; not recorded.
    #[serde(skip)]
    pub agent_view: String,
}

/// One query's line: the judged answer, or why it failed.
pub(super) struct Line {
    pub(super) index: usize,
    pub(super) timestamp: String,
    pub(super) query: GeneratedQuery,
    pub(super) mode: Mode,
    pub(super) results: Vec<ResultView>,
    pub(super) answer: Option<JudgeAnswer>,
    pub(super) error: Option<String>,
    pub(super) attempts: u32,
    /// Which of the accepted answer's JSON values was taken, of how many.
    pub(super) answer_json: Option<AnswerJson>,
    /// The judge could not be reached at all (not recorded: `error` says so).
    pub(super) unreachable: bool,
    /// The intent the search ranked with, if any, and whether it was given or inferred.
    pub(super) intent_used: Option<IntentRecord>,
    /// The answer's fields cut to size (`answer::cap_answer`).
    pub(super) cut: Vec<String>,
    pub(super) judge_ms: u64,
}

/// The intent a search ranked with: `source` is `given` (the query's generated intent,
/// `--given-intent`) or `inferred` (from the wording, as in an agent's plain search).
#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct IntentRecord {
    pub(super) intent: &'static str,
    pub(super) source: &'static str,
}

/// The JSON value of the answer that was taken (1-based; the last that matched the
/// schema) and how many the answer held: a model's drafts and repeated schemas are others.
#[derive(Debug, Clone, Copy, Serialize)]
pub(super) struct AnswerJson {
    pub(super) used: usize,
    pub(super) found: usize,
}

/// A query line as written: the design's fields under the design's names (`timestamp`,
/// `query`, `queryIntent`, `searchMode`, `resultCount`, `scores`, `analysis`,
/// `suggestions`, `results` — the judge's verdict per result), lore's additions under
/// names of their own (the search hits are `hits`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct LineRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    index: usize,
    timestamp: &'a str,
    status: &'static str,
    query: &'a str,
    query_intent: &'a str,
    search_mode: &'static str,
    result_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    scores: Option<Scores>,
    #[serde(skip_serializing_if = "Option::is_none")]
    analysis: Option<&'a Analysis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestions: Option<&'a [String]>,
    /// The judge's verdict per result, by rank, with the result's source and score.
    #[serde(skip_serializing_if = "Option::is_none")]
    results: Option<Vec<AssessedResult<'a>>>,
    /// `null` when the search ranked without an intent.
    intent_used: Option<IntentRecord>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    expected_content_types: &'a [String],
    /// The judge left `overall` out; `scores.overall` is the mean of the other four.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    overall_computed: bool,
    /// Ranks shown to the judge that its answer did not assess.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unassessed_ranks: Vec<u32>,
    /// Fields of the answer cut to size, each ending `… [cut N characters]`.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    cut_fields: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    attempts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    answer_json: Option<AnswerJson>,
    judge_ms: u64,
    /// The search results the judge was shown.
    hits: &'a [ResultView],
}

/// One entry of a line's `results`: the result as searched, the judge's verdict on it.
#[derive(Serialize)]
pub(super) struct AssessedResult<'a> {
    rank: u32,
    source: &'a str,
    score: f64,
    relevant: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

impl Line {
    pub(super) fn record(&self) -> LineRecord<'_> {
        let a = self.answer.as_ref();
        let assessed = a.map(|a| {
            let mut list: Vec<AssessedResult> = a
                .result_assessments
                .iter()
                .filter_map(|ra| {
                    let hit = self.results.iter().find(|r| r.rank == ra.rank)?;
                    Some(AssessedResult {
                        rank: ra.rank,
                        source: &hit.source,
                        score: hit.score,
                        relevant: ra.relevant,
                        note: ra.note.as_deref(),
                    })
                })
                .collect();
            list.sort_by_key(|r| r.rank);
            list
        });
        LineRecord {
            kind: "query",
            index: self.index,
            timestamp: &self.timestamp,
            status: if a.is_some() { "ok" } else { "failed" },
            query: &self.query.query,
            query_intent: &self.query.intent,
            search_mode: self.mode.as_str(),
            result_count: self.results.len(),
            scores: a.map(|a| a.scores.resolved()),
            analysis: a.map(|a| &a.analysis),
            suggestions: a.map(|a| a.suggestions.as_slice()),
            results: assessed,
            intent_used: self.intent_used,
            expected_content_types: &self.query.expected_content_types,
            overall_computed: a.is_some_and(|a| a.scores.overall_computed()),
            unassessed_ranks: a.map_or_else(Vec::new, |a| {
                (1..=self.results.len() as u32)
                    .filter(|r| !a.result_assessments.iter().any(|ra| ra.rank == *r))
                    .collect()
            }),
            cut_fields: &self.cut,
            error: self.error.as_deref(),
            attempts: self.attempts,
            answer_json: self.answer_json,
            judge_ms: self.judge_ms,
            hits: &self.results,
        }
    }
}

/// The run's file, created new: `<stamp>.jsonl`, or `<stamp>-2.jsonl`… when taken.
pub(super) fn create_run_file(
    dir: &Path,
    stamp: &str,
) -> Result<(PathBuf, std::fs::File), JudgeError> {
    for n in 1..1000 {
        let name = if n == 1 {
            format!("{stamp}.jsonl")
        } else {
            format!("{stamp}-{n}.jsonl")
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => return Ok((path, f)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(io_err("cannot create", &path)(e)),
        }
    }
    Err(JudgeError::Input(format!(
        "too many runs named {stamp} in {}",
        dir.display()
    )))
}

/// One line, written and flushed at once (a crash keeps every finished line).
pub(super) fn append_line(
    file: &mut std::fs::File,
    path: &Path,
    value: &impl Serialize,
) -> Result<(), JudgeError> {
    let mut line = serde_json::to_string(value).map_err(|e| {
        JudgeError::Io(
            format!("cannot encode a line of {}", path.display()),
            e.into(),
        )
    })?;
    line.push('\n');
    file.write_all(line.as_bytes())
        .and_then(|_| file.flush())
        .map_err(io_err("cannot write", path))
}

pub(super) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), JudgeError> {
    let tmp = path.with_extension("part");
    std::fs::write(&tmp, bytes).map_err(io_err("cannot write", &tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err("cannot write", path))
}
