//! PostgreSQL's BM25 postings of a file's chunks, written and removed inside the catalog's
//! own transaction (see `pg` for how they are searched). Knows SQL and lore's analyzer,
//! not the catalog, so the catalog can call it without a loop between the two.

use crate::IndexError;
use crate::sql::{Arg, Sql, args};
use crate::tokenizer::{analyze, code_analyzer, field_texts};
use lore_core::Chunk;
use std::collections::HashMap;

/// Writes the postings of one file's chunks (its old ones already removed).
pub(crate) fn write_postings<'a>(
    db: &Sql,
    store_id: i64,
    path: &str,
    chunks: impl IntoIterator<Item = (i64, &'a Chunk)>,
) -> Result<(), IndexError> {
    let mut analyzer = code_analyzer();
    let (mut doc_ids, mut lens): (Vec<i64>, [Vec<i64>; 4]) = (Vec::new(), Default::default());
    let (mut terms, mut fields, mut ids, mut tfs, mut dls) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for (id, chunk) in chunks {
        doc_ids.push(id);
        for (field, text) in field_texts(path, chunk).iter().enumerate() {
            let tokens = analyze(&mut analyzer, text);
            let dl = tokens.len() as i64;
            lens[field].push(dl);
            let mut counts: HashMap<String, i64> = HashMap::new();
            for t in tokens {
                *counts.entry(t).or_insert(0) += 1;
            }
            for (term, tf) in counts {
                terms.push(term);
                fields.push(field as i64);
                ids.push(id);
                tfs.push(tf);
                dls.push(dl);
            }
        }
    }
    if doc_ids.is_empty() {
        return Ok(());
    }
    let [l0, l1, l2, l3] = lens;
    db.execute(
        "INSERT INTO lex_docs (chunk_id, store_id, path, len_content, len_symbol, len_headings, len_path) \
         SELECT d.id, ?1, ?2, d.l0, d.l1, d.l2, d.l3 \
         FROM unnest(?3::bigint[], ?4::int[], ?5::int[], ?6::int[], ?7::int[]) AS d(id, l0, l1, l2, l3) \
         ON CONFLICT (chunk_id) DO NOTHING",
        &[
            store_id.into(),
            path.into(),
            Arg::Ints(doc_ids),
            Arg::Ints(l0),
            Arg::Ints(l1),
            Arg::Ints(l2),
            Arg::Ints(l3),
        ],
    )?;
    db.execute(
        "INSERT INTO lex_postings (store_id, term, field, chunk_id, tf, dl) \
         SELECT ?1, p.term, p.field, p.id, p.tf, p.dl \
         FROM unnest(?2::text[], ?3::smallint[], ?4::bigint[], ?5::int[], ?6::int[]) AS p(term, field, id, tf, dl) \
         ON CONFLICT DO NOTHING",
        &[
            store_id.into(),
            Arg::Texts(terms),
            Arg::Ints(fields),
            Arg::Ints(ids),
            Arg::Ints(tfs),
            Arg::Ints(dls),
        ],
    )?;
    Ok(())
}

/// Removes the postings of one file's chunks.
pub(crate) fn remove_postings(db: &Sql, store_id: i64, path: &str) -> Result<(), IndexError> {
    db.execute(
        "DELETE FROM lex_postings WHERE chunk_id IN \
         (SELECT chunk_id FROM lex_docs WHERE store_id = ?1 AND path = ?2)",
        args![store_id, path],
    )?;
    db.execute(
        "DELETE FROM lex_docs WHERE store_id = ?1 AND path = ?2",
        args![store_id, path],
    )?;
    Ok(())
}
