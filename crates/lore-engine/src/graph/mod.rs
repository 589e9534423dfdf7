//! The code graph: resolving a store's references after indexing, and answering
//! callers / callees / definition questions about a symbol.

pub(crate) mod patterns;
pub(crate) mod related;

use crate::text::first_sentence;
use crate::{Engine, EngineError};
use lore_graph::{Index, SymbolEntry};
use lore_index::{Catalog, Edge, RefTarget, StoreRecord, SymbolRow};
use serde::Serialize;
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Callers,
    Callees,
    Definition,
}

impl Direction {
    pub fn parse(s: &str) -> Option<Direction> {
        match s {
            "callers" => Some(Direction::Callers),
            "callees" => Some(Direction::Callees),
            "definition" => Some(Direction::Definition),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct GraphQuery {
    /// A name (`add_item`) or a qualified name (`Cart.add_item`, `Store::get`).
    pub symbol: String,
    pub direction: Direction,
    /// Store names; empty means all.
    pub stores: Vec<String>,
}

/// A definition, as the graph reports it.
#[derive(Debug, Clone, Serialize)]
pub struct SymbolInfo {
    pub store: String,
    pub path: String,
    pub name: String,
    pub qualified: String,
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    /// First sentence of the doc comment.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    pub exported: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_async: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub is_test: bool,
    /// Definitions only: how often it is called (resolved and by name only) and what it
    /// calls, from the same edges as `lore graph … callers`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::graph::related::Usage>,
}

/// One edge next to the asked symbol: who calls it, or what it calls.
#[derive(Debug, Clone, Serialize)]
pub struct GraphLink {
    /// calls, uses (a function given as a value), extends or implements.
    pub kind: String,
    /// The name as written at the reference.
    pub name: String,
    /// Where the reference is.
    pub path: String,
    pub line: u32,
    /// The other end: the caller (for callers) or the callee (for callees), when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SymbolInfo>,
    /// How sure the resolution is (0–1); absent when unresolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GraphAnswer {
    pub symbol: String,
    pub direction: Direction,
    /// What was found, in words: `2 resolved, 3 by name only` — never a bare 0 when the
    /// name is called somewhere the graph could not resolve.
    pub summary: String,
    pub definitions: Vec<SymbolInfo>,
    pub links: Vec<GraphLink>,
    /// Callees only: calls that reach no symbol of the store (std, packages, dynamic).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unresolved: Vec<GraphLink>,
    /// Callers only: calls of the name the graph left unresolved whose receiver could
    /// be the definition. Name matches, not resolved callers; their confidence is the
    /// name-match one (at most [`MAX_CANDIDATES`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<GraphLink>,
    /// E.g. a file shown changed since it was indexed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Name-only candidates listed per `lore graph … callers` answer.
pub const MAX_CANDIDATES: usize = 50;

pub(crate) fn symbol_info(s: &SymbolRow, store: &str) -> SymbolInfo {
    SymbolInfo {
        store: store.to_string(),
        path: s.path.clone(),
        name: s.name.clone(),
        qualified: s.qualified.clone(),
        kind: s.kind.as_str().to_string(),
        signature: s.signature.clone(),
        summary: s.doc.as_deref().and_then(first_sentence),
        start_line: s.start_line,
        end_line: s.end_line,
        exported: s.exported,
        is_async: s.is_async,
        is_test: s.is_test,
        usage: None,
    }
}

/// Whether the resolver needs a symbol: a C or C++ constant (an object-like macro, an enum's
/// value: more than half of a kernel's symbols) is never called, extended or a caller's
/// scope, nor is a key of a configuration file.
fn resolvable(s: &SymbolRow) -> bool {
    use lore_core::{ChunkKind, Language};
    match Language::from_path(std::path::Path::new(&s.path)) {
        Language::Yaml | Language::Json | Language::Toml => false,
        Language::C | Language::Cpp | Language::ObjC => s.kind != ChunkKind::Const,
        _ => s.kind != ChunkKind::Section,
    }
}

/// References resolved and written at a time when a whole store's are.
const RESOLVE_PAGE: usize = 200_000;

/// Resolves the references of a store that may have changed meaning: those made in
/// `changed` files and those naming `names`; everything when `all` (files appeared
/// or vanished, so imports may point elsewhere) or when an earlier run stopped
/// before resolving.
pub(crate) fn resolve_graph(
    catalog: &mut Catalog,
    store_id: i64,
    generation_before: i64,
    changed: &[String],
    mut names: Vec<String>,
    all: bool,
) -> Result<(), EngineError> {
    let generation = catalog
        .store_by_id(store_id)?
        .map(|s| s.generation)
        .unwrap_or_default();
    let resolved_at = catalog.graph_resolved_generation(store_id)?;
    if changed.is_empty() && names.is_empty() && !all && resolved_at == Some(generation) {
        // A store resolved before lore mined patterns gets them now.
        return patterns::refresh(catalog, store_id, generation);
    }
    // An earlier run that stopped between its commits and this point left references
    // unresolved somewhere: resolve everything.
    let all = all || resolved_at != Some(generation_before);
    let started = std::time::Instant::now();
    names.sort();
    names.dedup();
    let files: Vec<String> = catalog.manifest(store_id)?.into_keys().collect();
    let imports = catalog.imports(store_id)?;
    tracing::debug!(
        "store #{store_id}: files and imports read at {:.1} s",
        started.elapsed().as_secs_f32()
    );
    let mut symbols = Vec::new();
    catalog.for_each_symbol(store_id, |s| {
        if resolvable(&s) {
            symbols.push(SymbolEntry {
                id: s.id,
                path: s.path,
                name: s.name,
                qualified: s.qualified,
                kind: s.kind,
                container: s.container,
                signature: s.signature,
                returns: s.returns,
                params: s.params,
                decorators: s.decorators,
            });
        }
        Ok(())
    })?;
    tracing::debug!(
        "store #{store_id}: {} symbols read at {:.1} s",
        symbols.len(),
        started.elapsed().as_secs_f32()
    );
    let index = Index::new(
        files,
        symbols,
        imports.iter().map(|i| (i.path.clone(), i.import.clone())),
        catalog.heritage(store_id)?,
        catalog.bindings(store_id)?,
    );
    tracing::debug!(
        "store #{store_id}: graph tables read in {:.1} s: {}",
        started.elapsed().as_secs_f32(),
        index.sizes()
    );
    let changed_set: std::collections::HashSet<&str> = changed.iter().map(String::as_str).collect();
    let import_targets: Vec<(i64, Vec<String>)> = imports
        .iter()
        .filter(|i| all || changed_set.contains(i.path.as_str()))
        .map(|i| (i.id, index.import_targets(&i.path, &i.import)))
        .collect();
    drop(imports);
    // Only references whose target changes are written (most stay unresolved). All of a
    // store's are read a page at a time, each page's targets written before the next.
    let retarget = |refs: &[lore_index::RefRow]| -> Vec<RefTarget> {
        refs.iter()
            .filter_map(|r| {
                let res = index.resolve(&r.path, &r.reference);
                (res.map(|x| x.target) != r.target).then(|| RefTarget {
                    ref_id: r.id,
                    target: res.map(|x| x.target),
                    confidence: res.map(|x| x.confidence),
                    how: res.map(|x| x.how.as_str().to_string()),
                })
            })
            .collect()
    };
    if all {
        let mut after: Option<(String, i64)> = None;
        loop {
            let key = after.as_ref().map(|(p, id)| (p.as_str(), *id));
            let page = catalog.refs_after(store_id, key, RESOLVE_PAGE)?;
            let Some(last) = page.last() else { break };
            after = Some((last.path.clone(), last.id));
            let targets = retarget(&page);
            tracing::debug!(
                "store #{store_id}: resolved {} references, to {}: {}",
                page.len(),
                last.path,
                index.sizes()
            );
            drop(page);
            if !targets.is_empty() {
                let tx = catalog.begin()?;
                tx.set_ref_targets(&targets)?;
                tx.commit()?;
            }
        }
    } else {
        let refs = catalog.refs_to_resolve(store_id, changed, &names)?;
        tracing::debug!(
            "store #{store_id}: {} references to resolve ({} files, {} names) read at {:.1} s",
            refs.len(),
            changed.len(),
            names.len(),
            started.elapsed().as_secs_f32()
        );
        let targets = retarget(&refs);
        drop(refs);
        tracing::debug!(
            "store #{store_id}: {} retargeted at {:.1} s",
            targets.len(),
            started.elapsed().as_secs_f32()
        );
        let tx = catalog.begin()?;
        tx.set_ref_targets(&targets)?;
        tx.commit()?;
    }
    let tx = catalog.begin()?;
    tx.set_import_targets(&import_targets)?;
    tx.set_graph_resolved(store_id, generation)?;
    tx.commit()?;
    // Its tables are freed before the patterns are mined.
    drop(index);
    tracing::debug!(
        "store #{store_id}: references resolved in {:.1} s",
        started.elapsed().as_secs_f32()
    );
    patterns::refresh(catalog, store_id, generation)?;
    tracing::debug!(
        "store #{store_id}: patterns mined at {:.1} s",
        started.elapsed().as_secs_f32()
    );
    Ok(())
}

impl Engine {
    /// Callers, callees or the definition of a symbol.
    pub fn graph(&self, q: &GraphQuery) -> Result<GraphAnswer, EngineError> {
        let symbol = q.symbol.trim();
        if symbol.is_empty() {
            return Err(EngineError::Input(
                "give a symbol name, e.g. `parse_query` or `Parser.parse`".into(),
            ));
        }
        let stores = self.select_stores(&q.stores)?;
        if stores.is_empty() {
            return Err(EngineError::Input(
                "there are no stores yet; add one with `lore store add NAME PATH`".into(),
            ));
        }
        let names: HashMap<i64, String> = stores.iter().map(|s| (s.id, s.name.clone())).collect();
        let ids: Vec<i64> = stores.iter().map(|s: &StoreRecord| s.id).collect();
        let defs = self.catalog.symbols_named(&ids, symbol)?;
        if defs.is_empty() {
            return Err(EngineError::NotFound(format!(
                "no symbol named {symbol:?} in {}; try `lore search {symbol:?}`",
                if q.stores.is_empty() {
                    "any store".to_string()
                } else {
                    q.stores.join(", ")
                }
            )));
        }
        let store_of = |id: i64| names.get(&id).cloned().unwrap_or_default();
        let mut links = Vec::new();
        let mut unresolved = Vec::new();
        let mut candidates = Vec::new();
        let mut candidate_refs = std::collections::HashSet::new();
        // The files this answer shows lines of, by store (for the freshness warning).
        let mut shown: Vec<(i64, String)> = Vec::new();
        for d in &defs {
            let (l0, c0) = (links.len(), candidates.len());
            match q.direction {
                Direction::Definition => {}
                Direction::Callers => {
                    for e in self.catalog.edges_to(d.id)? {
                        links.push(link(&e, e.from.as_ref(), &store_of(d.store_id)));
                    }
                    let (found, confidence) =
                        crate::graph::related::name_candidates(&self.catalog, d)?;
                    for e in found {
                        if candidates.len() >= MAX_CANDIDATES {
                            break;
                        }
                        if !candidate_refs.insert(e.reference.id) {
                            continue;
                        }
                        let mut l = link(&e, e.from.as_ref(), &store_of(d.store_id));
                        l.confidence = Some(confidence);
                        candidates.push(l);
                    }
                }
                Direction::Callees => {
                    for e in self.catalog.edges_from(d)? {
                        // A name given as a value that reaches no function of the store
                        // is most often not a function at all.
                        let kind = e.reference.reference.kind;
                        if !kind.reaches_code()
                            || (kind == lore_core::RefKind::Uses && e.to.is_none())
                        {
                            continue;
                        }
                        let l = link(&e, e.to.as_ref(), &store_of(d.store_id));
                        if e.to.is_some() {
                            links.push(l);
                        } else if !unresolved.iter().any(|u: &GraphLink| u.name == l.name) {
                            unresolved.push(l);
                        }
                    }
                }
            }
            shown.push((d.store_id, d.path.clone()));
            shown.extend(
                links[l0..]
                    .iter()
                    .chain(&candidates[c0..])
                    .map(|l| (d.store_id, l.path.clone())),
            );
        }
        let mut warnings = Vec::new();
        for s in &stores {
            let paths = shown
                .iter()
                .filter(|(id, _)| *id == s.id)
                .map(|(_, p)| p.as_str());
            warnings.extend(self.stale_warning(s, paths)?);
        }
        let summary = match q.direction {
            Direction::Definition => format!("{} definitions", defs.len()),
            Direction::Callers => format!(
                "{} resolved, {} by name only",
                links.len(),
                candidates.len()
            ),
            Direction::Callees => format!(
                "{} resolved, {} unresolved (outside the store or dynamic)",
                links.len(),
                unresolved.len()
            ),
        };
        Ok(GraphAnswer {
            symbol: symbol.to_string(),
            direction: q.direction,
            summary,
            definitions: defs
                .iter()
                .map(|d| {
                    let mut info = symbol_info(d, &store_of(d.store_id));
                    info.usage =
                        Some(crate::graph::related::Neighbourhood::load(&self.catalog, d)?.usage());
                    Ok(info)
                })
                .collect::<Result<_, EngineError>>()?,
            links,
            unresolved,
            candidates,
            warnings,
        })
    }
}

/// One resolved edge of a store, by file and qualified name at both ends.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EdgeRecord {
    pub from_path: String,
    /// `<module>` for code outside any definition.
    pub from: String,
    pub to_path: String,
    pub to: String,
    pub confidence: f32,
}

impl Engine {
    /// Every resolved edge of a kind in a store (evaluation, export).
    pub fn graph_edges(
        &self,
        store: &str,
        kind: lore_core::RefKind,
    ) -> Result<Vec<EdgeRecord>, EngineError> {
        let s = self.require_store(store)?;
        let mut out: Vec<EdgeRecord> = self
            .catalog
            .resolved_refs(s.id, kind)?
            .into_iter()
            .map(|r| EdgeRecord {
                from_path: r.path,
                from: r.caller.unwrap_or_else(|| "<module>".into()),
                to_path: r.target.path,
                to: r.target.qualified,
                confidence: r.confidence,
            })
            .collect();
        out.sort_by(|a, b| {
            (&a.from_path, &a.from, &a.to_path, &a.to).cmp(&(
                &b.from_path,
                &b.from,
                &b.to_path,
                &b.to,
            ))
        });
        Ok(out)
    }
}

fn link(e: &Edge, other: Option<&SymbolRow>, store: &str) -> GraphLink {
    let r = &e.reference;
    GraphLink {
        kind: r.reference.kind.as_str().to_string(),
        name: r.reference.name.clone(),
        path: r.path.clone(),
        line: r.reference.line,
        symbol: other.map(|s| symbol_info(s, store)),
        confidence: r.confidence,
    }
}
