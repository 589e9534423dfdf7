//! `lore eval feedback SET --store S`: does what agents open teach lore? A simulated agent
//! searches each training line's phrasings in turn (the query, then its `train`
//! re-phrasings, as an agent re-searches when it sees nothing it wants), opens the first
//! relevant result it is shown and stops; lore records the open. Then its `heldout`
//! phrasing — other words for the same code — is scored with and without feedback, and so
//! are the control lines (no `heldout`: code nobody opened), which must not get worse.
//!
//! A line: `{"query", "relevant": [{"path", "symbol"?}], "train"?: [..], "heldout"?: ".."}`.
//! The run's own signals (client `eval:<pid>`) are removed at the end.

use crate::intents::{Target, relevant_rank};
use lore_engine::{Engine, Mode, SearchRequest};
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Debug, Clone, Deserialize)]
struct Line {
    query: String,
    relevant: Vec<Target>,
    #[serde(default)]
    train: Vec<String>,
    #[serde(default)]
    heldout: Option<String>,
}

/// MRR@10 and Acc@5 over some queries.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Scores {
    pub queries: usize,
    pub mrr_at_10: f64,
    pub acc_at_5: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct FeedbackReport {
    /// Training lines, and those where the agent saw (and opened) a relevant result.
    pub trained: usize,
    pub opened: usize,
    /// Searches the agent made while training (re-searches included).
    pub searches: usize,
    pub heldout_without: Scores,
    pub heldout_with: Scores,
    pub control_without: Scores,
    pub control_with: Scores,
    /// Each scored query's rank (1-based; absent: not in the top 10) without and with.
    pub queries: Vec<QueryRanks>,
}

#[derive(Debug, Clone, Serialize)]
pub struct QueryRanks {
    pub query: String,
    /// `heldout` or `control`.
    pub role: &'static str,
    pub without: Option<usize>,
    pub with: Option<usize>,
}

/// Each query's rank (0-based; `None`: not in the top 10).
type Ranks = Vec<Option<usize>>;

fn score(ranks: &[Option<usize>]) -> Scores {
    let n = ranks.len().max(1) as f64;
    Scores {
        queries: ranks.len(),
        mrr_at_10: ranks
            .iter()
            .map(|r| r.filter(|&r| r < 10).map_or(0.0, |r| 1.0 / (r + 1) as f64))
            .sum::<f64>()
            / n,
        acc_at_5: ranks.iter().filter(|r| r.is_some_and(|r| r < 5)).count() as f64 / n,
    }
}

pub fn run(
    engine: &Engine,
    set: &Path,
    stores: &[String],
    mode: Mode,
) -> anyhow::Result<FeedbackReport> {
    let text = std::fs::read_to_string(set)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", set.display()))?;
    let mut lines = Vec::new();
    for (i, l) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let line: Line = serde_json::from_str(l)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", set.display(), i + 1))?;
        lines.push(line);
    }
    let client = format!("eval:{}", std::process::id());
    let search = |q: &str, feedback: bool| {
        engine.search(&SearchRequest {
            stores: stores.to_vec(),
            mode,
            limit: 10,
            freshness: false,
            feedback,
            ..SearchRequest::new(q)
        })
    };
    let measure = |feedback: bool| -> anyhow::Result<(Ranks, Ranks)> {
        let (mut held, mut control) = (Vec::new(), Vec::new());
        for l in &lines {
            match &l.heldout {
                Some(h) => held.push(relevant_rank(&search(h, feedback)?.results, &l.relevant)),
                None => control.push(relevant_rank(
                    &search(&l.query, feedback)?.results,
                    &l.relevant,
                )),
            }
        }
        Ok((held, control))
    };
    let (held_before, control_before) = measure(false)?;
    let (mut trained, mut opened, mut searches) = (0, 0, 0);
    let result = (|| -> anyhow::Result<()> {
        for l in lines.iter().filter(|l| l.heldout.is_some()) {
            trained += 1;
            for q in std::iter::once(&l.query).chain(&l.train) {
                searches += 1;
                let r = search(q, true)?;
                if let Some(rank) = relevant_rank(&r.results, &l.relevant) {
                    engine.record_opened(&r.results[rank].unit.id, q, &client)?;
                    opened += 1;
                    break;
                }
            }
        }
        Ok(())
    })();
    let after = result.and_then(|_| measure(true));
    engine.feedback_forget_client(&client)?;
    let (held_after, control_after) = after?;
    let mut queries = Vec::new();
    let (mut h, mut c) = (0, 0);
    for l in &lines {
        let (role, query, without, with) = match &l.heldout {
            Some(q) => {
                h += 1;
                ("heldout", q, held_before[h - 1], held_after[h - 1])
            }
            None => {
                c += 1;
                (
                    "control",
                    &l.query,
                    control_before[c - 1],
                    control_after[c - 1],
                )
            }
        };
        queries.push(QueryRanks {
            query: query.clone(),
            role,
            without: without.map(|r| r + 1),
            with: with.map(|r| r + 1),
        });
    }
    Ok(FeedbackReport {
        trained,
        opened,
        searches,
        heldout_without: score(&held_before),
        heldout_with: score(&held_after),
        control_without: score(&control_before),
        control_with: score(&control_after),
        queries,
    })
}
