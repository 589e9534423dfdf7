//! `lore eval feedback SET --store S`: does what agents open teach lore? A simulated agent
//! searches each training line's phrasings in turn (the query, then its `train`
//! re-phrasings, as an agent re-searches when it sees nothing it wants), opens the first
//! relevant result it is shown and stops; lore records the open, and each search redone
//! as a miss of the previous one's first three results. Then its `heldout`
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
    /// Adversarial marks on an irrelevant unit of each control query.
    pub poisoning: Poisoning,
}

/// One client marks an irrelevant unit useful [`POISON_MARKS`] times for a control query
/// (the unit that query shows last in its top 10, with the query's own words: the
/// strongest form of the attack); the unit's rank and the relevant one's, before and after.
/// Each query's marks are forgotten before the next.
#[derive(Debug, Clone, Serialize)]
pub struct Poisoning {
    pub marks_per_query: usize,
    pub queries: Vec<Poisoned>,
    /// The most places a poisoned unit climbed.
    pub best_climb: usize,
    /// Control scores while each query's unit is poisoned.
    pub control_poisoned: Scores,
    /// Catalog bytes (rows and indexes) per 10,000 signals, measured on the marks.
    pub bytes_per_10k_signals: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Poisoned {
    pub query: String,
    /// The poisoned unit's rank (1-based) before and after (absent: not in the top 50).
    pub unit_before: usize,
    pub unit_after: Option<usize>,
    /// The relevant unit's rank (1-based; absent: not in the top 10).
    pub relevant_before: Option<usize>,
    pub relevant_after: Option<usize>,
}

/// Adversarial marks per poisoned unit.
pub const POISON_MARKS: usize = 1000;

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
    let search_n = |q: &str, feedback: bool, limit: usize| {
        engine.search(&SearchRequest {
            stores: stores.to_vec(),
            mode,
            limit,
            freshness: false,
            feedback,
            ..SearchRequest::new(q)
        })
    };
    let search = |q: &str, feedback: bool| search_n(q, feedback, 10);
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
            // A search redone with other words says the first results missed, as the
            // server records it.
            let mut missed: Option<(&String, Vec<String>)> = None;
            for q in std::iter::once(&l.query).chain(&l.train) {
                searches += 1;
                if let Some((previous, ids)) = missed.take() {
                    engine.record_missed(&ids, previous, &client)?;
                }
                let r = search(q, true)?;
                if let Some(rank) = relevant_rank(&r.results, &l.relevant) {
                    engine.record_opened(&r.results[rank].unit.id, q, &client, rank + 1)?;
                    opened += 1;
                    break;
                }
                let first = r.results.iter().take(3).map(|h| h.unit.id.clone());
                missed = Some((q, first.collect()));
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
    let poisoning = poison(engine, &lines, &search_n)?;
    Ok(FeedbackReport {
        poisoning,
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

/// The poisoning bound (see [`Poisoning`]).
fn poison(
    engine: &Engine,
    lines: &[Line],
    search: &dyn Fn(
        &str,
        bool,
        usize,
    ) -> Result<lore_engine::SearchResponse, lore_engine::EngineError>,
) -> anyhow::Result<Poisoning> {
    let client = format!("eval-poison:{}", std::process::id());
    let (mut queries, mut relevant_after) = (Vec::new(), Vec::new());
    let mut bytes_per_10k = 0;
    for l in lines.iter().filter(|l| l.heldout.is_none()) {
        let before = search(&l.query, false, 10)?.results;
        let relevant_before = relevant_rank(&before, &l.relevant);
        let Some((unit_rank, unit)) = before
            .iter()
            .enumerate()
            .rev()
            .find(|(i, _)| Some(*i) != relevant_before)
        else {
            continue;
        };
        let id = unit.unit.id.clone();
        let bytes_before = engine.feedback_bytes()?;
        let marked = (|| -> anyhow::Result<Vec<lore_engine::SearchHit>> {
            for _ in 0..POISON_MARKS {
                engine.feedback(&lore_engine::feedback::FeedbackRequest {
                    result_id: id.clone(),
                    useful: true,
                    query: Some(l.query.clone()),
                    client: client.clone(),
                })?;
            }
            if bytes_per_10k == 0 {
                let grown = engine.feedback_bytes()?.saturating_sub(bytes_before);
                bytes_per_10k = grown * 10_000 / POISON_MARKS as u64;
            }
            Ok(search(&l.query, true, 50)?.results)
        })();
        engine.feedback_forget_client(&client)?;
        let after = marked?;
        let relevant = relevant_rank(&after, &l.relevant).filter(|&r| r < 10);
        relevant_after.push(relevant);
        queries.push(Poisoned {
            query: l.query.clone(),
            unit_before: unit_rank + 1,
            unit_after: after.iter().position(|h| h.unit.id == id).map(|r| r + 1),
            relevant_before: relevant_before.map(|r| r + 1),
            relevant_after: relevant.map(|r| r + 1),
        });
    }
    let best_climb = queries
        .iter()
        .map(|q| {
            q.unit_before
                .saturating_sub(q.unit_after.unwrap_or(usize::MAX))
        })
        .max()
        .unwrap_or(0);
    Ok(Poisoning {
        marks_per_query: POISON_MARKS,
        queries,
        best_climb,
        control_poisoned: score(&relevant_after),
        bytes_per_10k_signals: bytes_per_10k,
    })
}
