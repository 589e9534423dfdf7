//! Argument types and printing for `lore eval`.

use crate::compare::{self, CompareError};
use crate::judge::{self, JudgeError, JudgeOptions, JudgeSettings};
use crate::labeled::{self, LabeledOptions};
use clap::{Args, Subcommand, ValueEnum};
use lore_engine::{Detail, Engine, EngineError, ExitKind, Mode, Progress};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum EvalCommand {
    /// Score retrieval on a labeled BEIR-layout set (nDCG@10, MRR@10, Recall@10/100).
    Labeled(LabeledArgs),
    /// Have an LLM judge search quality on generated (or saved) queries.
    Judge(JudgeArgs),
    /// Compare two judge runs: averages side by side and per-query deltas.
    Compare(CompareArgs),
    /// MRR of queries labeled per intent, with intent priors off, inferred and given;
    /// and the tokens results cost per detail level against the raw chunks.
    Intents(IntentsArgs),
}

#[derive(Args, Debug)]
pub struct IntentsArgs {
    /// JSONL: {"query", "intent", "relevant": [{"path", "symbol"?}]} per line.
    pub file: PathBuf,
    /// Stores to search (repeatable; default: all).
    #[arg(long = "store", value_name = "S")]
    pub stores: Vec<String>,
    #[arg(long, value_enum, default_value = "hybrid")]
    pub mode: ModeArg,
    /// Per-query JSONL (ranks each way) and a summary line.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum ModeArg {
    Hybrid,
    Vector,
    Fts,
}

impl ModeArg {
    fn mode(self) -> Mode {
        match self {
            ModeArg::Hybrid => Mode::Hybrid,
            ModeArg::Vector => Mode::Vector,
            ModeArg::Fts => Mode::Fts,
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum DetailArg {
    Minimal,
    Contextual,
    Full,
}

#[derive(Args, Debug)]
pub struct JudgeArgs {
    /// Stores to search (repeatable or comma-separated; default: all).
    #[arg(long = "store", value_name = "S")]
    pub stores: Vec<String>,
    /// TOML config: query_count, search_limit, search_mode, stores, max_retries,
    /// timeout_secs, detail, and [judge] command / url / model. Flags override it.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Queries to generate (default 15); with --queries-file, use only the first N.
    #[arg(long, value_name = "N")]
    pub queries: Option<usize>,
    /// Reuse a saved query set (a <run>.queries.json, or a run's .jsonl) instead of
    /// generating one, so runs are comparable over time.
    #[arg(long, value_name = "FILE")]
    pub queries_file: Option<PathBuf>,
    /// Where <UTC timestamp>.jsonl goes (default: <data>/eval/judge/).
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Judge with a command instead of LORE_LLM_URL/LORE_LLM_MODEL: run with `sh -c`, it
    /// gets the prompt on stdin and prints the JSON answer on stdout.
    #[arg(long, value_name = "CMD")]
    pub judge_cmd: Option<String>,
    /// Search mode (default hybrid).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Results per query shown to the judge (default 10).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Result detail level (default minimal).
    #[arg(long, value_enum)]
    pub detail: Option<DetailArg>,
    /// Retries of an invalid or failed LLM answer (default 3).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Seconds per LLM call (default 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
}

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// The earlier run (JSONL from `lore eval judge`).
    pub a: PathBuf,
    /// The later run.
    pub b: PathBuf,
}

#[derive(Args, Debug)]
pub struct LabeledArgs {
    /// Folder with corpus.jsonl, queries.jsonl and qrels/<split>.tsv.
    pub dir: PathBuf,
    /// qrels split (default: test, else the only one).
    #[arg(long)]
    pub split: Option<String>,
    /// Modes to score (repeatable; default: all three).
    #[arg(long, value_enum)]
    pub mode: Vec<ModeArg>,
    /// Per-query JSONL output (default: under <data>/eval/).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Only the first N judged queries.
    #[arg(long)]
    pub max_queries: Option<usize>,
    /// Also score a grid of fusion settings.
    #[arg(long)]
    pub sweep: bool,
    /// Write each query's raw candidates to this JSONL (fusion studies).
    #[arg(long, value_name = "FILE")]
    pub dump: Option<PathBuf>,
    /// Also measure tokens per result at each detail level against the raw chunks.
    #[arg(long)]
    pub tokens: bool,
}

pub fn run(
    engine: &mut Engine,
    cmd: &EvalCommand,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    match cmd {
        EvalCommand::Judge(a) => run_judge(engine, a, json, progress),
        EvalCommand::Compare(a) => run_compare(a, json),
        EvalCommand::Intents(a) => {
            let report = crate::intents::run(
                engine,
                &crate::intents::IntentsOptions {
                    file: a.file.clone(),
                    stores: a.stores.clone(),
                    mode: a.mode.mode(),
                    out: a.out.clone(),
                },
                progress,
            )?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
                return Ok(());
            }
            println!(
                "{:<20} {:>7} {:>8} {:>9} {:>7}",
                "intent", "queries", "blind", "inferred", "given"
            );
            for s in report.per_intent.iter().chain(std::iter::once(&report.all)) {
                println!(
                    "{:<20} {:>7} {:>8.3} {:>9.3} {:>7.3}",
                    s.intent, s.queries, s.mrr.blind, s.mrr.inferred, s.mrr.given
                );
            }
            println!("{}", report.tokens);
            Ok(())
        }
        EvalCommand::Labeled(a) => {
            let modes = if a.mode.is_empty() {
                vec![Mode::Fts, Mode::Vector, Mode::Hybrid]
            } else {
                a.mode.iter().map(|m| m.mode()).collect()
            };
            let report = labeled::run(
                engine,
                &LabeledOptions {
                    dir: a.dir.clone(),
                    split: a.split.clone(),
                    modes,
                    out: a.out.clone(),
                    max_queries: a.max_queries,
                    sweep: a.sweep,
                    dump: a.dump.clone(),
                    tokens: a.tokens,
                },
                progress,
            )?;
            if json {
                println!("{}", serde_json::to_string_pretty(&report)?);
                return Ok(());
            }
            println!(
                "{} ({} split, {} queries, {} documents)",
                report.set,
                report.split,
                report.scores.first().map_or(0, |s| s.queries),
                report.documents
            );
            println!(
                "{:<8} {:>8} {:>8} {:>10} {:>10}",
                "mode", "nDCG@10", "MRR@10", "Recall@10", "Recall@100"
            );
            for s in &report.scores {
                println!(
                    "{:<8} {:>8.4} {:>8.4} {:>10.4} {:>10.4}",
                    s.mode.as_str(),
                    s.ndcg10,
                    s.mrr10,
                    s.recall10,
                    s.recall100
                );
            }
            for row in &report.sweep {
                println!(
                    "sweep {:?}: nDCG@10 {:.4} MRR@10 {:.4}",
                    row.fusion, row.ndcg10, row.mrr10
                );
            }
            if let Some(t) = &report.tokens {
                println!("{t}");
            }
            println!("per-query results: {}", report.out.display());
            Ok(())
        }
    }
}

/// An error as the binary reports it: input and not-found errors keep their exit code.
fn exit_error(kind: ExitKind, e: impl std::error::Error + Send + Sync + 'static) -> anyhow::Error {
    match kind {
        ExitKind::Input => EngineError::Input(e.to_string()).into(),
        ExitKind::NotFound => EngineError::NotFound(e.to_string()).into(),
        ExitKind::Internal => anyhow::Error::new(e),
    }
}

fn judge_error(e: JudgeError) -> anyhow::Error {
    match e {
        JudgeError::Engine(e) => e.into(),
        other => exit_error(other.exit_kind(), other),
    }
}

/// Defaults, then the environment's LLM, then the config file, then the flags.
pub fn judge_settings(a: &JudgeArgs) -> Result<JudgeSettings, JudgeError> {
    let mut s = JudgeSettings {
        llm: lore_llm::LlmSettings::from_env(),
        ..Default::default()
    };
    if let Some(path) = &a.config {
        s.apply_file(path)?;
    }
    let stores: Vec<String> = a
        .stores
        .iter()
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(String::from)
        .collect();
    if !stores.is_empty() {
        s.stores = stores;
    }
    if let Some(n) = a.queries {
        s.query_count = n;
    }
    if let Some(m) = a.mode {
        s.mode = m.mode();
    }
    if let Some(n) = a.limit {
        s.search_limit = n;
    }
    if let Some(d) = a.detail {
        s.detail = match d {
            DetailArg::Minimal => Detail::Minimal,
            DetailArg::Contextual => Detail::Contextual,
            DetailArg::Full => Detail::Full,
        };
    }
    if let Some(n) = a.max_retries {
        s.max_retries = n;
    }
    if let Some(t) = a.timeout {
        s.timeout = std::time::Duration::from_secs(t);
    }
    if let Some(c) = &a.judge_cmd {
        s.llm.command = Some(c.clone());
    }
    s.validate()?;
    Ok(s)
}

fn run_judge(
    engine: &Engine,
    a: &JudgeArgs,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    let settings = judge_settings(a).map_err(judge_error)?;
    let llm = settings.client().map_err(judge_error)?;
    let opts = JudgeOptions {
        settings,
        queries_file: a.queries_file.clone(),
        limit_file_queries: a.queries.is_some(),
        out_dir: a
            .out_dir
            .clone()
            .unwrap_or_else(|| engine.data_dir().root().join("eval").join("judge")),
    };
    let report = judge::run(engine, &llm, &opts, progress).map_err(judge_error)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(());
    }
    let s = &report.summary;
    println!(
        "judged {} of {} queries ({} failed) · mode {} · limit {} · stores {} · {}",
        s.judged_queries,
        s.total_queries,
        s.failed_queries,
        s.mode,
        s.search_limit,
        s.stores.join(", "),
        s.judge
    );
    match &s.average_scores {
        Some(avg) => {
            println!("{:<16} {:>7}", "dimension", "average");
            for (name, v) in judge::DIMENSIONS.iter().zip(avg.values()) {
                println!("{name:<16} {v:>7.3}");
            }
        }
        None => println!("no query was judged; see the errors in the output file"),
    }
    if let Some(f) = &s.recommended_focus {
        println!("recommended focus: {f}");
    }
    if !s.top_issues.is_empty() {
        println!("top issues:");
        for i in &s.top_issues {
            println!("  {:>3}×  {}", i.count, i.suggestion);
        }
    }
    println!("per-query results: {}", report.out.display());
    if let Some(q) = &report.queries_out {
        println!("queries saved: {} (reuse with --queries-file)", q.display());
    }
    Ok(())
}

fn run_compare(a: &CompareArgs, json: bool) -> anyhow::Result<()> {
    let read =
        |p: &PathBuf| compare::read_run(p).map_err(|e: CompareError| exit_error(e.exit_kind(), e));
    let c = compare::compare(&read(&a.a)?, &read(&a.b)?);
    if json {
        println!("{}", serde_json::to_string_pretty(&c)?);
        return Ok(());
    }
    for (label, r) in [("A", &c.a), ("B", &c.b)] {
        println!(
            "{label}: {} ({}{} queries, {} failed{})",
            r.file.display(),
            r.mode
                .as_deref()
                .map(|m| format!("{m}, "))
                .unwrap_or_default(),
            r.total_queries,
            r.failed_queries,
            if r.complete {
                ""
            } else {
                ", no summary: stopped early"
            }
        );
    }
    let num = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:.3}"));
    let signed = |v: Option<f64>| v.map_or("-".to_string(), |v| format!("{v:+.3}"));
    println!("{:<16} {:>7} {:>7} {:>7}", "dimension", "A", "B", "delta");
    for d in &c.averages {
        println!(
            "{:<16} {:>7} {:>7} {:>7}",
            d.dimension,
            num(d.a),
            num(d.b),
            signed(d.delta)
        );
    }
    if !c.queries.is_empty() {
        println!("per query, overall A → B:");
        for q in &c.queries {
            let overall = |s: &Option<judge::Scores>| {
                s.map_or("failed".to_string(), |s| format!("{:.2}", s.overall))
            };
            println!(
                "  {:>7}  {:>6} → {:<6}  {}",
                signed(q.delta.map(|d| d.overall)),
                overall(&q.a),
                overall(&q.b),
                q.query
            );
        }
    }
    for (label, list) in [("only in A", &c.only_in_a), ("only in B", &c.only_in_b)] {
        if !list.is_empty() {
            println!("{label}: {}", list.join(" | "));
        }
    }
    Ok(())
}
