//! `lore eval intents`: does the intent change ranking for the better? Runs each labeled
//! query three ways — intent-blind (no priors), intent inferred from the wording, and
//! intent given — and reports MRR@10 per intent, plus the tokens results cost at each
//! detail level against the raw chunks they stand for.
//!
//! A set is JSONL: `{"query", "intent", "relevant": [{"path", "symbol"?}]}`. A result is
//! relevant when its path matches and, if a symbol is given, its symbol does too. With the
//! intent inferred (what an agent gets), it also counts the queries whose first result is
//! relevant and whole: its lines hold all of the unit the symbol names (its largest
//! definition in that file: an overload's implementation, not a signature).

use crate::tokens::Tokens;
use lore_engine::{
    Direction, Engine, GraphQuery, Intent, Mode, Phase, Progress, SearchHit, SearchRequest,
};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Deserialize)]
pub struct Labeled {
    pub query: String,
    pub intent: String,
    pub relevant: Vec<Target>,
}

#[derive(Debug, Clone, Deserialize, Serialize)]
pub struct Target {
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
}

#[derive(Debug, Clone)]
pub struct IntentsOptions {
    pub file: PathBuf,
    pub stores: Vec<String>,
    pub mode: Mode,
    pub out: Option<PathBuf>,
}

/// MRR@10 of one way of ranking.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Mrr {
    pub blind: f64,
    pub inferred: f64,
    pub given: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntentScore {
    pub intent: String,
    pub queries: usize,
    pub mrr: Mrr,
    /// Queries whose first result (intent inferred) is relevant, and of those the ones
    /// that hold the whole unit.
    pub top1: usize,
    pub top1_whole: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct IntentsReport {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub set: String,
    pub mode: Mode,
    pub per_intent: Vec<IntentScore>,
    pub all: IntentScore,
    pub tokens: Tokens,
}

#[derive(Debug, Serialize)]
struct QueryLine<'a> {
    query: &'a str,
    intent: &'a str,
    inferred: Option<&'static str>,
    rank_blind: Option<usize>,
    rank_inferred: Option<usize>,
    rank_given: Option<usize>,
    top1_whole: bool,
}

/// Where the first relevant result was (blind, inferred, given), and whether the inferred
/// ranking's first result is relevant and whole.
type Ranked = ([Option<usize>; 3], bool);

/// 1/rank of the first relevant result within the top k (0-based rank in).
fn reciprocal_rank(rank: Option<usize>, k: usize) -> f64 {
    match rank {
        Some(r) if r < k => 1.0 / (r + 1) as f64,
        _ => 0.0,
    }
}

pub(crate) fn relevant_rank(hits: &[SearchHit], targets: &[Target]) -> Option<usize> {
    hits.iter().position(|h| {
        targets.iter().any(|t| {
            t.path == h.unit.path
                && t.symbol
                    .as_deref()
                    .is_none_or(|s| h.unit.symbol.as_deref() == Some(s))
        })
    })
}

/// The first hit is relevant and its lines hold the whole unit its target names.
fn first_is_whole(
    engine: &Engine,
    stores: &[String],
    hits: &[SearchHit],
    targets: &[Target],
) -> bool {
    let Some(h) = hits.first() else {
        return false;
    };
    targets.iter().any(|t| {
        if t.path != h.unit.path {
            return false;
        }
        let Some(symbol) = t.symbol.as_deref() else {
            return true;
        };
        if h.unit.symbol.as_deref() != Some(symbol) {
            return false;
        }
        let Ok(answer) = engine.graph(&GraphQuery {
            symbol: symbol.to_string(),
            direction: Direction::Definition,
            stores: stores.to_vec(),
        }) else {
            return false;
        };
        // Per qualified name, its largest definition in the file.
        let mut units: BTreeMap<&str, (u32, u32)> = BTreeMap::new();
        for d in answer
            .definitions
            .iter()
            .filter(|d| d.path == t.path && d.name == symbol)
        {
            let e = units
                .entry(&d.qualified)
                .or_insert((d.start_line, d.end_line));
            if d.end_line - d.start_line > e.1 - e.0 {
                *e = (d.start_line, d.end_line);
            }
        }
        units
            .values()
            .any(|&(a, b)| h.unit.start_line <= a && h.unit.end_line >= b)
    })
}

fn read_set(path: &Path) -> anyhow::Result<Vec<Labeled>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let q: Labeled = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))?;
        if Intent::parse(&q.intent).is_none() {
            anyhow::bail!(
                "{}:{}: unknown intent {:?} (one of find-definition, find-implementation, find-usage, find-pattern, find-documentation)",
                path.display(),
                i + 1,
                q.intent
            );
        }
        if q.relevant.is_empty() {
            anyhow::bail!("{}:{}: no relevant targets", path.display(), i + 1);
        }
        out.push(q);
    }
    if out.is_empty() {
        anyhow::bail!("{} holds no queries", path.display());
    }
    Ok(out)
}

pub fn run(
    engine: &Engine,
    opts: &IntentsOptions,
    progress: &dyn Progress,
) -> anyhow::Result<IntentsReport> {
    let set = read_set(&opts.file)?;
    let mut out = match &opts.out {
        Some(p) => Some(std::io::BufWriter::new(std::fs::File::create(p)?)),
        None => None,
    };
    let base = |q: &str| SearchRequest {
        stores: opts.stores.clone(),
        mode: opts.mode,
        limit: 10,
        freshness: false,
        ..SearchRequest::new(q)
    };
    let mut ranks: BTreeMap<String, Vec<Ranked>> = BTreeMap::new();
    progress.start(Phase::Queries, set.len() as u64);
    for q in &set {
        let intent = Intent::parse(&q.intent);
        let blind = engine.search(&SearchRequest {
            priors: false,
            ..base(&q.query)
        })?;
        let inferred = engine.search(&base(&q.query))?;
        let given = engine.search(&SearchRequest {
            intent,
            ..base(&q.query)
        })?;
        let r = [
            relevant_rank(&blind.results, &q.relevant),
            relevant_rank(&inferred.results, &q.relevant),
            relevant_rank(&given.results, &q.relevant),
        ];
        let whole =
            r[1] == Some(0) && first_is_whole(engine, &opts.stores, &inferred.results, &q.relevant);
        ranks.entry(q.intent.clone()).or_default().push((r, whole));
        if let Some(w) = out.as_mut() {
            use std::io::Write;
            let line = QueryLine {
                query: &q.query,
                intent: &q.intent,
                inferred: inferred.intent.map(|i| i.intent.as_str()),
                rank_blind: r[0].map(|x| x + 1),
                rank_inferred: r[1].map(|x| x + 1),
                rank_given: r[2].map(|x| x + 1),
                top1_whole: whole,
            };
            writeln!(w, "{}", serde_json::to_string(&line)?)?;
        }
        progress.advance(Phase::Queries, 1);
    }
    progress.finish(Phase::Queries);
    let asked: Vec<(String, Option<Intent>)> = set
        .iter()
        .map(|q| (q.query.clone(), Intent::parse(&q.intent)))
        .collect();
    let tokens = crate::tokens::measure(engine, &asked, &opts.stores, opts.mode)?;
    let score = |intent: &str, rs: &[Ranked]| {
        let m = |i: usize| {
            rs.iter()
                .map(|(r, _)| reciprocal_rank(r[i], 10))
                .sum::<f64>()
                / rs.len().max(1) as f64
        };
        IntentScore {
            intent: intent.to_string(),
            queries: rs.len(),
            mrr: Mrr {
                blind: m(0),
                inferred: m(1),
                given: m(2),
            },
            top1: rs.iter().filter(|(r, _)| r[1] == Some(0)).count(),
            top1_whole: rs.iter().filter(|(_, w)| *w).count(),
        }
    };
    let per_intent: Vec<IntentScore> = ranks.iter().map(|(i, rs)| score(i, rs)).collect();
    let all: Vec<Ranked> = ranks.values().flatten().copied().collect();
    let report = IntentsReport {
        kind: "summary",
        set: opts.file.display().to_string(),
        mode: opts.mode,
        per_intent,
        all: score("all", &all),
        tokens,
    };
    if let Some(mut w) = out {
        use std::io::Write;
        writeln!(w, "{}", serde_json::to_string(&report)?)?;
        w.flush()?;
    }
    Ok(report)
}
