//! The catalog's tables, in one place: what a new catalog is created with and how an older
//! one is brought up to date. Stores, the file manifest and chunks (with embeddings); the
//! code graph (symbols, imports, references and their resolution, fields and module-level
//! names with what their value is); jobs.

pub mod postgres;

use rusqlite::Connection;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS stores (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL,
    source TEXT NOT NULL,
    root TEXT NOT NULL,
    branch TEXT,
    includes TEXT NOT NULL DEFAULT '[]',
    excludes TEXT NOT NULL DEFAULT '[]',
    description TEXT,
    max_file_bytes INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    indexed_at INTEGER,
    generation INTEGER NOT NULL DEFAULT 0,
    web TEXT,
    embedder TEXT,
    host TEXT,
    feedback INTEGER NOT NULL DEFAULT 1,
    feedback_seq INTEGER NOT NULL DEFAULT 0,
    no_ignore INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS files (
    store_id INTEGER NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash TEXT NOT NULL,
    chunks INTEGER NOT NULL,
    skipped TEXT,
    parse_error TEXT,
    PRIMARY KEY (store_id, path)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    store_id INTEGER NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    language TEXT NOT NULL,
    symbol TEXT,
    parent TEXT,
    signature TEXT,
    doc TEXT,
    headings TEXT NOT NULL DEFAULT '[]',
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    start_byte INTEGER NOT NULL,
    end_byte INTEGER NOT NULL,
    content TEXT NOT NULL,
    context TEXT,
    embedding BLOB
);
-- By file, carrying each chunk's lines, kind and name: grep's units are read from the
-- index alone (a chunk row holds its text, a page or more each).
CREATE INDEX IF NOT EXISTS chunks_by_file ON chunks(store_id, path, start_line, end_line, kind, symbol);
-- The chunks still to embed (progressive indexing): empty once a store is embedded.
CREATE INDEX IF NOT EXISTS chunks_unembedded ON chunks(store_id) WHERE embedding IS NULL;
-- The code graph.
CREATE TABLE IF NOT EXISTS symbols (
    id INTEGER PRIMARY KEY,
    store_id INTEGER NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    qualified TEXT NOT NULL,
    kind TEXT NOT NULL,
    container TEXT,
    signature TEXT,
    doc TEXT,
    exported INTEGER NOT NULL,
    is_async INTEGER NOT NULL,
    is_test INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    start_byte INTEGER NOT NULL,
    end_byte INTEGER NOT NULL,
    returns TEXT,
    params TEXT,
    decorators TEXT
);
CREATE INDEX IF NOT EXISTS symbols_by_name ON symbols(store_id, name, path);
CREATE INDEX IF NOT EXISTS symbols_by_qualified ON symbols(store_id, qualified);
CREATE INDEX IF NOT EXISTS symbols_by_file ON symbols(store_id, path, start_byte);
CREATE TABLE IF NOT EXISTS imports (
    id INTEGER PRIMARY KEY,
    store_id INTEGER NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    module TEXT NOT NULL,
    names TEXT NOT NULL,
    alias TEXT,
    wildcard INTEGER NOT NULL,
    type_only INTEGER NOT NULL,
    line INTEGER NOT NULL,
    targets TEXT
);
CREATE INDEX IF NOT EXISTS imports_by_file ON imports(store_id, path);
CREATE TABLE IF NOT EXISTS refs (
    id INTEGER PRIMARY KEY,
    store_id INTEGER NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    caller TEXT,
    name TEXT NOT NULL,
    receiver TEXT NOT NULL,
    line INTEGER NOT NULL,
    target INTEGER REFERENCES symbols(id) ON DELETE SET NULL,
    confidence REAL,
    how TEXT
);
CREATE TABLE IF NOT EXISTS bindings (
    store_id INTEGER NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    owner TEXT,
    name TEXT NOT NULL,
    value TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS bindings_by_file ON bindings(store_id, path);
CREATE INDEX IF NOT EXISTS refs_by_file ON refs(store_id, path);
CREATE INDEX IF NOT EXISTS refs_by_name ON refs(store_id, name);
CREATE INDEX IF NOT EXISTS refs_by_target ON refs(target);
CREATE INDEX IF NOT EXISTS refs_resolved ON refs(store_id) WHERE target IS NOT NULL;
CREATE INDEX IF NOT EXISTS refs_heritage ON refs(store_id) WHERE kind IN ('extends', 'implements');
-- Idioms mined from the graph (see lore-engine's graph/patterns.rs), largest first, and
-- the generation they were mined at.
CREATE TABLE IF NOT EXISTS patterns (
    store_id INTEGER NOT NULL REFERENCES stores(id) ON DELETE CASCADE,
    rank INTEGER NOT NULL,
    name TEXT NOT NULL,
    parts TEXT NOT NULL,
    count INTEGER NOT NULL,
    canonical TEXT NOT NULL,
    members TEXT NOT NULL,
    variants TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS patterns_by_store ON patterns(store_id, rank);
CREATE TABLE IF NOT EXISTS pattern_state (
    store_id INTEGER PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
    generation INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS analyzer_state (
    store_id INTEGER PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS graph_state (
    store_id INTEGER PRIMARY KEY REFERENCES stores(id) ON DELETE CASCADE,
    resolved_generation INTEGER NOT NULL
);
-- Who indexes or watches a store now, until when (several servers may share one catalog).
CREATE TABLE IF NOT EXISTS store_leases (
    store_id INTEGER NOT NULL,
    purpose TEXT NOT NULL,
    holder TEXT NOT NULL,
    since INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (store_id, purpose)
);
-- Jobs: bookkeeping any process may write; only the writer runs them.
CREATE TABLE IF NOT EXISTS jobs (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    files_done INTEGER NOT NULL DEFAULT 0,
    files_total INTEGER NOT NULL DEFAULT 0,
    chunks_done INTEGER NOT NULL DEFAULT 0,
    chunks_total INTEGER NOT NULL DEFAULT 0,
    message TEXT,
    result TEXT,
    error TEXT,
    cancel_requested INTEGER NOT NULL DEFAULT 0,
    pid INTEGER,
    created_at INTEGER NOT NULL,
    started_at INTEGER,
    finished_at INTEGER,
    seq INTEGER,
    writer TEXT,
    heartbeat_at INTEGER
);
CREATE INDEX IF NOT EXISTS jobs_by_created ON jobs(created_at);
-- Feedback on results (see feedback.rs): keyed by chunk id, which hashes the content.
CREATE TABLE IF NOT EXISTS feedback (
    store_id INTEGER NOT NULL,
    chunk_id INTEGER NOT NULL,
    terms TEXT NOT NULL,
    weight REAL NOT NULL,
    kind TEXT NOT NULL,
    client TEXT NOT NULL,
    at INTEGER NOT NULL,
    shown_rank INTEGER
);
CREATE INDEX IF NOT EXISTS feedback_by_chunk ON feedback(chunk_id);
CREATE INDEX IF NOT EXISTS feedback_by_store ON feedback(store_id, at);
";

/// The schema version `SCHEMA` creates; `migrate` brings older catalogs up to it.
pub(crate) const SCHEMA_VERSION: i64 = 18;

/// What made a store's vectors when it did not record it: stores embedded before lore
/// recorded it were all embedded by the built-in model. The migrations that added the
/// record fill it in for such stores, so a store without one has no vectors.
pub(crate) const LEGACY_EMBEDDER: &str = "all-MiniLM-L6-v2/384";

/// Records the built-in model as the embedder of stores that have vectors but no record
/// (the v7 migration).
const LEGACY_FILL: &str = "UPDATE stores SET embedder = ?1 WHERE embedder IS NULL \
     AND EXISTS (SELECT 1 FROM chunks WHERE chunks.store_id = stores.id AND chunks.embedding IS NOT NULL)";

/// The v11 index of symbols by name (shared with PostgreSQL's v11).
pub(crate) const SYMBOLS_BY_NAME: &str = "DROP INDEX IF EXISTS symbols_by_name; \
     CREATE INDEX symbols_by_name ON symbols(store_id, name, path);";

/// The v15 index of chunks by file with their places (SQLite's; PostgreSQL includes them).
const CHUNKS_BY_FILE: &str = "DROP INDEX IF EXISTS chunks_by_file; \
     CREATE INDEX chunks_by_file ON chunks(store_id, path, start_line, end_line, kind, symbol);";

fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    // A column `SCHEMA` has but a catalog made before it lacks.
    let add_column = |table: &str, column: &str, ty: &str| -> rusqlite::Result<()> {
        let exists = conn
            .prepare(&format!(
                "SELECT 1 FROM pragma_table_info('{table}') WHERE name = '{column}'"
            ))?
            .exists([])?;
        if !exists {
            conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {ty}"))?;
        }
        Ok(())
    };
    if version < 1 {
        // v1: files.skipped (unindexable files are recorded with their reason).
        add_column("files", "skipped", "TEXT")?;
    }
    // v2 added the code graph tables (created above); stores indexed before have no
    // facts and are re-analysed on their next index run (see `analyzer_state`).
    if version < 3 {
        // v3: stores.web (crawl settings of web stores).
        add_column("stores", "web", "TEXT")?;
    }
    if version < 4 {
        // v4: symbols.params and symbols.decorators (pytest fixtures), and the bindings
        // table (created above): filled when the analyzer version bump re-reads the
        // files.
        add_column("symbols", "params", "TEXT")?;
        add_column("symbols", "decorators", "TEXT")?;
    }
    if version < 5 {
        // v5: jobs.seq (the order jobs were created in, which both databases can sort by).
        add_column("jobs", "seq", "INTEGER")?;
    }
    if version < 6 {
        // v6: stores.embedder (what made a store's vectors, checked before mixing models).
        add_column("stores", "embedder", "TEXT")?;
    }
    if version < 7 {
        // v7: stores embedded before v6 say so, so that searches need not look for vectors
        // (a scan of a store's chunks when it has none) to know whether to check the model.
        conn.execute(LEGACY_FILL, [LEGACY_EMBEDDER])?;
        // Files indexed with parse errors say where.
        add_column("files", "parse_error", "TEXT")?;
        // And a file's symbols are indexed by position, so a chunk reads only its own.
        conn.execute_batch(
            "DROP INDEX IF EXISTS symbols_by_file; \
             CREATE INDEX symbols_by_file ON symbols(store_id, path, start_byte);",
        )?;
    }
    if version < 8 {
        // v8: jobs.writer and jobs.heartbeat_at (who runs a job, and that it still lives:
        // several servers may share one catalog's jobs).
        add_column("jobs", "writer", "TEXT")?;
        add_column("jobs", "heartbeat_at", "INTEGER")?;
    }
    if version < 9 {
        // v9: stores.host (the machine a folder or clone lives on).
        add_column("stores", "host", "TEXT")?;
    }
    // v10 added the feedback table (created above).
    if version < 11 {
        // v11: symbols by name are also by file, so a chunk's unit is one seek however
        // common its name (`new`: thousands of rows in a large store).
        conn.execute_batch(SYMBOLS_BY_NAME)?;
    }
    if version < 12 {
        // v12: stores.feedback (whether what agents teach changes the store's ranking) and
        // stores.feedback_seq (moved by every change of its feedback rows, so a search
        // reads them again only then).
        add_column("stores", "feedback", "INTEGER NOT NULL DEFAULT 1")?;
        add_column("stores", "feedback_seq", "INTEGER NOT NULL DEFAULT 0")?;
        // And feedback.shown_rank: where the search that showed an opened result had it.
        add_column("feedback", "shown_rank", "INTEGER")?;
    }
    if version < 13 {
        // v13: stores.no_ignore (walked without its ignore files).
        add_column("stores", "no_ignore", "INTEGER NOT NULL DEFAULT 0")?;
    }
    // v14 added the patterns and pattern_state tables (created above).
    if version < 15 {
        // v15: chunks by file carry their lines, kind and name (grep's units, index only).
        conn.execute_batch(CHUNKS_BY_FILE)?;
    }
    // v16 added the partial index of resolved references (created above): a store's
    // resolved share is counted from it, not from every reference's row.
    // v17 added the partial index of extends/implements references (created above): the
    // resolver reads a store's bases from it on every run.
    if version < 18 {
        // v18: what the resolver of a small change reads beside the symbols its references
        // name: every container name, every decorated symbol (pytest fixtures). Here, not
        // in `SCHEMA`: `decorators` is a column v4 adds.
        conn.execute_batch(
            "CREATE INDEX IF NOT EXISTS symbols_by_container ON symbols(store_id, container) \
             WHERE container IS NOT NULL; \
             CREATE INDEX IF NOT EXISTS symbols_decorated ON symbols(store_id) \
             WHERE decorators IS NOT NULL;",
        )?;
    }
    if version != SCHEMA_VERSION {
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
    }
    Ok(())
}

/// Creates missing tables and migrates older catalogs.
pub(crate) fn apply(conn: &Connection) -> rusqlite::Result<()> {
    conn.execute_batch(SCHEMA)?;
    migrate(conn)
}
