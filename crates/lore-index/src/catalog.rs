//! The SQLite catalog: stores, the file manifest and chunk metadata (with embeddings).
//! It is the source of truth; the tantivy index and the vector snapshot are derived from it.

use crate::IndexError;
use lore_core::{AddStore, Chunk, ChunkKind, Language, StoreKind, WebSettings};
use rusqlite::{Connection, OptionalExtension, Row, params};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A store as recorded in the catalog.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StoreRecord {
    pub id: i64,
    pub name: String,
    pub kind: StoreKind,
    /// What the user gave: a folder path or a git URL/path.
    pub source: String,
    /// The folder that is indexed (the folder itself, or the clone in the data dir).
    pub root: PathBuf,
    pub branch: Option<String>,
    pub includes: Vec<String>,
    pub excludes: Vec<String>,
    pub description: Option<String>,
    pub max_file_bytes: u64,
    pub created_at: i64,
    /// Unix seconds of the last completed index run.
    pub indexed_at: Option<i64>,
    /// Bumped by every commit that changed the store's chunks.
    pub generation: i64,
    /// Web stores: how they are crawled and the site their pages came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub web: Option<WebSettings>,
}

/// What `create_store` needs: the store as asked for, and what the engine resolved.
#[derive(Debug, Clone)]
pub struct NewStore<'a> {
    /// Name, branch, globs and description are taken from here.
    pub spec: &'a AddStore,
    pub kind: StoreKind,
    /// The source as resolved (a canonical folder path, a URL).
    pub source: String,
    pub root: PathBuf,
    pub max_file_bytes: u64,
    pub web: Option<WebSettings>,
}

/// One indexed file: what it looked like when it was indexed. A file that could not be
/// indexed (binary, not UTF-8) is recorded too, with why, so it is not re-read until it
/// changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: String,
    pub chunks: u32,
    pub skipped: Option<String>,
}

/// A chunk read back from the catalog.
#[derive(Debug, Clone)]
pub struct StoredChunk {
    pub id: i64,
    pub store_id: i64,
    pub path: String,
    pub chunk: Chunk,
}

/// Counts for `store info`.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub struct StoreStats {
    pub files: u64,
    pub chunks: u64,
    pub embedded: u64,
    /// Code graph: definitions, references, and references resolved to a definition.
    pub symbols: u64,
    pub references: u64,
    pub resolved: u64,
}

pub struct Catalog {
    pub(crate) conn: Connection,
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn json_list(v: &[String]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

fn web_json(web: &WebSettings) -> String {
    serde_json::to_string(web).unwrap_or_else(|_| "{}".into())
}

fn parse_list(s: &str) -> Vec<String> {
    serde_json::from_str(s).unwrap_or_default()
}

fn store_from_row(row: &Row) -> rusqlite::Result<StoreRecord> {
    let kind: String = row.get("kind")?;
    let root: String = row.get("root")?;
    Ok(StoreRecord {
        id: row.get("id")?,
        name: row.get("name")?,
        kind: StoreKind::parse(&kind).unwrap_or(StoreKind::Folder),
        source: row.get("source")?,
        root: PathBuf::from(root),
        branch: row.get("branch")?,
        includes: parse_list(&row.get::<_, String>("includes")?),
        excludes: parse_list(&row.get::<_, String>("excludes")?),
        description: row.get("description")?,
        max_file_bytes: row.get::<_, i64>("max_file_bytes")? as u64,
        created_at: row.get("created_at")?,
        indexed_at: row.get("indexed_at")?,
        generation: row.get("generation")?,
        web: row
            .get::<_, Option<String>>("web")?
            .and_then(|j| serde_json::from_str(&j).ok()),
    })
}

const CHUNK_COLUMNS: &str = "id, store_id, path, kind, language, symbol, parent, signature, doc, headings, \
     start_line, end_line, start_byte, end_byte, content, context";

fn chunk_from_row(row: &Row) -> rusqlite::Result<StoredChunk> {
    let kind: String = row.get(3)?;
    let language: String = row.get(4)?;
    Ok(StoredChunk {
        id: row.get(0)?,
        store_id: row.get(1)?,
        path: row.get(2)?,
        chunk: Chunk {
            kind: ChunkKind::parse(&kind).unwrap_or(ChunkKind::Text),
            language: Language::parse(&language).unwrap_or(Language::Text),
            symbol: row.get(5)?,
            parent: row.get(6)?,
            signature: row.get(7)?,
            doc: row.get(8)?,
            headings: parse_list(&row.get::<_, String>(9)?),
            start_line: row.get(10)?,
            end_line: row.get(11)?,
            start_byte: row.get::<_, i64>(12)? as usize,
            end_byte: row.get::<_, i64>(13)? as usize,
            content: row.get(14)?,
            context: row.get(15)?,
        },
    })
}

pub fn embedding_to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn blob_to_embedding(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

impl Catalog {
    pub fn open(path: &Path) -> Result<Catalog, IndexError> {
        let ctx = |e| IndexError::Catalog(path.display().to_string(), e);
        let conn = Connection::open(path).map_err(ctx)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(ctx)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(ctx)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(ctx)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(ctx)?;
        crate::schema::apply(&conn).map_err(ctx)?;
        Ok(Catalog { conn })
    }

    /// Opens an existing catalog for reading only: no schema is created or migrated and
    /// nothing is written (checks such as `lore doctor`). `Ok(None)` when there is none.
    pub fn open_read_only(path: &Path) -> Result<Option<Catalog>, IndexError> {
        if !path.exists() {
            return Ok(None);
        }
        let ctx = |e| IndexError::Catalog(path.display().to_string(), e);
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
            | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX
            | rusqlite::OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(ctx)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(ctx)?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(ctx)?;
        if version != crate::schema::SCHEMA_VERSION {
            return Err(IndexError::Outdated(format!(
                "{} has schema version {version}, this lore reads {}; run `lore store list` \
                 once to bring it up to date",
                path.display(),
                crate::schema::SCHEMA_VERSION
            )));
        }
        Ok(Some(Catalog { conn }))
    }

    /// Runs `f` inside one read transaction, so everything it reads is one snapshot of the
    /// catalog even while a writer commits.
    pub fn snapshot<T>(
        &self,
        f: impl FnOnce(&Catalog) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        self.conn.execute_batch("BEGIN").map_err(self.err())?;
        let out = f(self);
        let end = if out.is_ok() { "COMMIT" } else { "ROLLBACK" };
        self.conn.execute_batch(end).map_err(self.err())?;
        out
    }

    /// SQLite's own consistency check (`PRAGMA quick_check`): its complaints, none if sound.
    pub fn quick_check(&self) -> Result<Vec<String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare("PRAGMA quick_check")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        Ok(rows.into_iter().filter(|r| r != "ok").collect())
    }

    pub fn chunk_count(&self, store_id: i64) -> Result<u64, IndexError> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM chunks WHERE store_id = ?1",
                [store_id],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(self.err())
    }

    /// The ids of a store's chunks, ascending (`embedded`: only those with a vector).
    pub fn chunk_ids(&self, store_id: i64, embedded: bool) -> Result<Vec<i64>, IndexError> {
        let sql = if embedded {
            "SELECT id FROM chunks WHERE store_id = ?1 AND embedding IS NOT NULL ORDER BY id"
        } else {
            "SELECT id FROM chunks WHERE store_id = ?1 ORDER BY id"
        };
        let mut stmt = self.conn.prepare(sql).map_err(self.err())?;
        let rows = stmt
            .query_map([store_id], |r| r.get(0))
            .map_err(self.err())?
            .collect::<Result<Vec<i64>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }

    /// Embeddings whose size is not `dim` floats, and chunks whose file has no manifest
    /// entry: what no commit of lore leaves behind.
    pub fn inconsistencies(&self, store_id: i64, dim: usize) -> Result<(u64, u64), IndexError> {
        let bad_vectors: i64 = self
            .conn
            .query_row(
                "SELECT COUNT(*) FROM chunks WHERE store_id = ?1 AND embedding IS NOT NULL \
                 AND length(embedding) != ?2",
                params![store_id, (dim * 4) as i64],
                |r| r.get(0),
            )
            .map_err(self.err())?;
        let orphans: i64 = self
            .conn
            .query_row(
                "SELECT COUNT(*) FROM chunks c WHERE c.store_id = ?1 AND NOT EXISTS \
                 (SELECT 1 FROM files f WHERE f.store_id = c.store_id AND f.path = c.path)",
                [store_id],
                |r| r.get(0),
            )
            .map_err(self.err())?;
        Ok((bad_vectors as u64, orphans as u64))
    }

    /// Calls `f` for every chunk of a store, by path and position (a BM25 rebuild).
    pub fn for_each_chunk(
        &self,
        store_id: i64,
        mut f: impl FnMut(StoredChunk) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks WHERE store_id = ?1 ORDER BY path, start_byte"
            ))
            .map_err(self.err())?;
        let mut rows = stmt.query([store_id]).map_err(self.err())?;
        while let Some(row) = rows.next().map_err(self.err())? {
            f(chunk_from_row(row).map_err(self.err())?)?;
        }
        Ok(())
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        |e| IndexError::Catalog(self.conn.path().unwrap_or("lore.db").to_string(), e)
    }

    pub fn create_store(&self, s: &NewStore) -> Result<StoreRecord, IndexError> {
        let spec = s.spec;
        if self.store(&spec.name)?.is_some() {
            return Err(IndexError::StoreExists(spec.name.clone()));
        }
        self.conn
            .execute(
                "INSERT INTO stores (name, kind, source, root, branch, includes, excludes, description, max_file_bytes, created_at, web)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                params![
                    spec.name,
                    s.kind.as_str(),
                    s.source,
                    s.root.to_string_lossy(),
                    spec.branch,
                    json_list(&spec.includes),
                    json_list(&spec.excludes),
                    spec.description,
                    s.max_file_bytes as i64,
                    now_secs(),
                    s.web.as_ref().map(web_json)
                ],
            )
            .map_err(self.err())?;
        self.store(&spec.name)?
            .ok_or_else(|| IndexError::StoreNotFound(spec.name.clone()))
    }

    pub fn stores(&self) -> Result<Vec<StoreRecord>, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT * FROM stores ORDER BY name")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([], store_from_row)
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }

    pub fn store(&self, name: &str) -> Result<Option<StoreRecord>, IndexError> {
        self.conn
            .query_row(
                "SELECT * FROM stores WHERE name = ?1",
                [name],
                store_from_row,
            )
            .optional()
            .map_err(self.err())
    }

    pub fn store_by_id(&self, id: i64) -> Result<Option<StoreRecord>, IndexError> {
        self.conn
            .query_row("SELECT * FROM stores WHERE id = ?1", [id], store_from_row)
            .optional()
            .map_err(self.err())
    }

    pub fn set_root(&self, id: i64, root: &Path) -> Result<(), IndexError> {
        self.conn
            .execute(
                "UPDATE stores SET root = ?2 WHERE id = ?1",
                params![id, root.to_string_lossy()],
            )
            .map_err(self.err())?;
        Ok(())
    }

    pub fn set_web(&self, id: i64, web: &WebSettings) -> Result<(), IndexError> {
        self.conn
            .execute(
                "UPDATE stores SET web = ?2 WHERE id = ?1",
                params![id, web_json(web)],
            )
            .map_err(self.err())?;
        Ok(())
    }

    /// Relative path of every chunk of a store, by chunk id.
    pub fn chunk_paths(&self, store_id: i64) -> Result<HashMap<i64, String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, path FROM chunks WHERE store_id = ?1")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([store_id], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(self.err())?
            .collect::<Result<HashMap<_, _>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }

    pub fn remove_store(&mut self, id: i64) -> Result<(), IndexError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| IndexError::Catalog("lore.db".into(), e))?;
        for sql in [
            "DELETE FROM chunks WHERE store_id = ?1",
            "DELETE FROM files WHERE store_id = ?1",
            "DELETE FROM stores WHERE id = ?1",
        ] {
            tx.execute(sql, [id])
                .map_err(|e| IndexError::Catalog("lore.db".into(), e))?;
        }
        tx.commit()
            .map_err(|e| IndexError::Catalog("lore.db".into(), e))
    }

    /// Whether a store holds at least one chunk (an index lookup, unlike `stats`).
    pub fn has_chunks(&self, store_id: i64) -> Result<bool, IndexError> {
        self.conn
            .query_row(
                "SELECT EXISTS(SELECT 1 FROM chunks WHERE store_id = ?1)",
                [store_id],
                |r| r.get(0),
            )
            .map_err(self.err())
    }

    pub fn stats(&self, store_id: i64) -> Result<StoreStats, IndexError> {
        let files: i64 = self
            .conn
            .query_row(
                "SELECT COUNT(*) FROM files WHERE store_id = ?1 AND skipped IS NULL",
                [store_id],
                |r| r.get(0),
            )
            .map_err(self.err())?;
        let (chunks, embedded): (i64, i64) = self
            .conn
            .query_row(
                "SELECT COUNT(*), COUNT(embedding) FROM chunks WHERE store_id = ?1",
                [store_id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .map_err(self.err())?;
        let (symbols, references, resolved) = self.graph_stats(store_id)?;
        Ok(StoreStats {
            files: files as u64,
            chunks: chunks as u64,
            embedded: embedded as u64,
            symbols,
            references,
            resolved,
        })
    }

    /// Every indexed file of a store, by relative path.
    pub fn manifest(&self, store_id: i64) -> Result<HashMap<String, FileRecord>, IndexError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, size, mtime_ns, hash, chunks, skipped FROM files WHERE store_id = ?1",
            )
            .map_err(self.err())?;
        let rows = stmt
            .query_map([store_id], |r| {
                Ok(FileRecord {
                    path: r.get(0)?,
                    size: r.get::<_, i64>(1)? as u64,
                    mtime_ns: r.get(2)?,
                    hash: r.get(3)?,
                    chunks: r.get::<_, i64>(4)? as u32,
                    skipped: r.get(5)?,
                })
            })
            .map_err(self.err())?;
        let mut out = HashMap::new();
        for row in rows {
            let f = row.map_err(self.err())?;
            out.insert(f.path.clone(), f);
        }
        Ok(out)
    }

    /// The relative paths of a store's files, sorted (the manifest's keys, without reading
    /// the rest of each record).
    pub fn paths(&self, store_id: i64) -> Result<Vec<String>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path FROM files WHERE store_id = ?1 ORDER BY path")
            .map_err(self.err())?;
        let rows = stmt
            .query_map([store_id], |r| r.get(0))
            .map_err(self.err())?;
        rows.collect::<Result<_, _>>().map_err(self.err())
    }

    /// Which of `ids` are prose (markdown or plain-text chunks) rather than code.
    pub fn prose_ids(&self, ids: &[i64]) -> Result<HashSet<i64>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT 1 FROM chunks WHERE id = ?1 AND language IN ('markdown', 'text')",
            )
            .map_err(self.err())?;
        let mut out = HashSet::new();
        for &id in ids {
            if stmt.exists([id]).map_err(self.err())? {
                out.insert(id);
            }
        }
        Ok(out)
    }

    /// Chunks by id, in no particular order; ids that no longer exist are absent.
    pub fn chunks(&self, ids: &[i64]) -> Result<Vec<StoredChunk>, IndexError> {
        let mut out = Vec::with_capacity(ids.len());
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {CHUNK_COLUMNS} FROM chunks WHERE id = ?1"))
            .map_err(self.err())?;
        for id in ids {
            if let Some(c) = stmt
                .query_row([id], chunk_from_row)
                .optional()
                .map_err(self.err())?
            {
                out.push(c);
            }
        }
        Ok(out)
    }

    /// All chunks of one file, in file order.
    pub fn file_chunks(&self, store_id: i64, path: &str) -> Result<Vec<StoredChunk>, IndexError> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks WHERE store_id = ?1 AND path = ?2 ORDER BY start_byte"
            ))
            .map_err(self.err())?;
        let rows = stmt
            .query_map(params![store_id, path], chunk_from_row)
            .map_err(self.err())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(self.err())?;
        Ok(rows)
    }

    /// Calls `f(id, embedding)` for every embedded chunk of a store, by ascending id.
    pub fn for_each_embedding(
        &self,
        store_id: i64,
        mut f: impl FnMut(i64, &[u8]),
    ) -> Result<(), IndexError> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, embedding FROM chunks WHERE store_id = ?1 AND embedding IS NOT NULL ORDER BY id")
            .map_err(self.err())?;
        let mut rows = stmt.query([store_id]).map_err(self.err())?;
        while let Some(row) = rows.next().map_err(self.err())? {
            let id: i64 = row.get(0).map_err(self.err())?;
            let blob = row.get_ref(1).map_err(self.err())?;
            if let rusqlite::types::ValueRef::Blob(b) = blob {
                f(id, b);
            }
        }
        Ok(())
    }

    /// Stored embeddings of the given chunk ids (those that have one).
    pub fn embeddings(&self, ids: &[i64]) -> Result<HashMap<i64, Vec<f32>>, IndexError> {
        let mut st = self
            .conn
            .prepare_cached("SELECT embedding FROM chunks WHERE id = ?1 AND embedding IS NOT NULL")
            .map_err(self.err())?;
        let mut out = HashMap::new();
        for &id in ids {
            let blob: Option<Vec<u8>> = st
                .query_row([id], |r| r.get(0))
                .optional()
                .map_err(self.err())?;
            if let Some(b) = blob {
                out.insert(id, blob_to_embedding(&b));
            }
        }
        Ok(out)
    }

    /// Starts a write transaction. Nothing is visible to readers until `commit`.
    pub fn begin(&mut self) -> Result<CatalogTx<'_>, IndexError> {
        let tx = self
            .conn
            .transaction()
            .map_err(|e| IndexError::Catalog("lore.db".into(), e))?;
        Ok(CatalogTx { tx })
    }
}

/// A write transaction over the catalog.
pub struct CatalogTx<'a> {
    pub(crate) tx: rusqlite::Transaction<'a>,
}

/// A chunk ready to be written: its stable id, the chunk, and its embedding if any.
pub struct ChunkRow<'a> {
    pub id: i64,
    pub chunk: &'a Chunk,
    pub embedding: Option<&'a [f32]>,
}

impl CatalogTx<'_> {
    fn err(e: rusqlite::Error) -> IndexError {
        IndexError::Catalog("lore.db".into(), e)
    }

    /// Replaces a file's manifest entry and all of its chunks.
    pub fn replace_file(
        &self,
        store_id: i64,
        file: &FileRecord,
        chunks: &[ChunkRow<'_>],
    ) -> Result<(), IndexError> {
        self.remove_file(store_id, &file.path)?;
        self.tx
            .prepare_cached(
                "INSERT INTO files (store_id, path, size, mtime_ns, hash, chunks, skipped) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .and_then(|mut s| {
                s.execute(params![
                    store_id,
                    file.path,
                    file.size as i64,
                    file.mtime_ns,
                    file.hash,
                    file.chunks as i64,
                    file.skipped
                ])
            })
            .map_err(Self::err)?;
        let mut stmt = self
            .tx
            .prepare_cached(&format!(
                "INSERT OR REPLACE INTO chunks ({CHUNK_COLUMNS}, embedding) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)"
            ))
            .map_err(Self::err)?;
        for row in chunks {
            let c = row.chunk;
            stmt.execute(params![
                row.id,
                store_id,
                file.path,
                c.kind.as_str(),
                c.language.as_str(),
                c.symbol,
                c.parent,
                c.signature,
                c.doc,
                json_list(&c.headings),
                c.start_line,
                c.end_line,
                c.start_byte as i64,
                c.end_byte as i64,
                c.content,
                c.context,
                row.embedding.map(embedding_to_blob),
            ])
            .map_err(Self::err)?;
        }
        Ok(())
    }

    /// Records a new size/mtime for a file whose content did not change.
    pub fn touch_file(&self, store_id: i64, file: &FileRecord) -> Result<(), IndexError> {
        self.tx
            .prepare_cached(
                "UPDATE files SET size = ?3, mtime_ns = ?4 WHERE store_id = ?1 AND path = ?2",
            )
            .and_then(|mut s| {
                s.execute(params![
                    store_id,
                    file.path,
                    file.size as i64,
                    file.mtime_ns
                ])
            })
            .map_err(Self::err)?;
        Ok(())
    }

    /// Forgets a file, its chunks and its code facts.
    pub fn remove_file(&self, store_id: i64, path: &str) -> Result<(), IndexError> {
        self.remove_facts(store_id, path)?;
        for sql in [
            "DELETE FROM chunks WHERE store_id = ?1 AND path = ?2",
            "DELETE FROM files WHERE store_id = ?1 AND path = ?2",
        ] {
            self.tx
                .prepare_cached(sql)
                .and_then(|mut s| s.execute(params![store_id, path]))
                .map_err(Self::err)?;
        }
        Ok(())
    }

    pub fn bump_generation(&self, store_id: i64) -> Result<i64, IndexError> {
        self.tx
            .query_row(
                "UPDATE stores SET generation = generation + 1 WHERE id = ?1 RETURNING generation",
                [store_id],
                |r| r.get(0),
            )
            .map_err(Self::err)
    }

    pub fn set_indexed_now(&self, store_id: i64) -> Result<(), IndexError> {
        self.tx
            .execute(
                "UPDATE stores SET indexed_at = ?2 WHERE id = ?1",
                params![store_id, now_secs()],
            )
            .map_err(Self::err)?;
        Ok(())
    }

    pub fn commit(self) -> Result<(), IndexError> {
        self.tx.commit().map_err(Self::err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_catalogs_are_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("lore.db");
        {
            let conn = Connection::open(&path).unwrap();
            conn.execute_batch(
                "CREATE TABLE files (store_id INTEGER NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL,
                 mtime_ns INTEGER NOT NULL, hash TEXT NOT NULL, chunks INTEGER NOT NULL,
                 PRIMARY KEY (store_id, path)) WITHOUT ROWID;",
            )
            .unwrap();
        }
        let catalog = Catalog::open(&path).unwrap();
        assert!(catalog.manifest(1).unwrap().is_empty());
        let version: i64 = catalog
            .conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, crate::schema::SCHEMA_VERSION);
        drop(catalog);
        // Opening again is a no-op.
        Catalog::open(&path).unwrap();
    }

    #[test]
    fn stores_files_and_chunks_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut catalog = Catalog::open(&dir.path().join("lore.db")).unwrap();
        let store = catalog
            .create_store(&NewStore {
                spec: &AddStore {
                    name: "s".into(),
                    includes: vec!["**/*.rs".into()],
                    ..Default::default()
                },
                kind: StoreKind::Folder,
                source: "/src".into(),
                root: "/src".into(),
                max_file_bytes: 10,
                web: None,
            })
            .unwrap();
        assert!(matches!(
            catalog.create_store(&NewStore {
                spec: &AddStore {
                    name: "s".into(),
                    ..Default::default()
                },
                kind: StoreKind::Folder,
                source: "/x".into(),
                root: "/x".into(),
                max_file_bytes: 10,
                web: None,
            }),
            Err(IndexError::StoreExists(_))
        ));
        assert_eq!(store.includes, ["**/*.rs"]);
        let chunk = Chunk {
            kind: ChunkKind::Function,
            language: Language::Rust,
            symbol: Some("f".into()),
            parent: None,
            signature: Some("fn f()".into()),
            doc: None,
            headings: vec![],
            start_line: 2,
            end_line: 3,
            start_byte: 5,
            end_byte: 20,
            content: "fn f() {}".into(),
            context: None,
        };
        let file = FileRecord {
            path: "a.rs".into(),
            size: 20,
            mtime_ns: 1,
            hash: "h".into(),
            chunks: 1,
            skipped: None,
        };
        let tx = catalog.begin().unwrap();
        tx.replace_file(
            store.id,
            &file,
            &[ChunkRow {
                id: 42,
                chunk: &chunk,
                embedding: Some(&[0.5, 0.25]),
            }],
        )
        .unwrap();
        tx.commit().unwrap();
        assert_eq!(catalog.manifest(store.id).unwrap()["a.rs"], file);
        let got = catalog.chunks(&[42, 7]).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].chunk, chunk);
        let mut seen = Vec::new();
        catalog
            .for_each_embedding(store.id, |id, b| seen.push((id, blob_to_embedding(b))))
            .unwrap();
        assert_eq!(seen, [(42, vec![0.5, 0.25])]);
        assert_eq!(catalog.stats(store.id).unwrap().chunks, 1);
        catalog.remove_store(store.id).unwrap();
        assert!(catalog.chunks(&[42]).unwrap().is_empty());
    }
}
