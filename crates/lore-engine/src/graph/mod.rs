//! The code graph: resolving a store's references after indexing, and answering
//! callers / callees / definition questions about a symbol.

pub(crate) mod patterns;
pub(crate) mod related;
mod resolve;

pub(crate) use resolve::resolve_graph;

use crate::text::first_sentence;
use crate::{Engine, EngineError};
use lore_index::{Edge, StoreRecord, SymbolRow};
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
