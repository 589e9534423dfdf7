//! `lore db`: which database holds the catalog, and its schema (see lore-index's `schema`).

use crate::EngineError;
use lore_core::DataDir;
use lore_index::{Catalog, PgOptions, Sql};
use serde::Serialize;

/// Where the catalog lives and how its schema stands.
#[derive(Debug, Clone, Serialize)]
pub struct DbStatus {
    /// `sqlite` (the embedded default) or `postgres`.
    pub backend: &'static str,
    /// The SQLite file, or the server without its password.
    pub database: String,
    /// The schema version applied (0: nothing written yet).
    pub version: i64,
    /// The newest this lore knows.
    pub latest: i64,
    /// The lore that applied the newest migration (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
    /// pgvector's version in the database (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pgvector: Option<String>,
    /// Versions this call applied (`lore db migrate`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub applied: Vec<i64>,
}

fn postgres(url: &str) -> Result<Sql, EngineError> {
    Ok(Sql::postgres(url, &PgOptions::default())?)
}

fn from_pg(s: lore_index::SchemaStatus, applied: Vec<i64>) -> DbStatus {
    DbStatus {
        backend: "postgres",
        database: s.database,
        version: s.version,
        latest: s.latest,
        written_by: s.written_by,
        pgvector: s.pgvector,
        applied,
    }
}

/// The catalog's schema, read without writing anything (nor creating the data dir).
pub fn db_status(data: &DataDir) -> Result<DbStatus, EngineError> {
    if let Some(url) = data.database() {
        return Ok(from_pg(
            lore_index::postgres_status(&postgres(url)?)?,
            Vec::new(),
        ));
    }
    let path = data.db();
    let (version, latest) = Catalog::sqlite_version(&path)?;
    Ok(DbStatus {
        backend: "sqlite",
        database: path.display().to_string(),
        version: version.unwrap_or(0),
        latest,
        written_by: None,
        pgvector: None,
        applied: Vec::new(),
    })
}

/// Brings the catalog's schema up to date (a SQLite catalog is created if missing).
pub fn db_migrate(data: &DataDir) -> Result<DbStatus, EngineError> {
    if let Some(url) = data.database() {
        let db = postgres(url)?;
        let applied = lore_index::migrate_postgres(&db)?;
        return Ok(from_pg(lore_index::postgres_status(&db)?, applied));
    }
    let (before, _) = Catalog::sqlite_version(&data.db())?;
    std::fs::create_dir_all(data.root())
        .map_err(|e| EngineError::io(data.root().display().to_string(), e))?;
    Catalog::open(&data.db())?;
    let mut status = db_status(data)?;
    if before != Some(status.version) {
        status.applied = vec![status.version];
    }
    Ok(status)
}
