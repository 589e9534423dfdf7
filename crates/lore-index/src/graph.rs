//! The code graph in the catalog: symbols, imports and references per file, and the
//! resolved target of each reference. A file's facts are replaced with its chunks;
//! resolution is written afterwards by the engine.

use crate::IndexError;
use crate::catalog::Catalog;
use crate::sql::{Arg, Row, SqlError, args};
use lore_core::{Binding, ChunkKind, Import, ImportedName, Receiver, RefKind, Reference};
use serde::Serialize;

/// A symbol as stored, with its id and file.
#[derive(Debug, Clone, Serialize)]
pub struct SymbolRow {
    pub id: i64,
    pub store_id: i64,
    pub path: String,
    pub name: String,
    pub qualified: String,
    pub kind: ChunkKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    pub exported: bool,
    pub is_async: bool,
    pub is_test: bool,
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip)]
    pub start_byte: usize,
    #[serde(skip)]
    pub end_byte: usize,
    #[serde(skip)]
    pub returns: Option<Receiver>,
    /// Parameters without a declared type (Python).
    #[serde(skip)]
    pub params: Vec<String>,
    /// Decorators without their arguments (Python).
    #[serde(skip)]
    pub decorators: Vec<String>,
}

/// Which of a store's symbols `Catalog::for_each_symbol_by` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SymbolsBy {
    Name,
    Qualified,
    File,
    /// Those with decorators (no values).
    Decorated,
}

const SYMBOL_COLUMNS: &str = "id, store_id, path, name, qualified, kind, container, signature, doc, \
     exported, is_async, is_test, start_line, end_line, start_byte, end_byte, returns, params, \
     decorators";

/// A JSON list of names (`NULL` or unreadable: none).
fn names_from(json: Option<String>) -> Vec<String> {
    json.and_then(|j| serde_json::from_str(&j).ok())
        .unwrap_or_default()
}

/// A list of names as JSON, `NULL` when empty.
pub(crate) fn names_json(names: &[String]) -> Option<String> {
    if names.is_empty() {
        None
    } else {
        serde_json::to_string(names).ok()
    }
}

fn symbol_from_row(r: &mut Row, at: usize) -> Result<SymbolRow, SqlError> {
    Ok(SymbolRow {
        id: r.int(at)?,
        store_id: r.int(at + 1)?,
        path: r.text(at + 2)?,
        name: r.text(at + 3)?,
        qualified: r.text(at + 4)?,
        kind: ChunkKind::parse(&r.text(at + 5)?).unwrap_or(ChunkKind::Function),
        container: r.opt_text(at + 6)?,
        signature: r.opt_text(at + 7)?,
        doc: r.opt_text(at + 8)?,
        exported: r.bool(at + 9)?,
        is_async: r.bool(at + 10)?,
        is_test: r.bool(at + 11)?,
        start_line: r.int(at + 12)? as u32,
        end_line: r.int(at + 13)? as u32,
        start_byte: r.int(at + 14)? as usize,
        end_byte: r.int(at + 15)? as usize,
        returns: r
            .opt_text(at + 16)?
            .and_then(|j| serde_json::from_str(&j).ok()),
        params: names_from(r.opt_text(at + 17)?),
        decorators: names_from(r.opt_text(at + 18)?),
    })
}

/// A stored reference and where it was made.
#[derive(Debug, Clone)]
pub struct RefRow {
    pub id: i64,
    pub path: String,
    pub reference: Reference,
    pub target: Option<i64>,
    pub confidence: Option<f32>,
}

const REF_COLUMNS: &str = "refs.id, refs.path, refs.kind, refs.caller, refs.name, refs.receiver, \
     refs.line, refs.target, refs.confidence";

fn ref_from_row(r: &mut Row) -> Result<RefRow, SqlError> {
    Ok(RefRow {
        id: r.int(0)?,
        path: r.text(1)?,
        reference: Reference {
            kind: RefKind::parse(&r.text(2)?).unwrap_or(RefKind::Calls),
            caller: r.opt_text(3)?,
            name: r.text(4)?,
            receiver: serde_json::from_str(&r.text(5)?).unwrap_or(Receiver::Unknown),
            line: r.int(6)? as u32,
        },
        target: r.opt_int(7)?,
        confidence: r.opt_real(8)?.map(|c| c as f32),
    })
}

/// One resolved use: the reference, the symbol that makes it (if any) and the target.
#[derive(Debug, Clone)]
pub struct Edge {
    pub reference: RefRow,
    /// The enclosing symbol of the reference (`None` at module level).
    pub from: Option<SymbolRow>,
    pub to: Option<SymbolRow>,
}

/// What one reference resolved to; `target` is `None` when it stays unresolved.
#[derive(Debug, Clone)]
pub struct RefTarget {
    pub ref_id: i64,
    pub target: Option<i64>,
    pub confidence: Option<f32>,
    /// How it was resolved (`local`, `import`, `typed`, …).
    pub how: Option<String>,
}

/// A resolved reference of a store, with its target symbol.
#[derive(Debug, Clone)]
pub struct ResolvedRef {
    pub path: String,
    pub caller: Option<String>,
    pub target: SymbolRow,
    pub confidence: f32,
}

/// An import as stored, with the files it was resolved to.
#[derive(Debug, Clone)]
pub struct ImportRow {
    pub id: i64,
    pub path: String,
    pub import: Import,
    pub targets: Vec<String>,
}

impl Catalog {
    /// The chunker version that analysed the store's files (`None`: before versions).
    pub fn analyzer_version(&self, store_id: i64) -> Result<Option<i64>, IndexError> {
        self.db.query_opt(
            "SELECT version FROM analyzer_state WHERE store_id = ?1",
            args![store_id],
            |r| r.int(0),
        )
    }

    /// The catalog generation the store's graph was last resolved at.
    pub fn graph_resolved_generation(&self, store_id: i64) -> Result<Option<i64>, IndexError> {
        self.db.query_opt(
            "SELECT resolved_generation FROM graph_state WHERE store_id = ?1",
            args![store_id],
            |r| r.int(0),
        )
    }

    /// Every symbol of a store, in file order (overloads before their implementation).
    pub fn symbols(&self, store_id: i64) -> Result<Vec<SymbolRow>, IndexError> {
        self.db.query(
            &format!(
                "SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 ORDER BY path, start_byte"
            ),
            args![store_id],
            |r| symbol_from_row(r, 0),
        )
    }

    /// Every symbol of a store in file order, without its doc comment, handed to `f` one
    /// at a time (what resolving the graph reads: millions in a kernel-sized store).
    pub fn for_each_symbol(
        &self,
        store_id: i64,
        mut f: impl FnMut(SymbolRow) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let columns = SYMBOL_COLUMNS.replace(" doc,", " NULL,");
        self.db.for_each(
            &format!("SELECT {columns} FROM symbols WHERE store_id = ?1 ORDER BY path, start_byte"),
            args![store_id],
            |mut row| f(symbol_from_row(&mut row, 0).map_err(self.db.err())?),
        )
    }

    /// `for_each_symbol` for the symbols of a store one of `values` keys (by name,
    /// qualified name or file; 500 a query), or that have decorators. No order.
    pub fn for_each_symbol_by(
        &self,
        store_id: i64,
        by: SymbolsBy,
        values: &[&str],
        mut f: impl FnMut(SymbolRow) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let columns = SYMBOL_COLUMNS.replace(" doc,", " NULL,");
        let column = match by {
            SymbolsBy::Name => "name",
            SymbolsBy::Qualified => "qualified",
            SymbolsBy::File => "path",
            SymbolsBy::Decorated => {
                return self.db.for_each(
                    &format!(
                        "SELECT {columns} FROM symbols WHERE store_id = ?1 AND decorators IS NOT NULL"
                    ),
                    args![store_id],
                    |mut row| f(symbol_from_row(&mut row, 0).map_err(self.db.err())?),
                );
            }
        };
        for part in values.chunks(500) {
            let sql = format!(
                "SELECT {columns} FROM symbols WHERE store_id = ?1 AND {column} IN ({})",
                crate::sql::placeholders(part.len(), 2)
            );
            let mut args: Vec<Arg> = vec![store_id.into()];
            args.extend(part.iter().map(|&v| Arg::from(v)));
            self.db.for_each(&sql, &args, |mut row| {
                f(symbol_from_row(&mut row, 0).map_err(self.db.err())?)
            })?;
        }
        Ok(())
    }

    /// Every container name of a store's symbols (types with members), from an index.
    pub fn symbol_containers(&self, store_id: i64) -> Result<Vec<String>, IndexError> {
        self.db.query(
            "SELECT DISTINCT container FROM symbols WHERE store_id = ?1 AND container IS NOT NULL",
            args![store_id],
            |r| r.text(0),
        )
    }

    /// Symbols of the given stores whose name or qualified name is `name`.
    pub fn symbols_named(
        &self,
        store_ids: &[i64],
        name: &str,
    ) -> Result<Vec<SymbolRow>, IndexError> {
        let mut out = Vec::new();
        for &s in store_ids {
            out.extend(self.db.query(
                // Two index seeks: with `name = ?2 OR qualified = ?2` SQLite scans the
                // store's symbols (0.7 s on the kernel's 3M, several times per answer).
                &format!(
                    "SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 AND name = ?2 \
                     UNION SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 AND qualified = ?2 \
                     ORDER BY path, start_line"
                ),
                args![s, name],
                |r| symbol_from_row(r, 0),
            )?);
        }
        Ok(out)
    }

    /// Functions and methods of a store nothing references: no reference resolved to
    /// them and no unresolved reference of their name (calls, uses, heritage alike), in
    /// file order. What is an entry point nonetheless is the caller's to judge.
    pub fn unreferenced_functions(&self, store_id: i64) -> Result<Vec<SymbolRow>, IndexError> {
        let cols = SYMBOL_COLUMNS
            .split(", ")
            .map(|c| format!("s.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        self.db.query(
            &format!(
                "SELECT {cols} FROM symbols s WHERE s.store_id = ?1 \
                 AND s.kind IN ('function', 'method') \
                 AND NOT EXISTS (SELECT 1 FROM refs r WHERE r.target = s.id) \
                 AND NOT EXISTS (SELECT 1 FROM refs r WHERE r.store_id = s.store_id \
                     AND r.name = s.name AND r.target IS NULL) \
                 ORDER BY s.path, s.start_byte"
            ),
            args![store_id],
            |r| symbol_from_row(r, 0),
        )
    }

    /// How many definitions each file of a store holds.
    pub fn symbol_counts(
        &self,
        store_id: i64,
    ) -> Result<std::collections::HashMap<String, usize>, IndexError> {
        Ok(self
            .db
            .query(
                "SELECT path, COUNT(*) FROM symbols WHERE store_id = ?1 GROUP BY path",
                args![store_id],
                |r| Ok((r.text(0)?, r.int(1)? as usize)),
            )?
            .into_iter()
            .collect())
    }

    /// Functions named `main` and definitions with decorators, in file order.
    pub fn entry_symbols(&self, store_id: i64) -> Result<Vec<SymbolRow>, IndexError> {
        self.db.query(
            &format!(
                "SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 \
                 AND ((name = 'main' AND kind = 'function') OR decorators IS NOT NULL) \
                 ORDER BY path, start_byte"
            ),
            args![store_id],
            |r| symbol_from_row(r, 0),
        )
    }

    /// Symbols of one file, in file order.
    pub fn file_symbols(&self, store_id: i64, path: &str) -> Result<Vec<SymbolRow>, IndexError> {
        self.db.query(
            &format!(
                "SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 AND path = ?2 ORDER BY start_byte"
            ),
            args![store_id, path],
            |r| symbol_from_row(r, 0),
        )
    }

    /// The symbols of a chunk of `path` (bytes `start..end`): those starting inside it, and
    /// those named `name` that end after its start (the unit it is part of: overlapping it,
    /// or after it when the chunk is a window of the unit's long doc comment), in file
    /// order. Reads only those rows, however many symbols the file has.
    pub fn chunk_symbols(
        &self,
        store_id: i64,
        path: &str,
        name: &str,
        (start, end): (usize, usize),
    ) -> Result<Vec<SymbolRow>, IndexError> {
        let (start, end) = (start as i64, end as i64);
        self.db.query(
            &format!(
                "SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 AND path = ?2 \
                 AND start_byte >= ?3 AND start_byte < ?4 \
                 UNION SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 AND name = ?5 \
                 AND path = ?2 AND end_byte > ?3 ORDER BY start_byte"
            ),
            args![store_id, path, start, end, name],
            |r| symbol_from_row(r, 0),
        )
    }

    /// `chunk_symbols` of many chunks at once (a search's results): one query per store
    /// for the symbols of the chunks' files, then each chunk's picked out as
    /// `chunk_symbols` picks them. By chunk id; chunks without a symbol are left out.
    pub fn chunks_symbols(
        &self,
        chunks: &[&crate::StoredChunk],
    ) -> Result<std::collections::HashMap<i64, Vec<SymbolRow>>, IndexError> {
        let mut by_store: std::collections::BTreeMap<i64, Vec<&str>> = Default::default();
        for sc in chunks.iter().filter(|sc| sc.chunk.symbol.is_some()) {
            let paths = by_store.entry(sc.store_id).or_default();
            if !paths.contains(&sc.path.as_str()) {
                paths.push(&sc.path);
            }
        }
        let mut rows: Vec<SymbolRow> = Vec::new();
        for (store_id, paths) in by_store {
            for part in paths.chunks(500) {
                let sql = format!(
                    "SELECT {SYMBOL_COLUMNS} FROM symbols WHERE store_id = ?1 AND path IN ({}) \
                     ORDER BY start_byte",
                    crate::sql::placeholders(part.len(), 2)
                );
                let mut a: Vec<Arg> = vec![store_id.into()];
                a.extend(part.iter().map(|&p| Arg::from(p)));
                rows.extend(self.db.query(&sql, &a, |r| symbol_from_row(r, 0))?);
            }
        }
        let mut out = std::collections::HashMap::new();
        for sc in chunks {
            let Some(name) = sc.chunk.symbol.as_deref() else {
                continue;
            };
            let (start, end) = (sc.chunk.start_byte, sc.chunk.end_byte);
            let mut picked: Vec<SymbolRow> = rows
                .iter()
                .filter(|s| {
                    s.store_id == sc.store_id
                        && s.path == sc.path
                        && ((s.start_byte >= start && s.start_byte < end)
                            || (s.name == name && s.end_byte > start))
                })
                .cloned()
                .collect();
            picked.sort_by_key(|s| (s.start_byte, s.id));
            picked.dedup_by_key(|s| s.id);
            out.insert(sc.id, picked);
        }
        Ok(out)
    }

    pub fn symbol(&self, id: i64) -> Result<Option<SymbolRow>, IndexError> {
        self.db.query_opt(
            &format!("SELECT {SYMBOL_COLUMNS} FROM symbols WHERE id = ?1"),
            args![id],
            |r| symbol_from_row(r, 0),
        )
    }

    /// Every import of a store.
    pub fn imports(&self, store_id: i64) -> Result<Vec<ImportRow>, IndexError> {
        self.db.query(
            "SELECT id, path, module, names, alias, wildcard, type_only, line, targets FROM imports WHERE store_id = ?1",
            args![store_id],
            import_from_row,
        )
    }

    pub fn file_imports(&self, store_id: i64, path: &str) -> Result<Vec<ImportRow>, IndexError> {
        self.db.query(
            "SELECT id, path, module, names, alias, wildcard, type_only, line, targets FROM imports \
             WHERE store_id = ?1 AND path = ?2 ORDER BY line",
            args![store_id, path],
            import_from_row,
        )
    }

    /// Every binding (field or module-level name) of a store, with its file.
    pub fn bindings(&self, store_id: i64) -> Result<Vec<(String, Binding)>, IndexError> {
        let rows = self.db.query(
            "SELECT path, owner, name, value FROM bindings WHERE store_id = ?1",
            args![store_id],
            |r| Ok((r.text(0)?, r.opt_text(1)?, r.text(2)?, r.text(3)?)),
        )?;
        Ok(rows
            .into_iter()
            .filter_map(|(path, owner, name, value)| {
                let value = serde_json::from_str(&value).ok()?;
                Some((path, Binding { owner, name, value }))
            })
            .collect())
    }

    /// (file, type, base) names of every extends/implements reference of a store.
    pub fn heritage(&self, store_id: i64) -> Result<Vec<(String, String, String)>, IndexError> {
        self.db.query(
            "SELECT path, caller, name FROM refs WHERE store_id = ?1 AND kind IN ('extends', 'implements') AND caller IS NOT NULL",
            args![store_id],
            |r| {
                let caller = r.text(1)?;
                let ty = caller
                    .rsplit(['.', ':'])
                    .next()
                    .unwrap_or(&caller)
                    .to_string();
                Ok((r.text(0)?, ty, r.text(2)?))
            },
        )
    }

    /// At most `limit` references of a store in file order, after `after` (the path and id
    /// of the last one read): a page of them all, for a store too large to hold at once.
    /// Keyed by (path, id), which the store's by-file index gives in order (by id alone,
    /// SQLite sorted every reference of the store for each page).
    pub fn refs_after(
        &self,
        store_id: i64,
        after: Option<(&str, i64)>,
        limit: usize,
    ) -> Result<Vec<RefRow>, IndexError> {
        let limit = limit as i64;
        match after {
            None => self.db.query(
                &format!(
                    "SELECT {REF_COLUMNS} FROM refs WHERE store_id = ?1 \
                     ORDER BY path, id LIMIT ?2"
                ),
                args![store_id, limit],
                ref_from_row,
            ),
            Some((path, id)) => self.db.query(
                &format!(
                    "SELECT {REF_COLUMNS} FROM refs WHERE store_id = ?1 \
                     AND (path, id) > (?2, ?3) ORDER BY path, id LIMIT ?4"
                ),
                args![store_id, path, id, limit],
                ref_from_row,
            ),
        }
    }

    /// References to resolve again: those made in `paths`, and those naming `names`.
    pub fn refs_to_resolve(
        &self,
        store_id: i64,
        paths: &[String],
        names: &[String],
    ) -> Result<Vec<RefRow>, IndexError> {
        let mut out = Vec::new();
        for (col, values) in [("path", paths), ("name", names)] {
            for part in values.chunks(500) {
                let sql = format!(
                    "SELECT {REF_COLUMNS} FROM refs WHERE store_id = ?1 AND {col} IN ({})",
                    crate::sql::placeholders(part.len(), 2)
                );
                let args: Vec<Arg> = std::iter::once(Arg::from(store_id))
                    .chain(part.iter().map(Arg::from))
                    .collect();
                out.extend(self.db.query(&sql, &args, ref_from_row)?);
            }
        }
        out.sort_by_key(|r| r.id);
        out.dedup_by_key(|r| r.id);
        Ok(out)
    }

    fn edges(&self, sql_where: &str, args: &[Arg<'_>]) -> Result<Vec<Edge>, IndexError> {
        let from_cols = SYMBOL_COLUMNS
            .split(", ")
            .map(|c| format!("f.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let to_cols = SYMBOL_COLUMNS
            .split(", ")
            .map(|c| format!("t.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        let sql = format!(
            "SELECT {REF_COLUMNS}, {from_cols}, {to_cols} FROM refs \
             LEFT JOIN symbols f ON f.store_id = refs.store_id AND f.path = refs.path AND f.qualified = refs.caller \
             LEFT JOIN symbols t ON t.id = refs.target \
             WHERE {sql_where}"
        );
        let n = REF_COLUMNS.split(", ").count();
        let m = SYMBOL_COLUMNS.split(", ").count();
        // Sorted here: asked to sort, SQLite walked a store's references in file order
        // (5.7M on the kernel) rather than seek the few of one name.
        let mut edges = self.db.query(&sql, args, |r| {
            let from = match r.opt_int(n)? {
                Some(_) => Some(symbol_from_row(r, n)?),
                None => None,
            };
            let to = match r.opt_int(n + m)? {
                Some(_) => Some(symbol_from_row(r, n + m)?),
                None => None,
            };
            Ok(Edge {
                reference: ref_from_row(r)?,
                from,
                to,
            })
        })?;
        edges.sort_by(|a, b| {
            (&a.reference.path, a.reference.reference.line)
                .cmp(&(&b.reference.path, b.reference.reference.line))
        });
        Ok(edges)
    }

    /// References resolved to a symbol: its callers (and subclasses, implementors).
    pub fn edges_to(&self, symbol_id: i64) -> Result<Vec<Edge>, IndexError> {
        self.edges("refs.target = ?1", args![symbol_id])
    }

    /// Calls of `name` in a store that resolved to nothing: the name-only candidates
    /// for a symbol of that name.
    pub fn unresolved_calls_named(
        &self,
        store_id: i64,
        name: &str,
    ) -> Result<Vec<Edge>, IndexError> {
        self.edges(
            "refs.store_id = ?1 AND refs.name = ?2 AND refs.kind = 'calls' AND refs.target IS NULL",
            args![store_id, name],
        )
    }

    /// References made inside a symbol (resolved or not).
    pub fn edges_from(&self, symbol: &SymbolRow) -> Result<Vec<Edge>, IndexError> {
        self.edges(
            "refs.store_id = ?1 AND refs.path = ?2 AND (refs.caller = ?3 OR refs.caller LIKE ?4 ESCAPE '\\')",
            args![
                symbol.store_id,
                &symbol.path,
                &symbol.qualified,
                format!("{}%", like_escape(&symbol.qualified)),
            ],
        )
        .map(|edges| {
            // Nested definitions count as the symbol's own code; `LIKE` also matched
            // siblings that merely share the prefix.
            edges
                .into_iter()
                .filter(|e| {
                    e.reference.reference.caller.as_deref().is_some_and(|c| {
                        c == symbol.qualified
                            || c.strip_prefix(&symbol.qualified)
                                .is_some_and(|rest| rest.starts_with('.') || rest.starts_with("::"))
                    })
                })
                .collect()
        })
    }

    /// Every resolved reference of a kind in a store: (path, caller, target symbol,
    /// confidence).
    pub fn resolved_refs(
        &self,
        store_id: i64,
        kind: RefKind,
    ) -> Result<Vec<ResolvedRef>, IndexError> {
        let cols = SYMBOL_COLUMNS
            .split(", ")
            .map(|c| format!("t.{c}"))
            .collect::<Vec<_>>()
            .join(", ");
        self.db.query(
            &format!(
                "SELECT refs.path, refs.caller, refs.confidence, {cols} FROM refs \
                 JOIN symbols t ON t.id = refs.target WHERE refs.store_id = ?1 AND refs.kind = ?2"
            ),
            args![store_id, kind.as_str()],
            |r| {
                Ok(ResolvedRef {
                    path: r.text(0)?,
                    caller: r.opt_text(1)?,
                    confidence: r.opt_real(2)?.unwrap_or(0.0) as f32,
                    target: symbol_from_row(r, 3)?,
                })
            },
        )
    }

    /// Where a name is referenced (called, extended, implemented) in a store: (path, line).
    pub fn reference_sites(
        &self,
        store_id: i64,
        name: &str,
        limit: usize,
    ) -> Result<Vec<(String, u32)>, IndexError> {
        self.db.query(
            "SELECT path, line FROM refs WHERE store_id = ?1 AND name = ?2 ORDER BY path, line LIMIT ?3",
            args![store_id, name, limit],
            |r| Ok((r.text(0)?, r.int(1)? as u32)),
        )
    }

    /// Counts of symbols, references and resolved references of a store.
    /// Whether a store holds more than `limit` references (counted no further: a count of
    /// all of a kernel's took a second).
    pub fn refs_exceed(&self, store_id: i64, limit: u64) -> Result<bool, IndexError> {
        let n = self.db.query_int(
            "SELECT COUNT(*) FROM (SELECT 1 FROM refs WHERE store_id = ?1 LIMIT ?2)",
            args![store_id, limit as i64 + 1],
        )?;
        Ok(n as u64 > limit)
    }

    pub fn graph_stats(&self, store_id: i64) -> Result<(u64, u64, u64), IndexError> {
        self.db
            .query_opt(
                "SELECT (SELECT COUNT(*) FROM symbols WHERE store_id = ?1), \
                        (SELECT COUNT(*) FROM refs WHERE store_id = ?1), \
                        (SELECT COUNT(*) FROM refs WHERE store_id = ?1 AND target IS NOT NULL)",
                args![store_id],
                |r| Ok((r.int(0)? as u64, r.int(1)? as u64, r.int(2)? as u64)),
            )
            .map(Option::unwrap_or_default)
    }
}

fn like_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_")
}

fn import_from_row(r: &mut Row) -> Result<ImportRow, SqlError> {
    let names = r.text(3)?;
    let targets = r.opt_text(8)?;
    Ok(ImportRow {
        id: r.int(0)?,
        path: r.text(1)?,
        import: Import {
            module: r.text(2)?,
            names: serde_json::from_str::<Vec<ImportedName>>(&names).unwrap_or_default(),
            alias: r.opt_text(4)?,
            wildcard: r.bool(5)?,
            type_only: r.bool(6)?,
            line: r.int(7)? as u32,
        },
        targets: targets
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
    })
}
