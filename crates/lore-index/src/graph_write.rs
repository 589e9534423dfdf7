//! Writing the code graph: a file's facts replaced (its symbols keeping their ids when
//! they are still there) or removed, and what the engine's resolution found.

use crate::IndexError;
use crate::catalog::CatalogTx;
use crate::graph::{RefTarget, names_json};
use crate::sql::{Arg, args};
use lore_core::{FileFacts, RefKind};

/// The columns of a stored symbol the resolver reads (`lore_graph::SymbolEntry`), as
/// stored: container, signature, returns, params, decorators in `rest`.
#[derive(Debug)]
struct Resolvable {
    name: String,
    qualified: String,
    kind: String,
    rest: [Option<String>; 5],
}

impl CatalogTx<'_> {
    /// Replaces the code facts of a file. A symbol that is still there (the same qualified
    /// name and kind) keeps its id, so references elsewhere that reached it stay resolved.
    /// Returns the names whose references elsewhere must be resolved again: those of
    /// symbols added, removed or changed in what the resolver reads — or every name the
    /// file defined or defines when its bases or bindings changed.
    pub fn replace_facts(
        &self,
        store_id: i64,
        path: &str,
        facts: &FileFacts,
    ) -> Result<Vec<String>, IndexError> {
        let db = self.db;
        let old: Vec<(i64, Resolvable)> = db.query(
            "SELECT id, name, qualified, kind, container, signature, returns, params, decorators \
             FROM symbols INDEXED BY symbols_by_file WHERE store_id = ?1 AND path = ?2",
            args![store_id, path],
            |r| {
                Ok((
                    r.int(0)?,
                    Resolvable {
                        name: r.text(1)?,
                        qualified: r.text(2)?,
                        kind: r.text(3)?,
                        rest: [
                            r.opt_text(4)?,
                            r.opt_text(5)?,
                            r.opt_text(6)?,
                            r.opt_text(7)?,
                            r.opt_text(8)?,
                        ],
                    },
                ))
            },
        )?;
        let old_shape = self.shape(store_id, path)?;
        for sql in [
            "DELETE FROM refs WHERE store_id = ?1 AND path = ?2",
            "DELETE FROM bindings WHERE store_id = ?1 AND path = ?2",
            "DELETE FROM imports WHERE store_id = ?1 AND path = ?2",
        ] {
            db.execute(sql, args![store_id, path])?;
        }
        let mut kept: std::collections::HashMap<(&str, &str), Vec<usize>> = Default::default();
        for (i, (_, o)) in old.iter().enumerate().rev() {
            kept.entry((o.qualified.as_str(), o.kind.as_str()))
                .or_default()
                .push(i);
        }
        let mut matched = vec![false; old.len()];
        let mut dirty = Vec::new();
        for s in &facts.symbols {
            let returns = s
                .returns
                .as_ref()
                .and_then(|r| serde_json::to_string(r).ok());
            let (params, decorators) = (names_json(&s.params), names_json(&s.decorators));
            let values = args![
                store_id,
                path,
                &s.name,
                &s.qualified,
                s.kind.as_str(),
                &s.container,
                &s.signature,
                &s.doc,
                s.exported,
                s.is_async,
                s.is_test,
                s.start_line,
                s.end_line,
                s.start_byte,
                s.end_byte,
                returns.clone(),
                params.clone(),
                decorators.clone()
            ];
            let same = kept
                .get_mut(&(s.qualified.as_str(), s.kind.as_str()))
                .and_then(Vec::pop);
            let Some(i) = same else {
                db.execute(
                    "INSERT INTO symbols (store_id, path, name, qualified, kind, container, signature, doc, \
                     exported, is_async, is_test, start_line, end_line, start_byte, end_byte, returns, \
                     params, decorators) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)",
                    values,
                )?;
                dirty.push(s.name.clone());
                continue;
            };
            matched[i] = true;
            let (id, o) = &old[i];
            let now = [
                s.container.clone(),
                s.signature.clone(),
                returns,
                params,
                decorators,
            ];
            if o.name != s.name || o.rest != now {
                dirty.extend([o.name.clone(), s.name.clone()]);
            }
            let mut values = values.to_vec();
            values.push(Arg::from(*id));
            db.execute(
                "UPDATE symbols SET store_id = ?1, path = ?2, name = ?3, qualified = ?4, kind = ?5, \
                 container = ?6, signature = ?7, doc = ?8, exported = ?9, is_async = ?10, is_test = ?11, \
                 start_line = ?12, end_line = ?13, start_byte = ?14, end_byte = ?15, returns = ?16, \
                 params = ?17, decorators = ?18 WHERE id = ?19",
                &values,
            )?;
        }
        for ((id, o), _) in old.iter().zip(&matched).filter(|(_, m)| !**m) {
            db.execute("DELETE FROM symbols WHERE id = ?1", args![*id])?;
            dirty.push(o.name.clone());
        }
        for i in &facts.imports {
            let names = serde_json::to_string(&i.names).unwrap_or_else(|_| "[]".into());
            db.execute(
                "INSERT INTO imports (store_id, path, module, names, alias, wildcard, type_only, line) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                args![
                    store_id,
                    path,
                    &i.module,
                    names,
                    &i.alias,
                    i.wildcard,
                    i.type_only,
                    i.line
                ],
            )?;
        }
        for r in &facts.refs {
            let receiver = serde_json::to_string(&r.receiver).unwrap_or_else(|_| "null".into());
            db.execute(
                "INSERT INTO refs (store_id, path, kind, caller, name, receiver, line) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                args![
                    store_id,
                    path,
                    r.kind.as_str(),
                    &r.caller,
                    &r.name,
                    receiver,
                    r.line
                ],
            )?;
        }
        for b in &facts.bindings {
            let Ok(value) = serde_json::to_string(&b.value) else {
                continue;
            };
            db.execute(
                "INSERT INTO bindings (store_id, path, owner, name, value) VALUES (?1, ?2, ?3, ?4, ?5)",
                args![store_id, path, &b.owner, &b.name, value],
            )?;
        }
        if shape_of(facts) != old_shape {
            // What the file's types extend or its fields hold changed: calls elsewhere
            // through them may reach other members.
            dirty.extend(old.into_iter().map(|(_, o)| o.name));
            dirty.extend(facts.symbols.iter().map(|s| s.name.clone()));
        }
        dirty.sort_unstable();
        dirty.dedup();
        Ok(dirty)
    }

    /// What a file says about types beyond its symbols, as stored: the bases its types
    /// extend or implement, and its bindings (fields, module-level names and their
    /// values), sorted (`shape_of` says the same of facts).
    fn shape(&self, store_id: i64, path: &str) -> Result<Vec<String>, IndexError> {
        let mut rows = self.db.query(
            "SELECT kind || ' ' || COALESCE(caller, '') || ' ' || name FROM refs \
             WHERE store_id = ?1 AND path = ?2 AND kind IN ('extends', 'implements')",
            args![store_id, path],
            |r| r.text(0),
        )?;
        rows.extend(self.db.query(
            "SELECT COALESCE(owner, '') || ' ' || name || ' ' || value FROM bindings \
             WHERE store_id = ?1 AND path = ?2",
            args![store_id, path],
            |r| r.text(0),
        )?);
        rows.sort_unstable();
        Ok(rows)
    }

    /// Forgets a file's code facts; returns the names of its symbols.
    pub fn remove_facts(&self, store_id: i64, path: &str) -> Result<Vec<String>, IndexError> {
        let mut names = self.db.query(
            "SELECT name FROM symbols INDEXED BY symbols_by_file WHERE store_id = ?1 AND path = ?2",
            args![store_id, path],
            |r| r.text(0),
        )?;
        // Deduplicated here: `DISTINCT` let SQLite walk the by-name index of the whole
        // store instead of the file's rows (quadratic over a full index).
        names.sort_unstable();
        names.dedup();
        for sql in [
            "DELETE FROM refs WHERE store_id = ?1 AND path = ?2",
            "DELETE FROM bindings WHERE store_id = ?1 AND path = ?2",
            "DELETE FROM imports WHERE store_id = ?1 AND path = ?2",
            "DELETE FROM symbols WHERE store_id = ?1 AND path = ?2",
        ] {
            self.db.execute(sql, args![store_id, path])?;
        }
        Ok(names)
    }

    /// Records what references resolved to.
    pub fn set_ref_targets(&self, targets: &[RefTarget]) -> Result<(), IndexError> {
        for t in targets {
            self.db.execute(
                "UPDATE refs SET target = ?2, confidence = ?3, how = ?4 WHERE id = ?1",
                args![t.ref_id, t.target, t.confidence, &t.how],
            )?;
        }
        Ok(())
    }

    /// Records which chunker version analysed the store's files.
    pub fn set_analyzer_version(&self, store_id: i64, version: i64) -> Result<(), IndexError> {
        self.db.execute(
            "INSERT INTO analyzer_state (store_id, version) VALUES (?1, ?2) \
             ON CONFLICT (store_id) DO UPDATE SET version = excluded.version",
            args![store_id, version],
        )?;
        Ok(())
    }

    /// Records that the graph is resolved as of this catalog generation.
    pub fn set_graph_resolved(&self, store_id: i64, generation: i64) -> Result<(), IndexError> {
        self.db.execute(
            "INSERT INTO graph_state (store_id, resolved_generation) VALUES (?1, ?2) \
             ON CONFLICT (store_id) DO UPDATE SET resolved_generation = excluded.resolved_generation",
            args![store_id, generation],
        )?;
        Ok(())
    }

    pub fn set_import_targets(&self, targets: &[(i64, Vec<String>)]) -> Result<(), IndexError> {
        for (id, t) in targets {
            let json = serde_json::to_string(t).unwrap_or_else(|_| "[]".into());
            self.db.execute(
                "UPDATE imports SET targets = ?2 WHERE id = ?1",
                args![*id, json],
            )?;
        }
        Ok(())
    }
}

/// `CatalogTx::shape` of facts not written yet, in the same form.
fn shape_of(facts: &FileFacts) -> Vec<String> {
    let mut rows: Vec<String> = facts
        .refs
        .iter()
        .filter(|r| matches!(r.kind, RefKind::Extends | RefKind::Implements))
        .map(|r| {
            let caller = r.caller.as_deref().unwrap_or("");
            format!("{} {caller} {}", r.kind.as_str(), r.name)
        })
        .collect();
    rows.extend(facts.bindings.iter().filter_map(|b| {
        let value = serde_json::to_string(&b.value).ok()?;
        Some(format!(
            "{} {} {value}",
            b.owner.as_deref().unwrap_or(""),
            b.name
        ))
    }));
    rows.sort_unstable();
    rows
}
