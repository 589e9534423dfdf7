//! The catalog: stores, the file manifest and chunk metadata (with embeddings), in SQLite
//! or PostgreSQL through [`Sql`]. It is the source of truth; the BM25 index and the vector
//! snapshot are derived from it.

use crate::IndexError;
use crate::sql::{Arg, Dialect, PgOptions, Row, Sql, SqlError, args};
use lore_core::{AddStore, Chunk, ChunkKind, Language, StoreKind, WebSettings};
use rusqlite::Connection;
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
    /// What made its vectors, as `MODEL/DIMENSION` (`all-MiniLM-L6-v2/384`); `None` before
    /// anything was embedded (or, for a store embedded before lore recorded it, the
    /// built-in model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedder: Option<String>,
    /// The machine its folder (or clone) lives on; `None` for web and brain stores, and
    /// for stores added before lore recorded it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// Whether what agents teach (`lore feedback`) is recorded for it and changes its
    /// ranking.
    pub feedback: bool,
    /// Moved by every change of its feedback rows (a reader's cache of them is current
    /// while this is the number it read them at).
    #[serde(skip)]
    pub feedback_seq: i64,
    /// Walked without its ignore files (`AddStore::no_ignore`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub no_ignore: bool,
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
    /// The machine its files live on (see `StoreRecord::host`).
    pub host: Option<String>,
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
    /// Indexed, but part of it could not be parsed (`parse error at line N (…)`): the
    /// definitions there are missing from the code graph.
    pub parse_error: Option<String>,
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
    /// Files indexed with part of their code not parsed (see `parse_errors`).
    pub parse_errors: u64,
    pub chunks: u64,
    pub embedded: u64,
    /// Code graph: definitions, references, and references resolved to a definition.
    pub symbols: u64,
    pub references: u64,
    pub resolved: u64,
}

pub struct Catalog {
    pub(crate) db: Sql,
    /// This server's brain dir: a shared catalog's brain store is read with it as its
    /// root (each server mirrors the shared brain in its own dir; see `brain`).
    brain_root: Option<PathBuf>,
}

pub(crate) use lore_core::unix_now as now_secs;

fn json_list(v: &[String]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

fn web_json(web: &WebSettings) -> String {
    serde_json::to_string(web).unwrap_or_else(|_| "{}".into())
}

fn parse_list(s: &str) -> Vec<String> {
    serde_json::from_str(s).unwrap_or_default()
}

const STORE_COLUMNS: &str = "id, name, kind, source, root, branch, includes, excludes, description, \
     max_file_bytes, created_at, indexed_at, generation, web, embedder, host, feedback, \
     feedback_seq, no_ignore";

fn store_from_row(r: &mut Row) -> Result<StoreRecord, SqlError> {
    Ok(StoreRecord {
        id: r.int(0)?,
        name: r.text(1)?,
        kind: StoreKind::parse(&r.text(2)?).unwrap_or(StoreKind::Folder),
        source: r.text(3)?,
        root: PathBuf::from(r.text(4)?),
        branch: r.opt_text(5)?,
        includes: parse_list(&r.text(6)?),
        excludes: parse_list(&r.text(7)?),
        description: r.opt_text(8)?,
        max_file_bytes: r.int(9)? as u64,
        created_at: r.int(10)?,
        indexed_at: r.opt_int(11)?,
        generation: r.int(12)?,
        web: r.opt_text(13)?.and_then(|j| serde_json::from_str(&j).ok()),
        embedder: r.opt_text(14)?,
        host: r.opt_text(15)?,
        feedback: r.int(16)? != 0,
        feedback_seq: r.int(17)?,
        no_ignore: r.int(18)? != 0,
    })
}

pub(crate) const CHUNK_COLUMNS: &str = "id, store_id, path, kind, language, symbol, parent, signature, doc, headings, \
     start_line, end_line, start_byte, end_byte, content, context";

pub(crate) fn chunk_from_row(r: &mut Row) -> Result<StoredChunk, SqlError> {
    Ok(StoredChunk {
        id: r.int(0)?,
        store_id: r.int(1)?,
        path: r.text(2)?,
        chunk: Chunk {
            kind: ChunkKind::parse(&r.text(3)?).unwrap_or(ChunkKind::Text),
            language: Language::parse(&r.text(4)?).unwrap_or(Language::Text),
            symbol: r.opt_text(5)?,
            parent: r.opt_text(6)?,
            signature: r.opt_text(7)?,
            doc: r.opt_text(8)?,
            headings: parse_list(&r.text(9)?),
            start_line: r.int(10)? as u32,
            end_line: r.int(11)? as u32,
            start_byte: r.int(12)? as usize,
            end_byte: r.int(13)? as usize,
            content: r.packed_text(14)?,
            context: r.opt_text(15)?,
        },
    })
}

fn file_from_row(r: &mut Row) -> Result<FileRecord, SqlError> {
    Ok(FileRecord {
        path: r.text(0)?,
        size: r.int(1)? as u64,
        mtime_ns: r.int(2)?,
        hash: r.text(3)?,
        chunks: r.int(4)? as u32,
        skipped: r.opt_text(5)?,
        parse_error: r.opt_text(6)?,
    })
}

/// SQLite's page cache, in KiB as its negative `cache_size` says (64 MiB at most, used
/// as pages are read).
const CACHE_KIB: i64 = -65_536;

impl Catalog {
    /// Opens (creating or migrating) the SQLite catalog at `path`.
    pub fn open(path: &Path) -> Result<Catalog, IndexError> {
        let label = path.display().to_string();
        let ctx = |e: rusqlite::Error| IndexError::Catalog(label.clone(), e.into());
        let conn = Connection::open(path).map_err(ctx)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(ctx)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(ctx)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(ctx)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(ctx)?;
        // A large store's writes touch pages of ten indexes at once: with SQLite's 2 MB
        // page cache they were evicted and read again, and spilled into the WAL in the
        // middle of a transaction. Statement journals stay in memory, not in a temp file.
        conn.pragma_update(None, "cache_size", CACHE_KIB)
            .map_err(ctx)?;
        conn.pragma_update(None, "temp_store", "MEMORY")
            .map_err(ctx)?;
        crate::schema::apply(&conn).map_err(ctx)?;
        Ok(Catalog {
            db: Sql::sqlite(conn, label),
            brain_root: None,
        })
    }

    /// Connects to a PostgreSQL catalog, bringing its schema up to date (under an
    /// advisory lock, see `schema::postgres`). A database written by a newer lore is
    /// refused, and nothing is written to it.
    pub fn connect(url: &str, opts: &PgOptions) -> Result<Catalog, IndexError> {
        let db = Sql::postgres(url, opts)?;
        crate::schema::postgres::migrate(&db)?;
        Ok(Catalog {
            db,
            brain_root: None,
        })
    }

    /// Connects to a PostgreSQL catalog to read only: its schema must be this lore's
    /// (`lore db migrate` brings it there); nothing is written. `Ok(None)`: lore has not
    /// written to the database yet.
    pub fn connect_read_only(url: &str, opts: &PgOptions) -> Result<Option<Catalog>, IndexError> {
        let db = Sql::postgres(url, opts)?;
        let status = crate::schema::postgres::status(&db)?;
        if status.version == 0 {
            return Ok(None);
        }
        if status.version != status.latest {
            return Err(IndexError::Outdated(format!(
                "{} has lore schema version {}, this lore reads {}; run `lore db migrate`",
                db.label(),
                status.version,
                status.latest
            )));
        }
        Ok(Some(Catalog {
            db,
            brain_root: None,
        }))
    }

    /// Opens an existing catalog for reading only: no schema is created or migrated and
    /// nothing is written (checks such as `lore doctor`). `Ok(None)` when there is none.
    pub fn open_read_only(path: &Path) -> Result<Option<Catalog>, IndexError> {
        if !path.exists() {
            return Ok(None);
        }
        let label = path.display().to_string();
        let ctx = |e: rusqlite::Error| IndexError::Catalog(label.clone(), e.into());
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
        Ok(Some(Catalog {
            db: Sql::sqlite(conn, label),
            brain_root: None,
        }))
    }

    /// The schema version of the SQLite catalog at `path`, read without writing (`None`:
    /// there is none), and the version this lore writes.
    pub fn sqlite_version(path: &Path) -> Result<(Option<i64>, i64), IndexError> {
        let latest = crate::schema::SCHEMA_VERSION;
        if !path.exists() {
            return Ok((None, latest));
        }
        let label = path.display().to_string();
        let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| IndexError::Catalog(label.clone(), e.into()))?;
        let db = Sql::sqlite(conn, label);
        Ok((Some(db.query_int("PRAGMA user_version", &[])?), latest))
    }

    pub fn dialect(&self) -> Dialect {
        self.db.dialect()
    }

    /// Whether the catalog keeps each store's BM25 and vectors itself, written in its own
    /// transactions (PostgreSQL), rather than as files beside it (embedded).
    pub fn holds_indexes(&self) -> bool {
        self.dialect() == Dialect::Postgres
    }

    /// Whether the brain is shared through this catalog (PostgreSQL, see `brain`) rather
    /// than kept in one brain dir.
    pub fn shares_brain(&self) -> bool {
        self.dialect() == Dialect::Postgres
    }

    /// The database as errors name it (a file, or a server without its password).
    pub fn label(&self) -> &str {
        self.db.label()
    }

    pub fn sql(&self) -> &Sql {
        &self.db
    }

    /// Runs `f` inside one read transaction, so everything it reads is one snapshot of the
    /// catalog even while a writer commits.
    pub fn snapshot<T>(
        &self,
        f: impl FnOnce(&Catalog) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        self.db.batch(match self.dialect() {
            Dialect::Sqlite => "BEGIN",
            Dialect::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        })?;
        let out = f(self);
        self.db
            .batch(if out.is_ok() { "COMMIT" } else { "ROLLBACK" })?;
        out
    }

    /// The database's own consistency check: SQLite's `PRAGMA quick_check`, or with `deep`
    /// its `integrity_check`, which also compares every index with its table (PostgreSQL
    /// checks itself). Its complaints, none if sound; a check that cannot even run is one.
    pub fn check_file(&self, deep: bool) -> Result<Vec<String>, IndexError> {
        if self.dialect() == Dialect::Postgres {
            return Ok(Vec::new());
        }
        let pragma = if deep {
            "PRAGMA integrity_check"
        } else {
            "PRAGMA quick_check"
        };
        match self.db.query(pragma, &[], |r| r.text(0)) {
            Ok(rows) => Ok(rows.into_iter().filter(|r| r != "ok").collect()),
            Err(e) => match e.damage() {
                Some(said) => Ok(vec![said]),
                None => Err(e),
            },
        }
    }

    /// Rebuilds every index of the catalog from its tables (SQLite's `REINDEX`): the repair
    /// when `check_file(true)` finds only indexes damaged.
    pub fn reindex(&self) -> Result<(), IndexError> {
        if self.dialect() == Dialect::Postgres {
            return Err(IndexError::Setup(
                "PostgreSQL checks its own indexes; rebuild one with its REINDEX if it says so"
                    .into(),
            ));
        }
        self.db.batch("REINDEX")
    }

    pub fn chunk_count(&self, store_id: i64) -> Result<u64, IndexError> {
        self.db
            .query_int(
                "SELECT COUNT(*) FROM chunks WHERE store_id = ?1",
                args![store_id],
            )
            .map(|n| n as u64)
    }

    /// The ids of a store's chunks, ascending (`embedded`: only those with a vector).
    pub fn chunk_ids(&self, store_id: i64, embedded: bool) -> Result<Vec<i64>, IndexError> {
        let sql = if embedded {
            "SELECT id FROM chunks WHERE store_id = ?1 AND embedding IS NOT NULL ORDER BY id"
        } else {
            "SELECT id FROM chunks WHERE store_id = ?1 ORDER BY id"
        };
        self.db.query(sql, args![store_id], |r| r.int(0))
    }

    /// The chunk ids BM25 holds for a store, ascending, when the catalog keeps BM25 itself
    /// (`holds_indexes`; empty otherwise).
    pub fn lexical_ids(&self, store_id: i64) -> Result<Vec<i64>, IndexError> {
        if !self.holds_indexes() {
            return Ok(Vec::new());
        }
        self.db.query(
            "SELECT chunk_id FROM lex_docs WHERE store_id = ?1 ORDER BY chunk_id",
            args![store_id],
            |r| r.int(0),
        )
    }

    /// Embeddings whose size is not `dim` floats, and chunks whose file has no manifest
    /// entry: what no commit of lore leaves behind.
    pub fn inconsistencies(&self, store_id: i64, dim: usize) -> Result<(u64, u64), IndexError> {
        let bad_vectors = match self.dialect() {
            Dialect::Sqlite => self.db.query_int(
                "SELECT COUNT(*) FROM chunks WHERE store_id = ?1 AND embedding IS NOT NULL \
                 AND length(embedding) != ?2",
                args![store_id, dim * 4],
            )?,
            Dialect::Postgres => self.db.query_int(
                "SELECT COUNT(*) FROM chunks WHERE store_id = ?1 AND embedding IS NOT NULL \
                 AND vector_dims(embedding) != ?2",
                args![store_id, dim],
            )?,
        };
        let orphans = self.db.query_int(
            "SELECT COUNT(*) FROM chunks c WHERE c.store_id = ?1 AND NOT EXISTS \
             (SELECT 1 FROM files f WHERE f.store_id = c.store_id AND f.path = c.path)",
            args![store_id],
        )?;
        Ok((bad_vectors as u64, orphans as u64))
    }

    /// Calls `f` for every chunk of a store, by path and position (a BM25 rebuild).
    pub fn for_each_chunk(
        &self,
        store_id: i64,
        mut f: impl FnMut(StoredChunk) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        self.db.for_each(
            &format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks WHERE store_id = ?1 ORDER BY path, start_byte"
            ),
            args![store_id],
            |mut row| f(chunk_from_row(&mut row).map_err(self.db.err())?),
        )
    }

    pub fn create_store(&self, s: &NewStore) -> Result<StoreRecord, IndexError> {
        let spec = s.spec;
        if self.store(&spec.name)?.is_some() {
            return Err(IndexError::StoreExists(spec.name.clone()));
        }
        self.db.execute(
            "INSERT INTO stores (name, kind, source, root, branch, includes, excludes, description, max_file_bytes, created_at, web, host, no_ignore)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            args![
                &spec.name,
                s.kind.as_str(),
                &s.source,
                s.root.to_string_lossy().into_owned(),
                &spec.branch,
                json_list(&spec.includes),
                json_list(&spec.excludes),
                &spec.description,
                s.max_file_bytes,
                now_secs(),
                s.web.as_ref().map(web_json),
                &s.host,
                i64::from(spec.no_ignore)
            ],
        )?;
        self.store(&spec.name)?
            .ok_or_else(|| IndexError::StoreNotFound(spec.name.clone()))
    }

    pub fn stores(&self) -> Result<Vec<StoreRecord>, IndexError> {
        let rows = self.db.query(
            &format!("SELECT {STORE_COLUMNS} FROM stores ORDER BY name"),
            &[],
            store_from_row,
        )?;
        Ok(rows.into_iter().map(|s| self.localized(s)).collect())
    }

    pub fn store(&self, name: &str) -> Result<Option<StoreRecord>, IndexError> {
        let row = self.db.query_opt(
            &format!("SELECT {STORE_COLUMNS} FROM stores WHERE name = ?1"),
            args![name],
            store_from_row,
        )?;
        Ok(row.map(|s| self.localized(s)))
    }

    pub fn store_by_id(&self, id: i64) -> Result<Option<StoreRecord>, IndexError> {
        let row = self.db.query_opt(
            &format!("SELECT {STORE_COLUMNS} FROM stores WHERE id = ?1"),
            args![id],
            store_from_row,
        )?;
        Ok(row.map(|s| self.localized(s)))
    }

    /// Says where this server's brain dir is: a shared catalog's brain store is then read
    /// with it as its root, whichever server created the store.
    pub fn set_brain_root(&mut self, root: PathBuf) {
        self.brain_root = Some(root);
    }

    fn localized(&self, mut s: StoreRecord) -> StoreRecord {
        if s.kind == StoreKind::Brain
            && self.shares_brain()
            && let Some(root) = &self.brain_root
        {
            s.root.clone_from(root);
        }
        s
    }

    pub fn set_root(&self, id: i64, root: &Path) -> Result<(), IndexError> {
        self.db.execute(
            "UPDATE stores SET root = ?2 WHERE id = ?1",
            args![id, root.to_string_lossy().into_owned()],
        )?;
        Ok(())
    }

    /// A store's definition changed in place (its project file's globs, caps, ignore
    /// files or description): the next index run walks with it.
    pub fn set_definition(
        &self,
        id: i64,
        spec: &AddStore,
        max_file_bytes: u64,
    ) -> Result<(), IndexError> {
        self.db.execute(
            "UPDATE stores SET includes = ?2, excludes = ?3, description = ?4, max_file_bytes = ?5, \
             no_ignore = ?6 WHERE id = ?1",
            args![
                id,
                json_list(&spec.includes),
                json_list(&spec.excludes),
                spec.description.clone(),
                max_file_bytes,
                i64::from(spec.no_ignore)
            ],
        )?;
        Ok(())
    }

    pub fn set_web(&self, id: i64, web: &WebSettings) -> Result<(), IndexError> {
        self.db.execute(
            "UPDATE stores SET web = ?2 WHERE id = ?1",
            args![id, web_json(web)],
        )?;
        Ok(())
    }

    /// Relative path of every chunk of a store, by chunk id.
    pub fn chunk_paths(&self, store_id: i64) -> Result<HashMap<i64, String>, IndexError> {
        let rows = self.db.query(
            "SELECT id, path FROM chunks WHERE store_id = ?1",
            args![store_id],
            |r| Ok((r.int(0)?, r.text(1)?)),
        )?;
        Ok(rows.into_iter().collect())
    }

    pub fn remove_store(&mut self, id: i64) -> Result<(), IndexError> {
        let tx = self.begin()?;
        let lexical: &[&str] = match tx.db.dialect() {
            Dialect::Sqlite => &[],
            Dialect::Postgres => &[
                "DELETE FROM lex_postings WHERE store_id = ?1",
                "DELETE FROM lex_docs WHERE store_id = ?1",
            ],
        };
        for sql in lexical.iter().chain(&[
            "DELETE FROM chunks WHERE store_id = ?1",
            "DELETE FROM files WHERE store_id = ?1",
            "DELETE FROM feedback WHERE store_id = ?1",
            "DELETE FROM patterns WHERE store_id = ?1",
            "DELETE FROM pattern_state WHERE store_id = ?1",
            "DELETE FROM stores WHERE id = ?1",
        ]) {
            tx.db.execute(sql, args![id])?;
        }
        tx.commit()
    }

    /// Whether a store holds at least one chunk (an index lookup, unlike `stats`).
    pub fn has_chunks(&self, store_id: i64) -> Result<bool, IndexError> {
        Ok(self
            .db
            .query_opt(
                "SELECT 1 FROM chunks WHERE store_id = ?1 LIMIT 1",
                args![store_id],
                |_| Ok(()),
            )?
            .is_some())
    }

    pub fn stats(&self, store_id: i64) -> Result<StoreStats, IndexError> {
        let files = self.db.query_int(
            "SELECT COUNT(*) FROM files WHERE store_id = ?1 AND skipped IS NULL",
            args![store_id],
        )?;
        // Both from indexes: `COUNT(embedding)` would read every chunk's row.
        let (chunks, unembedded) = self.embedding_progress(store_id)?;
        let embedded = chunks.saturating_sub(unembedded);
        let (symbols, references, resolved) = self.graph_stats(store_id)?;
        let parse_errors = self.db.query_int(
            "SELECT COUNT(*) FROM files WHERE store_id = ?1 AND parse_error IS NOT NULL",
            args![store_id],
        )?;
        Ok(StoreStats {
            files: files as u64,
            parse_errors: parse_errors as u64,
            chunks,
            embedded,
            symbols,
            references,
            resolved,
        })
    }

    /// Files of a store that parsed with errors, with the error, by path (at most `limit`).
    pub fn parse_errors(
        &self,
        store_id: i64,
        limit: usize,
    ) -> Result<Vec<(String, String)>, IndexError> {
        self.db.query(
            "SELECT path, parse_error FROM files WHERE store_id = ?1 AND parse_error IS NOT NULL \
             ORDER BY path LIMIT ?2",
            args![store_id, limit as i64],
            |r| Ok((r.text(0)?, r.text(1)?)),
        )
    }

    /// The records of those of `paths` the store indexed, by path (one query per 500).
    pub fn file_records(
        &self,
        store_id: i64,
        paths: &[&str],
    ) -> Result<HashMap<String, FileRecord>, IndexError> {
        let mut out = HashMap::with_capacity(paths.len());
        for part in paths.chunks(500) {
            let sql = format!(
                "SELECT path, size, mtime_ns, hash, chunks, skipped, parse_error FROM files \
                 WHERE store_id = ?1 AND path IN ({})",
                crate::sql::placeholders(part.len(), 2)
            );
            let mut args: Vec<Arg> = vec![store_id.into()];
            args.extend(part.iter().map(|&p| Arg::from(p)));
            for f in self.db.query(&sql, &args, file_from_row)? {
                out.insert(f.path.clone(), f);
            }
        }
        Ok(out)
    }

    pub fn manifest(&self, store_id: i64) -> Result<HashMap<String, FileRecord>, IndexError> {
        let rows = self.db.query(
            "SELECT path, size, mtime_ns, hash, chunks, skipped, parse_error FROM files WHERE store_id = ?1",
            args![store_id],
            file_from_row,
        )?;
        Ok(rows.into_iter().map(|f| (f.path.clone(), f)).collect())
    }

    /// The relative paths of a store's files, sorted (the manifest's keys, without reading
    /// the rest of each record).
    pub fn paths(&self, store_id: i64) -> Result<Vec<String>, IndexError> {
        self.db.query(
            "SELECT path FROM files WHERE store_id = ?1 ORDER BY path",
            args![store_id],
            |r| r.text(0),
        )
    }

    /// The relative paths of a store's files that were indexed (not skipped), sorted.
    pub fn indexed_paths(&self, store_id: i64) -> Result<Vec<String>, IndexError> {
        self.db.query(
            "SELECT path FROM files WHERE store_id = ?1 AND skipped IS NULL ORDER BY path",
            args![store_id],
            |r| r.text(0),
        )
    }

    /// Which of `ids` are prose (markdown or plain-text chunks) rather than code.
    pub fn prose_ids(&self, ids: &[i64]) -> Result<HashSet<i64>, IndexError> {
        let mut out = HashSet::new();
        for part in ids.chunks(500) {
            let sql = format!(
                "SELECT id FROM chunks WHERE id IN ({}) AND language IN ('markdown', 'text')",
                crate::sql::placeholders(part.len(), 1)
            );
            let args: Vec<Arg> = part.iter().map(|&id| id.into()).collect();
            out.extend(self.db.query(&sql, &args, |r| r.int(0))?);
        }
        Ok(out)
    }

    /// Chunks by id, in no particular order; ids that no longer exist are absent.
    pub fn chunks(&self, ids: &[i64]) -> Result<Vec<StoredChunk>, IndexError> {
        let mut out = Vec::with_capacity(ids.len());
        for part in ids.chunks(500) {
            let sql = format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks WHERE id IN ({})",
                crate::sql::placeholders(part.len(), 1)
            );
            let args: Vec<Arg> = part.iter().map(|&id| id.into()).collect();
            out.extend(self.db.query(&sql, &args, chunk_from_row)?);
        }
        Ok(out)
    }

    /// All chunks of one file, in file order.
    pub fn file_chunks(&self, store_id: i64, path: &str) -> Result<Vec<StoredChunk>, IndexError> {
        self.db.query(
            &format!(
                "SELECT {CHUNK_COLUMNS} FROM chunks WHERE store_id = ?1 AND path = ?2 ORDER BY start_byte"
            ),
            args![store_id, path],
            chunk_from_row,
        )
    }

    /// Starts a write transaction. Nothing is visible to readers until `commit`; dropped
    /// without it, the transaction is rolled back.
    ///
    /// SQLite takes its write lock at `BEGIN IMMEDIATE`, where the busy timeout waits
    /// for another writer: a deferred transaction that read first and then wrote would
    /// instead fail at once with "database is locked" whenever another connection (a
    /// heartbeat, a lease renewal) committed in between.
    pub fn begin(&mut self) -> Result<CatalogTx<'_>, IndexError> {
        self.db.batch(match self.dialect() {
            Dialect::Sqlite => "BEGIN IMMEDIATE",
            Dialect::Postgres => "BEGIN",
        })?;
        Ok(CatalogTx {
            db: &self.db,
            open: std::cell::Cell::new(true),
        })
    }
}

/// A write transaction over the catalog.
pub struct CatalogTx<'a> {
    pub(crate) db: &'a Sql,
    open: std::cell::Cell<bool>,
}

impl Drop for CatalogTx<'_> {
    fn drop(&mut self) {
        if self.open.get() {
            let _ = self.db.batch("ROLLBACK");
        }
    }
}

/// A chunk ready to be written: its stable id, the chunk, and its embedding if any.
pub struct ChunkRow<'a> {
    pub id: i64,
    pub chunk: &'a Chunk,
    pub embedding: Option<&'a [f32]>,
}

impl CatalogTx<'_> {
    /// Replaces a file's manifest entry and all of its chunks (in PostgreSQL, their BM25
    /// postings too, in the same transaction). Its code facts are left to `replace_facts`
    /// (which keeps the ids of symbols still there) or `remove_facts`.
    pub fn replace_file(
        &self,
        store_id: i64,
        file: &FileRecord,
        chunks: &[ChunkRow<'_>],
    ) -> Result<(), IndexError> {
        self.remove_file_rows(store_id, &file.path)?;
        self.db.execute(
            "INSERT INTO files (store_id, path, size, mtime_ns, hash, chunks, skipped, parse_error) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            args![
                store_id,
                &file.path,
                file.size,
                file.mtime_ns,
                &file.hash,
                file.chunks,
                &file.skipped,
                &file.parse_error
            ],
        )?;
        let insert = format!(
            "INSERT INTO chunks ({CHUNK_COLUMNS}, embedding) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17) \
             ON CONFLICT (id) DO UPDATE SET store_id = excluded.store_id, path = excluded.path, \
             kind = excluded.kind, language = excluded.language, symbol = excluded.symbol, \
             parent = excluded.parent, signature = excluded.signature, doc = excluded.doc, \
             headings = excluded.headings, start_line = excluded.start_line, \
             end_line = excluded.end_line, start_byte = excluded.start_byte, \
             end_byte = excluded.end_byte, content = excluded.content, \
             context = excluded.context, embedding = excluded.embedding"
        );
        for row in chunks {
            let c = row.chunk;
            self.db.execute(
                &insert,
                args![
                    row.id,
                    store_id,
                    &file.path,
                    c.kind.as_str(),
                    c.language.as_str(),
                    &c.symbol,
                    &c.parent,
                    &c.signature,
                    &c.doc,
                    json_list(&c.headings),
                    c.start_line,
                    c.end_line,
                    c.start_byte,
                    c.end_byte,
                    Arg::Packed(std::borrow::Cow::Borrowed(&c.content)),
                    &c.context,
                    row.embedding,
                ],
            )?;
        }
        if self.db.dialect() == Dialect::Postgres {
            crate::postings::write_postings(
                self.db,
                store_id,
                &file.path,
                chunks.iter().map(|r| (r.id, r.chunk)),
            )?;
        }
        Ok(())
    }

    /// Records a new size/mtime for a file whose content did not change.
    pub fn touch_file(&self, store_id: i64, file: &FileRecord) -> Result<(), IndexError> {
        self.db.execute(
            "UPDATE files SET size = ?3, mtime_ns = ?4 WHERE store_id = ?1 AND path = ?2",
            args![store_id, &file.path, file.size, file.mtime_ns],
        )?;
        Ok(())
    }

    /// Forgets a file, its chunks and its code facts.
    pub fn remove_file(&self, store_id: i64, path: &str) -> Result<(), IndexError> {
        self.remove_facts(store_id, path)?;
        self.remove_file_rows(store_id, path)
    }

    /// Forgets a file's manifest entry and chunks.
    fn remove_file_rows(&self, store_id: i64, path: &str) -> Result<(), IndexError> {
        if self.db.dialect() == Dialect::Postgres {
            crate::postings::remove_postings(self.db, store_id, path)?;
        }
        for sql in [
            "DELETE FROM chunks WHERE store_id = ?1 AND path = ?2",
            "DELETE FROM files WHERE store_id = ?1 AND path = ?2",
        ] {
            self.db.execute(sql, args![store_id, path])?;
        }
        Ok(())
    }

    pub fn bump_generation(&self, store_id: i64) -> Result<i64, IndexError> {
        self.db.query_int(
            "UPDATE stores SET generation = generation + 1 WHERE id = ?1 RETURNING generation",
            args![store_id],
        )
    }

    pub fn set_indexed_now(&self, store_id: i64) -> Result<(), IndexError> {
        self.db.execute(
            "UPDATE stores SET indexed_at = ?2 WHERE id = ?1",
            args![store_id, now_secs()],
        )?;
        Ok(())
    }

    pub fn commit(self) -> Result<(), IndexError> {
        self.open.set(false);
        self.db.batch("COMMIT")
    }
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
