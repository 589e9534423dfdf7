//! Agents teach lore: what they mark useful or not (`feedback`), and which results they open
//! after a search (recorded by the server), become a bounded lift in later rankings.
//!
//! Learning is a per-unit prior with decay: each signal weighs useful +1, opened +0.5, not
//! useful −1, missed −0.25 (shown first by a search the searcher redid with other words,
//! opening nothing), halves every [`HALF_LIFE_DAYS`], and counts fully when the new query shares the
//! signal's query terms, half when it shares none (a unit that helped helps again, for other
//! words too, but less). One client's signals on a unit are capped at ±[`CLIENT_CAP`], so a
//! flood from one client moves a unit by at most `1 ± LIFT × tanh(CAP / 2)`; all clients
//! together by at most `1 ± LIFT`. Signals are keyed by chunk id (which hashes the content):
//! a unit that changes starts afresh. A search reads them in one lookup for its candidates.

use crate::{Engine, EngineError};
use lore_index::{FeedbackRow, StoreRecord};
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// The most a unit's score moves (±25%).
pub const LIFT: f32 = 0.25;
/// One client's summed signals on one unit are held within ±this.
pub const CLIENT_CAP: f64 = 2.0;
/// A signal counts half after this many days.
pub const HALF_LIFE_DAYS: f64 = 30.0;
/// Signals older than this are dropped.
pub const RETENTION_DAYS: i64 = 180;

/// A signal's weight by kind.
fn weight(kind: &str) -> f64 {
    match kind {
        "useful" => 1.0,
        "not_useful" => -1.0,
        "opened" => 0.5,
        "missed" => -0.25,
        _ => 0.0,
    }
}

/// An explicit mark.
#[derive(Debug, Clone)]
pub struct FeedbackRequest {
    /// A result id as search printed it (hex).
    pub result_id: String,
    pub useful: bool,
    /// The query the result answered, when known.
    pub query: Option<String>,
    /// Who sends it (`cli`, `mcp`, `rest`, `eval`, …): the unit of the flood cap.
    pub client: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct FeedbackRecorded {
    pub store: String,
    pub id: String,
    pub kind: String,
    pub weight: f64,
}

/// What feedback does to one candidate.
#[derive(Debug, Clone, Default)]
pub(crate) struct Learned {
    pub factor: f32,
    pub why: String,
}

fn parse_id(id: &str) -> Result<i64, EngineError> {
    i64::from_str_radix(id.trim(), 16)
        .ok()
        .filter(|v| *v >= 0)
        .ok_or_else(|| {
            EngineError::Input(format!(
                "{id:?} is not a result id: give the 16-hex-digit id a search printed"
            ))
        })
}

/// The analysed terms of a query, as the index sees words.
fn terms(query: &str) -> Vec<String> {
    let mut analyzer = lore_index::tokenizer::code_analyzer();
    let mut t = lore_index::tokenizer::analyze(&mut analyzer, query);
    t.sort();
    t.dedup();
    t
}

impl Engine {
    /// Records an explicit mark on a result.
    pub fn feedback(&self, req: &FeedbackRequest) -> Result<FeedbackRecorded, EngineError> {
        let kind = if req.useful { "useful" } else { "not_useful" };
        let (store, recorded) =
            self.record_signal(&req.result_id, req.query.as_deref(), kind, &req.client)?;
        recorded.ok_or_else(|| {
            EngineError::Input(format!(
                "feedback is off for store {store}; `lore feedback on {store}` turns it on"
            ))
        })
    }

    /// Records that a result was opened after the search `query` showed it (nothing when
    /// the store's feedback is off).
    pub fn record_opened(
        &self,
        result_id: &str,
        query: &str,
        client: &str,
    ) -> Result<Option<FeedbackRecorded>, EngineError> {
        Ok(self
            .record_signal(result_id, Some(query), "opened", client)?
            .1)
    }

    /// Records that a search's first results were passed over: the searcher searched again
    /// with other words soon after, opening none of them (a weak signal against them for
    /// that query's words). Units changed since are skipped; returns how many were recorded.
    pub fn record_missed(
        &self,
        result_ids: &[String],
        query: &str,
        client: &str,
    ) -> Result<usize, EngineError> {
        let mut n = 0;
        for id in result_ids {
            match self.record_signal(id, Some(query), "missed", client) {
                Ok((_, recorded)) => n += usize::from(recorded.is_some()),
                Err(EngineError::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(n)
    }

    /// Turns what agents teach on or off for one store: off, no signal is recorded for it
    /// and none changes its ranking (those recorded are kept, for when it is on again).
    pub fn set_feedback(&self, store: &str, on: bool) -> Result<StoreRecord, EngineError> {
        let s = self.require_store(store)?;
        self.catalog.set_feedback(s.id, on)?;
        self.require_store(store)
    }

    /// The store the result is in, and the signal recorded (`None`: its feedback is off).
    fn record_signal(
        &self,
        result_id: &str,
        query: Option<&str>,
        kind: &str,
        client: &str,
    ) -> Result<(String, Option<FeedbackRecorded>), EngineError> {
        let id = parse_id(result_id)?;
        let Some(chunk) = self.catalog.chunks(&[id])?.into_iter().next() else {
            return Err(EngineError::NotFound(format!(
                "no result {result_id}: the unit changed or its store was re-indexed; search again"
            )));
        };
        let Some(store) = self.catalog.store_by_id(chunk.store_id)? else {
            return Err(EngineError::NotFound(format!(
                "no result {result_id}: its store was removed"
            )));
        };
        if !store.feedback {
            return Ok((store.name, None));
        }
        let row = FeedbackRow {
            store_id: chunk.store_id,
            chunk_id: id,
            terms: query.map(|q| terms(q).join(" ")).unwrap_or_default(),
            weight: weight(kind),
            kind: kind.to_string(),
            client: client.to_string(),
            at: 0,
        };
        self.catalog.add_feedback(&row, RETENTION_DAYS * 86_400)?;
        let recorded = FeedbackRecorded {
            store: store.name.clone(),
            id: format!("{id:016x}"),
            kind: kind.to_string(),
            weight: row.weight,
        };
        Ok((store.name, Some(recorded)))
    }

    /// Recorded signals, newest first (of one store, or all).
    pub fn feedback_list(
        &self,
        store: Option<&str>,
        limit: usize,
    ) -> Result<Vec<FeedbackRow>, EngineError> {
        let id = store
            .map(|s| self.require_store(s).map(|r| r.id))
            .transpose()?;
        Ok(self.catalog.feedback_list(id, limit)?)
    }

    /// Forgets the signals of one store, or all; returns how many.
    pub fn feedback_reset(&self, store: Option<&str>) -> Result<u64, EngineError> {
        let id = store
            .map(|s| self.require_store(s).map(|r| r.id))
            .transpose()?;
        Ok(self.catalog.feedback_reset(id)?)
    }

    /// Bytes the recorded signals take in the catalog (rows and indexes).
    pub fn feedback_bytes(&self) -> Result<u64, EngineError> {
        Ok(self.catalog.feedback_bytes()?)
    }

    /// Forgets what one client sent (an evaluation's own signals).
    pub fn feedback_forget_client(&self, client: &str) -> Result<u64, EngineError> {
        Ok(self.catalog.feedback_forget_client(client)?)
    }

    /// What agents taught about `store_ids` for `query`, read in one lookup: each unit's
    /// lift, and the units opened or marked useful for queries like it (sharing two of its
    /// analysed terms, or half of them), which join a search's candidates even when neither
    /// signal retrieved them.
    pub(crate) fn taught(&self, store_ids: &[i64], query: &str) -> Result<Taught, EngineError> {
        let rows = self.catalog.feedback_of_stores(store_ids)?;
        if rows.is_empty() {
            return Ok(Taught::default());
        }
        let q = terms(query);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let words: HashSet<&str> = q.iter().map(String::as_str).collect();
        let mut associated: Vec<i64> = rows
            .iter()
            .filter(|r| r.weight > 0.0 && !r.terms.is_empty())
            .filter(|r| {
                let shared = r.terms.split(' ').filter(|t| words.contains(t)).count();
                shared >= 2 || (shared > 0 && 2 * shared >= words.len())
            })
            .map(|r| r.chunk_id)
            .collect();
        associated.sort_unstable();
        associated.dedup();
        Ok(Taught {
            lift: learn(&rows, &q, now),
            associated,
        })
    }
}

/// What feedback does to one search.
#[derive(Debug, Default)]
pub(crate) struct Taught {
    /// Each unit's factor and the words that say why.
    pub lift: HashMap<i64, Learned>,
    /// Units to add to the candidates.
    pub associated: Vec<i64>,
}

/// The factor and the words for each unit the rows are about.
fn learn(rows: &[FeedbackRow], query: &[String], now: i64) -> HashMap<i64, Learned> {
    let query: HashSet<&str> = query.iter().map(String::as_str).collect();
    // unit → client → summed signal; unit → kind → count.
    let mut sums: HashMap<i64, HashMap<&str, f64>> = HashMap::new();
    let mut counts: HashMap<i64, HashMap<&str, usize>> = HashMap::new();
    for r in rows {
        let age_days = (now - r.at).max(0) as f64 / 86_400.0;
        let decay = 0.5f64.powf(age_days / HALF_LIFE_DAYS);
        let shared = if query.is_empty() || r.terms.is_empty() {
            0.0
        } else {
            let words: HashSet<&str> = r.terms.split(' ').collect();
            words.intersection(&query).count() as f64 / query.len() as f64
        };
        let signal = r.weight * decay * (0.5 + 0.5 * shared);
        *sums
            .entry(r.chunk_id)
            .or_default()
            .entry(&r.client)
            .or_default() += signal;
        *counts
            .entry(r.chunk_id)
            .or_default()
            .entry(&r.kind)
            .or_default() += 1;
    }
    sums.into_iter()
        .map(|(id, clients)| {
            let total: f64 = clients
                .values()
                .map(|s| s.clamp(-CLIENT_CAP, CLIENT_CAP))
                .sum();
            let factor = 1.0 + LIFT * (total / 2.0).tanh() as f32;
            let mut said: Vec<String> = counts
                .get(&id)
                .into_iter()
                .flatten()
                .map(|(kind, n)| format!("{} {n}×", kind.replace('_', " ")))
                .collect();
            said.sort();
            let why = format!("feedback: {} (×{factor:.2})", said.join(", "));
            (id, Learned { factor, why })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(chunk: i64, kind: &str, client: &str, terms: &str, at: i64) -> FeedbackRow {
        FeedbackRow {
            store_id: 1,
            chunk_id: chunk,
            terms: terms.into(),
            weight: weight(kind),
            kind: kind.into(),
            client: client.into(),
            at,
        }
    }

    #[test]
    fn a_flood_from_one_client_moves_a_unit_a_bounded_amount() {
        let now = 1_000_000;
        let flood: Vec<FeedbackRow> = (0..1000)
            .map(|_| row(7, "useful", "a", "retri", now))
            .collect();
        let one = learn(&flood, &["retri".into()], now)[&7].factor;
        let cap = 1.0 + LIFT * (CLIENT_CAP as f32 / 2.0).tanh();
        assert!((one - cap).abs() < 1e-4, "{one} vs {cap}");
        let against: Vec<FeedbackRow> = (0..1000)
            .map(|_| row(7, "not_useful", "b", "", now))
            .collect();
        let down = learn(&against, &[], now)[&7].factor;
        assert!((down - (2.0 - cap)).abs() < 1e-4, "{down}");
        // Many clients together: never past 1 ± LIFT.
        let many: Vec<FeedbackRow> = (0..50)
            .map(|c| row(7, "useful", &format!("c{c}"), "", now))
            .collect();
        let all = learn(&many, &[], now)[&7].factor;
        assert!(all <= 1.0 + LIFT && all > cap, "{all}");
    }

    #[test]
    fn shared_words_and_recency_count_more() {
        let now = 100 * 86_400;
        let rows = [
            row(1, "opened", "a", "retri backoff", now),
            row(2, "opened", "a", "cooki", now),
        ];
        let l = learn(&rows, &["retri".into(), "backoff".into()], now);
        assert!(
            l[&1].factor > l[&2].factor,
            "{:?} {:?}",
            l[&1].factor,
            l[&2].factor
        );
        assert!(l[&2].factor > 1.0, "other words still count, less");
        assert_eq!(
            l[&1].why,
            format!("feedback: opened 1× (×{:.2})", l[&1].factor)
        );
        let old = learn(&[row(3, "useful", "a", "", now - 60 * 86_400)], &[], now)[&3].factor;
        let new = learn(&[row(3, "useful", "a", "", now)], &[], now)[&3].factor;
        assert!(old < new && old > 1.0, "{old} {new}");
    }
}
