//! `doctor`: whether each store's catalog, BM25 index and vector snapshot agree, and for
//! each disagreement the command that repairs it. It only reads: the catalog is opened
//! read-only and takes no lock, so it works while a server is the writer.
//!
//! The indexer runs the same BM25 and vector checks before and after each run and repairs
//! what they find from the catalog (BM25 rebuilt from the chunks' text, the snapshot from
//! the stored vectors), so the repair doctor names is a plain `lore index STORE`.

use crate::indexer::verify::{PartFacts, check_bm25, check_vectors, in_catalog, thousands};
use crate::{Engine, EngineError, WriterInfo};
use lore_core::DataDir;
use lore_index::{Catalog, IndexError, StoreRecord};
use serde::Serialize;
use std::path::Path;

/// The verdict on a data dir (or one of its stores).
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// No problem anywhere.
    pub healthy: bool,
    pub stores: Vec<StoreHealth>,
    /// Problems of the data dir as a whole (the catalog file itself).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<Problem>,
    /// The long-lived writer (a server or watcher) running while the check ran, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer: Option<WriterInfo>,
    /// What is worth knowing about the data dir as a whole but needs no repair (a buffer
    /// cache too small for the search indexes).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// One store: what each part holds, and what disagrees.
#[derive(Debug, Clone, Serialize)]
pub struct StoreHealth {
    pub store: String,
    pub healthy: bool,
    pub catalog: CatalogFacts,
    pub bm25: PartFacts,
    pub vectors: PartFacts,
    pub problems: Vec<Problem>,
    /// What is worth knowing but needs no repair (files that parsed with errors).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct CatalogFacts {
    pub files: u64,
    pub chunks: u64,
    pub embedded: u64,
    pub generation: i64,
}

/// Which part of a store a problem is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Catalog,
    Bm25,
    Vectors,
    Graph,
    /// A shared brain's copy in this server's brain dir.
    Brain,
}

impl Part {
    pub fn as_str(self) -> &'static str {
        match self {
            Part::Catalog => "catalog",
            Part::Bm25 => "BM25",
            Part::Vectors => "vectors",
            Part::Graph => "graph",
            Part::Brain => "brain",
        }
    }
}

/// Something that disagrees, and the command that repairs it.
#[derive(Debug, Clone, Serialize)]
pub struct Problem {
    pub part: Part,
    pub problem: String,
    pub repair: String,
}

fn index_repair(store: &str) -> String {
    format!("lore index {store}")
}

/// Files with parse errors named per store.
const PARSE_ERRORS_SHOWN: usize = 5;

/// Every check of one store, on one snapshot of the catalog.
/// What this data dir's read copy of a PostgreSQL store is (`None`: there is none).
fn read_copy_note(dir: &std::path::Path, generation: i64) -> Option<String> {
    let copy = lore_index::open_replica(dir, generation);
    let parts = match (copy.lexical.is_some(), copy.vectors.is_some()) {
        (true, true) => "BM25 and vectors",
        (true, false) => "BM25; vectors are read from the database until every chunk has one",
        (false, _) if dir.join(lore_index::REPLICA_DIR).is_dir() => {
            return Some(format!(
                "this data dir's read copy is behind generation {generation}: searches read \
                 the database until a server rebuilds it"
            ));
        }
        (false, _) => return None,
    };
    Some(format!(
        "this data dir's read copy is current at generation {generation} ({parts})"
    ))
}

fn check_store(
    catalog: &Catalog,
    data: &DataDir,
    store: &StoreRecord,
) -> Result<StoreHealth, IndexError> {
    catalog.snapshot(|catalog| {
        let Some(store) = catalog.store_by_id(store.id)? else {
            return Err(IndexError::StoreNotFound(store.name.clone()));
        };
        let stats = catalog.stats(store.id)?;
        let generation = store.generation;
        let dir = data.store_dir(store.id);
        let repair = index_repair(&store.name);
        let mut problems = Vec::new();
        let mut problem = |part, text: String, repair: &str| {
            problems.push(Problem {
                part,
                problem: text,
                repair: repair.to_string(),
            })
        };
        let dim = crate::record::store_dim(&store);
        let (bad_vectors, orphans) = catalog.inconsistencies(store.id, dim)?;
        let readd = format!(
            "lore store remove {name} && lore store add {name} {source}",
            name = store.name,
            source = store.source
        );
        if bad_vectors > 0 {
            problem(
                Part::Catalog,
                format!(
                    "{} stored vectors are not {dim} floats long",
                    thousands(bad_vectors),
                ),
                &readd,
            );
        }
        if orphans > 0 {
            problem(
                Part::Catalog,
                format!("{} chunks belong to no indexed file", thousands(orphans)),
                &readd,
            );
        }
        if store.indexed_at.is_none() {
            problem(
                Part::Catalog,
                "indexing never finished (the run that added the store stopped)".into(),
                &repair,
            );
        }
        let (bm25, (vectors, vector_problem)) = if catalog.holds_indexes() {
            in_catalog(catalog, store.id, generation, stats.embedded)?
        } else {
            (
                check_bm25(catalog, store.id, generation, &dir.join("fts"), false)?,
                check_vectors(catalog, store.id, generation, &dir.join("vectors.bin"))?,
            )
        };
        if let Some(p) = bm25.problem {
            problem(Part::Bm25, p, &repair);
        }
        if let Some(p) = vector_problem {
            problem(Part::Vectors, p, &repair);
        }
        if store.indexed_at.is_some()
            && let Some(resolved) = catalog.graph_resolved_generation(store.id)?
            && resolved != generation
        {
            problem(
                Part::Graph,
                format!(
                    "the code graph was resolved at generation {resolved}, the catalog is at \
                     {generation} (an index run stopped before it finished)"
                ),
                &repair,
            );
        }
        let mut notes = Vec::new();
        if catalog.holds_indexes() {
            notes.extend(read_copy_note(&dir, generation));
        }
        if stats.parse_errors > 0 {
            let shown = catalog.parse_errors(store.id, PARSE_ERRORS_SHOWN)?;
            let list: Vec<String> = shown.iter().map(|(p, e)| format!("{p} ({e})")).collect();
            notes.push(format!(
                "{} files parsed with errors, so definitions past the error may be missing \
                 from the code graph: {}{}",
                thousands(stats.parse_errors),
                list.join(", "),
                if stats.parse_errors as usize > shown.len() {
                    ", …"
                } else {
                    ""
                }
            ));
        }
        Ok(StoreHealth {
            store: store.name.clone(),
            healthy: problems.is_empty(),
            notes,
            catalog: CatalogFacts {
                files: stats.files,
                chunks: stats.chunks,
                embedded: stats.embedded,
                generation,
            },
            bm25: bm25.facts,
            vectors,
            problems,
        })
    })
}

/// Checks the named store (or every store) of an open catalog; `deep` runs SQLite's full
/// `integrity_check` on the catalog file (every index against its table).
fn check(
    catalog: &Catalog,
    data: &DataDir,
    name: Option<&str>,
    writer: Option<WriterInfo>,
    deep: bool,
) -> Result<DoctorReport, EngineError> {
    let mut problems = Vec::new();
    let complaints = catalog.check_file(deep)?;
    let listed = match name {
        Some(n) => catalog.store(n).and_then(|s| {
            s.map(|s| vec![s])
                .ok_or_else(|| IndexError::StoreNotFound(n.to_string()))
        }),
        None => catalog.stores(),
    };
    let stores = match listed {
        Ok(stores) => stores,
        Err(e) if e.damage().is_some() => {
            let mut said = complaints;
            said.extend(e.damage().filter(|d| !said.contains(d)));
            problems.push(file_problem(data, &said, None));
            return Ok(DoctorReport {
                healthy: false,
                stores: Vec::new(),
                problems,
                writer,
                notes: Vec::new(),
            });
        }
        Err(e) => return Err(e.into()),
    };
    if !complaints.is_empty() {
        problems.push(file_problem(data, &complaints, Some(&stores)));
    }
    let only_indexes = indexes_only(&complaints);
    let mut out = Vec::with_capacity(stores.len());
    for store in &stores {
        // A writer committing during the check can be caught between its BM25 and catalog
        // commits: check again while the catalog's generation moves under the check.
        let checked = (|| {
            let mut health = check_store(catalog, data, store)?;
            for _ in 0..3 {
                let now = catalog.store_by_id(store.id)?.map(|s| s.generation);
                if health.healthy || now == Some(health.catalog.generation) {
                    break;
                }
                health = check_store(catalog, data, store)?;
            }
            Ok::<_, EngineError>(health)
        })();
        out.push(match checked {
            Ok(mut health) => {
                if store.kind == lore_core::StoreKind::Brain && catalog.shares_brain() {
                    check_brain_mirror(catalog, &data.brain(), &mut health)?;
                }
                health
            }
            Err(EngineError::Index(e)) if e.damage().is_some() => {
                unreadable(store, &e, only_indexes)
            }
            Err(e) => return Err(e),
        });
    }
    Ok(DoctorReport {
        healthy: problems.is_empty() && out.iter().all(|s| s.healthy),
        stores: out,
        problems,
        writer,
        notes: catalog
            .cache_fit()?
            .and_then(cache_note)
            .into_iter()
            .collect(),
    })
}

/// The note on a PostgreSQL buffer cache too small for the indexes searches read.
fn cache_note(fit: lore_index::CacheFit) -> Option<String> {
    if fit.fits() {
        return None;
    }
    let mb = |b: u64| b.div_ceil(1 << 20);
    Some(format!(
        "PostgreSQL's shared_buffers ({} MB) is smaller than the indexes searches read \
         ({} MB: BM25 postings {} MB, HNSW {} MB), so searches read pages from the OS \
         instead; give it at least {} MB (at 137k chunks, hybrid p50 went from 34 to 24 ms \
         with them in the cache)",
        mb(fit.shared_buffers),
        mb(fit.postings + fit.hnsw),
        mb(fit.postings),
        mb(fit.hnsw),
        mb(fit.postings + fit.hnsw).next_multiple_of(256)
    ))
}

/// A shared brain: whether this server's brain dir holds every shared note and page as
/// the shared copy has it (a running server brings it in step within seconds), and which
/// conflict copies wait for a person.
fn check_brain_mirror(
    catalog: &Catalog,
    dir: &Path,
    health: &mut StoreHealth,
) -> Result<(), EngineError> {
    let shared = catalog.brain_hashes()?;
    let behind = shared
        .iter()
        .filter(|(path, hash)| {
            std::fs::read(dir.join(path))
                .map(|b| lore_index::content_hash(&b) != **hash)
                .unwrap_or(true)
        })
        .count();
    if behind > 0 {
        health.healthy = false;
        health.problems.push(Problem {
            part: Part::Brain,
            problem: format!(
                "{behind} of the {} shared notes and pages differ from, or are missing in, {} \
                 (edited here since, or not pulled yet)",
                shared.len(),
                dir.display()
            ),
            repair: "lore index brain (or wait a few seconds while a server runs)".into(),
        });
    }
    let mut conflicts = Vec::new();
    for area in [lore_brain::KNOWLEDGE, lore_brain::WIKI] {
        find_conflicts(&dir.join(area), area, 0, &mut conflicts);
    }
    for c in conflicts {
        health.notes.push(format!(
            "{c}: a hand edit that lost to another server's change of the same file; merge \
             it by hand into the file beside it, then delete it"
        ));
    }
    Ok(())
}

/// The conflict copies (`*.md.conflict-<host>`) under `dir`, relative to the brain dir.
fn find_conflicts(dir: &Path, shown: &str, depth: usize, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let path = format!("{shown}/{name}");
        match e.file_type() {
            Ok(t) if t.is_dir() && depth < 8 => find_conflicts(&e.path(), &path, depth + 1, out),
            Ok(t) if t.is_file() && name.contains(".md.conflict-") => out.push(path),
            _ => {}
        }
    }
}

/// Whether SQLite's complaints are all about indexes of the catalog file (integrity_check
/// names the index in each: "row 7 missing from index …", "wrong # of entries in index …").
fn indexes_only(complaints: &[String]) -> bool {
    !complaints.is_empty() && complaints.iter().all(|c| c.contains(" index "))
}

/// A store whose catalog rows cannot be read: its line, with the repair (the catalog's
/// indexes rebuilt first when only they are damaged).
fn unreadable(store: &StoreRecord, e: &IndexError, only_indexes: bool) -> StoreHealth {
    let repair = if only_indexes {
        "lore db reindex (the catalog's indexes are damaged, see above)".to_string()
    } else {
        format!("lore store remove {} && {}", store.name, add_command(store))
    };
    StoreHealth {
        store: store.name.clone(),
        healthy: false,
        catalog: CatalogFacts::default(),
        bm25: PartFacts::new("unknown"),
        vectors: PartFacts::new("unknown"),
        problems: vec![Problem {
            part: Part::Catalog,
            problem: format!(
                "its rows in the catalog cannot be read ({})",
                e.damage().unwrap_or_else(|| e.to_string())
            ),
            repair,
        }],
        notes: Vec::new(),
    }
}

/// The command that adds `store` again from its source.
fn add_command(store: &StoreRecord) -> String {
    let mut cmd = format!("lore store add {} {}", store.name, store.source);
    match store.kind {
        lore_core::StoreKind::Web => cmd.push_str(" --type web"),
        lore_core::StoreKind::Repo => {
            if let Some(b) = &store.branch {
                cmd.push_str(&format!(" --branch {b}"));
            }
        }
        _ => {}
    }
    cmd
}

/// SQLite's complaints about the catalog file, and what to do: rebuild its indexes when
/// only they are damaged, else restore it or start it again (naming each store to add).
fn file_problem(data: &DataDir, complaints: &[String], stores: Option<&[StoreRecord]>) -> Problem {
    let db = data.db().display().to_string();
    let repair = if indexes_only(complaints) {
        "only the catalog's own indexes are damaged, not its rows: rebuild them with `lore db \
         reindex`, then run `lore doctor --deep` again"
            .to_string()
    } else {
        let adds: Vec<String> = stores
            .unwrap_or_default()
            .iter()
            .filter(|s| s.kind != lore_core::StoreKind::Brain)
            .map(add_command)
            .collect();
        let again = if adds.is_empty() {
            "add the stores again".to_string()
        } else {
            format!("add the stores again: {}", adds.join("; "))
        };
        format!(
            "restore {db} from a backup; or move it away (`mv {db} {db}.damaged`) and {again}. \
             The brain's notes are files in {} and are safe: they are indexed again by \
             themselves",
            data.brain().display()
        )
    };
    Problem {
        part: Part::Catalog,
        problem: format!(
            "SQLite finds the catalog file damaged: {}",
            complaints.join("; ")
        ),
        repair,
    }
}

/// Checks a data dir without opening it for writing: nothing is created, migrated or
/// locked. A data dir without a catalog has no stores (and a named store is not found).
/// `deep` also compares every index of the catalog file with its table (slower).
pub fn doctor(
    data: &DataDir,
    store: Option<&str>,
    deep: bool,
) -> Result<DoctorReport, EngineError> {
    let writer = crate::indexer::writer::running_writer(data);
    let catalog = match data.database() {
        Some(url) => Catalog::connect_read_only(url, &lore_index::PgOptions::default())?,
        None => Catalog::open_read_only(&data.db())?,
    };
    let Some(catalog) = catalog else {
        if let Some(n) = store {
            return Err(IndexError::StoreNotFound(n.to_string()).into());
        }
        return Ok(DoctorReport {
            healthy: true,
            stores: Vec::new(),
            problems: Vec::new(),
            writer,
            notes: Vec::new(),
        });
    };
    check(&catalog, data, store, writer, deep)
}

impl Engine {
    /// `doctor` on this engine's data dir (servers: through their own catalog connection).
    pub fn doctor(&self, store: Option<&str>) -> Result<DoctorReport, EngineError> {
        check(
            &self.catalog,
            &self.data,
            store,
            self.running_writer(),
            false,
        )
    }

    /// Rebuilds the catalog file's own indexes (`lore db reindex`), the repair `doctor
    /// --deep` names when only they are damaged.
    pub fn reindex_catalog(&self) -> Result<(), EngineError> {
        let _lock = self.lock()?;
        Ok(self.catalog.reindex()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_cache_smaller_than_the_search_indexes_is_noted_with_a_size() {
        let mb = 1u64 << 20;
        let fit = |shared: u64| lore_index::CacheFit {
            shared_buffers: shared * mb,
            postings: 409 * mb,
            hnsw: 263 * mb,
        };
        let note = cache_note(fit(128)).expect("128 MB holds neither index");
        assert!(
            note.contains("(128 MB)")
                && note.contains("672 MB")
                && note.contains("at least 768 MB"),
            "{note}"
        );
        assert_eq!(cache_note(fit(1024)), None);
    }
}
