//! A run: settle the stores and the queries, then per query one search, one judgement and
//! one line in the run file; last the summary.

use super::answer::{
    GeneratedQueries, GeneratedQuery, JudgeAnswer, MAX_FIELD_CHARS, cap_answer, cut_text,
    validate_answer,
};
use super::prompt::{JUDGE_SYSTEM, agent_view, bounded_code, judge_prompt};
use super::queries::{generate_queries, read_queries_file};
use super::record::{
    AnswerJson, IntentRecord, Line, ResultView, append_line, create_run_file, write_atomic,
};
use super::summary::{Summary, summarize};
use super::{JudgeError, JudgeSettings, io_err};
use lore_core::UtcTime;
use lore_engine::{Detail, Engine, Intent, Phase, Progress, SearchRequest};
use lore_llm::{LlmClient, ask_json};
use serde::Serialize;
use std::path::PathBuf;
use std::time::Instant;

/// Queries that fail to reach the judge, with none judged yet, before a run stops.
const UNREACHABLE_STOP: usize = 2;

/// A run's inputs besides the settings.
#[derive(Debug, Clone)]
pub struct JudgeOptions {
    pub settings: JudgeSettings,
    /// Reuse these queries instead of generating them: a generated-queries JSON file
    /// (`{"queries": [...]}` or a bare array) or the JSONL of an earlier run.
    pub queries_file: Option<PathBuf>,
    /// With `queries_file`: keep only the first `settings.query_count` queries (else all).
    pub limit_file_queries: bool,
    /// Where `<timestamp>.jsonl` (and `<timestamp>.queries.json`) go.
    pub out_dir: PathBuf,
}

/// What `run` returns.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeReport {
    #[serde(flatten)]
    pub summary: Summary,
    /// The run's JSONL.
    pub out: PathBuf,
    /// The generated queries, saved for `--queries-file` (absent when they came from a file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queries_out: Option<PathBuf>,
}

/// Runs the judge: queries (generated or from a file), one search and one judgement each,
/// one line per query in the output as soon as it is judged, then the summary line.
pub fn run(
    engine: &Engine,
    llm: &LlmClient,
    opts: &JudgeOptions,
    progress: &dyn Progress,
) -> Result<JudgeReport, JudgeError> {
    let s = &opts.settings;
    s.validate()?;
    let stores = resolve_stores(engine, &s.stores)?;
    let started = UtcTime::now();

    let (queries, queries_from, generated) = match &opts.queries_file {
        Some(path) => {
            let mut q = read_queries_file(path)?;
            if opts.limit_file_queries {
                q.truncate(s.query_count);
            }
            (q, path.display().to_string(), false)
        }
        None => {
            progress.message(&format!(
                "asking {} for {} queries about {}",
                llm.backend().describe(),
                s.query_count,
                stores.join(", ")
            ));
            let q = generate_queries(engine, llm, &stores, s.query_count, s.max_retries)?;
            (q, "generated".to_string(), true)
        }
    };

    std::fs::create_dir_all(&opts.out_dir).map_err(io_err("cannot create", &opts.out_dir))?;
    let (out, mut file) = create_run_file(&opts.out_dir, &started.compact())?;
    let queries_out = if generated {
        let p = out.with_extension("queries.json");
        let text = serde_json::to_string_pretty(&GeneratedQueries {
            queries: queries.clone(),
        })
        .map_err(|e| JudgeError::Io("cannot encode queries".into(), e.into()))?;
        write_atomic(&p, text.as_bytes())?;
        Some(p)
    } else {
        None
    };

    let judge_llm = llm.clone().with_temperature(Some(0.0));
    let mut judged: Vec<JudgeAnswer> = Vec::new();
    let mut failed = 0usize;
    progress.start(Phase::Queries, queries.len() as u64);
    let mut stopped = None;
    let outcome = (|| {
        for (i, q) in queries.iter().enumerate() {
            let line = judge_one(engine, &judge_llm, s, &stores, i + 1, q)?;
            match &line.answer {
                Some(a) => judged.push(a.clone()),
                None => failed += 1,
            }
            append_line(&mut file, &out, &line.record())?;
            progress.advance(Phase::Queries, 1);
            // A judge that nobody answers for the first queries will not answer the rest:
            // stop instead of retrying every query against it.
            if judged.is_empty() && line.unreachable && i + 1 >= UNREACHABLE_STOP {
                stopped = Some(format!(
                    "stopped after {} queries: the judge ({}) could not be reached for any",
                    i + 1,
                    llm.backend().describe()
                ));
                break;
            }
        }
        Ok::<(), JudgeError>(())
    })();
    progress.finish(Phase::Queries);
    outcome?;

    let summary = summarize(
        &judged,
        failed,
        Summary {
            kind: "summary".into(),
            timestamp: UtcTime::now().rfc3339(),
            total_queries: queries.len(),
            judged_queries: 0,
            failed_queries: 0,
            average_scores: None,
            overall_computed: 0,
            top_issues: Vec::new(),
            top_issue_counts: Vec::new(),
            recommended_focus: None,
            focus_dimension: None,
            search_mode: s.mode.as_str().into(),
            search_limit: s.search_limit,
            detail: s.detail.as_str().into(),
            stores,
            judge: llm.backend().describe(),
            queries_from,
            search_intent: if s.given_intent { "given" } else { "inferred" }.into(),
            stopped,
        },
    );
    append_line(&mut file, &out, &summary)?;
    Ok(JudgeReport {
        summary,
        out,
        queries_out,
    })
}

fn resolve_stores(engine: &Engine, names: &[String]) -> Result<Vec<String>, JudgeError> {
    if names.is_empty() {
        let all: Vec<String> = engine.stores()?.into_iter().map(|s| s.store.name).collect();
        if all.is_empty() {
            return Err(JudgeError::Input(
                "there are no stores yet; add one with `lore store add NAME PATH`".into(),
            ));
        }
        return Ok(all);
    }
    let mut out = Vec::new();
    for n in names {
        let rec = engine.store_record(n)?;
        if !out.contains(&rec.name) {
            out.push(rec.name);
        }
    }
    Ok(out)
}

fn judge_one(
    engine: &Engine,
    llm: &LlmClient,
    s: &JudgeSettings,
    stores: &[String],
    index: usize,
    q: &GeneratedQuery,
) -> Result<Line, JudgeError> {
    let req = SearchRequest {
        stores: stores.to_vec(),
        mode: s.mode,
        limit: s.search_limit,
        freshness: false,
        intent: if s.given_intent {
            Intent::parse(q.intent.trim().to_ascii_lowercase().as_str())
        } else {
            None
        },
        detail: s.detail,
        ..SearchRequest::new(q.query.clone())
    };
    let resp = engine.search(&req)?;
    let intent_used = resp.intent.map(|i| IntentRecord {
        intent: i.intent.as_str(),
        source: if i.inferred { "inferred" } else { "given" },
    });
    let results: Vec<ResultView> = resp
        .results
        .iter()
        .enumerate()
        .map(|(i, h)| ResultView {
            rank: i as u32 + 1,
            score: (f64::from(h.score) * 10_000.0).round() / 10_000.0,
            source: format!(
                "{}:{}:{}-{}",
                h.unit.store, h.unit.path, h.unit.start_line, h.unit.end_line
            ),
            kind: h.unit.kind.clone(),
            symbol: h.unit.symbol.clone(),
            preview: h
                .snippet
                .clone()
                .or_else(|| h.summary.clone())
                .unwrap_or_default(),
            id: h.unit.id.clone(),
            // At full detail the agent's view holds the unit already.
            code: (s.detail != Detail::Full)
                .then(|| unit_code(engine, &h.unit.id))
                .flatten(),
            agent_view: agent_view(h),
        })
        .collect();
    let prompt = judge_prompt(q, s.mode, s.detail, s.search_limit, &results);
    let n = results.len();
    let t = Instant::now();
    let asked = ask_json::<JudgeAnswer>(llm, JUDGE_SYSTEM, &prompt, s.max_retries, |a| {
        validate_answer(a, n)
    });
    let judge_ms = t.elapsed().as_millis() as u64;
    let unreachable = asked.as_ref().is_err_and(|e| e.is_unreachable());
    let mut cut = Vec::new();
    let (answer, error, attempts, answer_json) = match asked {
        Ok(mut a) => {
            cut = cap_answer(&mut a.value);
            let json = AnswerJson {
                used: a.used,
                found: a.found,
            };
            (Some(a.value), None, a.attempts, Some(json))
        }
        Err(e) if e.is_fatal() => return Err(JudgeError::Stopped { index, source: e }),
        Err(e) => (
            None,
            {
                // An error can quote the answer.
                let text = e.to_string();
                Some(cut_text(&text, MAX_FIELD_CHARS).unwrap_or(text))
            },
            e.attempts(),
            None,
        ),
    };
    Ok(Line {
        index,
        timestamp: UtcTime::now().rfc3339(),
        query: q.clone(),
        mode: s.mode,
        results,
        answer,
        error,
        attempts,
        answer_json,
        unreachable,
        intent_used,
        cut,
        judge_ms,
    })
}

/// The start of a result's unit for the judge, read through the engine whatever detail the
/// search used (at minimal detail a result without a doc comment has an empty preview, and
/// the judge would grade nothing). `None` when the unit cannot be read (the index changed
/// since the search): the judge then sees the preview only.
fn unit_code(engine: &Engine, id: &str) -> Option<String> {
    let unit = engine.context(id).ok()?;
    let left_out = unit
        .full
        .truncated
        .as_ref()
        .map_or(0, |t| t.lines_left_out as usize);
    Some(bounded_code(&unit.full.content, left_out))
}
