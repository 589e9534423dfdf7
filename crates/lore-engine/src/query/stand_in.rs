//! Units that answer for others.
//!
//! - A class stands for its matching methods. "computed ref caching implementation"
//!   retrieves several methods of `ComputedRefImpl`, each a weak match, while the class's
//!   own chunk (its fields) says little: the question is about the class. When the question
//!   spells out at least half of a small class's name and two or more of its methods are
//!   among the best candidates, the class joins them, scored as `locate` scores a file from
//!   its chunks (the best member and a decaying share of the others); its own priors then
//!   rank it with the rest.
//! - A value answers for the type that types it (`values_over_types`).

use crate::EngineError;
use crate::query::fusion::Signals;
use crate::query::intent::NameWords;
use lore_core::ChunkKind;
use lore_index::{Catalog, StoredChunk};
use std::collections::HashMap;

/// How many of the best candidates are looked at for members of one container.
const WINDOW: usize = 30;
/// A container this many lines long or shorter stands for its members; a longer one (a
/// framework's 1,500-line application class) is not what a question about two of its
/// methods wants to read.
const MAX_LINES: u32 = 200;
/// How many matching members a result's reason names.
const SHOWN: usize = 4;
/// The share of the container's name the question must spell out (`NameWords::cover`):
/// without it, any class with two methods near a topic (a router's `add` and `match` for
/// a question on another router) would stand in for them.
const MIN_NAME_COVER: f32 = 0.5;
/// How many of its members must match.
const MIN_MEMBERS: usize = 2;

/// A container: its store, file and name.
type Key<'a> = (i64, &'a str, &'a str);

/// A container that stands for members among the candidates.
pub(crate) struct Container {
    pub chunk: StoredChunk,
    /// Its members' evidence: the best fused score and a decaying share of the others.
    pub score: f32,
    /// The members that matched, in the order they ranked.
    pub members: Vec<String>,
}

impl Container {
    /// Why it is a result, for the hit's reason.
    pub fn why(&self) -> String {
        let shown = self.members.len().min(SHOWN);
        let more = match self.members.len() - shown {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        format!("members match: {}{more}", self.members[..shown].join(", "))
    }
}

/// The containers that stand for two or more of the best `ranked` candidates (fused
/// scores, best first; their chunks in `found`).
pub(crate) fn containers(
    catalog: &Catalog,
    ranked: &[(i64, f32, Signals)],
    found: &HashMap<i64, StoredChunk>,
    names: &mut NameWords,
) -> Result<Vec<Container>, EngineError> {
    // Per container, its members' names (`get value` and `set value` are two) and best
    // scores, in rank order.
    let mut groups: HashMap<Key, Vec<(String, f32)>> = HashMap::new();
    for (id, score, _) in ranked.iter().take(WINDOW) {
        let Some(sc) = found.get(id) else { continue };
        let c = &sc.chunk;
        let (Some(parent), Some(symbol), ChunkKind::Method) =
            (c.parent.as_deref(), c.symbol.as_deref(), c.kind)
        else {
            continue;
        };
        let g = groups
            .entry((sc.store_id, sc.path.as_str(), parent))
            .or_default();
        let name = symbol.rsplit(['.', ':']).next().unwrap_or(symbol);
        let name = format!("{}{name}", lore_core::accessor(c.signature.as_deref()));
        if !g.iter().any(|m| m.0 == name) {
            g.push((name, *score));
        }
    }
    let mut out = Vec::new();
    for ((store_id, path, parent), members) in groups {
        if members.len() < MIN_MEMBERS || names.cover(None, parent) < MIN_NAME_COVER {
            continue;
        }
        let chunks = catalog.file_chunks(store_id, path)?;
        let Some(own) = chunks.iter().find(|sc| {
            matches!(
                sc.chunk.kind,
                ChunkKind::Class | ChunkKind::Struct | ChunkKind::Impl | ChunkKind::Enum
            ) && sc.chunk.symbol.as_deref() == Some(parent)
        }) else {
            continue;
        };
        // The container's lines: its own chunk and every chunk of its members.
        let last = chunks
            .iter()
            .filter(|sc| sc.chunk.parent.as_deref() == Some(parent))
            .map(|sc| sc.chunk.end_line)
            .fold(own.chunk.end_line, u32::max);
        if last.saturating_sub(own.chunk.start_line) + 1 > MAX_LINES {
            continue;
        }
        let score = members[0].1
            + members[1..]
                .iter()
                .zip(crate::query::fusion::CHUNK_DECAY)
                .map(|(m, w)| m.1 * w)
                .sum::<f32>();
        out.push(Container {
            chunk: own.clone(),
            score,
            members: members.into_iter().map(|m| m.0).collect(),
        });
    }
    // Deterministic order whatever the map's.
    out.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then(a.chunk.id.cmp(&b.chunk.id))
    });
    Ok(out)
}

/// The type a declaration is annotated with, lowercased, without its type arguments:
/// `json: JSONRespond = …` and `export const getCookie: GetCookie = …` → `jsonrespond`,
/// `getcookie`. Not a parameter's: the annotation must follow the declared name.
fn annotation(signature: &str) -> Option<String> {
    const LEADING: [&str; 11] = [
        "export ",
        "declare ",
        "const ",
        "let ",
        "var ",
        "readonly ",
        "public ",
        "private ",
        "protected ",
        "static ",
        "override ",
    ];
    let mut rest = signature.trim_start();
    while let Some(r) = LEADING.iter().find_map(|p| rest.strip_prefix(p)) {
        rest = r.trim_start();
    }
    let name_end = rest
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '#')))
        .unwrap_or(rest.len());
    if name_end == 0 {
        return None;
    }
    let typed = rest[name_end..]
        .trim_start_matches(['?', '!'])
        .trim_start()
        .strip_prefix(':')?
        .trim_start();
    let type_end = typed
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$')))
        .unwrap_or(typed.len());
    (type_end > 0).then(|| typed[..type_end].to_lowercase())
}

fn is_type(kind: ChunkKind) -> bool {
    matches!(kind, ChunkKind::Interface | ChunkKind::Type)
}

/// A type and the value it types are one answer: `interface GetCookie` and `const
/// getCookie: GetCookie`, `type TimingSafeEqual` and `timingSafeEqual`, `interface
/// JSONRespond` and the class property `json: JSONRespond = (…) => …`. The type's text is
/// the shorter, so BM25 prefers it, and with one result per file it would hide the
/// implementation. A value of the type's name (any case) or annotated with it, in the
/// same file, takes the better of the two scores and comes first; `ranked` (scores, best
/// first) is sorted again. Unless the question asks for a type.
pub(crate) fn values_over_types(ranked: &mut [(f32, Signals, &StoredChunk)], words: &[String]) {
    const ASKS_FOR_A_TYPE: [&str; 4] = ["type", "types", "interface", "interfaces"];
    if words.iter().any(|w| ASKS_FOR_A_TYPE.contains(&w.as_str())) {
        return;
    }
    let key = |sc: &StoredChunk| {
        let symbol = sc.chunk.symbol.as_deref()?;
        let name = symbol.rsplit(['.', ':']).next().unwrap_or(symbol);
        Some((sc.store_id, sc.path.clone(), name.to_lowercase()))
    };
    let mut types: HashMap<(i64, String, String), f32> = HashMap::new();
    for (score, _, sc) in ranked.iter() {
        if is_type(sc.chunk.kind)
            && let Some(k) = key(sc)
        {
            let best = types.entry(k).or_insert(*score);
            *best = best.max(*score);
        }
    }
    if types.is_empty() {
        return;
    }
    let mut lifted = false;
    for (score, _, sc) in ranked.iter_mut() {
        let value = matches!(
            sc.chunk.kind,
            ChunkKind::Function | ChunkKind::Const | ChunkKind::Class | ChunkKind::Method
        );
        if !value {
            continue;
        }
        let annotated = sc.chunk.signature.as_deref().and_then(annotation);
        let typed = [
            key(sc),
            annotated.map(|t| (sc.store_id, sc.path.clone(), t)),
        ]
        .into_iter()
        .flatten()
        .filter_map(|k| types.get(&k).copied())
        .fold(f32::MIN, f32::max);
        if typed >= *score {
            *score = typed;
            lifted = true;
        }
    }
    if lifted {
        // At equal scores the value first.
        ranked.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(is_type(a.2.chunk.kind).cmp(&is_type(b.2.chunk.kind)))
        });
    }
}

#[cfg(test)]
mod tests {
    use super::annotation;

    #[test]
    fn a_declarations_annotation_is_its_type() {
        let cases = [
            (
                "json: JSONRespond = <T>(object: T) => {",
                Some("jsonrespond"),
            ),
            (
                "export const getCookie: GetCookie = (c, key) => {",
                Some("getcookie"),
            ),
            ("private readonly cache?: Map<string, Entry>", Some("map")),
            ("export function parse(input: string): Ast", None),
            ("const handler = (c: Context) => {", None),
            ("send(body)", None),
        ];
        for (signature, want) in cases {
            assert_eq!(annotation(signature).as_deref(), want, "{signature}");
        }
    }
}
