//! Flags of `lore eval` and `lore bench`: measuring lore.

use super::{details, modes, split_list};
use clap::{Args, Subcommand};
use lore_bench::BenchOptions;
use lore_engine::{Detail, Mode};
use lore_eval::intents::IntentsOptions;
use lore_eval::judge::{JudgeError, JudgeSettings};
use lore_eval::labeled::LabeledOptions;
use lore_eval::locate::{LocateOptions, Ranker};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum EvalCommand {
    /// Score retrieval on a labeled BEIR-layout set (nDCG@10, MRR@10, Recall@10/100).
    Labeled(LabeledArgs),
    /// Have an LLM judge search quality on generated (or saved) queries.
    Judge(JudgeArgs),
    /// Compare two judge runs: averages side by side and per-query deltas.
    Compare(CompareArgs),
    /// Does feedback teach lore? A simulated agent opens what it finds for each training
    /// line (re-searching with its other phrasings), then held-out phrasings and control
    /// queries are scored (MRR@10, Acc@5) with and without what it taught.
    Feedback(FeedbackArgs),
    /// The judge runs kept in <data>/eval/judge/, oldest first, with their averages; with
    /// NAME, that run's queries and scores.
    Runs(RunsArgs),
    /// MRR of queries labeled per intent, with intent priors off, inferred and given;
    /// and the tokens results cost per detail level against the raw chunks.
    Intents(IntentsArgs),
    /// Task → code on real issues: each task at its repository's base commit, files ranked
    /// by each mode and `locate`; Acc@1/5/10, Recall@10, MRR, and gold units in the top 10.
    Locate(EvalLocateArgs),
    /// Mine a repository's history into a locate set: each commit message a task, its
    /// parent the base, the source files it changed the gold (for `lore eval locate`).
    History(HistoryArgs),
}

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// A store on a git clone, or the path of a git repository (full history, not shallow).
    pub source: String,
    /// Tasks to write: the newest commits that qualify (not merges, sweeps over more than
    /// 10 files or 1,500 lines, formatting, or changes without source files).
    #[arg(long, default_value_t = 50)]
    pub commits: usize,
    /// The JSONL to write (default: under <data>/eval/).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

impl HistoryArgs {
    pub fn options(self) -> lore_eval::history::HistoryOptions {
        lore_eval::history::HistoryOptions {
            source: self.source,
            commits: self.commits,
            out: self.out,
        }
    }
}

fn rankers() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(Ranker::ALL.map(Ranker::as_str))
}

#[derive(Args, Debug)]
pub struct EvalLocateArgs {
    /// JSONL: instance_id, repo (owner/name), base_commit, query, gold_files, gold_spans?
    pub set: PathBuf,
    /// Folder holding each repository as <owner>+<name>, <owner>+<name>/repo or
    /// <owner>/<name> (a clone or a bare mirror with the base commits).
    /// Not needed for a set from `lore eval history`, which names its repository by path.
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub repos: PathBuf,
    /// Rankers to score (repeatable; default: fts, vector, hybrid, locate; with --lexical:
    /// fts, locate).
    #[arg(long = "mode", value_parser = rankers())]
    pub modes: Vec<String>,
    /// Index without the embedding model (BM25 and the code graph only).
    #[arg(long)]
    pub lexical: bool,
    /// Only the instances of this repository (owner/name).
    #[arg(long, value_name = "OWNER/NAME")]
    pub repo: Option<String>,
    /// Only the first N instances.
    #[arg(long, value_name = "N")]
    pub max: Option<usize>,
    /// Also score locate with each kind of evidence turned off.
    #[arg(long)]
    pub ablation: bool,
    /// Per-instance JSONL output (default: under <data>/eval/).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

impl EvalLocateArgs {
    pub fn options(self) -> LocateOptions {
        let mut rankers: Vec<Ranker> = self.modes.iter().filter_map(|m| Ranker::parse(m)).collect();
        if rankers.is_empty() {
            rankers = if self.lexical {
                vec![Ranker::Fts, Ranker::Locate]
            } else {
                Ranker::ALL.to_vec()
            };
        }
        LocateOptions {
            set: self.set,
            repos: self.repos,
            rankers,
            lexical: self.lexical,
            repo: self.repo,
            max: self.max,
            ablation: self.ablation,
            out: self.out,
        }
    }
}

#[derive(Args, Debug)]
pub struct IntentsArgs {
    /// JSONL: {"query", "intent", "relevant": [{"path", "symbol"?}]} per line.
    pub file: PathBuf,
    /// Stores to search (repeatable or comma-separated; default: all).
    #[arg(long = "store", visible_alias = "stores", value_name = "S")]
    pub stores: Vec<String>,
    #[arg(long, value_parser = modes(), default_value = Mode::Hybrid.as_str())]
    pub mode: Mode,
    /// Per-query JSONL (ranks each way) and a summary line.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

impl IntentsArgs {
    pub fn options(self) -> IntentsOptions {
        IntentsOptions {
            file: self.file,
            stores: split_list(&self.stores),
            mode: self.mode,
            out: self.out,
        }
    }
}

#[derive(Args, Debug)]
pub struct JudgeArgs {
    /// Stores to search (repeatable or comma-separated; default: all).
    #[arg(long = "store", visible_alias = "stores", value_name = "S")]
    pub stores: Vec<String>,
    /// TOML config: query_count, search_limit, search_mode, stores, max_retries,
    /// timeout_secs, detail, given_intent, and [judge] command / url / model. Flags
    /// override it.
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
    #[arg(long, value_parser = modes())]
    pub mode: Option<Mode>,
    /// Results per query shown to the judge (default 10).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
    /// Result detail level (default minimal).
    #[arg(long, value_parser = details())]
    pub detail: Option<Detail>,
    /// Retries of an invalid or failed LLM answer (default 3).
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,
    /// Seconds per LLM call (default 60).
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<u64>,
    /// Search with each query's generated intent (as `lore search --intent` does) instead
    /// of letting lore infer it from the wording, as an agent's plain search does.
    #[arg(long)]
    pub given_intent: bool,
}

impl JudgeArgs {
    /// Defaults, then the environment's LLM, then the config file, then the flags.
    pub fn settings(&self) -> Result<JudgeSettings, JudgeError> {
        let mut s = JudgeSettings::from_env();
        if let Some(path) = &self.config {
            s.apply_file(path)?;
        }
        let stores = split_list(&self.stores);
        if !stores.is_empty() {
            s.stores = stores;
        }
        if let Some(n) = self.queries {
            s.query_count = n;
        }
        if let Some(m) = self.mode {
            s.mode = m;
        }
        if let Some(n) = self.limit {
            s.search_limit = n;
        }
        if let Some(d) = self.detail {
            s.detail = d;
        }
        if let Some(n) = self.max_retries {
            s.max_retries = n;
        }
        if let Some(t) = self.timeout {
            s.timeout = std::time::Duration::from_secs(t);
        }
        if let Some(c) = &self.judge_cmd {
            s.llm.command = Some(c.clone());
        }
        if self.given_intent {
            s.given_intent = true;
        }
        s.validate()?;
        Ok(s)
    }
}

#[derive(Args, Debug)]
pub struct FeedbackArgs {
    /// JSONL: {"query", "relevant": [{"path", "symbol"?}], "train"?: [..], "heldout"?: ".."}.
    pub file: PathBuf,
    /// Stores to search (repeatable or comma-separated; default: all).
    #[arg(long = "store", visible_alias = "stores", value_name = "S")]
    pub stores: Vec<String>,
    #[arg(long, value_parser = super::modes(), default_value = "hybrid")]
    pub mode: lore_engine::Mode,
}

#[derive(Args, Debug)]
pub struct RunsArgs {
    /// A run's file name, as listed.
    pub name: Option<String>,
    /// Where the runs are (default: <data>/eval/judge/).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
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
    #[arg(long, value_parser = modes())]
    pub mode: Vec<Mode>,
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

impl LabeledArgs {
    pub fn options(self) -> LabeledOptions {
        LabeledOptions {
            dir: self.dir,
            split: self.split,
            modes: if self.mode.is_empty() {
                vec![Mode::Fts, Mode::Vector, Mode::Hybrid]
            } else {
                self.mode
            },
            out: self.out,
            max_queries: self.max_queries,
            sweep: self.sweep,
            dump: self.dump,
            tokens: self.tokens,
        }
    }
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Folder of real files to measure on [default: $CARGO_HOME/registry/src or
    /// ~/.cargo/registry/src].
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Files taken from the corpus, in walk order.
    #[arg(long, default_value_t = 6000)]
    pub max_files: usize,
    /// Corpus chunks embedded to measure embedding throughput.
    #[arg(long, default_value_t = 64)]
    pub embed_chunks: usize,
    /// Fewest chunks in the store queries run on; more corpus files are indexed to reach it.
    #[arg(long, default_value_t = 131_072)]
    pub query_chunks: usize,
    /// Timed runs of every query per mode (after one warm-up run).
    #[arg(long, default_value_t = 3)]
    pub query_repeats: usize,
    /// Parent of the scratch folder (copied corpus and index) [default: the temp dir].
    #[arg(long)]
    pub scratch: Option<PathBuf>,
    /// Keep the scratch folder instead of removing it at the end.
    #[arg(long)]
    pub keep_scratch: bool,
    /// Seconds the first-answer store may go on embedding after its first answer; then it
    /// is stopped and the time to fully embedded estimated from its rate.
    #[arg(long, default_value_t = 60, value_name = "SECS")]
    pub embed_budget: u64,
    /// Vector counts of the synthetic vector scan, comma-separated (0: skip it).
    #[arg(long, value_delimiter = ',', default_value = "131072,1000000")]
    pub scan_sizes: Vec<usize>,
    /// Queries timed at each scan size.
    #[arg(long, default_value_t = 50)]
    pub scan_queries: usize,
}

impl BenchArgs {
    pub fn options(self) -> BenchOptions {
        BenchOptions {
            corpus: self.corpus,
            max_files: self.max_files,
            embed_chunks: self.embed_chunks,
            query_chunks: self.query_chunks,
            query_repeats: self.query_repeats,
            scratch: self.scratch,
            keep_scratch: self.keep_scratch,
            embed_budget: std::time::Duration::from_secs(self.embed_budget),
            scan_sizes: self.scan_sizes,
            scan_queries: self.scan_queries,
            search_exe: std::env::current_exe().ok(),
        }
    }
}
