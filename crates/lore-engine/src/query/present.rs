//! What a result says about its unit at each detail level: a one-line purpose and why it
//! matched (minimal); imports, referenced types and usage counts (contextual); the whole
//! unit, its callers and callees and the tests that exercise it (full). Token counts are
//! estimates: UTF-8 bytes / 4, the usual rule of thumb for English and code.

use crate::graph::related::{Neighbourhood, Related};
use crate::query::fusion::Signals;
use crate::query::intent::norm;
use crate::text::first_sentence;
use crate::unit::{self, Lines, Truncation};
use crate::{Engine, EngineError};
use lore_core::ChunkKind;
use lore_index::{Catalog, StoredChunk, SymbolRow};
use serde::Serialize;
use std::collections::{BTreeSet, HashMap};

/// Imports and types listed per result at `contextual`.
const MAX_CONTEXT_ITEMS: usize = 8;

pub fn estimate_tokens(text: &str) -> usize {
    text.len().div_ceil(4)
}

/// The estimate for a value as its compact JSON, the form every adapter sends.
pub(crate) fn json_tokens<T: Serialize>(value: &T) -> usize {
    serde_json::to_string(value)
        .map(|j| estimate_tokens(&j))
        .unwrap_or_default()
}

/// `contextual`: what a reader needs around the unit to understand it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ContextLayer {
    /// Imports of the file that the unit uses (`module: names`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub imports: Vec<String>,
    /// Types of the store the unit refers to, with where they are defined.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::graph::related::Usage>,
    /// Nearby concepts: the enclosing type, heading path, names it calls or is called by.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
}

/// `full`: the unit itself and its neighbourhood in the code graph.
#[derive(Debug, Clone, Default, Serialize)]
pub struct FullLayer {
    /// The unit's code: all of it, up to `unit::MAX_UNIT_LINES` lines.
    pub content: String,
    /// Set when the unit was longer than that: the lines `content` holds, how many it lacks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<Truncation>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub doc: Option<String>,
    /// Callers, callees, tests, bases and subtypes, each with its relationship.
    #[serde(flatten)]
    pub related: Related,
}

pub(crate) fn query_words(q: &str) -> Vec<String> {
    q.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.chars().count() >= 3)
        .map(str::to_lowercase)
        .collect()
}

fn truncate_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The most telling lines of a chunk: the line with the most query words, and the next two.
pub(crate) fn snippet(content: &str, words: &[String]) -> String {
    let lines: Vec<&str> = content.lines().collect();
    let score = |l: &str| {
        let l = l.to_lowercase();
        words.iter().filter(|w| l.contains(w.as_str())).count()
    };
    let best = (0..lines.len())
        .max_by_key(|&i| (score(lines[i]), std::cmp::Reverse(i)))
        .unwrap_or(0);
    let start = if score(lines.get(best).copied().unwrap_or("")) == 0 {
        lines.iter().position(|l| !l.trim().is_empty()).unwrap_or(0)
    } else {
        best
    };
    let text = lines
        .iter()
        .skip(start)
        .take(3)
        .map(|l| l.trim_end())
        .collect::<Vec<_>>()
        .join("\n");
    truncate_chars(&text, 300)
}

/// One line on what the unit is for: its doc comment's first sentence, else the heading
/// path of a section, else its most telling line.
pub(crate) fn summary(
    sc: &StoredChunk,
    symbol: Option<&SymbolRow>,
    words: &[String],
) -> Option<String> {
    let c = &sc.chunk;
    if let Some(s) = symbol
        .and_then(|s| s.doc.as_deref())
        .or(c.doc.as_deref())
        .and_then(first_sentence)
    {
        return Some(s);
    }
    if !c.headings.is_empty() && c.kind == ChunkKind::Section {
        let body = c
            .content
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("```"));
        return Some(match body {
            Some(b) => truncate_chars(b, 160),
            None => c.headings.join(" > "),
        });
    }
    let best = snippet(&c.content, words);
    let line = best.lines().map(str::trim).find(|l| !l.is_empty())?;
    // A line that only repeats the signature says nothing more.
    if c.signature
        .as_deref()
        .is_some_and(|s| s.contains(line) || line.contains(s))
    {
        return None;
    }
    Some(truncate_chars(line, 160))
}

/// Which signals found the unit and which query words it contains.
pub(crate) fn reason(signals: &Signals, sc: &StoredChunk, words: &[String]) -> String {
    let mut parts = Vec::new();
    let hay = format!(
        "{} {} {}",
        sc.path.to_lowercase(),
        sc.chunk.symbol.as_deref().unwrap_or("").to_lowercase(),
        sc.chunk.content.to_lowercase()
    );
    let matched: BTreeSet<&str> = words
        .iter()
        .filter(|w| hay.contains(w.as_str()))
        .map(String::as_str)
        .collect();
    if let Some(r) = signals.bm25_rank {
        let terms = if matched.is_empty() {
            String::new()
        } else {
            format!(
                ": {}",
                matched
                    .iter()
                    .take(6)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        parts.push(format!("bm25 #{r}{terms}"));
    }
    if let (Some(r), Some(s)) = (signals.vector_rank, signals.vector_score) {
        parts.push(format!("vector #{r} ({s:.2})"));
    } else if let Some(s) = signals.vector_score {
        parts.push(format!("vector {s:.2}"));
    }
    parts.join("; ")
}

/// Words of a unit's text, for matching against import and type names.
fn identifiers(text: &str) -> BTreeSet<&str> {
    text.split(|c: char| !c.is_alphanumeric() && c != '_')
        .filter(|w| w.len() >= 2)
        .collect()
}

/// A member inside the chunk that the query names (a method of a small class kept
/// whole), as a chunk of its own exact lines; `None` when the query names none.
fn focus(
    sc: &StoredChunk,
    words: &[String],
    syms: &[SymbolRow],
) -> Option<(StoredChunk, SymbolRow)> {
    if words.is_empty() || sc.chunk.symbol.is_none() {
        return None;
    }
    let c = &sc.chunk;
    let wanted: BTreeSet<String> = words.iter().map(|w| norm(w)).collect();
    let sym = syms.iter().find(|s| {
        s.start_byte >= c.start_byte
            && s.end_byte <= c.end_byte
            && Some(s.name.as_str()) != c.symbol.as_deref()
            && wanted.contains(&norm(&s.name))
    })?;
    // An overload signature runs on to the implementation, the last declaration of its
    // name (the unit the graph knows, with the body's calls).
    let own = c
        .content
        .get(sym.start_byte - c.start_byte..sym.end_byte - c.start_byte)?;
    let last = if crate::query::evidence::is_stub(sym.kind, c.language, own) {
        syms.iter()
            .rfind(|s| s.qualified == sym.qualified && s.end_byte <= c.end_byte)
            .unwrap_or(sym)
    } else {
        sym
    };
    // The member's doc comment and attributes above it are part of it.
    let (from, lines_above) = lead_in(c.content.get(..sym.start_byte - c.start_byte)?);
    let content = c.content.get(from..last.end_byte - c.start_byte)?;
    let mut focused = sc.clone();
    focused.chunk.content = content.to_string();
    focused.chunk.kind = sym.kind;
    focused.chunk.parent = c.symbol.clone();
    focused.chunk.symbol = Some(sym.name.clone());
    focused.chunk.signature = sym.signature.clone();
    focused.chunk.doc = sym.doc.clone().or_else(|| last.doc.clone());
    focused.chunk.start_line = sym.start_line - lines_above;
    focused.chunk.end_line = last.end_line;
    focused.chunk.start_byte = c.start_byte + from;
    focused.chunk.end_byte = last.end_byte;
    Some((focused, last.clone()))
}

/// Where the comment and attribute lines right above the end of `before` start (a unit's
/// doc comment, decorators, `#[…]`), and how many lines they are; the end of `before`
/// itself when there are none. A blank line ends them.
fn lead_in(before: &str) -> (usize, u32) {
    // `before` ends with the indentation of the unit's first line.
    let mut start = before.rfind('\n').map_or(0, |i| i + 1);
    if !before[start..].trim().is_empty() {
        return (before.len(), 0);
    }
    let mut lines = 0;
    let mut in_block = false;
    while start > 0 {
        let prev_start = before[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        let line = before[prev_start..start - 1].trim();
        let closes = line.ends_with("*/");
        let lead = in_block
            || closes
            || line.starts_with("//")
            || line.starts_with("/*")
            || line.starts_with('*')
            || line.starts_with('#')
            || line.starts_with('@');
        if line.is_empty() || !lead {
            break;
        }
        // Inside a block comment, read up to its opening `/*`.
        in_block = if line.starts_with("/*") {
            false
        } else {
            in_block || closes
        };
        start = prev_start;
        lines += 1;
    }
    if lines == 0 {
        return (before.len(), 0);
    }
    (start, lines)
}

/// Builds the layers of a result from the catalog (the code graph and the stored chunks).
pub(crate) struct Presenter<'a> {
    pub catalog: &'a Catalog,
    /// The symbols of the chunks about to be shown, read in one query beforehand
    /// (`Catalog::chunks_symbols`); a chunk not in it is read on its own.
    pub symbols: Option<&'a HashMap<i64, Vec<SymbolRow>>>,
}

impl Engine {
    pub(crate) fn presenter(&self) -> Presenter<'_> {
        Presenter {
            catalog: &self.catalog,
            symbols: None,
        }
    }
}

impl Presenter<'_> {
    /// The unit's edges in the code graph (contextual and full detail).
    pub(crate) fn neighbourhood(
        &self,
        symbol: Option<&SymbolRow>,
    ) -> Result<Option<Neighbourhood>, EngineError> {
        symbol
            .map(|s| Neighbourhood::load(self.catalog, s))
            .transpose()
    }

    /// The graph symbol a chunk is the unit of (same name, overlapping the chunk); and,
    /// when `words` name a member inside the chunk (a method of a small class kept whole),
    /// that member as a chunk of its own exact lines, with the member as its symbol. The
    /// chunk's symbols are read once for both.
    pub(crate) fn unit(
        &self,
        sc: &StoredChunk,
        words: &[String],
    ) -> Result<(Option<StoredChunk>, Option<SymbolRow>), EngineError> {
        let Some(name) = sc.chunk.symbol.as_deref() else {
            return Ok((None, None));
        };
        let c = &sc.chunk;
        let mut syms = match self.symbols.and_then(|m| m.get(&sc.id)) {
            Some(known) => known.clone(),
            None => self.catalog.chunk_symbols(
                sc.store_id,
                &sc.path,
                name,
                (c.start_byte, c.end_byte),
            )?,
        };
        if let Some((focused, member)) = focus(sc, words, &syms) {
            return Ok((Some(focused), Some(member)));
        }
        let overlapping = syms
            .iter()
            .position(|s| s.name == name && s.start_byte < c.end_byte && s.end_byte > c.start_byte);
        // A window of the unit's long doc comment lies before the unit's own declaration:
        // the unit is the next definition of that name.
        let unit = overlapping.or_else(|| {
            syms.iter()
                .position(|s| s.name == name && s.start_byte >= c.end_byte)
        });
        // An overload signature is one unit with the implementation, the last declaration
        // of the same qualified name (TypeScript and `@overload` put it below the
        // signatures): the result then holds the doc comment, every overload and the body.
        let unit = unit.map(|i| {
            if !crate::query::evidence::is_overload_stub(c) {
                return i;
            }
            let qualified = &syms[i].qualified;
            (i + 1..syms.len())
                .rfind(|&j| &syms[j].qualified == qualified)
                .unwrap_or(i)
        });
        Ok((None, unit.map(|i| syms.swap_remove(i))))
    }

    pub(crate) fn context_layer(
        &self,
        sc: &StoredChunk,
        symbol: Option<&SymbolRow>,
        hood: Option<&Neighbourhood>,
    ) -> Result<ContextLayer, EngineError> {
        // Names of the code, not words of its comments, docstrings and strings.
        let code = lore_chunk::code_only(sc.chunk.language, &sc.chunk.content);
        let words = identifiers(&code);
        let mut layer = ContextLayer::default();
        // Imports the unit uses, grouped by module.
        let imports = self.catalog.file_imports(sc.store_id, &sc.path)?;
        let mut by_module: Vec<(String, Vec<String>)> = Vec::new();
        let mut imported_names = BTreeSet::new();
        for imp in &imports {
            let i = &imp.import;
            for n in &i.names {
                imported_names.insert(n.local().to_string());
            }
            let used: Vec<String> = i
                .names
                .iter()
                .map(|n| n.local())
                .filter(|n| words.contains(n))
                .map(String::from)
                .collect();
            let module_used = i.alias.as_deref().is_some_and(|a| words.contains(a))
                || (i.names.is_empty()
                    && i.module
                        .rsplit(['.', '/', ':'])
                        .next()
                        .is_some_and(|m| words.contains(m)));
            if used.is_empty() && !module_used {
                continue;
            }
            match by_module.iter_mut().find(|(m, _)| *m == i.module) {
                Some((_, names)) => names.extend(used),
                None => by_module.push((i.module.clone(), used)),
            }
        }
        layer.imports = by_module
            .into_iter()
            .take(MAX_CONTEXT_ITEMS)
            .map(|(m, names)| {
                if names.is_empty() {
                    m
                } else {
                    format!("{m}: {}", names.join(", "))
                }
            })
            .collect();
        // Capitalized words that name a type the unit can see: in its file, imported,
        // or in its directory (package), in the same language.
        let own = sc.chunk.symbol.as_deref();
        let dir = lore_graph::dir_of(&sc.path);
        for w in words
            .iter()
            .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
            .take(40)
        {
            if Some(*w) == own {
                continue;
            }
            let defs = self.catalog.symbols_named(&[sc.store_id], w)?;
            let visible = |d: &&SymbolRow| {
                d.name == *w
                    && matches!(
                        d.kind,
                        ChunkKind::Class
                            | ChunkKind::Struct
                            | ChunkKind::Interface
                            | ChunkKind::Trait
                            | ChunkKind::Enum
                            | ChunkKind::Type
                    )
                    && lore_core::Language::from_path(std::path::Path::new(&d.path))
                        == sc.chunk.language
                    && (d.path == sc.path
                        || lore_graph::dir_of(&d.path) == dir
                        || imported_names.contains(*w))
            };
            if let Some(d) = defs.iter().find(visible) {
                layer.types.push(format!(
                    "{} {} ({}:{})",
                    d.kind.as_str(),
                    d.name,
                    d.path,
                    d.start_line
                ));
                if layer.types.len() >= MAX_CONTEXT_ITEMS {
                    break;
                }
            }
        }
        layer.usage = hood.map(Neighbourhood::usage);
        if let Some(c) = symbol.and_then(|s| s.container.as_ref()) {
            layer.related.push(c.clone());
        }
        if sc.chunk.kind == ChunkKind::Section {
            layer.related.extend(sc.chunk.headings.iter().cloned());
        }
        Ok(layer)
    }

    /// The whole unit (`lines`, put back together from its windows when the chunk is only
    /// part of it), its doc, callers, callees and tests.
    pub(crate) fn full_layer(
        &self,
        sc: &StoredChunk,
        symbol: Option<&SymbolRow>,
        hood: Option<&Neighbourhood>,
        lines: Lines,
        context: &mut ContextLayer,
    ) -> Result<FullLayer, EngineError> {
        let own = [sc.chunk.start_line, sc.chunk.end_line];
        let (content, truncated) = if own == lines {
            (sc.chunk.content.clone(), None)
        } else {
            let chunks = self.catalog.file_chunks(sc.store_id, &sc.path)?;
            unit::assemble(&chunks, lines, own)
        };
        let mut layer = FullLayer {
            content,
            truncated,
            doc: symbol
                .and_then(|s| s.doc.clone())
                .or_else(|| sc.chunk.doc.clone()),
            ..Default::default()
        };
        let Some(hood) = hood else {
            return Ok(layer);
        };
        layer.related = hood.related();
        for r in layer
            .related
            .callers
            .iter()
            .chain(&layer.related.callees)
            .take(5)
        {
            let short = r
                .name
                .rsplit(['.', ':'])
                .next()
                .unwrap_or(&r.name)
                .to_string();
            if !context.related.contains(&short) {
                context.related.push(short);
            }
        }
        Ok(layer)
    }
}

#[cfg(test)]
mod lead_in_tests {
    use super::lead_in;

    #[test]
    fn doc_comments_and_attributes_above_a_member_are_its_own() {
        let before = "class A {\n  x = 1\n\n  /**\n   * Waits.\n   */\n  @cached\n  ";
        let (from, lines) = lead_in(before);
        assert_eq!(
            (&before[from..], lines),
            ("  /**\n   * Waits.\n   */\n  @cached\n  ", 4)
        );
        let before = "impl S {\n    /* plain\n       block */\n    ";
        assert_eq!(lead_in(before).1, 2);
        // Code or a blank line above: nothing.
        assert_eq!(lead_in("  x = 1\n  "), (10, 0));
        assert_eq!(lead_in("  // far\n\n  "), (12, 0));
        assert_eq!(lead_in("x = f(a); "), (10, 0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_picks_the_matching_line() {
        let content = "fn a() {\n    let x = 1;\n    parse_json(body)\n}\n";
        let s = snippet(content, &query_words("parse json"));
        assert!(s.starts_with("    parse_json(body)"), "{s}");
        let s = snippet("\n\nhello\nworld", &query_words("zzz"));
        assert!(s.starts_with("hello"));
        assert_eq!(truncate_chars("ééé", 2), "éé…");
    }
}
