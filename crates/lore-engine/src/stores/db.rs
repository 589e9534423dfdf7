//! `lore db`: which database holds the catalog, and its schema (see lore-index's `schema`).

use crate::EngineError;
use lore_core::DataDir;
use lore_index::{Catalog, PgOptions, SchemaStatus, Sql};
use serde::Serialize;

/// Where the catalog lives and how its schema stands.
#[derive(Debug, Clone, Serialize)]
pub struct DbStatus {
    /// `sqlite` (the embedded default) or `postgres`.
    pub backend: &'static str,
    /// The database (the SQLite file, or the server without its password), the applied
    /// and newest versions, and for PostgreSQL who wrote it and pgvector's version.
    #[serde(flatten)]
    pub schema: SchemaStatus,
    /// Versions this call applied (`lore db migrate`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub applied: Vec<i64>,
}

/// Whether the catalog's database answers now (`/health`).
#[derive(Debug, Clone, Serialize)]
pub struct DatabaseHealth {
    /// `sqlite` (the embedded default) or `postgres`.
    pub backend: &'static str,
    pub reachable: bool,
    /// Why it does not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl crate::Engine {
    /// Asks the catalog's database one trivial question; a lost PostgreSQL session is
    /// connected again first (see lore-index's `Sql`).
    pub fn database_health(&self) -> DatabaseHealth {
        let backend = match self.catalog.dialect() {
            lore_index::Dialect::Sqlite => "sqlite",
            lore_index::Dialect::Postgres => "postgres",
        };
        let answer = self.catalog.sql().query_int("SELECT 1", &[]);
        DatabaseHealth {
            backend,
            reachable: answer.is_ok(),
            error: answer.err().map(|e| e.to_string()),
        }
    }
}

fn postgres(url: &str) -> Result<Sql, EngineError> {
    Ok(Sql::postgres(url, &PgOptions::default())?)
}

fn from_pg(schema: SchemaStatus, applied: Vec<i64>) -> DbStatus {
    DbStatus {
        backend: "postgres",
        schema,
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
        schema: SchemaStatus {
            database: path.display().to_string(),
            version: version.unwrap_or(0),
            latest,
            written_by: None,
            pgvector: None,
        },
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
    if before != Some(status.schema.version) {
        status.applied = vec![status.schema.version];
    }
    Ok(status)
}

/// One store moved by `db import` or `db export`.
#[derive(Debug, Clone, Serialize)]
pub struct StoreCopied {
    pub store: String,
    #[serde(flatten)]
    pub copied: lore_index::CopyReport,
}

impl crate::Engine {
    /// Copies every store of the embedded catalog in `source` (default: this data dir's)
    /// into this engine's PostgreSQL catalog, vectors included: nothing is re-read or
    /// embedded. Stores the database already has are refused before anything is copied.
    pub fn db_import(
        &mut self,
        source: &DataDir,
        progress: &dyn crate::Progress,
    ) -> Result<Vec<StoreCopied>, EngineError> {
        if !self.catalog.holds_indexes() {
            return Err(EngineError::Input(
                "`lore db import` copies into PostgreSQL: give --database or LORE_DATABASE_URL"
                    .into(),
            ));
        }
        let from = Catalog::open_read_only(&source.db())?.ok_or_else(|| {
            EngineError::NotFound(format!("no lore catalog at {}", source.db().display()))
        })?;
        let _lock = self.lock()?;
        self.copy_in(&from, progress)
    }

    /// Copies every store of this engine's PostgreSQL catalog into the embedded catalog of
    /// `target`, vectors included, then builds its BM25 indexes and vector snapshots there
    /// from the copied chunks (nothing embedded).
    pub fn db_export(
        &self,
        target: &DataDir,
        progress: &dyn crate::Progress,
    ) -> Result<Vec<StoreCopied>, EngineError> {
        if !self.catalog.holds_indexes() {
            return Err(EngineError::Input(
                "`lore db export` copies out of PostgreSQL: give --database or LORE_DATABASE_URL"
                    .into(),
            ));
        }
        let plain = DataDir::new(target.root());
        let mut to = crate::Engine::open_with(plain, self.config.clone())?;
        let _lock = to.lock()?;
        let copied = to.copy_in(&self.catalog, progress)?;
        let names: Vec<String> = copied.iter().map(|c| c.store.clone()).collect();
        drop(_lock);
        to.index(&names, false, progress)?;
        Ok(copied)
    }

    fn copy_in(
        &mut self,
        from: &Catalog,
        progress: &dyn crate::Progress,
    ) -> Result<Vec<StoreCopied>, EngineError> {
        let stores = from.stores()?;
        for s in &stores {
            if self.catalog.store(&s.name)?.is_some() {
                return Err(lore_index::IndexError::StoreExists(s.name.clone()).into());
            }
        }
        let mut out = Vec::new();
        for s in &stores {
            progress.message(&format!("copying {}", s.name));
            let copied = lore_index::copy_store(from, &mut self.catalog, s, |_, _| {})?;
            if self
                .catalog
                .ensure_vector_index(s.id, lore_index::HNSW_MIN_VECTORS)?
            {
                progress.message(&format!("{}: built its HNSW vector index", s.name));
            }
            out.push(StoreCopied {
                store: s.name.clone(),
                copied,
            });
        }
        Ok(out)
    }
}
