//! Where a file's chunks are and what they are, without their text: the units grep shows
//! its lines in, read from the `chunks_by_file` index alone on SQLite.

use crate::IndexError;
use crate::catalog::Catalog;
use crate::sql::Arg;
use std::collections::HashMap;

/// A chunk's place and name, without its text.
#[derive(Debug, Clone)]
pub struct ChunkSpan {
    pub id: i64,
    pub kind: String,
    pub symbol: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
}

impl Catalog {
    /// The declarations (signatures) of the given chunks that have one.
    pub fn signatures(&self, ids: &[i64]) -> Result<HashMap<i64, String>, IndexError> {
        let mut out = HashMap::new();
        for part in ids.chunks(500) {
            let sql = format!(
                "SELECT id, signature FROM chunks WHERE id IN ({}) AND signature IS NOT NULL",
                crate::sql::placeholders(part.len(), 1)
            );
            let args: Vec<Arg> = part.iter().map(|&id| id.into()).collect();
            out.extend(
                self.db
                    .query(&sql, &args, |r| Ok((r.int(0)?, r.text(1)?)))?,
            );
        }
        Ok(out)
    }

    /// Where each chunk of the given files is and what it is, without its text (grep's
    /// units), by file: from the `chunks_by_file` index alone on SQLite.
    pub fn file_spans(
        &self,
        store_id: i64,
        paths: &[&str],
    ) -> Result<HashMap<String, Vec<ChunkSpan>>, IndexError> {
        let mut out: HashMap<String, Vec<ChunkSpan>> = HashMap::new();
        for part in paths.chunks(500) {
            let sql = format!(
                "SELECT path, id, kind, symbol, start_line, end_line FROM chunks \
                 WHERE store_id = ?1 AND path IN ({})",
                crate::sql::placeholders(part.len(), 2)
            );
            let mut args: Vec<Arg> = vec![store_id.into()];
            args.extend(part.iter().map(|&p| Arg::from(p)));
            for (path, span) in self.db.query(&sql, &args, |r| {
                Ok((
                    r.text(0)?,
                    ChunkSpan {
                        id: r.int(1)?,
                        kind: r.text(2)?,
                        symbol: r.opt_text(3)?,
                        start_line: r.int(4)? as u32,
                        end_line: r.int(5)? as u32,
                    },
                ))
            })? {
                out.entry(path).or_default().push(span);
            }
        }
        Ok(out)
    }
}
