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
use std::collections::HashMap;
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

/// The chunk a result id names (a nested unit's id names its chunk too).
fn parse_id(id: &str) -> Result<i64, EngineError> {
    Ok(crate::unit::ResultId::parse(id)?.chunk)
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
        let (store, recorded) = self.record_signal(
            &req.result_id,
            req.query.as_deref(),
            kind,
            &req.client,
            None,
        )?;
        recorded.ok_or_else(|| {
            EngineError::Input(format!(
                "feedback is off for store {store}; `lore feedback on {store}` turns it on"
            ))
        })
    }

    /// Records that a result was opened after the search `query` showed it, at
    /// `shown_rank` (1-based; nothing when the store's feedback is off).
    pub fn record_opened(
        &self,
        result_id: &str,
        query: &str,
        client: &str,
        shown_rank: usize,
    ) -> Result<Option<FeedbackRecorded>, EngineError> {
        let rank = Some(shown_rank as i64);
        Ok(self
            .record_signal(result_id, Some(query), "opened", client, rank)?
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
            match self.record_signal(id, Some(query), "missed", client, None) {
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
        shown_rank: Option<i64>,
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
            shown_rank,
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
    /// them. A store's signals are read and prepared once per change of them
    /// (`feedback_seq`), so a search reads none and makes one pass over them.
    pub(crate) fn taught(
        &self,
        stores: &[&StoreRecord],
        query: &str,
    ) -> Result<Taught, EngineError> {
        let mut prepared = Vec::with_capacity(stores.len());
        for s in stores {
            prepared.push(self.taught_cache.signals(&self.catalog, s)?);
        }
        Ok(teach(prepared, &terms(query)))
    }
}

/// What the signals of `stores` do to a search for the analysed terms `query`.
fn teach(stores: Vec<Arc<StoreSignals>>, query: &[String]) -> Taught {
    let mut taught = Taught::default();
    for s in &stores {
        let known = s.known(query);
        s.lift(&known, query.len(), &mut taught.lift);
        s.associated(&known, query.len(), &mut taught.associated);
    }
    taught.associated.sort_unstable();
    taught.associated.dedup();
    taught.stores = stores;
    taught
}

/// A store's signals as searches use them, prepared once per change of them: weights
/// decayed to their age, query terms and clients as numbers, ordered by unit and client
/// (so a search sums them in one pass), and each unit's counts by kind (`why`'s words).
#[derive(Debug, Default)]
pub(crate) struct StoreSignals {
    terms: HashMap<String, u32>,
    /// Ordered by (unit, client).
    signals: Vec<Signal>,
    said: HashMap<i64, String>,
}

#[derive(Debug)]
struct Signal {
    chunk_id: i64,
    client: u32,
    terms: Box<[u32]>,
    /// The kind's weight times its decay.
    weight: f64,
}

impl StoreSignals {
    fn new(rows: Vec<FeedbackRow>, now: i64) -> StoreSignals {
        let mut prepared = StoreSignals::default();
        let mut clients: HashMap<String, u32> = HashMap::new();
        let mut counts: HashMap<i64, std::collections::BTreeMap<String, usize>> = HashMap::new();
        for r in rows {
            let age_days = (now - r.at).max(0) as f64 / 86_400.0;
            let decay = 0.5f64.powf(age_days / HALF_LIFE_DAYS);
            let next = clients.len() as u32;
            let client = *clients.entry(r.client).or_insert(next);
            let terms = r
                .terms
                .split(' ')
                .filter(|t| !t.is_empty())
                .map(|t| {
                    let next = prepared.terms.len() as u32;
                    *prepared.terms.entry(t.to_string()).or_insert(next)
                })
                .collect();
            *counts
                .entry(r.chunk_id)
                .or_default()
                .entry(r.kind.replace('_', " "))
                .or_default() += 1;
            prepared.signals.push(Signal {
                chunk_id: r.chunk_id,
                client,
                terms,
                weight: r.weight * decay,
            });
        }
        prepared.signals.sort_by_key(|s| (s.chunk_id, s.client));
        prepared.said = counts
            .into_iter()
            .map(|(id, kinds)| {
                let said: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}×")).collect();
                (id, said.join(", "))
            })
            .collect();
        prepared
    }

    /// The numbers of the query's terms this store's signals hold.
    fn known(&self, query: &[String]) -> Vec<u32> {
        query
            .iter()
            .filter_map(|t| self.terms.get(t).copied())
            .collect()
    }

    /// Each unit's factor for a query of `words` terms (`known`: those the signals hold):
    /// a signal counts fully when it shares all of them, half when it shares none; one
    /// client's sum on a unit is held within ±[`CLIENT_CAP`].
    fn lift(&self, known: &[u32], words: usize, out: &mut HashMap<i64, f32>) {
        let s = &self.signals;
        let mut i = 0;
        while i < s.len() {
            let chunk = s[i].chunk_id;
            let mut total = 0.0;
            while i < s.len() && s[i].chunk_id == chunk {
                let client = s[i].client;
                let mut sum = 0.0;
                while i < s.len() && s[i].chunk_id == chunk && s[i].client == client {
                    let shared = s[i].terms.iter().filter(|t| known.contains(t)).count();
                    let share = if words == 0 || s[i].terms.is_empty() {
                        0.0
                    } else {
                        shared as f64 / words as f64
                    };
                    sum += s[i].weight * (0.5 + 0.5 * share);
                    i += 1;
                }
                total += f64::clamp(sum, -CLIENT_CAP, CLIENT_CAP);
            }
            out.insert(chunk, 1.0 + LIFT * (total / 2.0).tanh() as f32);
        }
    }

    /// Units marked useful or opened for queries sharing two of the `words` query terms,
    /// or half of them.
    fn associated(&self, known: &[u32], words: usize, out: &mut Vec<i64>) {
        if known.is_empty() {
            return;
        }
        for s in self.signals.iter().filter(|s| s.weight > 0.0) {
            let shared = s.terms.iter().filter(|t| known.contains(t)).count();
            if shared >= 2 || (shared > 0 && 2 * shared >= words) {
                out.push(s.chunk_id);
            }
        }
    }
}

/// How long prepared signals are used before their decay is worked out again (a change of
/// the signals prepares them at once).
const PREPARED_FOR: std::time::Duration = std::time::Duration::from_secs(3600);

/// Each store's prepared signals, with the `feedback_seq` they were read at and when
/// (shared by an engine's clones).
#[derive(Clone, Default)]
pub(crate) struct TaughtCache(Arc<Mutex<HashMap<i64, Prepared>>>);

type Prepared = (i64, std::time::Instant, Arc<StoreSignals>);

impl TaughtCache {
    fn signals(
        &self,
        catalog: &lore_index::Catalog,
        store: &StoreRecord,
    ) -> Result<Arc<StoreSignals>, EngineError> {
        if let Ok(map) = self.0.lock()
            && let Some((seq, at, signals)) = map.get(&store.id)
            && *seq == store.feedback_seq
            && at.elapsed() < PREPARED_FOR
        {
            return Ok(signals.clone());
        }
        let rows = catalog.feedback_of_store(store.id)?;
        let signals = Arc::new(StoreSignals::new(rows, lore_core::unix_now()));
        if let Ok(mut map) = self.0.lock() {
            let at = std::time::Instant::now();
            map.insert(store.id, (store.feedback_seq, at, signals.clone()));
        }
        Ok(signals)
    }
}

/// What feedback does to one search.
#[derive(Debug, Default)]
pub(crate) struct Taught {
    /// Each unit's factor.
    pub lift: HashMap<i64, f32>,
    /// Units to add to the candidates.
    pub associated: Vec<i64>,
    stores: Vec<Arc<StoreSignals>>,
}

impl Taught {
    /// Why a unit moved (`feedback: opened 3× (×1.12)`), when it did.
    pub fn why(&self, id: i64) -> Option<String> {
        let factor = self.lift.get(&id)?;
        let said = self.stores.iter().find_map(|s| s.said.get(&id))?;
        Some(format!("feedback: {said} (×{factor:.2})"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `rows` of one store teach a query of `terms`, at `now`.
    fn learn(rows: &[FeedbackRow], terms: &[&str], now: i64) -> Taught {
        let terms: Vec<String> = terms.iter().map(|t| t.to_string()).collect();
        teach(
            vec![Arc::new(StoreSignals::new(rows.to_vec(), now))],
            &terms,
        )
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
            shown_rank: None,
        }
    }

    #[test]
    fn a_flood_from_one_client_moves_a_unit_a_bounded_amount() {
        let now = 1_000_000;
        let flood: Vec<FeedbackRow> = (0..1000)
            .map(|_| row(7, "useful", "a", "retri", now))
            .collect();
        let one = learn(&flood, &["retri"], now).lift[&7];
        let cap = 1.0 + LIFT * (CLIENT_CAP as f32 / 2.0).tanh();
        assert!((one - cap).abs() < 1e-4, "{one} vs {cap}");
        let against: Vec<FeedbackRow> = (0..1000)
            .map(|_| row(7, "not_useful", "b", "", now))
            .collect();
        let down = learn(&against, &[], now).lift[&7];
        assert!((down - (2.0 - cap)).abs() < 1e-4, "{down}");
        // Many clients together: never past 1 ± LIFT.
        let many: Vec<FeedbackRow> = (0..50)
            .map(|c| row(7, "useful", &format!("c{c}"), "", now))
            .collect();
        let all = learn(&many, &[], now).lift[&7];
        assert!(all <= 1.0 + LIFT && all > cap, "{all}");
    }

    #[test]
    fn shared_words_and_recency_count_more() {
        let now = 100 * 86_400;
        let rows = [
            row(1, "opened", "a", "retri backoff", now),
            row(2, "opened", "a", "cooki", now),
            row(4, "missed", "b", "retri", now),
            row(4, "useful", "a", "cooki", now),
        ];
        let l = learn(&rows, &["backoff", "retri"], now);
        assert!(l.lift[&1] > l.lift[&2], "{:?}", l.lift);
        assert!(l.lift[&2] > 1.0, "other words still count, less");
        assert_eq!(
            l.why(1).unwrap(),
            format!("feedback: opened 1× (×{:.2})", l.lift[&1])
        );
        assert_eq!(
            l.why(4).unwrap(),
            format!("feedback: missed 1×, useful 1× (×{:.2})", l.lift[&4])
        );
        // Opened for these very words: a candidate; missed only: not.
        assert_eq!(l.associated, [1]);
        let old = learn(&[row(3, "useful", "a", "", now - 60 * 86_400)], &[], now).lift[&3];
        let new = learn(&[row(3, "useful", "a", "", now)], &[], now).lift[&3];
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
