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
use std::sync::{Arc, Mutex};

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

    /// What agents taught about `stores` for `query`: each unit's lift, and the units
    /// opened or marked useful for queries like it (sharing two of its analysed terms, or
    /// half of them), which join a search's candidates even when neither signal retrieved
    /// them. A store's signals are read once per change of them (`feedback_seq`), so a
    /// search reads none.
    pub(crate) fn taught(
        &self,
        stores: &[&StoreRecord],
        query: &str,
    ) -> Result<Taught, EngineError> {
        let mut signals: Vec<Arc<[Signal]>> = Vec::with_capacity(stores.len());
        for s in stores {
            signals.push(self.taught_cache.signals(&self.catalog, s)?);
        }
        if signals.iter().all(|s| s.is_empty()) {
            return Ok(Taught::default());
        }
        let q = terms(query);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let words: HashSet<&str> = q.iter().map(String::as_str).collect();
        let all = || signals.iter().flat_map(|s| s.iter());
        let mut associated: Vec<i64> = all()
            .filter(|r| r.weight > 0.0 && !r.terms.is_empty())
            .filter(|r| {
                let shared = r
                    .terms
                    .iter()
                    .filter(|t| words.contains(t.as_str()))
                    .count();
                shared >= 2 || (shared > 0 && 2 * shared >= words.len())
            })
            .map(|r| r.chunk_id)
            .collect();
        associated.sort_unstable();
        associated.dedup();
        Ok(Taught {
            lift: learn(all(), &q, now),
            associated,
        })
    }
}

/// One recorded signal as searches use it: its query's terms split once.
#[derive(Debug)]
pub(crate) struct Signal {
    chunk_id: i64,
    terms: Box<[String]>,
    weight: f64,
    kind: String,
    client: String,
    at: i64,
}

impl From<FeedbackRow> for Signal {
    fn from(r: FeedbackRow) -> Signal {
        Signal {
            chunk_id: r.chunk_id,
            terms: r
                .terms
                .split(' ')
                .filter(|t| !t.is_empty())
                .map(String::from)
                .collect(),
            weight: r.weight,
            kind: r.kind,
            client: r.client,
            at: r.at,
        }
    }
}

/// Each store's signals as last read, with the `feedback_seq` they were read at (shared by
/// an engine's clones).
#[derive(Clone, Default)]
pub(crate) struct TaughtCache(Arc<Mutex<HashMap<i64, Read>>>);

/// A store's signals and the `feedback_seq` they were read at.
type Read = (i64, Arc<[Signal]>);

impl TaughtCache {
    fn signals(
        &self,
        catalog: &lore_index::Catalog,
        store: &StoreRecord,
    ) -> Result<Arc<[Signal]>, EngineError> {
        if let Ok(map) = self.0.lock()
            && let Some((seq, signals)) = map.get(&store.id)
            && *seq == store.feedback_seq
        {
            return Ok(signals.clone());
        }
        let signals: Arc<[Signal]> = catalog
            .feedback_of_store(store.id)?
            .into_iter()
            .map(Signal::from)
            .collect();
        if let Ok(mut map) = self.0.lock() {
            map.insert(store.id, (store.feedback_seq, signals.clone()));
        }
        Ok(signals)
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

/// The factor and the words for each unit the signals are about.
fn learn<'a>(
    signals: impl Iterator<Item = &'a Signal>,
    query: &[String],
    now: i64,
) -> HashMap<i64, Learned> {
    let query: HashSet<&str> = query.iter().map(String::as_str).collect();
    // unit → client → summed signal; unit → kind → count.
    let mut sums: HashMap<i64, HashMap<&str, f64>> = HashMap::new();
    let mut counts: HashMap<i64, HashMap<&str, usize>> = HashMap::new();
    for r in signals {
        let age_days = (now - r.at).max(0) as f64 / 86_400.0;
        let decay = 0.5f64.powf(age_days / HALF_LIFE_DAYS);
        let shared = if query.is_empty() || r.terms.is_empty() {
            0.0
        } else {
            let shared = r
                .terms
                .iter()
                .filter(|t| query.contains(t.as_str()))
                .count();
            shared as f64 / query.len() as f64
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

    fn signals(rows: &[FeedbackRow]) -> Vec<Signal> {
        rows.iter().cloned().map(Signal::from).collect()
    }

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
        let one = learn(signals(&flood).iter(), &["retri".into()], now)[&7].factor;
        let cap = 1.0 + LIFT * (CLIENT_CAP as f32 / 2.0).tanh();
        assert!((one - cap).abs() < 1e-4, "{one} vs {cap}");
        let against: Vec<FeedbackRow> = (0..1000)
            .map(|_| row(7, "not_useful", "b", "", now))
            .collect();
        let down = learn(signals(&against).iter(), &[], now)[&7].factor;
        assert!((down - (2.0 - cap)).abs() < 1e-4, "{down}");
        // Many clients together: never past 1 ± LIFT.
        let many: Vec<FeedbackRow> = (0..50)
            .map(|c| row(7, "useful", &format!("c{c}"), "", now))
            .collect();
        let all = learn(signals(&many).iter(), &[], now)[&7].factor;
        assert!(all <= 1.0 + LIFT && all > cap, "{all}");
    }

    #[test]
    fn shared_words_and_recency_count_more() {
        let now = 100 * 86_400;
        let rows = [
            row(1, "opened", "a", "retri backoff", now),
            row(2, "opened", "a", "cooki", now),
        ];
        let l = learn(
            signals(&rows).iter(),
            &["retri".into(), "backoff".into()],
            now,
        );
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
        let old = learn(
            signals(&[row(3, "useful", "a", "", now - 60 * 86_400)]).iter(),
            &[],
            now,
        )[&3]
            .factor;
        let new = learn(signals(&[row(3, "useful", "a", "", now)]).iter(), &[], now)[&3].factor;
        assert!(old < new && old > 1.0, "{old} {new}");
    }

    /// A search reads a store's signals once, and again after each change of them (a mark,
    /// a reset), in the same engine and in one that shares nothing with it.
    #[test]
    fn searches_see_each_change_of_the_signals() {
        use crate::{AddStore, Mode, NoProgress, SearchRequest};
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        for (file, name) in [("a.py", "retry_first"), ("b.py", "retry_later")] {
            let body =
                format!("def {name}(attempt):\n    \"\"\"Retry after a failed attempt.\"\"\"\n");
            std::fs::write(src.join(file), body).unwrap();
        }
        let mut e = crate::test_engine(dir.path());
        let add = AddStore {
            name: "py".into(),
            source: src.display().to_string(),
            ..Default::default()
        };
        e.add_store(&add, &NoProgress).unwrap();
        let mut req = SearchRequest::new("retry after a failed attempt");
        req.mode = Mode::Fts;
        let first = |e: &Engine| e.search(&req).unwrap().results[0].unit.id.clone();
        let before = e.search(&req).unwrap();
        let other = before.results[1].unit.id.clone();
        let mark = |useful: bool| FeedbackRequest {
            result_id: other.clone(),
            useful,
            query: Some(req.query.clone()),
            client: "test".into(),
        };
        e.feedback(&mark(true)).unwrap();
        assert_eq!(first(&e), other, "the mark lifts it at once");
        let second = Engine::open_with(e.data.clone(), e.config.clone()).unwrap();
        assert_eq!(first(&second), other);
        e.feedback_reset(Some("py")).unwrap();
        assert_eq!(first(&e), before.results[0].unit.id, "reset: read again");
        assert_eq!(first(&second), before.results[0].unit.id);
        e.set_feedback("py", false).unwrap();
        assert!(e.feedback(&mark(true)).is_err(), "off: refused");
        assert!(e.feedback_list(Some("py"), 10).unwrap().is_empty());
    }
}
