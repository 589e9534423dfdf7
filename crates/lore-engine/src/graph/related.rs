//! A unit's neighbourhood in the code graph, read once per result: who calls it, what it
//! calls, what it extends and what extends it, which tests reach it. Its counts and its
//! lists come from the same edges, so they cannot disagree.
//!
//! Besides the resolved edges it keeps the name-only candidates: calls of the unit's name
//! that the graph left unresolved but whose receiver could be the unit (`x.get()` with
//! `x` of unknown type for a method `get`; `get()` or `mod.get()` for a function). They
//! are counted apart (`called_by_name`, never in `called_by`) and listed after the
//! resolved units, marked `(name match)` with a low confidence.

use crate::EngineError;
use crate::text::first_sentence;
use lore_core::{ChunkKind, Language, Receiver, RefKind, is_test_path};
use lore_index::{Catalog, Edge, SymbolRow};
use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;

/// Related units listed per relationship at `full`.
const MAX_RELATED: usize = 8;

/// The confidence of a name-only candidate when one definition of the store has the
/// name; when several do, it is shared among them.
pub(crate) const NAME_MATCH_CONFIDENCE: f32 = 0.3;

/// How often the unit is used and how much it uses: resolved references, counted from the
/// same edges the full layer lists; name-only candidates apart.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Usage {
    /// Resolved call sites of the unit (tests included), places that give it as a value
    /// (`xs.map(parse)`) among them.
    pub called_by: u64,
    /// Of `called_by`, the call sites in tests.
    #[serde(skip_serializing_if = "is_zero")]
    pub tested_by: u64,
    /// Unresolved calls of the unit's name whose receiver could be the unit: a name
    /// match only, not counted in `called_by`.
    #[serde(skip_serializing_if = "is_zero")]
    pub called_by_name: u64,
    /// Resolved calls the unit (or code nested in it) makes to other units, and units it
    /// gives as values.
    pub calls: u64,
    /// Units that extend or implement it.
    #[serde(skip_serializing_if = "is_zero")]
    pub extended_by: u64,
}

/// "used by 2 call sites (1 in tests) and 41 more by name only, calls 5".
impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "used by {} call sites", self.called_by)?;
        if self.tested_by > 0 {
            write!(f, " ({} in tests)", self.tested_by)?;
        }
        if self.called_by_name > 0 {
            write!(f, " and {} more by name only", self.called_by_name)?;
        }
        write!(f, ", calls {}", self.calls)?;
        if self.extended_by > 0 {
            write!(f, ", extended by {}", self.extended_by)?;
        }
        Ok(())
    }
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
    /// calls, called-by, uses-as-value (a function given as a value, either way), extends,
    /// extended-by, implements, implemented-by, tested-by; `called-by (name match)` and
    /// `tested-by (name match)` for name-only candidates.
    pub relationship: &'static str,
    /// How sure the graph is of the edge (0–1): from its resolution, or
    /// [`NAME_MATCH_CONFIDENCE`] shared among the definitions of the name for a
    /// name-only candidate.
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

/// The edges into and out of one symbol, and the unresolved calls that may be to it.
pub(crate) struct Neighbourhood {
    symbol_id: i64,
    incoming: Vec<Edge>,
    outgoing: Vec<Edge>,
    /// Unresolved calls of the symbol's name whose receiver could be the symbol.
    candidates: Vec<Edge>,
    /// The confidence of each candidate.
    candidate_confidence: f32,
}

fn family(path: &str) -> Language {
    match Language::from_path(Path::new(path)) {
        Language::Cpp => Language::C,
        Language::Tsx | Language::JavaScript => Language::TypeScript,
        l => l,
    }
}

/// Whether an unresolved call could reach `symbol`, as far as its receiver tells: a bare
/// or module-qualified call for a function or class; a call on some value for a method
/// (of the symbol's own type, when the value's type is known). Same language family.
pub(crate) fn could_call(symbol: &SymbolRow, call: &Edge) -> bool {
    let r = &call.reference;
    if r.reference.kind != RefKind::Calls
        || r.target.is_some()
        || family(&r.path) != family(&symbol.path)
    {
        return false;
    }
    let implicit_this = matches!(family(&symbol.path), Language::Java | Language::C);
    // `x.f()` with `x` a parameter of the caller: a call on a value, not on a module.
    let on_param = |p: &str| {
        let head = p.split(['.', ':']).next().unwrap_or(p);
        call.from
            .as_ref()
            .is_some_and(|f| f.params.iter().any(|x| x == head))
    };
    match (&symbol.container, &r.reference.receiver) {
        (None, Receiver::Path(p)) => !on_param(p),
        (None, receiver) => matches!(receiver, Receiver::None),
        (Some(_), Receiver::None) => implicit_this,
        (Some(c), Receiver::Type(t)) => t == c,
        (Some(_), _) => true,
    }
}

fn callable(kind: ChunkKind) -> bool {
    matches!(
        kind,
        ChunkKind::Function | ChunkKind::Method | ChunkKind::Class | ChunkKind::Struct
    )
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
        let (candidates, candidate_confidence) = name_candidates(catalog, symbol)?;
        Ok(Neighbourhood {
            symbol_id: symbol.id,
            incoming: catalog.edges_to(symbol.id)?,
            outgoing: catalog.edges_from(symbol)?,
            candidates,
            candidate_confidence,
        })
    }

    fn calls_out(&self) -> impl Iterator<Item = (&Edge, &SymbolRow)> {
        self.outgoing.iter().filter_map(|e| {
            let to = e.to.as_ref()?;
            (e.reference.reference.kind.reaches_code() && to.id != self.symbol_id)
                .then_some((e, to))
        })
    }

    pub fn usage(&self) -> Usage {
        let kind = |e: &&Edge| e.reference.reference.kind;
        Usage {
            called_by: self
                .incoming
                .iter()
                .filter(|e| kind(e).reaches_code())
                .count() as u64,
            tested_by: self
                .incoming
                .iter()
                .filter(|e| kind(e).reaches_code() && from_test(e))
                .count() as u64,
            called_by_name: self.candidates.len() as u64,
            calls: self.calls_out().count() as u64,
            extended_by: self
                .incoming
                .iter()
                .filter(|e| !kind(e).reaches_code())
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
                Some(from) if kind == RefKind::Uses => {
                    push(&mut r.callers, unit(from, "uses-as-value", conf))
                }
                Some(from) => push(&mut r.callers, unit(from, "called-by", conf)),
                // Module-level calls from test files (test frameworks' callbacks).
                None if kind.reaches_code() && lore_core::is_test_path(&e.reference.path) => {
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
        // Name-only candidates after the resolved callers.
        let conf = Some(self.candidate_confidence);
        for e in &self.candidates {
            match &e.from {
                Some(from) if !seen.insert(from.id) => {}
                Some(from) if from.is_test => {
                    push(&mut r.tests, unit(from, "tested-by (name match)", conf))
                }
                Some(from) => push(&mut r.callers, unit(from, "called-by (name match)", conf)),
                None if is_test_path(&e.reference.path) => {
                    let name = e.reference.path.clone();
                    if !r.tests.iter().any(|t| t.name == name) {
                        push(
                            &mut r.tests,
                            RelatedUnit {
                                at: format!("{}:{}", name, e.reference.reference.line),
                                name,
                                relationship: "tested-by (name match)",
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
            let relationship = match e.reference.reference.kind {
                RefKind::Uses => "uses-as-value",
                _ => "calls",
            };
            if seen.insert(to.id) {
                push(
                    &mut r.callees,
                    unit(to, relationship, e.reference.confidence),
                );
            }
        }
        for e in &self.outgoing {
            let relationship = match e.reference.reference.kind {
                RefKind::Calls | RefKind::Uses => continue,
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

/// Whether an edge is made from test code (a test unit, or module-level code of a test
/// file).
fn from_test(e: &Edge) -> bool {
    match &e.from {
        Some(from) => from.is_test,
        None => is_test_path(&e.reference.path),
    }
}

/// The unresolved calls that may be to `symbol`, and the confidence each gets.
pub(crate) fn name_candidates(
    catalog: &Catalog,
    symbol: &SymbolRow,
) -> Result<(Vec<Edge>, f32), EngineError> {
    if !callable(symbol.kind) {
        return Ok((Vec::new(), 0.0));
    }
    let candidates: Vec<Edge> = catalog
        .unresolved_calls_named(symbol.store_id, &symbol.name)?
        .into_iter()
        .filter(|e| could_call(symbol, e))
        .collect();
    if candidates.is_empty() {
        return Ok((candidates, 0.0));
    }
    let namesakes = catalog
        .symbols_named(&[symbol.store_id], &symbol.name)?
        .iter()
        .filter(|s| {
            s.name == symbol.name && callable(s.kind) && family(&s.path) == family(&symbol.path)
        })
        .count()
        .max(1);
    Ok((candidates, NAME_MATCH_CONFIDENCE / namesakes as f32))
}
