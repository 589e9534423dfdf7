//! `lore eval judge`: an LLM grades lore's search results. Queries are generated from a
//! sample of the stores' content (or read from a saved set), each one is searched through
//! [`Engine::search`], and the judge scores the result list on five dimensions, with
//! analysis, suggestions and a verdict per result. One JSON line per query is appended to
//! `<out-dir>/<UTC timestamp>.jsonl` as soon as it is judged, then a summary line.
//!
//! The judge must answer JSON matching `schemas/judge-answer.schema.json` (derived from
//! [`JudgeAnswer`]; the generated queries from [`GeneratedQueries`]). An invalid answer is
//! retried with the error; a query whose answers stay invalid is recorded as failed and
//! left out of the averages.

use crate::metrics::round4;
use lore_core::UtcTime;
use lore_engine::{
    Detail, Engine, EngineError, ExitKind, Intent, Mode, Phase, Progress, SearchRequest,
};
use lore_llm::{LlmClient, LlmError, LlmSettings, ask_json};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The JSON Schema of the judge's answer, as committed (see [`judge_answer_schema`]).
pub const JUDGE_ANSWER_SCHEMA: &str = include_str!("../schemas/judge-answer.schema.json");
/// The JSON Schema of generated queries, as committed (see [`generated_queries_schema`]).
pub const GENERATED_QUERIES_SCHEMA: &str = include_str!("../schemas/generated-queries.schema.json");

/// The scored dimensions, in the order of [`Scores::values`].
pub const DIMENSIONS: [&str; 5] = [
    "relevance",
    "ranking",
    "coverage",
    "snippetQuality",
    "overall",
];

/// Scores of one query's result list, each from 0 (worst) to 1 (best).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Scores {
    /// How many results, and how strongly, match the query and its intent.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub relevance: f64,
    /// Whether the most useful results come first.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ranking: f64,
    /// Whether the results together hold what the searcher needs.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub coverage: f64,
    /// Whether each preview shows why its result matches, without opening the file.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub snippet_quality: f64,
    /// The overall judgement of this result list for this query.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub overall: f64,
}

impl Scores {
    /// The scores in the order of [`DIMENSIONS`].
    pub fn values(&self) -> [f64; 5] {
        [
            self.relevance,
            self.ranking,
            self.coverage,
            self.snippet_quality,
            self.overall,
        ]
    }

    pub fn from_values(v: [f64; 5]) -> Scores {
        Scores {
            relevance: v[0],
            ranking: v[1],
            coverage: v[2],
            snippet_quality: v[3],
            overall: v[4],
        }
    }
}

/// One or two sentences per dimension explaining its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub relevance: String,
    pub ranking: String,
    pub coverage: String,
    pub snippet_quality: String,
    pub overall: String,
}

/// The judge's verdict on one result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultAssessment {
    /// The result's rank as shown (1 = first).
    #[schemars(range(min = 1))]
    pub rank: u32,
    /// The result's source as shown (store:path:lines).
    pub source: String,
    /// Whether the result is relevant to the query and its intent.
    pub relevant: bool,
    /// Why, briefly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The judge's answer for one query: scores, analysis, suggestions, a verdict per result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JudgeAnswer {
    pub scores: Scores,
    pub analysis: Analysis,
    /// Short, concrete changes to the search engine that would improve these results.
    pub suggestions: Vec<String>,
    /// Exactly one entry per result shown, by rank.
    pub result_assessments: Vec<ResultAssessment>,
}

/// A set of evaluation queries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedQueries {
    pub queries: Vec<GeneratedQuery>,
}

/// One evaluation query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedQuery {
    /// The text as a developer or an agent would type it.
    #[schemars(length(min = 1))]
    pub query: String,
    /// What the searcher is after: a lore intent (find-definition, …) or a short phrase.
    #[serde(default)]
    pub intent: String,
    /// Kinds of content a good answer holds: function, class, markdown section, test, …
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_content_types: Vec<String>,
}

fn schema_text<T: JsonSchema>() -> String {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema derived from [`JudgeAnswer`] (what `schemas/judge-answer.schema.json`
/// must hold).
pub fn judge_answer_schema() -> String {
    schema_text::<JudgeAnswer>()
}

/// The JSON Schema derived from [`GeneratedQueries`].
pub fn generated_queries_schema() -> String {
    schema_text::<GeneratedQueries>()
}

#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// Bad configuration or input files.
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Engine(#[from] EngineError),
    /// The LLM cannot be used at all (not configured, wrong key, command missing).
    #[error(transparent)]
    Llm(LlmError),
    #[error("cannot generate queries: {0}")]
    Generation(LlmError),
    #[error("judging stopped at query {index}: {source}")]
    Stopped {
        index: usize,
        #[source]
        source: LlmError,
    },
    #[error("{0}: {1}")]
    Io(String, #[source] std::io::Error),
}

impl JudgeError {
    /// How the command should end (see [`ExitKind`]).
    pub fn exit_kind(&self) -> ExitKind {
        match self {
            JudgeError::Input(_) => ExitKind::Input,
            JudgeError::Engine(e) => e.kind(),
            JudgeError::Llm(LlmError::NotConfigured { .. } | LlmError::Config(_)) => {
                ExitKind::Input
            }
            _ => ExitKind::Internal,
        }
    }
}

fn io_err(what: impl std::fmt::Display, path: &Path) -> impl FnOnce(std::io::Error) -> JudgeError {
    let what = format!("{what} {}", path.display());
    move |e| JudgeError::Io(what, e)
}

/// Everything that shapes a run. Defaults: 15 queries, limit 10, hybrid, all stores,
/// 3 retries, 60 s per LLM call, minimal detail, the LLM from the environment.
#[derive(Debug, Clone)]
pub struct JudgeSettings {
    pub query_count: usize,
    pub search_limit: usize,
    pub mode: Mode,
    /// Store names; empty means all stores.
    pub stores: Vec<String>,
    pub max_retries: u32,
    /// Per LLM call (one request, or one run of the command).
    pub timeout: Duration,
    pub detail: Detail,
    pub llm: LlmSettings,
}

impl Default for JudgeSettings {
    fn default() -> Self {
        JudgeSettings {
            query_count: 15,
            search_limit: 10,
            mode: Mode::Hybrid,
            stores: Vec::new(),
            max_retries: 3,
            timeout: Duration::from_secs(60),
            detail: Detail::Minimal,
            llm: LlmSettings::default(),
        }
    }
}

/// The config file: every key optional, unknown keys rejected.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfigFile {
    query_count: Option<usize>,
    search_limit: Option<usize>,
    search_mode: Option<String>,
    stores: Option<Vec<String>>,
    max_retries: Option<u32>,
    timeout_secs: Option<u64>,
    detail: Option<String>,
    judge: Option<JudgeSection>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeSection {
    command: Option<String>,
    url: Option<String>,
    model: Option<String>,
}

/// 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map_or(1, |t| t.matches('\n').count() + 1)
}

pub fn parse_mode(s: &str) -> Option<Mode> {
    Mode::parse(s.trim().to_ascii_lowercase().as_str())
}

pub fn parse_detail(s: &str) -> Option<Detail> {
    Detail::parse(s.trim().to_ascii_lowercase().as_str())
}

impl JudgeSettings {
    /// Applies a TOML config file over these settings (keys it leaves out keep their
    /// value). `[judge] url`/`model` override the environment's; `[judge] command` selects
    /// the command backend.
    pub fn apply_file(&mut self, path: &Path) -> Result<(), JudgeError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            JudgeError::Input(format!("cannot read config {}: {e}", path.display()))
        })?;
        self.apply_toml(&text, &path.display().to_string())
    }

    /// As [`apply_file`](Self::apply_file), from text; `origin` names it in errors.
    pub fn apply_toml(&mut self, text: &str, origin: &str) -> Result<(), JudgeError> {
        let file: ConfigFile = toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|s| format!(" line {}", line_of(text, s.start)))
                .unwrap_or_default();
            JudgeError::Input(format!(
                "config {origin}{at}: {}",
                e.message().trim().replace('\n', " ")
            ))
        })?;
        let bad =
            |key: &str, msg: String| JudgeError::Input(format!("config {origin}: {key} {msg}"));
        if let Some(v) = file.query_count {
            self.query_count = v;
        }
        if let Some(v) = file.search_limit {
            self.search_limit = v;
        }
        if let Some(v) = file.search_mode {
            self.mode = parse_mode(&v)
                .ok_or_else(|| bad("search_mode", format!("{v:?} is not hybrid, vector or fts")))?;
        }
        if let Some(v) = file.stores {
            self.stores = v;
        }
        if let Some(v) = file.max_retries {
            self.max_retries = v;
        }
        if let Some(v) = file.timeout_secs {
            self.timeout = Duration::from_secs(v);
        }
        if let Some(v) = file.detail {
            self.detail = parse_detail(&v).ok_or_else(|| {
                bad(
                    "detail",
                    format!("{v:?} is not minimal, contextual or full"),
                )
            })?;
        }
        if let Some(j) = file.judge {
            if j.command.is_some() {
                self.llm.command = j.command;
            }
            if j.url.is_some() {
                self.llm.url = j.url;
            }
            if j.model.is_some() {
                self.llm.model = j.model;
            }
        }
        self.validate()
            .map_err(|e| JudgeError::Input(format!("config {origin}: {e}")))
    }

    /// Checks the values (ranges) and returns what is wrong.
    pub fn validate(&self) -> Result<(), JudgeError> {
        let err = |m: &str| Err(JudgeError::Input(m.to_string()));
        if !(1..=500).contains(&self.query_count) {
            return err("query_count must be between 1 and 500");
        }
        if !(1..=100).contains(&self.search_limit) {
            return err("search_limit must be between 1 and 100");
        }
        if self.max_retries > 20 {
            return err("max_retries must be at most 20");
        }
        if self.timeout.is_zero() {
            return err("timeout_secs must be at least 1");
        }
        Ok(())
    }

    /// The LLM client these settings describe.
    pub fn client(&self) -> Result<LlmClient, JudgeError> {
        let backend = self
            .llm
            .backend("pass --judge-cmd")
            .map_err(JudgeError::Llm)?;
        Ok(LlmClient::new(backend, self.timeout))
    }
}

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
}

/// A suggestion and how many queries made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Issue {
    pub suggestion: String,
    pub count: usize,
}

/// The last line of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    #[serde(rename = "type")]
    pub kind: String,
    pub timestamp: String,
    pub total_queries: usize,
    pub judged_queries: usize,
    pub failed_queries: usize,
    /// Means over judged queries (failed ones excluded), rounded to 4 decimals; `null`
    /// when none was judged.
    pub average_scores: Option<Scores>,
    /// The most frequent suggestions (case and spacing ignored), most frequent first.
    pub top_issues: Vec<Issue>,
    /// The weakest of relevance, ranking, coverage and snippetQuality.
    pub recommended_focus: Option<String>,
    pub mode: String,
    pub search_limit: usize,
    pub detail: String,
    pub stores: Vec<String>,
    /// What judged (`model M at URL` or `command `C``).
    pub judge: String,
    /// `generated`, or the queries file.
    pub queries_from: String,
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

/// How many suggestions `topIssues` lists.
const TOP_ISSUES: usize = 5;
/// Units sampled for query generation, over all stores.
const SAMPLE_UNITS: usize = 40;

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
    let outcome = (|| {
        for (i, q) in queries.iter().enumerate() {
            let line = judge_one(engine, &judge_llm, s, &stores, i + 1, q)?;
            match &line.answer {
                Some(a) => judged.push(a.clone()),
                None => failed += 1,
            }
            append_line(&mut file, &out, &line.record())?;
            progress.advance(Phase::Queries, 1);
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
            top_issues: Vec::new(),
            recommended_focus: None,
            mode: s.mode.as_str().into(),
            search_limit: s.search_limit,
            detail: s.detail.as_str().into(),
            stores,
            judge: llm.backend().describe(),
            queries_from,
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

/// The run's file, created new: `<stamp>.jsonl`, or `<stamp>-2.jsonl`… when taken.
fn create_run_file(dir: &Path, stamp: &str) -> Result<(PathBuf, std::fs::File), JudgeError> {
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
fn append_line(
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

fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), JudgeError> {
    let tmp = path.with_extension("part");
    std::fs::write(&tmp, bytes).map_err(io_err("cannot write", &tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err("cannot write", path))
}

/// Reads a saved query set: generated-queries JSON (`{"queries": [...]}` or a bare array),
/// or JSONL with one `{query, intent?, expectedContentTypes?}` per line (a judge run's
/// output works; its summary line is skipped).
pub fn read_queries_file(path: &Path) -> Result<Vec<GeneratedQuery>, JudgeError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        JudgeError::Input(format!("cannot read queries file {}: {e}", path.display()))
    })?;
    let bad = |what: String| JudgeError::Input(format!("queries file {}: {what}", path.display()));
    let queries = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(v) => {
            let list = if v.is_array() {
                v
            } else {
                v["queries"].clone()
            };
            from_json::<Vec<GeneratedQuery>>(list).map_err(|e| {
                bad(format!(
                    "not a query set ({e}); expected {{\"queries\": [{{\"query\": …, \"intent\": …}}]}} or JSONL"
                ))
            })?
        }
        Err(_) => {
            let mut out = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if line.trim().is_empty() {
                    continue;
                }
                let v: serde_json::Value = serde_json::from_str(line)
                    .map_err(|e| bad(format!("line {} is not JSON: {e}", i + 1)))?;
                if v["type"] == "summary" {
                    continue;
                }
                let q: GeneratedQuery =
                    from_json(v).map_err(|e| bad(format!("line {}: {e}", i + 1)))?;
                out.push(q);
            }
            out
        }
    };
    if let Some(i) = queries.iter().position(|q| q.query.trim().is_empty()) {
        return Err(bad(format!("query {} is empty", i + 1)));
    }
    if queries.is_empty() {
        return Err(bad("holds no queries".into()));
    }
    Ok(queries)
}

fn from_json<T: serde::de::DeserializeOwned>(v: serde_json::Value) -> Result<T, String> {
    serde_json::from_value(v).map_err(|e| e.to_string())
}

/// A query's distinct key: case and spacing ignored.
fn norm(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['.', '!', ';'])
        .to_string()
}

/// The first `n` distinct non-empty queries.
fn distinct_queries(q: &[GeneratedQuery], n: usize) -> Vec<GeneratedQuery> {
    let mut seen = HashSet::new();
    q.iter()
        .filter(|g| !g.query.trim().is_empty() && seen.insert(norm(&g.query)))
        .take(n)
        .map(|g| GeneratedQuery {
            query: g.query.trim().to_string(),
            intent: g.intent.trim().to_string(),
            expected_content_types: g.expected_content_types.clone(),
        })
        .collect()
}

const GENERATE_SYSTEM: &str = "You write search queries for evaluating lore, a search engine \
over code and documents used by AI coding agents and developers. You answer with one JSON \
object and nothing else.";

/// The prompt asking for `n` queries about the sampled content.
pub fn generation_prompt(samples: &[lore_engine::sample::StoreSample], n: usize) -> String {
    let mut p = format!(
        "Write {n} search queries that a developer or an AI coding agent would plausibly type \
to find something in the content sampled below.\n\n\
Make them diverse:\n\
- from specific (an identifier, a function, type or file name, an error message) to \
conceptual (how something works, where a behaviour lives, why);\n\
- from short keyword queries (two or three words) to full natural-language questions;\n\
- a few deliberately ambiguous or underspecified;\n\
- spread over the files and topics of the sample, and answerable from this content: do not \
invent features it does not have.\n\n\
For each query give \"query\" (the text as typed), \"intent\" (what the searcher is after: \
find-definition, find-implementation, find-usage, find-pattern or find-documentation when \
one fits, else a short phrase) and optionally \"expectedContentTypes\" (the kinds of content \
a good answer holds, e.g. function, class, markdown section, config, test).\n\n\
Answer with one JSON object matching this JSON Schema:\n{GENERATED_QUERIES_SCHEMA}\n\
Content sample:\n"
    );
    for s in samples {
        p.push_str(&format!(
            "\n## Store `{}`{} ({} files, {} units)\n",
            s.store,
            s.description
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default(),
            s.files,
            s.chunks
        ));
        p.push_str("Files (a sample):\n");
        for path in &s.paths {
            p.push_str(&format!("  {path}\n"));
        }
        p.push_str("Units (a sample):\n");
        for u in &s.units {
            let unit = &u.unit;
            p.push_str(&format!(
                "- {}:{}-{} {} ({})",
                unit.path, unit.start_line, unit.end_line, unit.kind, unit.language
            ));
            if let Some(sym) = &unit.symbol {
                p.push_str(&format!(" `{sym}`"));
            }
            if !unit.headings.is_empty() {
                p.push_str(&format!(" under \"{}\"", unit.headings.join(" > ")));
            }
            p.push('\n');
            for l in u.preview.lines() {
                p.push_str(&format!("    | {l}\n"));
            }
        }
    }
    p
}

fn generate_queries(
    engine: &Engine,
    llm: &LlmClient,
    stores: &[String],
    n: usize,
    max_retries: u32,
) -> Result<Vec<GeneratedQuery>, JudgeError> {
    let per_store = (SAMPLE_UNITS / stores.len().max(1)).max(8);
    let mut samples = Vec::new();
    for s in stores {
        samples.push(engine.sample_units(s, per_store)?);
    }
    if samples.iter().all(|s| s.units.is_empty()) {
        return Err(JudgeError::Input(format!(
            "{} holds nothing indexed yet; run `lore index` first",
            stores.join(", ")
        )));
    }
    let prompt = generation_prompt(&samples, n);
    let client = llm.clone().with_temperature(Some(0.7));
    let answer =
        ask_json::<GeneratedQueries>(&client, GENERATE_SYSTEM, &prompt, max_retries, |g| {
            let got = distinct_queries(&g.queries, n).len();
            if got < n {
                Err(format!(
                    "it holds {got} distinct non-empty queries; {n} are needed"
                ))
            } else {
                Ok(())
            }
        })
        .map_err(|e| {
            if e.is_fatal() {
                JudgeError::Llm(e)
            } else {
                JudgeError::Generation(e)
            }
        })?;
    Ok(distinct_queries(&answer.value.queries, n))
}

const JUDGE_SYSTEM: &str = "You are a strict and consistent evaluator of search results for \
lore, a search engine over code and documents used by AI coding agents and developers. You \
judge only from what is shown. You answer with one JSON object and nothing else.";

/// The prompt asking the judge to grade one result list.
pub fn judge_prompt(
    q: &GeneratedQuery,
    mode: Mode,
    limit: usize,
    results: &[ResultView],
) -> String {
    let mut p = format!(
        "Evaluate how well these search results answer the query.\n\n\
Query: {}\nIntent: {}\n",
        serde_json::Value::from(q.query.as_str()),
        if q.intent.is_empty() {
            "(not given)"
        } else {
            &q.intent
        },
    );
    if !q.expected_content_types.is_empty() {
        p.push_str(&format!(
            "Expected content: {}\n",
            q.expected_content_types.join(", ")
        ));
    }
    p.push_str(&format!(
        "Search: mode {}, limit {limit}, {} results\n\n",
        mode.as_str(),
        results.len()
    ));
    if results.is_empty() {
        p.push_str("Results: none.\n\n");
    } else {
        p.push_str(
            "Results, best first, one JSON object per line (score: lore's fused score 0-1; \
source: store:path:lines; preview: the snippet lore showed):\n",
        );
        for r in results {
            let line = PromptResult {
                rank: r.rank,
                score: (r.score * 1000.0).round() / 1000.0,
                source: &r.source,
                kind: &r.kind,
                symbol: r.symbol.as_deref(),
                preview: &r.preview,
            };
            p.push_str(&serde_json::to_string(&line).unwrap_or_default());
            p.push('\n');
        }
        p.push('\n');
    }
    p.push_str(
        "Score each dimension from 0 (worst) to 1 (best):\n\
- relevance: how many results, and how strongly, match the query and its intent;\n\
- ranking: whether the most useful results come first;\n\
- coverage: whether the results together hold what the searcher needs, nothing important missing;\n\
- snippetQuality: whether each preview shows why its result matches, without opening the file;\n\
- overall: your overall judgement of this result list for this query.\n\
Explain each score in one or two sentences in \"analysis\". In \"suggestions\", give concrete, \
short changes to the search engine that would improve these results (ranking, chunking, \
snippets, query understanding), or an empty list. In \"resultAssessments\", assess every \
result exactly once: its rank, its source, whether it is relevant, and an optional short note.\n\n\
Answer with one JSON object matching this JSON Schema:\n",
    );
    p.push_str(JUDGE_ANSWER_SCHEMA);
    p
}

/// Checks what serde cannot: scores in [0, 1], and one assessment per result rank.
pub fn validate_answer(a: &JudgeAnswer, result_count: usize) -> Result<(), String> {
    for (name, v) in DIMENSIONS.iter().zip(a.scores.values()) {
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "scores.{name} is {v}; every score must be within [0, 1]"
            ));
        }
    }
    let mut seen = HashSet::new();
    for ra in &a.result_assessments {
        if ra.rank == 0 || ra.rank as usize > result_count {
            return Err(if result_count == 0 {
                "there are no results, so resultAssessments must be empty".to_string()
            } else {
                format!(
                    "resultAssessments: rank {} is not among the results (ranks 1 to {result_count})",
                    ra.rank
                )
            });
        }
        if !seen.insert(ra.rank) {
            return Err(format!(
                "resultAssessments: rank {} is assessed twice",
                ra.rank
            ));
        }
    }
    if seen.len() < result_count {
        let missing: Vec<String> = (1..=result_count as u32)
            .filter(|r| !seen.contains(r))
            .map(|r| r.to_string())
            .collect();
        return Err(format!(
            "resultAssessments must assess every result; missing ranks: {}",
            missing.join(", ")
        ));
    }
    Ok(())
}

/// One query's line: the judged answer, or why it failed.
struct Line {
    index: usize,
    timestamp: String,
    query: GeneratedQuery,
    mode: Mode,
    results: Vec<ResultView>,
    answer: Option<JudgeAnswer>,
    error: Option<String>,
    attempts: u32,
    judge_ms: u64,
}

/// A query line as written, fields in this order.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct LineRecord<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    index: usize,
    timestamp: &'a str,
    status: &'static str,
    query: &'a str,
    intent: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    expected_content_types: &'a [String],
    mode: &'static str,
    result_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    scores: Option<&'a Scores>,
    #[serde(skip_serializing_if = "Option::is_none")]
    analysis: Option<&'a Analysis>,
    #[serde(skip_serializing_if = "Option::is_none")]
    suggestions: Option<&'a [String]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_assessments: Option<&'a [ResultAssessment]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    attempts: u32,
    judge_ms: u64,
    results: &'a [ResultView],
}

impl Line {
    fn record(&self) -> LineRecord<'_> {
        let a = self.answer.as_ref();
        LineRecord {
            kind: "query",
            index: self.index,
            timestamp: &self.timestamp,
            status: if a.is_some() { "ok" } else { "failed" },
            query: &self.query.query,
            intent: &self.query.intent,
            expected_content_types: &self.query.expected_content_types,
            mode: self.mode.as_str(),
            result_count: self.results.len(),
            scores: a.map(|a| &a.scores),
            analysis: a.map(|a| &a.analysis),
            suggestions: a.map(|a| a.suggestions.as_slice()),
            result_assessments: a.map(|a| a.result_assessments.as_slice()),
            error: self.error.as_deref(),
            attempts: self.attempts,
            judge_ms: self.judge_ms,
            results: &self.results,
        }
    }
}

/// One result as the judge sees it.
#[derive(Serialize)]
struct PromptResult<'a> {
    rank: u32,
    score: f64,
    source: &'a str,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    symbol: Option<&'a str>,
    preview: &'a str,
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
        intent: Intent::parse(q.intent.trim().to_ascii_lowercase().as_str()),
        detail: s.detail,
        ..SearchRequest::new(q.query.clone())
    };
    let resp = engine.search(&req)?;
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
        })
        .collect();
    let prompt = judge_prompt(q, s.mode, s.search_limit, &results);
    let n = results.len();
    let t = Instant::now();
    let asked = ask_json::<JudgeAnswer>(llm, JUDGE_SYSTEM, &prompt, s.max_retries, |a| {
        validate_answer(a, n)
    });
    let judge_ms = t.elapsed().as_millis() as u64;
    let (answer, error, attempts) = match asked {
        Ok(a) => (Some(a.value), None, a.attempts),
        Err(e) if e.is_fatal() => return Err(JudgeError::Stopped { index, source: e }),
        Err(e) => (None, Some(e.to_string()), e.attempts()),
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
        judge_ms,
    })
}

/// Fills the counts, averages, top issues and focus of `base` from the judged answers.
fn summarize(judged: &[JudgeAnswer], failed: usize, base: Summary) -> Summary {
    let average_scores = average(judged.iter().map(|a| a.scores));
    let recommended_focus = average_scores.map(|avg| {
        let v = avg.values();
        // The weakest of the four specific dimensions (overall is their consequence).
        let mut best = 0;
        for i in 1..4 {
            if v[i] < v[best] {
                best = i;
            }
        }
        DIMENSIONS[best].to_string()
    });
    Summary {
        judged_queries: judged.len(),
        failed_queries: failed,
        average_scores,
        top_issues: top_issues(judged.iter().flat_map(|a| a.suggestions.iter()), TOP_ISSUES),
        recommended_focus,
        ..base
    }
}

/// Means per dimension, rounded to 4 decimals; `None` for no scores.
pub fn average(scores: impl Iterator<Item = Scores>) -> Option<Scores> {
    let mut sum = [0f64; 5];
    let mut n = 0usize;
    for s in scores {
        for (acc, v) in sum.iter_mut().zip(s.values()) {
            *acc += v;
        }
        n += 1;
    }
    (n > 0).then(|| Scores::from_values(sum.map(|x| round4(x / n as f64))))
}

/// The `k` most frequent suggestions (case, spacing and a final full stop ignored), most
/// frequent first, ties in order of first appearance; each shown as first written.
fn top_issues<'a>(suggestions: impl Iterator<Item = &'a String>, k: usize) -> Vec<Issue> {
    let mut counts: HashMap<String, (usize, usize, &str)> = HashMap::new();
    for (order, s) in suggestions.enumerate() {
        let key = norm(s);
        if key.is_empty() {
            continue;
        }
        counts.entry(key).or_insert((0, order, s.trim())).0 += 1;
    }
    let mut v: Vec<(usize, usize, &str)> = counts.into_values().collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    v.into_iter()
        .take(k)
        .map(|(count, _, s)| Issue {
            suggestion: s.to_string(),
            count,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(scores: [f64; 5], suggestions: &[&str], ranks: &[u32]) -> JudgeAnswer {
        JudgeAnswer {
            scores: Scores::from_values(scores),
            analysis: Analysis {
                relevance: "r".into(),
                ranking: "k".into(),
                coverage: "c".into(),
                snippet_quality: "s".into(),
                overall: "o".into(),
            },
            suggestions: suggestions.iter().map(|s| s.to_string()).collect(),
            result_assessments: ranks
                .iter()
                .map(|&rank| ResultAssessment {
                    rank,
                    source: format!("s:{rank}"),
                    relevant: true,
                    note: None,
                })
                .collect(),
        }
    }

    #[test]
    fn validation_of_answers() {
        assert!(validate_answer(&answer([0.5; 5], &[], &[1, 2]), 2).is_ok());
        assert!(validate_answer(&answer([0.0, 1.0, 0.5, 0.5, 0.5], &[], &[2, 1]), 2).is_ok());
        let e = validate_answer(&answer([0.5, 1.2, 0.5, 0.5, 0.5], &[], &[1]), 1).unwrap_err();
        assert_eq!(
            e,
            "scores.ranking is 1.2; every score must be within [0, 1]"
        );
        let e = validate_answer(&answer([0.5; 5], &[], &[1, 3]), 2).unwrap_err();
        assert!(
            e.contains("rank 3 is not among the results (ranks 1 to 2)"),
            "{e}"
        );
        let e = validate_answer(&answer([0.5; 5], &[], &[1, 1]), 2).unwrap_err();
        assert!(e.contains("assessed twice"), "{e}");
        let e = validate_answer(&answer([0.5; 5], &[], &[2]), 3).unwrap_err();
        assert!(e.ends_with("missing ranks: 1, 3"), "{e}");
        let e = validate_answer(&answer([0.5; 5], &[], &[1]), 0).unwrap_err();
        assert!(e.contains("must be empty"), "{e}");
        assert!(validate_answer(&answer([0.5; 5], &[], &[]), 0).is_ok());
        let mut nan = answer([0.5; 5], &[], &[]);
        nan.scores.overall = f64::NAN;
        assert!(validate_answer(&nan, 0).is_err());
    }

    #[test]
    fn summary_counts_averages_issues_and_focus() {
        let judged = vec![
            answer(
                [0.8, 0.6, 0.4, 0.9, 0.7],
                &["Boost symbol matches", "Show more context"],
                &[],
            ),
            answer(
                [0.6, 0.7, 0.2, 0.9, 0.5],
                &["boost  symbol matches.", "Index tests"],
                &[],
            ),
            answer(
                [0.7, 0.5, 0.3, 0.6, 0.6],
                &["Show more context", "boost symbol matches"],
                &[],
            ),
        ];
        let base = Summary {
            kind: "summary".into(),
            timestamp: String::new(),
            total_queries: 4,
            judged_queries: 0,
            failed_queries: 0,
            average_scores: None,
            top_issues: vec![],
            recommended_focus: None,
            mode: "fts".into(),
            search_limit: 10,
            detail: "minimal".into(),
            stores: vec![],
            judge: String::new(),
            queries_from: "generated".into(),
        };
        let s = summarize(&judged, 1, base.clone());
        assert_eq!((s.judged_queries, s.failed_queries), (3, 1));
        assert_eq!(
            s.average_scores,
            Some(Scores::from_values([0.7, 0.6, 0.3, 0.8, 0.6]))
        );
        assert_eq!(s.recommended_focus.as_deref(), Some("coverage"));
        assert_eq!(
            s.top_issues,
            vec![
                Issue {
                    suggestion: "Boost symbol matches".into(),
                    count: 3
                },
                Issue {
                    suggestion: "Show more context".into(),
                    count: 2
                },
                Issue {
                    suggestion: "Index tests".into(),
                    count: 1
                },
            ]
        );
        let none = summarize(&[], 2, base);
        assert_eq!(none.average_scores, None);
        assert_eq!(none.recommended_focus, None);
        assert!(none.top_issues.is_empty());
    }

    #[test]
    fn config_defaults_file_and_errors() {
        let d = JudgeSettings::default();
        assert_eq!(
            (
                d.query_count,
                d.search_limit,
                d.mode,
                d.max_retries,
                d.timeout,
                d.detail
            ),
            (
                15,
                10,
                Mode::Hybrid,
                3,
                Duration::from_secs(60),
                Detail::Minimal
            )
        );
        assert!(d.stores.is_empty());

        let mut s = JudgeSettings::default();
        s.apply_toml(
            "query_count = 5\nsearch_limit = 3\nsearch_mode = \"fts\"\nstores = [\"a\", \"b\"]\n\
             max_retries = 1\ntimeout_secs = 7\ndetail = \"full\"\n\n[judge]\ncommand = \"my-llm\"\n\
             url = \"http://127.0.0.1:1/v1\"\nmodel = \"m\"\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(
            (
                s.query_count,
                s.search_limit,
                s.mode,
                s.max_retries,
                s.timeout,
                s.detail
            ),
            (5, 3, Mode::Fts, 1, Duration::from_secs(7), Detail::Full)
        );
        assert_eq!(s.stores, vec!["a", "b"]);
        assert_eq!(s.llm.command.as_deref(), Some("my-llm"));
        assert_eq!(s.llm.model.as_deref(), Some("m"));

        // Keys left out keep their value.
        let mut s = JudgeSettings::default();
        s.apply_toml("search_limit = 4\n", "t.toml").unwrap();
        assert_eq!((s.query_count, s.search_limit), (15, 4));

        for (text, want) in [
            (
                "query_count = 5\nquery_cont = 3\n",
                "t.toml line 2: unknown field `query_cont`",
            ),
            (
                "search_mode = \"bm25\"\n",
                "search_mode \"bm25\" is not hybrid, vector or fts",
            ),
            ("detail = \"huge\"\n", "detail \"huge\" is not minimal"),
            ("query_count = 0\n", "query_count must be between 1 and 500"),
            ("timeout_secs = 0\n", "timeout_secs must be at least 1"),
            ("query_count = \"many\"\n", "t.toml line 1:"),
            ("[judge\n", "t.toml line 1:"),
        ] {
            let e = JudgeSettings::default()
                .apply_toml(text, "t.toml")
                .unwrap_err()
                .to_string();
            assert!(e.contains(want), "{text:?}: {e}");
            assert!(!e.contains('\n'), "one line: {e}");
            assert!(e.starts_with("config t.toml"), "{e}");
        }
    }

    #[test]
    fn queries_are_deduplicated() {
        let q = |s: &str| GeneratedQuery {
            query: s.into(),
            intent: " find-usage ".into(),
            expected_content_types: vec![],
        };
        let got = distinct_queries(
            &[
                q("Retry backoff"),
                q(" retry  BACKOFF "),
                q(""),
                q("b"),
                q("c"),
            ],
            2,
        );
        assert_eq!(
            got.iter().map(|g| g.query.as_str()).collect::<Vec<_>>(),
            vec!["Retry backoff", "b"]
        );
        assert_eq!(got[0].intent, "find-usage");
    }
}
