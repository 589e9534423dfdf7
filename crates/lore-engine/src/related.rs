//! A unit's neighbourhood in the code graph, read once per result: who calls it, what it
//! calls, what it extends and what extends it, which tests reach it. Its counts and its
//! lists come from the same edges, so they cannot disagree.

use crate::EngineError;
use crate::graph::first_sentence;
use lore_core::RefKind;
use lore_index::{Catalog, Edge, SymbolRow};
use serde::Serialize;
use std::collections::BTreeSet;

/// Related units listed per relationship at `full`.
const MAX_RELATED: usize = 8;

/// How often the unit is used and how much it uses: resolved references, counted from the
/// same edges the full layer lists.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Usage {
    /// Resolved call sites of the unit (tests included).
    pub called_by: u64,
    /// Resolved calls the unit (or code nested in it) makes to other units.
    pub calls: u64,
    /// Units that extend or implement it.
    #[serde(skip_serializing_if = "is_zero")]
    pub extended_by: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// A unit next to the result, in one line, and how it relates to the result.
#[derive(Debug, Clone, Serialize)]
pub struct RelatedUnit {
    pub name: String,
    /// `path:line`.
    pub at: String,
    /// calls, called-by, extends, extended-by, implements, implemented-by, tested-by.
    pub relationship: &'static str,
    /// How sure the graph is of the edge (0–1), when it was resolved.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
}

/// The related units of the full layer, by relationship.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Related {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub callers: Vec<RelatedUnit>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub callees: Vec<RelatedUnit>,
    /// Test functions (or test files) that call the unit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<RelatedUnit>,
    /// What the unit extends or implements.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub bases: Vec<RelatedUnit>,
    /// What extends or implements the unit.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subtypes: Vec<RelatedUnit>,
}

/// The edges into and out of one symbol.
pub(crate) struct Neighbourhood {
    symbol_id: i64,
    incoming: Vec<Edge>,
    outgoing: Vec<Edge>,
}

fn unit(s: &SymbolRow, relationship: &'static str, confidence: Option<f32>) -> RelatedUnit {
    RelatedUnit {
        name: s.qualified.clone(),
        at: format!("{}:{}", s.path, s.start_line),
        relationship,
        confidence,
        summary: s
            .doc
            .as_deref()
            .and_then(first_sentence)
            .or_else(|| s.signature.clone()),
    }
}

fn push(list: &mut Vec<RelatedUnit>, u: RelatedUnit) {
    if list.len() < MAX_RELATED {
        list.push(u);
    }
}

impl Neighbourhood {
    pub fn load(catalog: &Catalog, symbol: &SymbolRow) -> Result<Neighbourhood, EngineError> {
        Ok(Neighbourhood {
            symbol_id: symbol.id,
            incoming: catalog.edges_to(symbol.id)?,
            outgoing: catalog.edges_from(symbol)?,
        })
    }

    fn calls_out(&self) -> impl Iterator<Item = (&Edge, &SymbolRow)> {
        self.outgoing.iter().filter_map(|e| {
            let to = e.to.as_ref()?;
            (e.reference.reference.kind == RefKind::Calls && to.id != self.symbol_id)
                .then_some((e, to))
        })
    }

    pub fn usage(&self) -> Usage {
        let kind = |e: &&Edge| e.reference.reference.kind;
        Usage {
            called_by: self
                .incoming
                .iter()
                .filter(|e| kind(e) == RefKind::Calls)
                .count() as u64,
            calls: self.calls_out().count() as u64,
            extended_by: self
                .incoming
                .iter()
                .filter(|e| kind(e) != RefKind::Calls)
                .count() as u64,
        }
    }

    /// The related units, each once, at most [`MAX_RELATED`] per relationship.
    pub fn related(&self) -> Related {
        let mut r = Related::default();
        let mut seen = BTreeSet::new();
        for e in &self.incoming {
            let conf = e.reference.confidence;
            let kind = e.reference.reference.kind;
            match &e.from {
                Some(from) if !seen.insert(from.id) => {}
                Some(from) if kind == RefKind::Extends => {
                    push(&mut r.subtypes, unit(from, "extended-by", conf))
                }
                Some(from) if kind == RefKind::Implements => {
                    push(&mut r.subtypes, unit(from, "implemented-by", conf))
                }
                Some(from) if from.is_test => push(&mut r.tests, unit(from, "tested-by", conf)),
                Some(from) => push(&mut r.callers, unit(from, "called-by", conf)),
                // Module-level calls from test files (test frameworks' callbacks).
                None if kind == RefKind::Calls && lore_core::is_test_path(&e.reference.path) => {
                    let name = e.reference.path.clone();
                    if seen.insert(-e.reference.id) && !r.tests.iter().any(|t| t.name == name) {
                        push(
                            &mut r.tests,
                            RelatedUnit {
                                at: format!("{}:{}", name, e.reference.reference.line),
                                name,
                                relationship: "tested-by",
                                confidence: conf,
                                summary: None,
                            },
                        );
                    }
                }
                None => {}
            }
        }
        let mut seen = BTreeSet::new();
        for (e, to) in self.calls_out() {
            if seen.insert(to.id) {
                push(&mut r.callees, unit(to, "calls", e.reference.confidence));
            }
        }
        for e in &self.outgoing {
            let relationship = match e.reference.reference.kind {
                RefKind::Calls => continue,
                RefKind::Extends => "extends",
                RefKind::Implements => "implements",
            };
            if let Some(to) = &e.to
                && seen.insert(to.id)
            {
                push(&mut r.bases, unit(to, relationship, e.reference.confidence));
            }
        }
        r
    }
}
