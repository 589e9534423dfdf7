//! Embeddings in the catalog: which chunks have one, reading and writing them, and what
//! made a store's vectors (progressive indexing embeds what has none, after the commit).

use crate::IndexError;
use crate::catalog::{CHUNK_COLUMNS, Catalog, CatalogTx, StoredChunk, chunk_from_row};
use crate::sql::{Arg, args};
use std::collections::HashMap;

impl Catalog {
    /// Turns what agents teach on or off for a store.
    pub fn set_feedback(&self, store_id: i64, on: bool) -> Result<(), IndexError> {
        self.db.execute(
            "UPDATE stores SET feedback = ?2 WHERE id = ?1",
            args![store_id, i64::from(on)],
        )?;
        Ok(())
    }

    /// Records what embeds the store's vectors (`MODEL/DIMENSION`), or forgets it (`None`)
    /// with every vector of the store, for a re-embedding.
    pub fn set_embedder(&self, store_id: i64, embedder: Option<&str>) -> Result<(), IndexError> {
        if embedder.is_none() {
            self.db.execute(
                "UPDATE chunks SET embedding = NULL WHERE store_id = ?1",
                args![store_id],
            )?;
        }
        self.db.execute(
            "UPDATE stores SET embedder = ?2 WHERE id = ?1",
            args![store_id, embedder],
        )?;
        Ok(())
    }

    /// A store's chunks, and how many of them have no embedding yet (cheap: an index
    /// scan, and a partial index of the unembedded ones on SQLite).
    pub fn embedding_progress(&self, store_id: i64) -> Result<(u64, u64), IndexError> {
        Ok((
            self.chunk_count(store_id)?,
            self.unembedded_count(store_id)?,
        ))
    }

    /// How many of a store's chunks have no vector yet (read from the partial index of
    /// those, so it costs nothing once all are embedded).
    pub fn unembedded_count(&self, store_id: i64) -> Result<u64, IndexError> {
        self.db
            .query_int(
                "SELECT COUNT(*) FROM chunks WHERE store_id = ?1 AND embedding IS NULL",
                args![store_id],
            )
            .map(|n| n as u64)
    }

    /// Up to `limit` chunks of a store that have no embedding yet, by ascending id (what
    /// progressive indexing embeds next).
    pub fn unembedded_chunks(
        &self,
        store_id: i64,
        limit: usize,
    ) -> Result<Vec<StoredChunk>, IndexError> {
        self.db.query(
            &format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks WHERE store_id = ?1 AND embedding IS NULL \
                 ORDER BY id LIMIT ?2"
            ),
            args![store_id, limit],
            chunk_from_row,
        )
    }

    /// Calls `f(id, embedding)` for every embedded chunk of a store, by ascending id.
    pub fn for_each_embedding(
        &self,
        store_id: i64,
        mut f: impl FnMut(i64, Vec<f32>),
    ) -> Result<(), IndexError> {
        self.db.for_each(
            "SELECT id, embedding FROM chunks WHERE store_id = ?1 AND embedding IS NOT NULL ORDER BY id",
            args![store_id],
            |mut row| {
                let err = self.db.err();
                let id = row.int(0).map_err(&err)?;
                if let Some(v) = row.vector(1).map_err(&err)? {
                    f(id, v);
                }
                Ok(())
            },
        )
    }

    /// Stored embeddings of the given chunk ids (those that have one).
    pub fn embeddings(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<f32>>, IndexError> {
        let mut out = HashMap::new();
        for part in ids.chunks(500) {
            let sql = format!(
                "SELECT id, embedding FROM chunks WHERE id IN ({}) AND embedding IS NOT NULL",
                crate::sql::placeholders(part.len(), 1)
            );
            let args: Vec<Arg> = part.iter().map(|&id| id.into()).collect();
            for (id, v) in self
                .db
                .query(&sql, &args, |r| Ok((r.int(0)?, r.vector(1)?)))?
            {
                if let Some(v) = v {
                    out.insert(id, v);
                }
            }
        }
        Ok(out)
    }
}

impl CatalogTx<'_> {
    /// Stores the embeddings of chunks written earlier without one; returns how many of
    /// the chunks still existed.
    pub fn set_embeddings(&self, rows: &[(i64, &[f32])]) -> Result<usize, IndexError> {
        let mut set = 0;
        for (id, v) in rows {
            set += self.db.execute(
                "UPDATE chunks SET embedding = ?2 WHERE id = ?1",
                args![*id, *v],
            )? as usize;
        }
        Ok(set)
    }
}
