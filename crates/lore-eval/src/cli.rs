//! Argument types and printing for `lore eval`.

use crate::labeled::{self, LabeledOptions};
use clap::{Args, Subcommand, ValueEnum};
use lore_engine::{Engine, Mode, Progress};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum EvalCommand {
    /// Score retrieval on a labeled BEIR-layout set (nDCG@10, MRR@10, Recall@10/100).
    Labeled(LabeledArgs),
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum ModeArg {
    Hybrid,
    Vector,
    Fts,
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
}

pub fn run(
    engine: &mut Engine,
    cmd: &EvalCommand,
    json: bool,
    progress: &dyn Progress,
) -> anyhow::Result<()> {
    match cmd {
        EvalCommand::Labeled(a) => {
            let modes = if a.mode.is_empty() {
                vec![Mode::Fts, Mode::Vector, Mode::Hybrid]
            } else {
                a.mode
                    .iter()
                    .map(|m| match m {
                        ModeArg::Hybrid => Mode::Hybrid,
                        ModeArg::Vector => Mode::Vector,
                        ModeArg::Fts => Mode::Fts,
                    })
                    .collect()
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
            println!("per-query results: {}", report.out.display());
            Ok(())
        }
    }
}
