//! Fusing the BM25 and vector rankings into one score.
//!
//! The default is a convex combination of two scores that each mean the same across
//! queries: the cosine similarity, and the BM25 score divided by the query's theoretical
//! maximum (every term matched at saturation in every field). Unlike min–max per query,
//! neither depends on the other candidates, so `--threshold` means the same for every
//! query. Weighted reciprocal-rank fusion is kept for comparison (`lore eval`).
//! Why this default and these numbers: ARCHITECTURE.md, "Fusion".

use serde::Serialize;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Fusion {
    /// `alpha * cosine + (1 - alpha) * bm25 / bm25_max`. `alpha` runs from `prose` to
    /// `code` with the share of code among the query's top candidates: BM25 is a strong
    /// signal on prose and a weak one on code asked about in words.
    Convex { code: f32, prose: f32 },
    /// `w_bm25 / (k + rank_bm25) + w_vec / (k + rank_vec)`, scaled so 1.0 = first in both.
    Rrf { k: f32, w_bm25: f32, w_vec: f32 },
}

impl Default for Fusion {
    fn default() -> Self {
        Fusion::Convex {
            code: 0.7,
            prose: 0.5,
        }
    }
}

impl Fusion {
    /// One weight for every chunk (single-signal ranking, sweeps).
    pub fn convex(alpha: f32) -> Fusion {
        Fusion::Convex {
            code: alpha,
            prose: alpha,
        }
    }
}

/// Where a fused candidate came from: 1-based ranks and raw scores per signal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Signals {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bm25_score: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_rank: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vector_score: Option<f32>,
}

/// The candidates of one query: both rankings, best first.
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    pub bm25: Vec<(i64, f32)>,
    /// The query's maximum attainable BM25 score (> 0 when there are BM25 terms).
    pub bm25_max: f32,
    pub vector: Vec<(i64, f32)>,
    /// Cosine of BM25-only candidates, filled in from the vector store when available.
    pub extra_cosine: HashMap<i64, f32>,
    /// BM25 candidates that have no vector yet (a store still being embedded): their
    /// missing cosine is not counted as 0 (see `fuse`).
    pub unembedded: HashSet<i64>,
    /// Candidates that are prose (markdown, plain text) rather than code.
    pub prose: HashSet<i64>,
}

/// Weights of a file's (or a container's) 2nd, 3rd, … best chunk relative to its best,
/// when several chunks add up to one answer (`locate`'s files, a class standing in for its
/// methods).
pub(crate) const CHUNK_DECAY: [f32; 4] = [0.35, 0.2, 0.1, 0.05];

/// How many of each signal's best candidates decide whether a query is answered by code or
/// by prose.
const SHARE_DEPTH: usize = 10;

impl Candidates {
    /// Scales BM25 by the best match instead of the query's theoretical maximum (the best
    /// BM25 candidate scores 1). For a long task: it matches few of its hundreds of words in
    /// any one chunk, so against the maximum every BM25 score is a few hundredths and the
    /// cosines alone would rank.
    pub fn scale_bm25_by_best(&mut self) {
        if let Some(&(_, best)) = self.bm25.first()
            && best > 0.0
        {
            self.bm25_max = best;
        }
    }

    /// The share of code among both signals' top candidates (1.0 when there are none).
    fn code_share(&self) -> f32 {
        let top: HashSet<i64> = self
            .bm25
            .iter()
            .take(SHARE_DEPTH)
            .chain(self.vector.iter().take(SHARE_DEPTH))
            .map(|h| h.0)
            .collect();
        if top.is_empty() {
            return 1.0;
        }
        top.iter().filter(|id| !self.prose.contains(id)).count() as f32 / top.len() as f32
    }
}

/// Fuses the candidates; returns (id, score, signals), best first.
pub fn fuse(c: &Candidates, fusion: Fusion) -> Vec<(i64, f32, Signals)> {
    let mut signals: HashMap<i64, Signals> = HashMap::new();
    for (rank, &(id, score)) in c.bm25.iter().enumerate() {
        let s = signals.entry(id).or_default();
        s.bm25_rank = Some(rank as u32 + 1);
        s.bm25_score = Some(score);
    }
    for (rank, &(id, score)) in c.vector.iter().enumerate() {
        let s = signals.entry(id).or_default();
        s.vector_rank = Some(rank as u32 + 1);
        s.vector_score = Some(score);
    }
    // One weight per query, not per chunk: cosines run higher than normalised BM25, so
    // weighting chunks differently would rank one kind of content above the other.
    let alpha = match fusion {
        Fusion::Convex { code, prose } => prose + (code - prose) * c.code_share(),
        Fusion::Rrf { .. } => 0.0,
    };
    // A chunk not embedded yet stands in with the median cosine of the BM25 candidates that
    // are (a typical match, neither boosted nor sunk); with none to go by, BM25 alone.
    let imputed = {
        let mut known: Vec<f32> = c
            .bm25
            .iter()
            .filter(|(id, _)| !c.unembedded.contains(id))
            .filter_map(|(id, _)| {
                signals
                    .get(id)
                    .and_then(|s| s.vector_score)
                    .or_else(|| c.extra_cosine.get(id).copied())
            })
            .collect();
        known.sort_by(f32::total_cmp);
        known.get(known.len() / 2).map(|m| m.max(0.0))
    };
    let mut out: Vec<(i64, f32, Signals)> = signals
        .into_iter()
        .map(|(id, s)| {
            let score = match fusion {
                Fusion::Convex { .. } => {
                    let bm25 = if c.bm25_max > 0.0 {
                        (s.bm25_score.unwrap_or(0.0) / c.bm25_max).min(1.0)
                    } else {
                        0.0
                    };
                    let cos = s.vector_score.or_else(|| c.extra_cosine.get(&id).copied());
                    match (cos, c.unembedded.contains(&id), imputed) {
                        (None, true, None) => bm25,
                        (None, true, Some(m)) => alpha * m + (1.0 - alpha) * bm25,
                        (cos, _, _) => alpha * cos.unwrap_or(0.0).max(0.0) + (1.0 - alpha) * bm25,
                    }
                }
                Fusion::Rrf { k, w_bm25, w_vec } => {
                    let term = |rank: Option<u32>, w: f32| rank.map_or(0.0, |r| w / (k + r as f32));
                    let max = w_bm25 / (k + 1.0) + w_vec / (k + 1.0);
                    (term(s.bm25_rank, w_bm25) + term(s.vector_rank, w_vec)) / max
                }
            };
            (id, score, s)
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cands() -> Candidates {
        Candidates {
            bm25: vec![(1, 10.0), (2, 5.0)],
            bm25_max: 20.0,
            vector: vec![(2, 0.9), (3, 0.5)],
            extra_cosine: HashMap::from([(1, 0.2)]),
            prose: HashSet::new(),
            unembedded: HashSet::new(),
        }
    }

    #[test]
    fn a_long_tasks_best_bm25_match_is_not_drowned_by_cosines() {
        // A task of many words: its maximum is far above what any chunk scores. Chunk 1
        // holds the task's rare words; chunk 2 is only about the same topic.
        let mut c = Candidates {
            bm25: vec![(1, 12.0), (2, 2.0)],
            bm25_max: 400.0,
            vector: vec![(2, 0.62), (1, 0.48)],
            extra_cosine: HashMap::new(),
            ..cands()
        };
        let out = fuse(&c, Fusion::default());
        assert_eq!(
            out[0].0, 2,
            "against the maximum, the cosine decides: {out:?}"
        );
        c.scale_bm25_by_best();
        let out = fuse(&c, Fusion::default());
        assert_eq!(out[0].0, 1, "{out:?}");
        assert!((out[0].1 - (0.7 * 0.48 + 0.3)).abs() < 1e-6, "{out:?}");
    }

    #[test]
    fn a_chunk_not_yet_embedded_stands_in_with_a_typical_cosine() {
        // 4 is the best BM25 match but has no vector yet: it takes the median cosine of
        // the embedded BM25 candidates (1: 0.2, 2: 0.9 → 0.9, the upper median), not 0.
        let c = Candidates {
            bm25: vec![(4, 20.0), (1, 10.0), (2, 5.0)],
            unembedded: HashSet::from([4]),
            ..cands()
        };
        let out = fuse(&c, Fusion::convex(0.5));
        assert_eq!(out[0].0, 4, "{out:?}");
        assert!((out[0].1 - (0.5 * 0.9 + 0.5)).abs() < 1e-6, "{out:?}");
        // Nothing embedded at all: BM25 alone, in BM25's order.
        let none = Candidates {
            bm25: vec![(1, 10.0), (2, 5.0)],
            bm25_max: 10.0,
            vector: Vec::new(),
            extra_cosine: HashMap::new(),
            unembedded: HashSet::from([1, 2]),
            ..cands()
        };
        let out = fuse(&none, Fusion::convex(0.5));
        assert_eq!(out.iter().map(|o| o.0).collect::<Vec<_>>(), [1, 2]);
        assert!((out[0].1 - 1.0).abs() < 1e-6, "{out:?}");
    }

    #[test]
    fn convex_uses_absolute_scores() {
        let out = fuse(&cands(), Fusion::convex(0.5));
        let ids: Vec<i64> = out.iter().map(|o| o.0).collect();
        assert_eq!(ids, [2, 1, 3]);
        // 2: 0.5*0.9 + 0.5*0.25
        assert!((out[0].1 - 0.575).abs() < 1e-6);
        // 1: cosine taken from extra_cosine
        assert!((out[1].1 - (0.1 + 0.25)).abs() < 1e-6);
        assert_eq!(out[0].2.bm25_rank, Some(2));
        assert_eq!(out[0].2.vector_rank, Some(1));
    }

    #[test]
    fn prose_answers_lean_on_bm25() {
        let code = fuse(
            &cands(),
            Fusion::Convex {
                code: 0.9,
                prose: 0.5,
            },
        );
        let prose = fuse(
            &Candidates {
                prose: HashSet::from([1, 2, 3]),
                ..cands()
            },
            Fusion::Convex {
                code: 0.9,
                prose: 0.5,
            },
        );
        // All code: alpha 0.9; all prose: alpha 0.5 (2 = 0.5*0.9 + 0.5*0.25).
        assert!((code[0].1 - (0.81 + 0.025)).abs() < 1e-6);
        assert!((prose[0].1 - 0.575).abs() < 1e-6);
        // Half prose: halfway.
        let half = fuse(
            &Candidates {
                prose: HashSet::from([3]),
                ..cands()
            },
            Fusion::Convex {
                code: 0.9,
                prose: 0.5,
            },
        );
        let alpha = 0.5 + 0.4 * (2.0 / 3.0);
        assert!((half[0].1 - (alpha * 0.9 + (1.0 - alpha) * 0.25)).abs() < 1e-6);
    }

    #[test]
    fn rrf_is_one_when_first_everywhere() {
        let c = Candidates {
            bm25: vec![(7, 3.0)],
            vector: vec![(7, 0.3)],
            ..Default::default()
        };
        let out = fuse(
            &c,
            Fusion::Rrf {
                k: 60.0,
                w_bm25: 1.0,
                w_vec: 2.0,
            },
        );
        assert!((out[0].1 - 1.0).abs() < 1e-6);
    }

    #[test]
    fn empty_signals_fuse_to_nothing() {
        assert!(fuse(&Candidates::default(), Fusion::default()).is_empty());
    }
}
