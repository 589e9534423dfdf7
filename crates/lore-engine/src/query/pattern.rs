//! Patterns in answers: a find-pattern search answers first with the pattern its best
//! results are members of (kind `pattern`), then those members; `Engine::patterns` lists a
//! store's patterns by size.

use crate::query::SearchHit;
use crate::{Engine, EngineError};
use lore_index::{PatternRow, StoreRecord};
use serde::Serialize;

/// Members of a pattern shown in a search answer.
const SHOWN_MEMBERS: usize = 5;

/// A pattern as a search answers with it.
#[derive(Debug, Clone, Serialize)]
pub struct PatternHit {
    /// Always `pattern`.
    pub kind: &'static str,
    pub store: String,
    #[serde(flatten)]
    pub pattern: PatternRow,
}

/// A store's patterns, largest first.
#[derive(Debug, Clone, Serialize)]
pub struct PatternList {
    pub store: String,
    /// Units the patterns cover (a unit may be in two).
    pub covered: usize,
    pub patterns: Vec<PatternRow>,
}

/// Whether a result is a member of `p` (its unit starts on a member's line).
fn holds(p: &PatternRow, hit: &SearchHit) -> bool {
    p.members.iter().any(|m| {
        m.path == hit.unit.path
            && m.start_line <= hit.unit.end_line
            && hit.unit.start_line <= m.end_line
    })
}

impl Engine {
    /// The pattern the first results of a find-pattern search belong to most (each result
    /// counting by its rank), and the results reordered: that pattern's members first.
    pub(crate) fn pattern_answer(
        &self,
        stores: &[StoreRecord],
        results: &mut [SearchHit],
    ) -> Result<Vec<PatternHit>, EngineError> {
        let mut best: Option<(f32, PatternHit)> = None;
        for s in stores {
            if !results.iter().any(|h| h.unit.store == s.name) {
                continue;
            }
            for p in self.catalog.patterns(s.id)? {
                let score: f32 = results
                    .iter()
                    .take(10)
                    .enumerate()
                    .filter(|(_, h)| h.unit.store == s.name && holds(&p, h))
                    .map(|(rank, _)| 1.0 / (rank as f32 + 1.0))
                    .sum();
                if score > 0.0 && best.as_ref().is_none_or(|(b, _)| score > *b) {
                    best = Some((
                        score,
                        PatternHit {
                            kind: "pattern",
                            store: s.name.clone(),
                            pattern: p,
                        },
                    ));
                }
            }
        }
        let Some((_, mut hit)) = best else {
            return Ok(Vec::new());
        };
        // Its best instances first, in their own order.
        results.sort_by_key(|h| !(h.unit.store == hit.store && holds(&hit.pattern, h)));
        hit.pattern.members.truncate(SHOWN_MEMBERS);
        Ok(vec![hit])
    }

    /// A store's patterns, largest first (at most `limit`; 0: all).
    pub fn patterns(&self, store: &str, limit: usize) -> Result<PatternList, EngineError> {
        let record = self.require_store(store)?;
        let mut patterns = self.catalog.patterns(record.id)?;
        let covered = {
            let mut units = std::collections::HashSet::new();
            for p in &patterns {
                units.extend(p.members.iter().map(|m| (m.path.clone(), m.start_line)));
            }
            units.len()
        };
        if limit > 0 {
            patterns.truncate(limit);
        }
        Ok(PatternList {
            store: record.name,
            covered,
            patterns,
        })
    }
}
