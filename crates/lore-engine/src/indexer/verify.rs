//! Whether a store's derived indexes (its BM25 folder and its vector snapshot) match the
//! catalog they are built from. The indexer checks before and after each run and repairs
//! what disagrees; `doctor` reports the same checks.

use lore_index::{Catalog, Fts, FtsState, IndexError, VectorSet};
use serde::Serialize;
use std::path::Path;

/// A derived part (BM25 or the vector snapshot): its state and what it holds.
#[derive(Debug, Clone, Serialize)]
pub struct PartFacts {
    /// `ok`, `missing` or `damaged`.
    pub state: &'static str,
    /// Chunks it holds (when it opens).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
    /// The catalog generation it was written for (when recorded).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<i64>,
}

impl PartFacts {
    pub(crate) fn new(state: &'static str) -> PartFacts {
        PartFacts {
            state,
            count: None,
            generation: None,
        }
    }
}

/// `n` with thousands separators (3,141).
pub(crate) fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// How two ascending id lists differ: ids only in `want` (missing) and only in `have`.
fn id_diff(want: &[i64], have: &[i64]) -> (u64, u64) {
    let (mut i, mut j, mut missing, mut extra) = (0, 0, 0u64, 0u64);
    while i < want.len() || j < have.len() {
        match (want.get(i), have.get(j)) {
            (Some(a), Some(b)) if a == b => {
                i += 1;
                j += 1;
            }
            (Some(a), Some(b)) if a < b => {
                missing += 1;
                i += 1;
            }
            (Some(_), None) => {
                missing += 1;
                i += 1;
            }
            _ => {
                extra += 1;
                j += 1;
            }
        }
    }
    (missing, extra)
}

/// "BM25 holds 3,141 chunks, the catalog 3,149: 8 missing, 2 not in the catalog".
fn count_problem(part: &str, have: usize, want: usize, missing: u64, extra: u64) -> String {
    let mut parts = Vec::new();
    if missing > 0 {
        parts.push(format!("{} missing", thousands(missing)));
    }
    if extra > 0 {
        parts.push(format!("{} not in the catalog", thousands(extra)));
    }
    format!(
        "{part} holds {} chunks, the catalog {}: {}",
        thousands(have as u64),
        thousands(want as u64),
        parts.join(", ")
    )
}

/// What the BM25 check found: its facts, what disagrees (if anything), and the index when
/// it opened.
pub(crate) struct Bm25Check {
    pub facts: PartFacts,
    pub problem: Option<String>,
    pub fts: Option<Fts>,
}

/// Checks a store's BM25 folder against the catalog: it opens, holds exactly the catalog's
/// chunk ids, and was written for the catalog's generation. With `quick` (the indexer's
/// check before each run), an index whose recorded generation and document count match
/// is taken as whole without comparing ids.
pub(crate) fn check_bm25(
    catalog: &Catalog,
    store_id: i64,
    generation: i64,
    dir: &Path,
    quick: bool,
) -> Result<Bm25Check, IndexError> {
    let chunk_count = || -> Result<u64, IndexError> { catalog.chunk_count(store_id) };
    let fts = match Fts::probe(dir) {
        FtsState::Present(fts) => fts,
        FtsState::Missing => {
            let chunks = chunk_count()?;
            let problem = (chunks > 0).then(|| {
                format!(
                    "the BM25 index is missing; the catalog holds {} chunks",
                    thousands(chunks)
                )
            });
            return Ok(Bm25Check {
                facts: PartFacts::new("missing"),
                problem,
                fts: None,
            });
        }
        FtsState::Damaged(why) => {
            return Ok(Bm25Check {
                facts: PartFacts::new("damaged"),
                problem: Some(format!("the BM25 index does not open: {why}")),
                fts: None,
            });
        }
    };
    let marker = fts.generation();
    let docs = fts.num_docs();
    let mut facts = PartFacts {
        state: "ok",
        count: Some(docs),
        generation: marker,
    };
    // An index from before lore kept the files' trigrams (grep) is rebuilt once.
    let grams_missing = fts.grams().is_none() && docs > 0;
    if quick && !grams_missing && marker == Some(generation) && docs == chunk_count()? {
        return Ok(Bm25Check {
            facts,
            problem: None,
            fts: Some(fts),
        });
    }
    let want = catalog.chunk_ids(store_id, false)?;
    let have = fts.ids()?;
    let mut problems = Vec::new();
    let (missing, extra) = id_diff(&want, &have);
    if missing + extra > 0 {
        problems.push(count_problem(
            "BM25",
            have.len(),
            want.len(),
            missing,
            extra,
        ));
    }
    if let Some(g) = marker
        && g != generation
    {
        problems.push(format!(
            "BM25 was written for generation {g}, the catalog is at {generation}"
        ));
    }
    if grams_missing {
        problems.push("the grep index (the files' trigrams) is missing".into());
    }
    if !problems.is_empty() {
        facts.state = "stale";
    }
    Ok(Bm25Check {
        facts,
        problem: (!problems.is_empty()).then(|| problems.join("; ")),
        fts: Some(fts),
    })
}

/// Checks a store's vector snapshot against the catalog's stored vectors.
pub(crate) fn check_vectors(
    catalog: &Catalog,
    store_id: i64,
    generation: i64,
    path: &Path,
) -> Result<(PartFacts, Option<String>), IndexError> {
    let set = match VectorSet::load(path) {
        Ok(Some(set)) => set,
        Ok(None) => {
            let embedded = catalog.chunk_ids(store_id, true)?.len() as u64;
            let problem = (embedded > 0).then(|| {
                format!(
                    "the vector snapshot is missing; the catalog holds {} vectors",
                    thousands(embedded)
                )
            });
            return Ok((PartFacts::new("missing"), problem));
        }
        Err(e) => {
            return Ok((
                PartFacts::new("damaged"),
                Some(format!("the vector snapshot does not load: {e}")),
            ));
        }
    };
    let mut facts = PartFacts {
        state: "ok",
        count: Some(set.len() as u64),
        generation: Some(set.generation()),
    };
    let want = catalog.chunk_ids(store_id, true)?;
    let mut problems = Vec::new();
    let (missing, extra) = id_diff(&want, set.ids());
    if missing + extra > 0 {
        problems.push(count_problem(
            "the vector snapshot",
            set.len(),
            want.len(),
            missing,
            extra,
        ));
    }
    if set.generation() != generation {
        problems.push(format!(
            "the vector snapshot was written for generation {}, the catalog is at {generation}",
            set.generation()
        ));
    }
    if !problems.is_empty() {
        facts.state = "stale";
    }
    Ok((facts, (!problems.is_empty()).then(|| problems.join("; "))))
}

/// BM25 and vectors kept inside the catalog (PostgreSQL): written in the catalog's own
/// transactions, so only BM25's documents can be compared with the chunks.
pub(crate) fn in_catalog(
    catalog: &Catalog,
    store_id: i64,
    generation: i64,
    embedded: u64,
) -> Result<(Bm25Check, (PartFacts, Option<String>)), IndexError> {
    let want = catalog.chunk_ids(store_id, false)?;
    let have = catalog.lexical_ids(store_id)?;
    let (missing, extra) = id_diff(&want, &have);
    let problem = (missing + extra > 0)
        .then(|| count_problem("BM25", have.len(), want.len(), missing, extra));
    let facts = |count| PartFacts {
        state: "ok",
        count: Some(count),
        generation: Some(generation),
    };
    Ok((
        Bm25Check {
            facts: facts(have.len() as u64),
            problem,
            fts: None,
        },
        (facts(embedded), None),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_id_differences_read_plainly() {
        assert_eq!(thousands(3141), "3,141");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
        assert_eq!(id_diff(&[1, 2, 3, 5], &[2, 3, 4]), (2, 1));
        assert_eq!(
            count_problem("BM25", 3141, 3149, 8, 0),
            "BM25 holds 3,141 chunks, the catalog 3,149: 8 missing"
        );
    }
}
